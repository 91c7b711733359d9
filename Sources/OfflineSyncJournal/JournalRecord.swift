import OfflineSyncCore
import OfflineSyncStore
/// One line of a journal file: the header record that starts every journal, or the record of one `apply`.
///
/// Line layout (Docs/JournalFormat.md):
/// `{"c":"<crc>","s":<sequence>,"g":<generation>,"k":"hdr"|"apply","d":<durable end>,"p":<payload>}\n` (`d` in apply
/// records only, and absent from those older writers wrote); in an encrypted store an
/// apply record carries `"e":"<base64 of the sealed payload>"` instead of `"p"`, and the header names the key
/// (`"cipher":"<key identifier>"` in its payload).
struct JournalRecord: Sendable {
    /// What a record holds.
    enum Body: Sendable {
        /// The header: format version, the sequence number the journal continues from, and the identifier of the
        /// key its records are sealed with (nil: plaintext records).
        case header(format: Int64, baseSequence: Int64, keyIdentifier: String?)
        /// One batch of changes.
        case apply([StoreChange])
    }

    /// More than the bytes an apply record adds around its payload: the checksum, `s`, `g`, `k` and `d` (at most 20
    /// digits each), the closing brace and the newline.
    static let envelopeBytes = 120

    /// The journal format version this code writes and reads.
    static let formatVersion: Int64 = 1

    var sequence: Int64
    var generation: Int64
    var body: Body
    /// An apply record's `d`: the byte offset up to which its writer knew the journal durable (synced) when it
    /// wrote the record; nil when the record has none (older writers, and the header).
    var durableEnd: Int64?

    /// Appends one apply record (line and newline) whose payload bytes are already encoded; `durableEnd` is its
    /// `d` (none when nil).
    static func appendApply(sequence: Int64, generation: Int64, durableEnd: Int64? = nil, payload: [UInt8], into buffer: inout [UInt8]) {
        appendApply(sequence: sequence, generation: generation, durableEnd: durableEnd, into: &buffer) { $0.append(contentsOf: payload) }
    }

    /// Appends one apply record (line and newline) whose payload `writePayload` appends in place, so that the
    /// payload is never copied; returns the payload's length in bytes. `durableEnd` is its `d` (none when nil).
    /// - Throws: what `writePayload` throws, with `buffer` then holding part of the record.
    @discardableResult
    static func appendApply<Failure: Error>(sequence: Int64, generation: Int64, durableEnd: Int64? = nil, into buffer: inout [UInt8],
                                            payload writePayload: (inout [UInt8]) throws(Failure) -> Void) throws(Failure) -> Int {
        let start = buffer.count
        LineFraming.begin(&buffer)
        appendEnvelope(sequence: sequence, generation: generation, kind: "apply", durableEnd: durableEnd, into: &buffer)
        let payloadStart = buffer.count
        try writePayload(&buffer)
        let payloadBytes = buffer.count - payloadStart
        buffer.append(UInt8(ascii: "}"))
        LineFraming.seal(&buffer, lineStart: start)
        return payloadBytes
    }

    /// Appends one apply record whose payload is sealed by `sealing`: `"e"` holds the sealed bytes in base64, bound
    /// to `sequence` and `generation` (``JournalSealing``); `durableEnd` is its `d` (none when nil), in plaintext.
    static func appendSealedApply(sequence: Int64, generation: Int64, durableEnd: Int64? = nil, payload: [UInt8], sealing: JournalSealing,
                                  into buffer: inout [UInt8]) throws(JournalError) {
        let sealed = try sealing.sealRecord(payload, sequence: sequence, generation: generation)
        let start = buffer.count
        LineFraming.begin(&buffer)
        appendEnvelope(sequence: sequence, generation: generation, kind: "apply", durableEnd: durableEnd, payloadKey: "e", into: &buffer)
        buffer.append(UInt8(ascii: "\""))
        Base64.append(sealed, to: &buffer)
        buffer.append(contentsOf: "\"}".utf8)
        LineFraming.seal(&buffer, lineStart: start)
    }

