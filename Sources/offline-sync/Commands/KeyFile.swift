import Foundation
import OfflineSync

/// `--key-file PATH`: the key of an encrypted store, for every command that opens one.
///
/// The file holds the 32-byte key itself, or its 64 hexadecimal digits (either case); whitespace around the digits
/// (a trailing newline) is ignored.
enum KeyFile {
    /// The option as the store commands declare it.
    static let option = CommandSpec.Option(
        name: "key-file", valueName: "PATH",
        help: "The key of an encrypted store: a file of 32 raw bytes or 64 hex digits.")

    /// The key identifier the tool's cipher carries: a store checks the key itself, not this name.
    static let keyIdentifier = "offline-sync --key-file"

    /// The cipher of the key file that `--key-file` names, or nil without the option.
    /// - Throws: ``CommandFailure`` when the file cannot be read or holds no 32-byte key.
    static func cipher(_ arguments: ParsedArguments) throws -> (any StoreCipher)? {
        guard let path = arguments.value(option.name) else { return nil }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read the key file \(path)")
        }
        guard let key = key(in: [UInt8](contents)) else {
            throw CommandFailure("the key file \(path) holds \(contents.count) bytes: it must hold the 32-byte key itself, or its 64 hex digits")
        }
        return try ChaChaPolyCipher(key: key, keyIdentifier: keyIdentifier)
    }

    /// The key in a key file's bytes: 32 bytes as they are, or 64 hex digits with whitespace around them.
    static func key(in bytes: [UInt8]) -> [UInt8]? {
        if bytes.count == 32 { return bytes }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let digits = bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard digits.count == 64 else { return nil }
        var key: [UInt8] = []
        var high: UInt8?
        for digit in digits {
            guard let value = hexValue(digit) else { return nil }
            if let first = high {
                key.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return key
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
