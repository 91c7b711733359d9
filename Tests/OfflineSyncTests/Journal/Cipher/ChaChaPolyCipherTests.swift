import Testing
@testable import OfflineSyncJournal
import OfflineSync

/// The instance API that a store uses: XChaCha20-Poly1305 with a random nonce, in the sealed layout of
/// ``ChaChaPolyCipher``.
struct ChaChaPolyCipherTests {
    static let key = [UInt8]((0..<32).map { UInt8($0 &* 7 &+ 3) })
    static let cipher: ChaChaPolyCipher = {
        do { return try ChaChaPolyCipher(key: key, keyIdentifier: "store-key-1") } catch { fatalError("\(error)") }
    }()
    static let associatedData = Array("journal 7, record 42".utf8)

    @Test(arguments: [0, 1, 15, 16, 63, 64, 65, 127, 128, 129, 1_000, 16_384, 16_385, 100_000])
    func sealedBytesOpenToThePlaintext(length: Int) throws {
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let sealed = try Self.cipher.seal(plaintext, associatedData: Self.associatedData)
        #expect(sealed.count == length + 41)
        #expect(sealed.first == 0x01)
        #expect(try Self.cipher.open(sealed, associatedData: Self.associatedData) == plaintext)
    }

    @Test func emptyPlaintextAndEmptyAssociatedDataWork() throws {
        for associatedData in [[], Self.associatedData] {
            let sealed = try Self.cipher.seal([], associatedData: associatedData)
            #expect(sealed.count == 41)
            #expect(try Self.cipher.open(sealed, associatedData: associatedData) == [])
        }
    }

