@testable import OfflineSyncJournal

extension Array where Element == UInt8 {
    /// The bytes of `hex`, two digits each; spaces, colons and new lines between them are ignored.
    init(hexDigits hex: String) {
        let digits = hex.unicodeScalars.compactMap { UInt8(String($0), radix: 16) }
        precondition(digits.count % 2 == 0, "an odd number of hex digits")
        self = stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// The bytes as lower-case hex digits.
    var hexDigits: String {
        let letters = Array("0123456789abcdef".utf8)
        return String(decoding: flatMap { [letters[Int($0 >> 4)], letters[Int($0 & 15)]] }, as: UTF8.self)
    }
}

enum CipherText {
    /// RFC 8439's plaintext of §2.4.2 and §2.8.2.
    static let sunscreen = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
    /// RFC 8439's plaintext of A.2 #3 and A.3 #4.
    static let jabberwocky = Array("'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\nAll mimsy were the borogoves,\nAnd the mome raths outgrabe.".utf8)
    /// A.2 #3's and A.3 #4's key.
    static let jabberwockyKey = [UInt8](hexDigits: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0")
}
