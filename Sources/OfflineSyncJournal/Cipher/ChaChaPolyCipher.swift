/// ChaCha20-Poly1305 (RFC 8439) in Swift, no dependency.
///
/// The instance methods seal with XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha): a fresh random 24-byte nonce per
/// call, from `SystemRandomNumberGenerator`; HChaCha20 of the key and the nonce's first 16 bytes gives a subkey, and
/// the RFC 8439 AEAD runs under it with the nonce 4 zero bytes ‖ the nonce's last 8 bytes. The sealed bytes are
///
///     offset 0        1 byte    format, 0x01
///     offset 1        24 bytes  nonce
///     offset 25       n bytes   ciphertext (as long as the plaintext)
///     offset 25 + n   16 bytes  Poly1305 tag over the associated data and the ciphertext
///
/// so a sealed message is 41 bytes longer than its plaintext. `open` refuses another format byte outright; a changed
/// nonce gives another subkey and so another Poly1305 key, and the tag fails.
///
/// Why no nonce repeats, with no stored counter that a crash or a restored backup could roll back: nonces are 192
/// random bits, so after q seals under one key the chance that any two share a nonce is below q² / 2^193; even at
/// q = 2^64 seals that is 2^−65, negligible. (With the 96-bit nonces of plain RFC 8439 it would already be about
/// 2^−33 after 2^32 seals, hence the extended nonce.)
///
/// Constant time in portable code: ChaCha20 uses only additions, XORs and fixed rotations; Poly1305 multiplies limbs
/// and reduces with masks; tags are compared over all 16 bytes before a single test. `open` checks the tag before
/// it decrypts anything. Each message may hold up to 274,877,906,880 bytes (2^32 − 1 blocks of 64 bytes).
public struct ChaChaPolyCipher: StoreCipher, Sendable {
    /// The format byte that starts every message this version seals.
    static let formatVersion: UInt8 = 0x01
    /// The length of the extended (XChaCha20) nonce.
    static let extendedNonceLength = 24
    /// The length of a Poly1305 tag.
    static let tagLength = 16
    /// Bytes a sealed message has besides its ciphertext: format byte, nonce and tag.
    static let overhead = 1 + extendedNonceLength + tagLength

    /// Names the key (never the key itself), so that a store can say which key it needs.
    public let keyIdentifier: String
    /// The key as eight little-endian words, in plain integers rather than a `SIMD8<UInt32>`: LLVM gives a 32-byte
    /// vector an alignment of 32, and Swift 6.3's debug (-Onone) builds then lay out the async frame of a function
    /// that keeps a cipher across an `await` 16 bytes larger than the context they allocate for it, so the function
    /// wrote past its context and corrupted the heap. Integers need no more than 8-byte alignment; ``key`` builds
    /// the vector inside the synchronous `seal` and `open` only.
    private let keyWords: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// The key as eight little-endian words, for ChaCha20.
    private var key: SIMD8<UInt32> {
        SIMD8(keyWords.0, keyWords.1, keyWords.2, keyWords.3, keyWords.4, keyWords.5, keyWords.6, keyWords.7)
    }

    /// A cipher for the 32-byte `key`; `keyIdentifier` is the caller's name for it, stored as given.
    ///
    /// Throws ``CipherError/wrongKeyLength(actual:)`` for a key of another length.
    public init(key: [UInt8], keyIdentifier: String) throws {
        guard key.count == 32 else { throw CipherError.wrongKeyLength(actual: key.count) }
        let words = ChaCha20.words(key)
        keyWords = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
        self.keyIdentifier = keyIdentifier
    }

    /// Encrypts and authenticates `plaintext` with `associatedData` (authenticated, not stored) under a fresh random
    /// nonce; the result has the layout above, 41 bytes longer than `plaintext`.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        try Self.checkLength(plaintext.count)
        var generator = SystemRandomNumberGenerator()
        let random: (UInt64, UInt64, UInt64) = (generator.next(), generator.next(), generator.next())
        let nonce = SIMD8<UInt32>(UInt32(truncatingIfNeeded: random.0), UInt32(truncatingIfNeeded: random.0 >> 32),
                                  UInt32(truncatingIfNeeded: random.1), UInt32(truncatingIfNeeded: random.1 >> 32),
                                  UInt32(truncatingIfNeeded: random.2), UInt32(truncatingIfNeeded: random.2 >> 32),
                                  0, 0)
        let chacha = HChaCha20.cipher(key: key, nonce: nonce)
        let count = plaintext.count
        return [UInt8](unsafeUninitializedCapacity: count + Self.overhead) { buffer, initialized in
            let output = UnsafeMutableRawBufferPointer(buffer)
            output[0] = Self.formatVersion
            output.storeBytes(of: random.0.littleEndian, toByteOffset: 1, as: UInt64.self)
            output.storeBytes(of: random.1.littleEndian, toByteOffset: 9, as: UInt64.self)
            output.storeBytes(of: random.2.littleEndian, toByteOffset: 17, as: UInt64.self)
            plaintext.withUnsafeBytes { plaintext in
                associatedData.withUnsafeBytes { associatedData in
                    Self.seal(chacha, plaintext: plaintext, associatedData: associatedData,
                              into: UnsafeMutableRawBufferPointer(rebasing: output[25..<(25 + count)]),
                              tag: UnsafeMutableRawBufferPointer(rebasing: output[(25 + count)...]))
                }
            }
            initialized = count + Self.overhead
        }
    }

    /// Checks and decrypts bytes that ``seal(_:associatedData:)`` returned, with the same associated data.
    ///
    /// Throws ``CipherError/unknownFormat(_:)`` for another format byte, ``CipherError/truncated(length:minimum:)``
    /// for fewer than 41 bytes, and ``CipherError/authenticationFailed`` when the tag does not match (changed bytes,
    /// changed associated data, or another key); nothing is decrypted before the tag matched.
    public func open(_ sealed: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        guard let format = sealed.first else { throw CipherError.truncated(length: 0, minimum: Self.overhead) }
        guard format == Self.formatVersion else { throw CipherError.unknownFormat(format) }
        guard sealed.count >= Self.overhead else {
            throw CipherError.truncated(length: sealed.count, minimum: Self.overhead)
        }
        let count = sealed.count - Self.overhead
        return try sealed.withUnsafeBytes { sealed in
            var nonce = SIMD8<UInt32>()
            for index in 0..<6 {
                nonce[index] = UInt32(littleEndian: sealed.loadUnaligned(fromByteOffset: 1 + 4 * index, as: UInt32.self))
            }
            let chacha = HChaCha20.cipher(key: key, nonce: nonce)
            return try associatedData.withUnsafeBytes { associatedData in
                try Self.open(chacha, ciphertext: UnsafeRawBufferPointer(rebasing: sealed[25..<(25 + count)]),
                              tag: UnsafeRawBufferPointer(rebasing: sealed[(25 + count)...]),
                              associatedData: associatedData)
            }
        }
    }
}

extension ChaChaPolyCipher: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the type and the key identifier, never the key.
    public var description: String { "ChaChaPolyCipher(keyIdentifier: \(String(reflecting: keyIdentifier)))" }
    /// The same as ``description``: the key never appears in logs or debugger output.
    public var debugDescription: String { description }
    /// Shows only the key identifier to `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["keyIdentifier": keyIdentifier]) }
}
