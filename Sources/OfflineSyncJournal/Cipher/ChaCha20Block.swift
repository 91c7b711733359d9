/// The ChaCha20 stream cipher of RFC 8439 §2.3–2.4: a 256-bit key and a 96-bit nonce, as little-endian words.
///
/// Constant time: only additions, XORs and fixed rotations, with no branch or memory index that depends on the key
/// or the data. Runs of four blocks are computed side by side (word i of the four blocks in one SIMD vector), then
/// pairs of blocks (a row of four words of one block per vector), then single blocks and bytes.
struct ChaCha20: Sendable {
    /// "expand 32-byte k" as four little-endian words.
    static let constants = SIMD4<UInt32>(0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574)

    /// The key as eight little-endian words.
    var key: SIMD8<UInt32>
    /// The nonce as three little-endian words.
    var nonce: SIMD3<UInt32>

    /// The state of RFC 8439 §2.3 for block `counter`: constants, key, counter, nonce.
    func state(counter: UInt32) -> SIMD16<UInt32> {
        SIMD16(lowHalf: SIMD8(lowHalf: Self.constants, highHalf: key.lowHalf),
               highHalf: SIMD8(lowHalf: key.highHalf, highHalf: SIMD4(counter, nonce[0], nonce[1], nonce[2])))
    }

    /// Block `counter` of the key stream as sixteen words (serialise them little-endian for the bytes).
    func block(counter: UInt32) -> SIMD16<UInt32> {
        let input = state(counter: counter)
        return Self.permute(input) &+ input
    }

    /// Block `counter` of the key stream as 64 bytes.
    func blockBytes(counter: UInt32) -> [UInt8] {
        let words = block(counter: counter)
        return (0..<64).map { UInt8(truncatingIfNeeded: words[$0 >> 2] >> (8 * UInt32($0 & 3))) }
    }

    /// The twenty rounds (ten column and ten diagonal rounds) of ChaCha20 on `state`, without the final addition:
    /// HChaCha20 uses them alone. The state's four rows of four words are one SIMD vector each, as in
    /// ``xorTwoBlocks(_:into:counter:)``.
    static func permute(_ state: SIMD16<UInt32>) -> SIMD16<UInt32> {
        var a = state.lowHalf.lowHalf, b = state.lowHalf.highHalf, c = state.highHalf.lowHalf, d = state.highHalf.highHalf
        for _ in 0..<10 {
            quarterRound(&a, &b, &c, &d)
            b = SIMD4(b[1], b[2], b[3], b[0]); c = SIMD4(c[2], c[3], c[0], c[1]); d = SIMD4(d[3], d[0], d[1], d[2])
            quarterRound(&a, &b, &c, &d)
            b = SIMD4(b[3], b[0], b[1], b[2]); c = SIMD4(c[2], c[3], c[0], c[1]); d = SIMD4(d[1], d[2], d[3], d[0])
        }
        return SIMD16(lowHalf: SIMD8(lowHalf: a, highHalf: b), highHalf: SIMD8(lowHalf: c, highHalf: d))
    }

    /// The quarter round of RFC 8439 §2.1 on four columns (or diagonals) at once, one per lane.
    @inline(__always)
    static func quarterRound(_ a: inout SIMD4<UInt32>, _ b: inout SIMD4<UInt32>, _ c: inout SIMD4<UInt32>,
                             _ d: inout SIMD4<UInt32>) {
        a &+= b; d ^= a; d = rotatedBy16(d)
        c &+= d; b ^= c; b = rotated(b, by: 12)
        a &+= b; d ^= a; d = rotatedBy8(d)
        c &+= d; b ^= c; b = rotated(b, by: 7)
    }

    // The rotations below avoid the plain `x &<< n | x &>> (32 - n)`: the optimizer turns that into a vector rotate,
    // which it then computes lane by lane on processors without one (x86-64 before AVX-512), several times slower.

