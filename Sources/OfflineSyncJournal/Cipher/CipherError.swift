/// Why a ``StoreCipher`` could not seal or open bytes.
public enum CipherError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key is not 32 bytes long; `actual` is the length given.
    case wrongKeyLength(actual: Int)
    /// The nonce is not `expected` bytes long; `actual` is the length given.
    case wrongNonceLength(expected: Int, actual: Int)
    /// The tag is not 16 bytes long; `actual` is the length given.
    case wrongTagLength(actual: Int)
    /// The plaintext is longer than the 274,877,906,880 bytes (2^38 − 64) that one ChaCha20 nonce can encrypt.
    case messageTooLong(length: Int)
    /// The sealed bytes are shorter than the format byte, nonce and tag that every sealed message carries.
    case truncated(length: Int, minimum: Int)
    /// The sealed bytes start with a format byte that this version does not know.
    case unknownFormat(UInt8)
    /// The tag does not match: the sealed bytes or the associated data were changed, or the key is another one.
    case authenticationFailed

    /// A sentence saying what went wrong and what to do.
    public var description: String {
        switch self {
        case .wrongKeyLength(let actual):
            "The cipher key is \(actual) bytes long, but ChaCha20-Poly1305 needs exactly 32 bytes; pass a 32-byte key (for example 32 bytes from a system random source or a key derivation function)."
        case .wrongNonceLength(let expected, let actual):
            "The nonce is \(actual) bytes long, but this construction needs exactly \(expected) bytes; pass a nonce of \(expected) bytes."
        case .wrongTagLength(let actual):
            "The authentication tag is \(actual) bytes long, but ChaCha20-Poly1305 tags are exactly 16 bytes; pass the whole tag that seal returned."
        case .messageTooLong(let length):
            "The plaintext is \(length) bytes long, more than the 274877906880 bytes ChaCha20-Poly1305 can encrypt under one nonce; split it into smaller messages."
        case .truncated(let length, let minimum):
            "The sealed bytes are \(length) bytes long, shorter than the \(minimum) bytes every sealed message has; the data is truncated or is not a sealed message."
        case .unknownFormat(let byte):
            "The sealed bytes start with format byte \(byte), which this version of OfflineSync does not know; the data was sealed by a newer version or is not a sealed message."
        case .authenticationFailed:
            "The sealed bytes failed authentication: they or their associated data were changed, or they were sealed under another key; check that the right key is used, otherwise the data is damaged."
        }
    }
}