    /// The layout is format byte, 24-byte nonce, ciphertext, tag: the XChaCha20-Poly1305 AEAD with that nonce.
    @Test func sealedBytesAreXChaCha20Poly1305WithTheNonceInFront() throws {
        let plaintext = Array("the layout of a sealed message".utf8)
        let sealed = try Self.cipher.seal(plaintext, associatedData: Self.associatedData)
        let nonce = Array(sealed[1..<25]), ciphertext = Array(sealed[25..<(sealed.count - 16)])
        let tag = Array(sealed.suffix(16))
        #expect(try ChaChaPolyCipher.openExtended(ciphertext, tag: tag, key: Self.key, nonce: nonce,
                                                  associatedData: Self.associatedData) == plaintext)
        let again = try ChaChaPolyCipher.sealExtended(plaintext, key: Self.key, nonce: nonce, associatedData: Self.associatedData)
        #expect(again.ciphertext == ciphertext && again.tag == tag)
    }

    @Test func twoSealsOfTheSamePlaintextDiffer() throws {
        let plaintext = [UInt8](repeating: 0x41, count: 100)
        let first = try Self.cipher.seal(plaintext, associatedData: [])
        let second = try Self.cipher.seal(plaintext, associatedData: [])
        #expect(first[1..<25] != second[1..<25], "fresh nonce")
        #expect(first[25...] != second[25...])
        var nonces: Set<[UInt8]> = []
        for _ in 0..<1_000 { nonces.insert(Array(try Self.cipher.seal([], associatedData: [])[1..<25])) }
        #expect(nonces.count == 1_000)
    }

    @Test func everyFlippedBitOfTheSealedBytesIsRefused() throws {
        let sealed = try Self.cipher.seal(Array("twenty bytes of text".utf8), associatedData: Self.associatedData)
        for index in sealed.indices {
            for bit in 0..<8 {
                var damaged = sealed
                damaged[index] ^= 1 << bit
                let expected = index == 0 ? CipherError.unknownFormat(damaged[0]) : CipherError.authenticationFailed
                #expect(throws: expected, "byte \(index) bit \(bit)") {
                    _ = try Self.cipher.open(damaged, associatedData: Self.associatedData)
                }
            }
        }
    }

    @Test func everyFlippedBitOfTheAssociatedDataIsRefused() throws {
        let sealed = try Self.cipher.seal(Array("some text".utf8), associatedData: Self.associatedData)
        for index in Self.associatedData.indices {
            for bit in 0..<8 {
                var damaged = Self.associatedData
                damaged[index] ^= 1 << bit
                #expect(throws: CipherError.authenticationFailed) { _ = try Self.cipher.open(sealed, associatedData: damaged) }
            }
        }
        #expect(throws: CipherError.authenticationFailed) { _ = try Self.cipher.open(sealed, associatedData: []) }
        #expect(throws: CipherError.authenticationFailed) {
            _ = try Self.cipher.open(sealed, associatedData: Self.associatedData + [0])
        }
    }

    @Test func anotherKeyIsRefused() throws {
        let sealed = try Self.cipher.seal(Array("secret".utf8), associatedData: [])
        var otherKey = Self.key
        otherKey[31] ^= 0x80
        let other = try ChaChaPolyCipher(key: otherKey, keyIdentifier: Self.cipher.keyIdentifier)
        #expect(throws: CipherError.authenticationFailed) { _ = try other.open(sealed, associatedData: []) }
        let sameKeyOtherName = try ChaChaPolyCipher(key: Self.key, keyIdentifier: "renamed")
        #expect(try sameKeyOtherName.open(sealed, associatedData: []) == Array("secret".utf8))
    }

    @Test func truncatedOrExtendedSealedBytesAreRefused() throws {
        let sealed = try Self.cipher.seal(Array("a message of some length".utf8), associatedData: [])
        #expect(throws: CipherError.truncated(length: 0, minimum: 41)) { _ = try Self.cipher.open([], associatedData: []) }
        for length in 1..<41 {
            #expect(throws: CipherError.truncated(length: length, minimum: 41)) {
                _ = try Self.cipher.open(Array(sealed.prefix(length)), associatedData: [])
            }
        }
        for length in 41..<sealed.count {
            #expect(throws: CipherError.authenticationFailed) {
                _ = try Self.cipher.open(Array(sealed.prefix(length)), associatedData: [])
            }
        }
        #expect(throws: CipherError.authenticationFailed) { _ = try Self.cipher.open(sealed + [0], associatedData: []) }
    }

    @Test func anUnknownFormatByteIsRefused() throws {
        var sealed = try Self.cipher.seal([1, 2, 3], associatedData: [])
        sealed[0] = 0x02
        #expect(throws: CipherError.unknownFormat(0x02)) { _ = try Self.cipher.open(sealed, associatedData: []) }
    }

    @Test func aKeyOfTheWrongLengthThrows() {
        for length in [0, 16, 31, 33, 64] {
            let key = [UInt8](repeating: 1, count: length)
            #expect(throws: CipherError.wrongKeyLength(actual: length)) { _ = try ChaChaPolyCipher(key: key, keyIdentifier: "k") }
            #expect(throws: CipherError.wrongKeyLength(actual: length)) {
                _ = try ChaChaPolyCipher.seal([], key: key, nonce: [UInt8](repeating: 0, count: 12), associatedData: [])
            }
            #expect(throws: CipherError.wrongKeyLength(actual: length)) {
                _ = try ChaChaPolyCipher.open([], tag: [UInt8](repeating: 0, count: 16), key: key,
                                              nonce: [UInt8](repeating: 0, count: 12), associatedData: [])
            }
        }
    }

    @Test func theBareAEADRefusesWrongNonceAndTagLengths() {
        #expect(throws: CipherError.wrongNonceLength(expected: 12, actual: 24)) {
            _ = try ChaChaPolyCipher.seal([], key: Self.key, nonce: [UInt8](repeating: 0, count: 24), associatedData: [])
        }
        #expect(throws: CipherError.wrongTagLength(actual: 15)) {
            _ = try ChaChaPolyCipher.open([], tag: [UInt8](repeating: 0, count: 15), key: Self.key,
                                          nonce: [UInt8](repeating: 0, count: 12), associatedData: [])
        }
    }

    @Test func theKeyIdentifierIsTheCallersStringAndTheKeyNeverShows() {
        #expect(Self.cipher.keyIdentifier == "store-key-1")
        var dumped = ""
        dump(Self.cipher, to: &dumped)
        for text in [String(describing: Self.cipher), String(reflecting: Self.cipher), dumped] {
            #expect(text.contains("store-key-1"))
            for word in ChaCha20.words(Self.key).indices.map({ ChaCha20.words(Self.key)[$0] }) {
                #expect(!text.contains(String(word)) && !text.contains(String(word, radix: 16)), "\(text)")
            }
        }
    }

    @Test func errorsSayWhatToDo() {
        let errors: [CipherError] = [.wrongKeyLength(actual: 5), .wrongNonceLength(expected: 24, actual: 12),
                                     .wrongTagLength(actual: 3), .messageTooLong(length: 1 << 40),
                                     .truncated(length: 7, minimum: 41), .unknownFormat(9), .authenticationFailed]
        for error in errors {
            #expect(error.description.count > 60 && error.description.contains(";"), "\(error)")
        }
        #expect(CipherError.wrongKeyLength(actual: 5).description.contains("5 bytes"))
        #expect(CipherError.unknownFormat(9).description.contains("format byte 9"))
    }
}