    /// The size of the record ``appendSealedApply(sequence:generation:payload:sealing:into:)`` writes for a payload of
    /// `payloadBytes` bytes, at most (with ``envelopeBytes``).
    static func sealedRecordBytes(payloadBytes: Int) -> Int {
        Base64.encodedLength(payloadBytes + 64) + envelopeBytes
    }

    /// Appends apply records for `payloads`, numbered from `firstSequence` on, sealed when `sealing` is set, each
    /// with `durableEnd` as its `d`.
    static func appendApplies(_ payloads: [[UInt8]], firstSequence: Int64, generation: Int64, durableEnd: Int64? = nil,
                              sealing: JournalSealing?, into buffer: inout [UInt8]) throws(JournalError) {
        var sequence = firstSequence
        for payload in payloads {
            if let sealing {
                try appendSealedApply(sequence: sequence, generation: generation, durableEnd: durableEnd, payload: payload,
                                      sealing: sealing, into: &buffer)
            } else {
                appendApply(sequence: sequence, generation: generation, durableEnd: durableEnd, payload: payload, into: &buffer)
            }
            sequence += 1
        }
    }

    /// The header line of the journal of `generation`, continuing from `baseSequence`; `keyIdentifier` names the
    /// key its records are sealed with (nil: plaintext).
    static func headerLine(generation: Int64, baseSequence: Int64, keyIdentifier: String? = nil) -> [UInt8] {
        var buffer: [UInt8] = []
        LineFraming.begin(&buffer)
        appendEnvelope(sequence: baseSequence, generation: generation, kind: "hdr", into: &buffer)
        buffer.append(contentsOf: #"{"format":\#(formatVersion),"baseSeq":\#(baseSequence),"writer":"OfflineSync \#(OfflineSyncVersion.current)""#.utf8)
        if let keyIdentifier {
            buffer.append(contentsOf: #","cipher":"#.utf8)
            JSONWriter().writeString(keyIdentifier, into: &buffer)
        }
        buffer.append(contentsOf: "}}".utf8)
        LineFraming.seal(&buffer, lineStart: 0)
        return buffer
    }

    private static func appendEnvelope(sequence: Int64, generation: Int64, kind: String, durableEnd: Int64? = nil,
                                       payloadKey: String = "p", into buffer: inout [UInt8]) {
        buffer.append(contentsOf: #""s":"#.utf8)
        JSONWriter.appendDecimal(sequence, into: &buffer)
        buffer.append(contentsOf: #","g":"#.utf8)
        JSONWriter.appendDecimal(generation, into: &buffer)
        buffer.append(contentsOf: #","k":""#.utf8)
        buffer.append(contentsOf: kind.utf8)
        if let durableEnd {
            buffer.append(contentsOf: #"","d":"#.utf8)
            JSONWriter.appendDecimal(durableEnd, into: &buffer)
            buffer.append(contentsOf: #",""#.utf8)
        } else {
            buffer.append(contentsOf: #"",""#.utf8)
        }
        buffer.append(contentsOf: payloadKey.utf8)
        buffer.append(contentsOf: #"":"#.utf8)
    }

    /// Decodes a line without its newline; `sealing` opens the sealed payloads of an encrypted store's records (and
    /// without it a sealed record is damage: the header, checked first, says whether the journal is sealed).
    /// - Returns: the record, or why the line is not a valid record (bad framing, checksum, JSON or shape, or a
    ///   sealed payload that fails authentication).
    static func decode(_ line: UnsafeRawBufferPointer, sealing: JournalSealing? = nil) -> Result<JournalRecord, RecordProblem> {
        if let problem = LineFraming.problem(in: line) { return .failure(.damaged(problem)) }
        let value: JSONValue
        switch JSONReader.result(line.assumingMemoryBound(to: UInt8.self)) {
        case .success(let parsed): value = parsed
        case .failure(let error): return .failure(.damaged("the record is not valid JSON: \(error.description)"))
        }
        guard case .object(let object) = value, case .int(let sequence)? = object["s"],
              case .int(let generation)? = object["g"], case .string(let kind)? = object["k"]
        else { return .failure(.damaged("the record lacks its \"s\", \"g\" or \"k\" field")) }
        let durableEnd: Int64?
        switch object["d"] {
        case nil: durableEnd = nil
        case .int(let end)? where kind == "apply" && end >= 0: durableEnd = end
        default: return .failure(.damaged("the record's \"d\" is not the byte offset of an apply record's durable end"))
        }
        if kind == "apply", let sealing {
            guard object["p"] == nil, case .string(let text)? = object["e"] else {
                return .failure(.unauthentic("the apply record of an encrypted store carries no sealed payload \"e\""))
            }
            var record = openSealed(text, sequence: sequence, generation: generation, sealing: sealing)
            if case .success(var opened) = record {
                opened.durableEnd = durableEnd
                record = .success(opened)
            }
            return record
        }
        guard let payload = object["p"] else {
            if kind == "apply", object["e"] != nil {
                return .failure(.unauthentic("a sealed apply record in a journal whose header names no key"))
            }
            return .failure(.damaged("the record lacks its \"p\" field"))
        }
        switch kind {
        case "hdr":
            guard case .object(let header) = payload, case .int(let format)? = header["format"] else {
                return .failure(.damaged("the header record has no format version"))
            }
            guard format == formatVersion else { return .failure(.unsupportedFormat(format)) }
            guard case .int(let base)? = header["baseSeq"] else {
                return .failure(.damaged("the header record has no baseSeq"))
            }
            var key: String?
            switch header["cipher"] {
            case nil: key = nil
            case .string(let identifier)?: key = identifier
            default: return .failure(.damaged("the header record's \"cipher\" is not a key identifier"))
            }
            return .success(JournalRecord(sequence: sequence, generation: generation,
                                          body: .header(format: format, baseSequence: base, keyIdentifier: key)))
        case "apply":
            guard let changes = JournalPayload.changes(from: payload) else {
                return .failure(.damaged("the apply record's payload does not have the documented shape"))
            }
            return .success(JournalRecord(sequence: sequence, generation: generation, body: .apply(changes), durableEnd: durableEnd))
        default:
            return .failure(.damaged("unknown record kind \"\(kind)\" in a format \(formatVersion) journal"))
        }
    }
}

/// Why a journal line is not a usable record.
enum RecordProblem: Error, Sendable, Hashable {
    /// Bad framing, checksum, JSON or shape.
    case damaged(String)
    /// A line with a valid checksum whose sealing is wrong: its sealed payload fails authentication, or it is not
    /// sealed in a sealed journal. Never a torn write (the checksum matched), so corruption wherever it is.
    case unauthentic(String)
    /// A header naming a format version this code does not know.
    case unsupportedFormat(Int64)
}

extension JournalRecord {
    /// The apply record `sequence` of the journal of `generation` whose sealed payload is the base64 `text`.
    private static func openSealed(_ text: String, sequence: Int64, generation: Int64,
                                   sealing: JournalSealing) -> Result<JournalRecord, RecordProblem> {
        guard let sealed = Base64.decode(text.utf8) else {
            return .failure(.unauthentic("the sealed payload is not base64"))
        }
        guard let payloadBytes = sealing.openRecord(sealed, sequence: sequence, generation: generation) else {
            return .failure(.unauthentic("the sealed payload fails authentication (changed on disk, moved from another record, or sealed under another key)"))
        }
        let parsed = payloadBytes.withUnsafeBufferPointer { JSONReader.result($0) }
        guard case .success(let payload) = parsed, let changes = JournalPayload.changes(from: payload) else {
            return .failure(.unauthentic("the opened payload does not have the documented shape"))
        }
        return .success(JournalRecord(sequence: sequence, generation: generation, body: .apply(changes)))
    }
}