    /// Each lane rotated left by 16 bits: its two 16-bit halves swapped.
    @inline(__always)
    static func rotatedBy16(_ value: SIMD4<UInt32>) -> SIMD4<UInt32> {
        let b = unsafeBitCast(value, to: SIMD16<UInt8>.self)
        return unsafeBitCast(SIMD16(b[2], b[3], b[0], b[1], b[6], b[7], b[4], b[5],
                                    b[10], b[11], b[8], b[9], b[14], b[15], b[12], b[13]), to: SIMD4<UInt32>.self)
    }

    /// Each lane rotated left by 8 bits: its bytes moved up one place.
    @inline(__always)
    static func rotatedBy8(_ value: SIMD4<UInt32>) -> SIMD4<UInt32> {
        #if _endian(little)
        let b = unsafeBitCast(value, to: SIMD16<UInt8>.self)
        return unsafeBitCast(SIMD16(b[3], b[0], b[1], b[2], b[7], b[4], b[5], b[6],
                                    b[11], b[8], b[9], b[10], b[15], b[12], b[13], b[14]), to: SIMD4<UInt32>.self)
        #else
        return rotated(value, by: 8)
        #endif
    }

    /// Each lane rotated left by `count` (1 to 31) bits, with shifts of 64-bit lanes and masks that drop the bits
    /// crossing from one 32-bit lane into the other.
    @inline(__always)
    static func rotated(_ value: SIMD4<UInt32>, by count: UInt64) -> SIMD4<UInt32> {
        let pairs = unsafeBitCast(value, to: SIMD2<UInt64>.self)
        let high = UInt64(UInt32.max << UInt32(count)), low = UInt64(UInt32.max >> UInt32(32 - count))
        let left = pairs &<< count & SIMD2(repeating: high << 32 | high)
        let right = pairs &>> (32 - count) & SIMD2(repeating: low << 32 | low)
        return unsafeBitCast(left | right, to: SIMD4<UInt32>.self)
    }

    /// XORs the key stream from block `counter` on with `count` bytes at `input` and writes them to `output`, which
    /// may be `input` itself. The caller keeps `count` within the 2^32 − `counter` blocks left.
    func xor(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int, counter: UInt32) {
        var offset = 0
        var counter = counter
        while count - offset >= 256 {
            xorFourBlocks(input + offset, into: output + offset, counter: counter)
            offset += 256
            counter &+= 4
        }
        if count - offset >= 128 {
            xorTwoBlocks(input + offset, into: output + offset, counter: counter)
            offset += 128
            counter &+= 2
        }
        if count - offset >= 64 {
            let words = Self.littleEndian(block(counter: counter))
            let text = (input + offset).loadUnaligned(as: SIMD16<UInt32>.self)
            (output + offset).storeBytes(of: text ^ words, as: SIMD16<UInt32>.self)
            offset += 64
            counter &+= 1
        }
        if offset < count {
            let words = block(counter: counter)
            var index = 0
            while offset < count {
                let byte = UInt8(truncatingIfNeeded: words[index >> 2] >> (8 * UInt32(index & 3)))
                output.storeBytes(of: input.load(fromByteOffset: offset, as: UInt8.self) ^ byte, toByteOffset: offset,
                                  as: UInt8.self)
                offset += 1
                index += 1
            }
        }
    }

