import OfflineSyncCore
import OfflineSyncStore
/// One line of a journal file: the header record that starts every journal, or the record of one `apply`.
///
/// Line layout (Docs/JournalFormat.md):
/// `{"c":"<crc>","s":<sequence>,"g":<generation>,"k":"hdr"|"apply","p":<payload>}\n`.
struct JournalRecord: Sendable {
    /// What a record holds.
    enum Body: Sendable {
        /// The header: format version and the sequence number the journal continues from.
        case header(format: Int64, baseSequence: Int64)
        /// One batch of changes.
        case apply([StoreChange])
    }

    /// More than the bytes an apply record adds around its payload: the checksum, `s`, `g` and `k` (at most 20
    /// digits each), the closing brace and the newline.
    static let envelopeBytes = 96

    /// The journal format version this code writes and reads.
    static let formatVersion: Int64 = 1

    var sequence: Int64
    var generation: Int64
    var body: Body

    /// Appends one apply record (line and newline) whose payload bytes are already encoded.
    static func appendApply(sequence: Int64, generation: Int64, payload: [UInt8], into buffer: inout [UInt8]) {
        appendApply(sequence: sequence, generation: generation, into: &buffer) { $0.append(contentsOf: payload) }
    }

    /// Appends one apply record (line and newline) whose payload `writePayload` appends in place, so that the
    /// payload is never copied; returns the payload's length in bytes.
    /// - Throws: what `writePayload` throws, with `buffer` then holding part of the record.
    @discardableResult
    static func appendApply<Failure: Error>(sequence: Int64, generation: Int64, into buffer: inout [UInt8],
                                            payload writePayload: (inout [UInt8]) throws(Failure) -> Void) throws(Failure) -> Int {
        let start = buffer.count
        LineFraming.begin(&buffer)
        appendEnvelope(sequence: sequence, generation: generation, kind: "apply", into: &buffer)
        let payloadStart = buffer.count
        try writePayload(&buffer)
        let payloadBytes = buffer.count - payloadStart
        buffer.append(UInt8(ascii: "}"))
        LineFraming.seal(&buffer, lineStart: start)
        return payloadBytes
    }

    /// The header line of the journal of `generation`, continuing from `baseSequence`.
    static func headerLine(generation: Int64, baseSequence: Int64) -> [UInt8] {
        var buffer: [UInt8] = []
        LineFraming.begin(&buffer)
        appendEnvelope(sequence: baseSequence, generation: generation, kind: "hdr", into: &buffer)
        buffer.append(contentsOf: #"{"format":\#(formatVersion),"baseSeq":\#(baseSequence),"writer":"OfflineSync \#(OfflineSyncVersion.current)"}}"#.utf8)
        LineFraming.seal(&buffer, lineStart: 0)
        return buffer
    }

    private static func appendEnvelope(sequence: Int64, generation: Int64, kind: String, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: #""s":"#.utf8)
        JSONWriter.appendDecimal(sequence, into: &buffer)
        buffer.append(contentsOf: #","g":"#.utf8)
        JSONWriter.appendDecimal(generation, into: &buffer)
        buffer.append(contentsOf: #","k":""#.utf8)
        buffer.append(contentsOf: kind.utf8)
        buffer.append(contentsOf: #"","p":"#.utf8)
    }

    /// Decodes a line without its newline.
    /// - Returns: the record, or why the line is not a valid record (bad framing, checksum, JSON or shape).
    static func decode(_ line: UnsafeRawBufferPointer) -> Result<JournalRecord, RecordProblem> {
        if let problem = LineFraming.problem(in: line) { return .failure(.damaged(problem)) }
        let value: JSONValue
        switch JSONReader.result(line.assumingMemoryBound(to: UInt8.self)) {
        case .success(let parsed): value = parsed
        case .failure(let error): return .failure(.damaged("the record is not valid JSON: \(error.description)"))
        }
        guard case .object(let object) = value, case .int(let sequence)? = object["s"],
              case .int(let generation)? = object["g"], case .string(let kind)? = object["k"], let payload = object["p"]
        else { return .failure(.damaged("the record lacks its \"s\", \"g\", \"k\" or \"p\" field")) }
        switch kind {
        case "hdr":
            guard case .object(let header) = payload, case .int(let format)? = header["format"] else {
                return .failure(.damaged("the header record has no format version"))
            }
            guard format == formatVersion else { return .failure(.unsupportedFormat(format)) }
            guard case .int(let base)? = header["baseSeq"] else {
                return .failure(.damaged("the header record has no baseSeq"))
            }
            return .success(JournalRecord(sequence: sequence, generation: generation, body: .header(format: format, baseSequence: base)))
        case "apply":
            guard let changes = JournalPayload.changes(from: payload) else {
                return .failure(.damaged("the apply record's payload does not have the documented shape"))
            }
            return .success(JournalRecord(sequence: sequence, generation: generation, body: .apply(changes)))
        default:
            return .failure(.damaged("unknown record kind \"\(kind)\" in a format \(formatVersion) journal"))
        }
    }
}

/// Why a journal line is not a usable record.
enum RecordProblem: Error, Sendable, Hashable {
    /// Bad framing, checksum, JSON or shape.
    case damaged(String)
    /// A header naming a format version this code does not know.
    case unsupportedFormat(Int64)
}
