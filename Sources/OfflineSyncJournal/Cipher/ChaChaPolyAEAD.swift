/// The AEAD construction of RFC 8439 §2.8 over ``ChaCha20`` and ``Poly1305``, with a caller's nonce: the 12-byte
/// nonce of RFC 8439 (public) and the 24-byte nonce of XChaCha20-Poly1305 (for tests).
extension ChaChaPolyCipher {
    /// The longest plaintext one nonce can encrypt: 2^32 − 1 blocks of 64 bytes (RFC 8439 §2.8).
    static let maximumPlaintextLength: UInt64 = 274_877_906_880
    /// How many bytes are encrypted before they are authenticated, so that they are still in the cache.
    private static let chunkLength = 16 * 1024

    /// The bare AEAD with a caller's 12-byte nonce, for test vectors and interoperability.
    ///
    /// The caller must never use a nonce twice with one key. Throws ``CipherError`` for a key other than 32 bytes, a
    /// nonce other than 12 bytes or a plaintext longer than 274,877,906,880 bytes.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws
        -> (ciphertext: [UInt8], tag: [UInt8]) {
        try seal(plaintext, with: ChaCha20(key: key, nonce: nonce), associatedData: associatedData)
    }

    /// Checks `tag` and decrypts `ciphertext` that ``seal(_:key:nonce:associatedData:)`` returned.
    ///
    /// Throws ``CipherError/authenticationFailed`` when the tag does not match, before decrypting anything, and
    /// ``CipherError`` for a key, nonce or tag of the wrong length.
    public static func open(_ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8],
                            associatedData: [UInt8]) throws -> [UInt8] {
        try open(ciphertext, tag: tag, with: ChaCha20(key: key, nonce: nonce), associatedData: associatedData)
    }

    /// XChaCha20-Poly1305 with a caller's 24-byte nonce, as the instance ``seal(_:associatedData:)`` does with a
    /// random one: for test vectors.
    static func sealExtended(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws
        -> (ciphertext: [UInt8], tag: [UInt8]) {
        try seal(plaintext, with: extendedCipher(key: key, nonce: nonce), associatedData: associatedData)
    }

    /// Checks and decrypts what ``sealExtended(_:key:nonce:associatedData:)`` returned.
    static func openExtended(_ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8],
                             associatedData: [UInt8]) throws -> [UInt8] {
        try open(ciphertext, tag: tag, with: extendedCipher(key: key, nonce: nonce), associatedData: associatedData)
    }

    /// The ChaCha20 cipher of XChaCha20 for a 32-byte key and a 24-byte nonce.
    private static func extendedCipher(key: [UInt8], nonce: [UInt8]) throws -> ChaCha20 {
        guard key.count == 32 else { throw CipherError.wrongKeyLength(actual: key.count) }
        guard nonce.count == extendedNonceLength else {
            throw CipherError.wrongNonceLength(expected: extendedNonceLength, actual: nonce.count)
        }
        var words = SIMD8<UInt32>()
        for index in 0..<6 { words[index] = ChaCha20.word(nonce, at: 4 * index) }
        return HChaCha20.cipher(key: ChaCha20.words(key), nonce: words)
    }

    /// Throws ``CipherError/messageTooLong(length:)`` when `count` bytes are more than one nonce can encrypt.
    static func checkLength(_ count: Int) throws {
        guard UInt64(count) <= maximumPlaintextLength else { throw CipherError.messageTooLong(length: count) }
    }

    private static func seal(_ plaintext: [UInt8], with chacha: ChaCha20, associatedData: [UInt8]) throws
        -> (ciphertext: [UInt8], tag: [UInt8]) {
        try checkLength(plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagLength)
        let ciphertext = [UInt8](unsafeUninitializedCapacity: plaintext.count) { buffer, initialized in
            plaintext.withUnsafeBytes { plaintext in
                associatedData.withUnsafeBytes { associatedData in
                    tag.withUnsafeMutableBytes { tag in
                        seal(chacha, plaintext: plaintext, associatedData: associatedData,
                             into: UnsafeMutableRawBufferPointer(buffer), tag: tag)
                    }
                }
            }
            initialized = plaintext.count
        }
        return (ciphertext, tag)
    }

    private static func open(_ ciphertext: [UInt8], tag: [UInt8], with chacha: ChaCha20,
                             associatedData: [UInt8]) throws -> [UInt8] {
        guard tag.count == tagLength else { throw CipherError.wrongTagLength(actual: tag.count) }
        try checkLength(ciphertext.count)
        return try ciphertext.withUnsafeBytes { ciphertext in
            try tag.withUnsafeBytes { tag in
                try associatedData.withUnsafeBytes { associatedData in
                    try open(chacha, ciphertext: ciphertext, tag: tag, associatedData: associatedData)
                }
            }
        }
    }

    /// Encrypts `plaintext` into `ciphertext` (as long) and writes the 16-byte tag over `associatedData` and the
    /// ciphertext into `tag`. The caller checked the length.
    static func seal(_ chacha: ChaCha20, plaintext: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
                     into ciphertext: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer) {
        var poly = Poly1305(key: chacha.block(counter: 0).lowHalf)
        poly.absorbPadded(associatedData)
        if let input = plaintext.baseAddress, let output = ciphertext.baseAddress {
            var offset = 0
            var counter: UInt32 = 1
            while offset < plaintext.count {
                let length = min(chunkLength, plaintext.count - offset)
                chacha.xor(input + offset, into: output + offset, count: length, counter: counter)
                poly.absorbPadded(UnsafeRawBufferPointer(start: output + offset, count: length))
                offset += length
                counter &+= UInt32(truncatingIfNeeded: length / 64)
            }
        }
        poly.absorbLengths(associatedData.count, plaintext.count)
        if let tag = tag.baseAddress { Poly1305.store(poly.tag(), to: tag) }
    }

    /// Checks the 16-byte `tag` over `associatedData` and `ciphertext`, then decrypts `ciphertext`; throws
    /// ``CipherError/authenticationFailed`` before decrypting when the tag does not match.
    static func open(_ chacha: ChaCha20, ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer,
                     associatedData: UnsafeRawBufferPointer) throws -> [UInt8] {
        var poly = Poly1305(key: chacha.block(counter: 0).lowHalf)
        poly.absorbPadded(associatedData)
        poly.absorbPadded(ciphertext)
        poly.absorbLengths(associatedData.count, ciphertext.count)
        guard let expected = tag.baseAddress, tag.count == tagLength, Poly1305.tagsMatch(poly.tag(), expected) else {
            throw CipherError.authenticationFailed
        }
        return [UInt8](unsafeUninitializedCapacity: ciphertext.count) { buffer, initialized in
            if let input = ciphertext.baseAddress, let output = buffer.baseAddress {
                chacha.xor(input, into: output, count: ciphertext.count, counter: 1)
            }
            initialized = ciphertext.count
        }
    }
}