    /// XORs blocks `counter` to `counter + 3` of the key stream with the 256 bytes at `input` into `output`.
    ///
    /// Vector `x`i holds word i of the four blocks, one block per lane, so that the rounds need no lane shuffles;
    /// the words are transposed back into rows at the end. About a fifth faster than ``xorTwoBlocks(_:into:counter:)``
    /// on long messages.
    @inline(__always)
    private func xorFourBlocks(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, counter: UInt32) {
        let c = Self.constants
        var x0 = SIMD4(repeating: c[0]), x1 = SIMD4(repeating: c[1])
        var x2 = SIMD4(repeating: c[2]), x3 = SIMD4(repeating: c[3])
        var x4 = SIMD4(repeating: key[0]), x5 = SIMD4(repeating: key[1])
        var x6 = SIMD4(repeating: key[2]), x7 = SIMD4(repeating: key[3])
        var x8 = SIMD4(repeating: key[4]), x9 = SIMD4(repeating: key[5])
        var x10 = SIMD4(repeating: key[6]), x11 = SIMD4(repeating: key[7])
        let counters = SIMD4(repeating: counter) &+ SIMD4<UInt32>(0, 1, 2, 3)
        var x12 = counters, x13 = SIMD4(repeating: nonce[0])
        var x14 = SIMD4(repeating: nonce[1]), x15 = SIMD4(repeating: nonce[2])
        for _ in 0..<10 {
            Self.quarterRound(&x0, &x4, &x8, &x12)
            Self.quarterRound(&x1, &x5, &x9, &x13)
            Self.quarterRound(&x2, &x6, &x10, &x14)
            Self.quarterRound(&x3, &x7, &x11, &x15)
            Self.quarterRound(&x0, &x5, &x10, &x15)
            Self.quarterRound(&x1, &x6, &x11, &x12)
            Self.quarterRound(&x2, &x7, &x8, &x13)
            Self.quarterRound(&x3, &x4, &x9, &x14)
        }
        x0 &+= SIMD4(repeating: c[0]); x1 &+= SIMD4(repeating: c[1])
        x2 &+= SIMD4(repeating: c[2]); x3 &+= SIMD4(repeating: c[3])
        x4 &+= SIMD4(repeating: key[0]); x5 &+= SIMD4(repeating: key[1])
        x6 &+= SIMD4(repeating: key[2]); x7 &+= SIMD4(repeating: key[3])
        x8 &+= SIMD4(repeating: key[4]); x9 &+= SIMD4(repeating: key[5])
        x10 &+= SIMD4(repeating: key[6]); x11 &+= SIMD4(repeating: key[7])
        x12 &+= counters; x13 &+= SIMD4(repeating: nonce[0])
        x14 &+= SIMD4(repeating: nonce[1]); x15 &+= SIMD4(repeating: nonce[2])
        Self.transposeXor(x0, x1, x2, x3, input, output, at: 0)
        Self.transposeXor(x4, x5, x6, x7, input, output, at: 16)
        Self.transposeXor(x8, x9, x10, x11, input, output, at: 32)
        Self.transposeXor(x12, x13, x14, x15, input, output, at: 48)
    }

    /// XORs words 4k to 4k + 3 of four blocks (`a` to `d`, one block per lane) with the input: row k of each block,
    /// at `offset` (16k) in block 0 and 64, 128 and 192 bytes further for blocks 1 to 3.
    @inline(__always)
    private static func transposeXor(_ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>, _ c: SIMD4<UInt32>, _ d: SIMD4<UInt32>,
                                     _ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, at offset: Int) {
        let ab0 = SIMD4(a[0], b[0], a[1], b[1]), ab1 = SIMD4(a[2], b[2], a[3], b[3])
        let cd0 = SIMD4(c[0], d[0], c[1], d[1]), cd1 = SIMD4(c[2], d[2], c[3], d[3])
        xorRow(SIMD4(ab0[0], ab0[1], cd0[0], cd0[1]), input, output, at: offset)
        xorRow(SIMD4(ab0[2], ab0[3], cd0[2], cd0[3]), input, output, at: offset + 64)
        xorRow(SIMD4(ab1[0], ab1[1], cd1[0], cd1[1]), input, output, at: offset + 128)
        xorRow(SIMD4(ab1[2], ab1[3], cd1[2], cd1[3]), input, output, at: offset + 192)
    }

