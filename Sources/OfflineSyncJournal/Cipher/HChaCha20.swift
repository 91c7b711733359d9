/// HChaCha20 (draft-irtf-cfrg-xchacha §2.2): derives a 256-bit subkey from a key and the first 16 bytes of an
/// XChaCha20 nonce, so that a 192-bit nonce can be random.
enum HChaCha20 {
    /// The subkey for `key` and the nonce's first 16 bytes `nonce`, all as little-endian words: the ChaCha20 rounds
    /// on constants, key and nonce, without the final addition, keeping words 0–3 and 12–15.
    static func subkey(key: SIMD8<UInt32>, nonce: SIMD4<UInt32>) -> SIMD8<UInt32> {
        let state = SIMD16(lowHalf: SIMD8(lowHalf: ChaCha20.constants, highHalf: key.lowHalf),
                           highHalf: SIMD8(lowHalf: key.highHalf, highHalf: nonce))
        let mixed = ChaCha20.permute(state)
        return SIMD8(lowHalf: mixed.lowHalf.lowHalf, highHalf: mixed.highHalf.highHalf)
    }

    /// The ChaCha20 cipher that XChaCha20 uses for `key` and the 24-byte nonce `nonce` (six little-endian words):
    /// the subkey from the first four words, and the nonce 0 ‖ the last two words.
    static func cipher(key: SIMD8<UInt32>, nonce: SIMD8<UInt32>) -> ChaCha20 {
        ChaCha20(key: subkey(key: key, nonce: nonce.lowHalf), nonce: SIMD3(0, nonce[4], nonce[5]))
    }
}
