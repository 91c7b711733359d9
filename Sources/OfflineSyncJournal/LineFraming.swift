import OfflineSyncCore
import OfflineSyncStore
/// The checksummed line every journal record and the manifest use:
/// `{"c":"<8 lowercase hex CRC-32C>",<rest of the JSON object>}\n`.
///
/// The checksum covers the bytes after the fixed 16-byte prefix `{"c":"xxxxxxxx",` up to, not including, the
/// newline.
enum LineFraming {
    /// The length of `{"c":"xxxxxxxx",`.
    static let prefixLength = 16

    /// Starts a line at the end of `buffer` with a placeholder checksum.
    static func begin(_ buffer: inout [UInt8]) {
        buffer.append(contentsOf: #"{"c":"00000000","#.utf8)
    }

    /// Computes the checksum of the line that starts at `lineStart` and ends at the end of `buffer`, writes it
    /// into the prefix, and appends the newline.
    static func seal(_ buffer: inout [UInt8], lineStart: Int) {
        let crc = CRC32C.checksum(buffer, from: lineStart + prefixLength)
        CRC32C.writeHex(crc, into: &buffer, at: lineStart + 6)
        buffer.append(0x0A)
    }

    /// Why `line` (without its newline) is not a well-framed line with a matching checksum, or nil when it is.
    static func problem(in line: UnsafeRawBufferPointer) -> String? {
        guard line.count > prefixLength else { return "the line is too short to be a record" }
        let opening: StaticString = #"{"c":""#
        for index in 0..<6 where line[index] != opening.utf8Start[index] {
            return "the line does not start with {\"c\":\""
        }
        guard line[14] == UInt8(ascii: "\""), line[15] == UInt8(ascii: ","),
              let stored = CRC32C.readHex(line, at: 6)
        else { return "the checksum field is not 8 lowercase hex digits" }
        let actual = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: line[prefixLength...]))
        if actual != stored {
            return "checksum mismatch (stored \(hex(stored)), computed \(hex(actual)))"
        }
        return nil
    }

    static func hex(_ value: UInt32) -> String {
        var buffer = [UInt8](repeating: 0, count: 8)
        CRC32C.writeHex(value, into: &buffer, at: 0)
        return String(decoding: buffer, as: UTF8.self)
    }
}