    /// XORs blocks `counter` and `counter + 1` of the key stream with the 128 bytes at `input` into `output`.
    ///
    /// Each block is four rows of four words, one SIMD vector per row: a column round works on the rows as they are,
    /// a diagonal round on rows 1–3 turned by one, two and three lanes. Two blocks are interleaved so that the
    /// processor has independent work, and the rows are already in the order of the key stream's bytes.
    @inline(__always)
    private func xorTwoBlocks(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, counter: UInt32) {
        let row0 = Self.constants, row1 = key.lowHalf, row2 = key.highHalf
        let first = SIMD4(counter, nonce[0], nonce[1], nonce[2])
        let second = SIMD4(counter &+ 1, nonce[0], nonce[1], nonce[2])
        var a = row0, b = row1, c = row2, d = first
        var e = row0, f = row1, g = row2, h = second
        for _ in 0..<10 {
            Self.quarterRound(&a, &b, &c, &d)
            Self.quarterRound(&e, &f, &g, &h)
            b = SIMD4(b[1], b[2], b[3], b[0]); c = SIMD4(c[2], c[3], c[0], c[1]); d = SIMD4(d[3], d[0], d[1], d[2])
            f = SIMD4(f[1], f[2], f[3], f[0]); g = SIMD4(g[2], g[3], g[0], g[1]); h = SIMD4(h[3], h[0], h[1], h[2])
            Self.quarterRound(&a, &b, &c, &d)
            Self.quarterRound(&e, &f, &g, &h)
            b = SIMD4(b[3], b[0], b[1], b[2]); c = SIMD4(c[2], c[3], c[0], c[1]); d = SIMD4(d[1], d[2], d[3], d[0])
            f = SIMD4(f[3], f[0], f[1], f[2]); g = SIMD4(g[2], g[3], g[0], g[1]); h = SIMD4(h[1], h[2], h[3], h[0])
        }
        Self.xorRow(a &+ row0, input, output, at: 0)
        Self.xorRow(b &+ row1, input, output, at: 16)
        Self.xorRow(c &+ row2, input, output, at: 32)
        Self.xorRow(d &+ first, input, output, at: 48)
        Self.xorRow(e &+ row0, input, output, at: 64)
        Self.xorRow(f &+ row1, input, output, at: 80)
        Self.xorRow(g &+ row2, input, output, at: 96)
        Self.xorRow(h &+ second, input, output, at: 112)
    }

    /// XORs one row of key stream (four words, stored little-endian) with the 16 bytes at `input + offset` into
    /// `output + offset`.
    @inline(__always)
    private static func xorRow(_ row: SIMD4<UInt32>, _ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer,
                               at offset: Int) {
        #if _endian(big)
        let stream = SIMD4(row[0].byteSwapped, row[1].byteSwapped, row[2].byteSwapped, row[3].byteSwapped)
        #else
        let stream = row
        #endif
        let text = input.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self)
        output.storeBytes(of: text ^ stream, toByteOffset: offset, as: SIMD4<UInt32>.self)
    }

    /// `words` as stored little-endian: unchanged on little-endian machines, byte-swapped on big-endian ones.
    @inline(__always)
    static func littleEndian(_ words: SIMD16<UInt32>) -> SIMD16<UInt32> {
        #if _endian(big)
        var swapped = words
        for index in 0..<16 { swapped[index] = words[index].byteSwapped }
        return swapped
        #else
        return words
        #endif
    }
}

extension ChaCha20 {
    /// A cipher from a 32-byte key and a 12-byte nonce; throws ``CipherError`` for other lengths.
    init(key: [UInt8], nonce: [UInt8]) throws {
        guard key.count == 32 else { throw CipherError.wrongKeyLength(actual: key.count) }
        guard nonce.count == 12 else { throw CipherError.wrongNonceLength(expected: 12, actual: nonce.count) }
        self.init(key: Self.words(key), nonce: SIMD3(Self.word(nonce, at: 0), Self.word(nonce, at: 4), Self.word(nonce, at: 8)))
    }

    /// The little-endian word at byte `offset` of `bytes`.
    @inline(__always)
    static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    /// The first 32 bytes of `bytes` as eight little-endian words.
    static func words(_ bytes: [UInt8]) -> SIMD8<UInt32> {
        var words = SIMD8<UInt32>()
        for index in 0..<8 { words[index] = word(bytes, at: 4 * index) }
        return words
    }
}
