import Testing
@testable import OfflineSyncJournal
import OfflineSync

/// The test vectors of RFC 8439 (sections 2.3.2 to 2.8.2 and appendix A) and of draft-irtf-cfrg-xchacha §2.2.1.
struct RFC8439VectorTests {
    static let countingKey = [UInt8](0...31)
    static let aeadKey = [UInt8](0x80...0x9F)

    @Test func blockFunctionMatchesSection2_3_2() throws {
        let chacha = try ChaCha20(key: Self.countingKey, nonce: [UInt8](hexDigits: "000000090000004a00000000"))
        #expect(chacha.blockBytes(counter: 1).hexDigits == """
            10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
            d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e
            """)
    }

    @Test(arguments: [
        // A.1 #4: key 00 ff 00…, counter 2; A.1 #5: nonce 0…02, counter 0.
        ("00ff" + String(repeating: "00", count: 30), "000000000000000000000000", UInt32(2),
         "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096"),
        (String(repeating: "00", count: 32), "000000000000000000000002", UInt32(0),
         "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c78a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d"),
    ])
    func blockFunctionMatchesAppendixA1(key: String, nonce: String, counter: UInt32, keyStream: String) throws {
        let chacha = try ChaCha20(key: [UInt8](hexDigits: key), nonce: [UInt8](hexDigits: nonce))
        #expect(chacha.blockBytes(counter: counter).hexDigits == keyStream)
    }

    /// ChaCha20 itself, as the AEAD uses it, for a key, nonce, initial counter, plaintext and ciphertext.
    private func encrypt(_ plaintext: [UInt8], key: [UInt8], nonce: String, counter: UInt32) throws -> String {
        let chacha = try ChaCha20(key: key, nonce: [UInt8](hexDigits: nonce))
        var output = plaintext
        plaintext.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                if let input = input.baseAddress, let output = output.baseAddress {
                    chacha.xor(input, into: output, count: plaintext.count, counter: counter)
                }
            }
        }
        return output.hexDigits
    }

    @Test func encryptionMatchesSection2_4_2() throws {
        #expect(try encrypt(CipherText.sunscreen, key: Self.countingKey, nonce: "000000000000004a00000000", counter: 1) == """
            6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b357\
            1639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736\
            5af90bbf74a35be6b40b8eedf2785e42874d
            """)
    }

    @Test func encryptionMatchesAppendixA2() throws {
        #expect(try encrypt([UInt8](repeating: 0, count: 64), key: [UInt8](repeating: 0, count: 32),
                            nonce: "000000000000000000000000", counter: 0) == """
            76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7\
            da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586
            """)
        #expect(CipherText.jabberwocky.count == 127)
        #expect(try encrypt(CipherText.jabberwocky, key: CipherText.jabberwockyKey, nonce: "000000000000000000000002",
                            counter: 42) == """
            62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf166d3df2d721caf9b21e5fb14c616871\
            fd84c54f9d65b283196c7fe4f60553ebf39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f77\
            04c6a8d1bcd1bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1
            """)
    }

    @Test func poly1305MatchesSection2_5_2() {
        let key = [UInt8](hexDigits: "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
        #expect(Poly1305.authenticate(Array("Cryptographic Forum Research Group".utf8), key: key).hexDigits
            == "a8061dc1305136c6c22b8baf0c0127a9")
    }

    @Test func poly1305MatchesAppendixA3OnTexts() {
        #expect(Poly1305.authenticate([UInt8](repeating: 0, count: 64), key: [UInt8](repeating: 0, count: 32))
            == [UInt8](repeating: 0, count: 16))
        #expect(Poly1305.authenticate(CipherText.jabberwocky, key: CipherText.jabberwockyKey).hexDigits
            == "4541669a7eaaee61e708dc7cbcc5eb62")
    }

    /// A.3 #5 to #11: the edge cases of the reduction modulo 2^130 − 5 and of the carries, as r, s, data and tag.
    static let poly1305EdgeCases: [(r: String, s: String, data: String, tag: String)] = [
        ("02" + zeros(15), zeros(16), repeated("ff", 16), "03" + zeros(15)),
        ("02" + zeros(15), repeated("ff", 16), "02" + zeros(15), "03" + zeros(15)),
        ("01" + zeros(15), zeros(16), repeated("ff", 16) + "f0" + repeated("ff", 15) + "11" + zeros(15), "05" + zeros(15)),
        ("01" + zeros(15), zeros(16), repeated("ff", 16) + "fb" + repeated("fe", 15) + repeated("01", 16), zeros(16)),
        ("02" + zeros(15), zeros(16), "fd" + repeated("ff", 15), "fa" + repeated("ff", 15)),
        ("01" + zeros(7) + "04" + zeros(7), zeros(16),
         "e33594d7505e43b9" + zeros(8) + "3394d7505e4379cd01" + zeros(7) + zeros(16) + "01" + zeros(15),
         "14" + zeros(7) + "55" + zeros(7)),
        ("01" + zeros(7) + "04" + zeros(7), zeros(16),
         "e33594d7505e43b9" + zeros(8) + "3394d7505e4379cd01" + zeros(7) + zeros(16), "13" + zeros(15)),
    ]

    @Test(arguments: poly1305EdgeCases)
    func poly1305MatchesAppendixA3EdgeCases(r: String, s: String, data: String, tag: String) {
        #expect(Poly1305.authenticate([UInt8](hexDigits: data), key: [UInt8](hexDigits: r + s)).hexDigits == tag)
    }

    /// §2.6.2, then A.4 #1 to #3: key, nonce and one-time Poly1305 key.
    static let oneTimeKeys: [(key: String, nonce: String, oneTimeKey: String)] = [
        ("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f", "000000000001020304050607",
         "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646"),
        (zeros(32), zeros(12), "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"),
        (zeros(31) + "01", zeros(11) + "02", "ecfa254f845f647473d3cb140da9e87606cb33066c447b87bc2666dde3fbb739"),
        ("1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0", zeros(11) + "02",
         "965e3bc6f9ec7ed9560808f4d229f94b137ff275ca9b3fcbdd59deaad23310ae"),
    ]

    @Test(arguments: oneTimeKeys)
    func poly1305KeyGenerationMatchesSection2_6_2AndAppendixA4(key: String, nonce: String, oneTimeKey: String) throws {
        let chacha = try ChaCha20(key: [UInt8](hexDigits: key), nonce: [UInt8](hexDigits: nonce))
        #expect(Array(chacha.blockBytes(counter: 0).prefix(32)).hexDigits == oneTimeKey)
    }

    @Test func aeadMatchesSection2_8_2() throws {
        let nonce = [UInt8](hexDigits: "070000004041424344454647"), aad = [UInt8](hexDigits: "50515253c0c1c2c3c4c5c6c7")
        let sealed = try ChaChaPolyCipher.seal(CipherText.sunscreen, key: Self.aeadKey, nonce: nonce, associatedData: aad)
        #expect(sealed.ciphertext.hexDigits == """
            d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b\
            1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc\
            3ff4def08e4b7a9de576d26586cec64b6116
            """)
        #expect(sealed.tag.hexDigits == "1ae10b594f09e26a7e902ecbd0600691")
        let opened = try ChaChaPolyCipher.open(sealed.ciphertext, tag: sealed.tag, key: Self.aeadKey, nonce: nonce,
                                               associatedData: aad)
        #expect(opened == CipherText.sunscreen)
    }

    @Test func hChaCha20MatchesTheXChaChaDraft() {
        let nonce = [UInt8](hexDigits: "000000090000004a0000000031415927")
        let subkey = HChaCha20.subkey(key: ChaCha20.words(Self.countingKey),
                                      nonce: SIMD4((0..<4).map { ChaCha20.word(nonce, at: 4 * $0) }))
        let bytes = (0..<32).map { UInt8(truncatingIfNeeded: subkey[$0 / 4] >> (8 * UInt32($0 % 4))) }
        #expect(bytes.hexDigits == "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc")
    }

    /// The key stream is the same whether bytes go through two blocks at a time, one block or the byte tail, and
    /// whatever the split: each length against blocks computed one at a time.
    @Test func keyStreamDoesNotDependOnTheMessageLength() throws {
        let chacha = try ChaCha20(key: Self.aeadKey, nonce: [UInt8](hexDigits: "000102030405060708090a0b"))
        let reference = (0..<8).flatMap { chacha.blockBytes(counter: 5 + UInt32($0)) }
        for length in [0, 1, 15, 16, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, 300, 511, 512] {
            var stream = [UInt8](repeating: 0, count: length)
            stream.withUnsafeMutableBytes { bytes in
                if let base = bytes.baseAddress { chacha.xor(base, into: base, count: length, counter: 5) }
            }
            #expect(stream == Array(reference.prefix(length)), "length \(length)")
        }
    }
}

/// `count` zero bytes as hex digits.
private func zeros(_ count: Int) -> String { String(repeating: "00", count: count) }

/// The byte `digits` repeated `count` times, as hex digits.
private func repeated(_ digits: String, _ count: Int) -> String { String(repeating: digits, count: count) }
