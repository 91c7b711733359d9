/// The Poly1305 one-time authenticator of RFC 8439 §2.5, in three limbs of 44, 44 and 42 bits.
///
/// Constant time: the limbs are multiplied with `multipliedFullWidth` and reduced with shifts and masks, and the final
/// reduction modulo 2^130 − 5 selects with a mask instead of a branch, so no branch or memory index depends on the
/// key or the message.
struct Poly1305: Sendable {
    private static let mask44: UInt64 = 0xFFF_FFFF_FFFF
    private static let mask42: UInt64 = 0x3FF_FFFF_FFFF

    /// The clamped `r`, in limbs.
    private let r0: UInt64, r1: UInt64, r2: UInt64
    /// `r1` and `r2` times 20 (5 × 4): 2^130 ≡ 5 modulo p, and the limbs above 2^132 carry 4 more.
    private let s1: UInt64, s2: UInt64
    /// `s`, added at the end, as two little-endian halves.
    private let pad0: UInt64, pad1: UInt64
    /// The accumulator, partly reduced.
    private var h0: UInt64 = 0, h1: UInt64 = 0, h2: UInt64 = 0

    /// A one-time authenticator from a key's `r` (two little-endian 64-bit halves, clamped here) and `s`.
    init(r low: UInt64, _ high: UInt64, s pad0: UInt64, _ pad1: UInt64) {
        let t0 = low & 0x0FFF_FFFC_0FFF_FFFF, t1 = high & 0x0FFF_FFFC_0FFF_FFFC
        r0 = t0 & Self.mask44
        r1 = (t0 >> 44 | t1 << 20) & Self.mask44
        r2 = t1 >> 24 & Self.mask42
        s1 = r1 &* 20
        s2 = r2 &* 20
        self.pad0 = pad0
        self.pad1 = pad1
    }

    /// A one-time authenticator from the first eight words of a ChaCha20 block (RFC 8439 §2.6).
    init(key words: SIMD8<UInt32>) {
        self.init(r: UInt64(words[0]) | UInt64(words[1]) << 32, UInt64(words[2]) | UInt64(words[3]) << 32,
                  s: UInt64(words[4]) | UInt64(words[5]) << 32, UInt64(words[6]) | UInt64(words[7]) << 32)
    }

    /// A one-time authenticator from a 32-byte key.
    init(key: UnsafeRawBufferPointer) {
        self.init(r: Self.load(key, 0), Self.load(key, 8), s: Self.load(key, 16), Self.load(key, 24))
    }

    /// Adds `count / 16` whole blocks at `bytes` (each with its 2^128 bit, or with `finalBit` instead) to the
    /// accumulator.
    mutating func absorbBlocks(_ bytes: UnsafeRawPointer, count: Int, finalBit: UInt64 = 1 << 40) {
        var h0 = self.h0, h1 = self.h1, h2 = self.h2
        let r0 = self.r0, r1 = self.r1, r2 = self.r2, s1 = self.s1, s2 = self.s2
        var offset = 0
        while count - offset >= 16 {
            let t0 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let t1 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            h0 &+= t0 & Self.mask44
            h1 &+= (t0 >> 44 | t1 << 20) & Self.mask44
            h2 &+= (t1 >> 24 & Self.mask42) | finalBit
            // h × r, with the limbs that pass 2^130 folded back times 5: each product fits 128 bits with room.
            let d0 = Wide(h0, r0) + Wide(h1, s2) + Wide(h2, s1)
            var d1 = Wide(h0, r1) + Wide(h1, r0) + Wide(h2, s2)
            var d2 = Wide(h0, r2) + Wide(h1, r1) + Wide(h2, r0)
            var carry = d0.shiftedRight(44)
            h0 = d0.low & Self.mask44
            d1.add(carry)
            carry = d1.shiftedRight(44)
            h1 = d1.low & Self.mask44
            d2.add(carry)
            carry = d2.shiftedRight(42)
            h2 = d2.low & Self.mask42
            h0 &+= carry &* 5
            carry = h0 >> 44
            h0 &= Self.mask44
            h1 &+= carry
            offset += 16
        }
        self.h0 = h0
        self.h1 = h1
        self.h2 = h2
    }

    /// Adds `bytes` zero-padded to a multiple of 16, as the AEAD of RFC 8439 §2.8 does with the associated data and
    /// the ciphertext.
    mutating func absorbPadded(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let whole = bytes.count & ~15
        absorbBlocks(base, count: whole)
        if whole < bytes.count {
            var block: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &block) { copy in
                copy.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[whole...]))
                if let copied = copy.baseAddress { absorbBlocks(copied, count: 16) }
            }
        }
    }

    /// Adds the two lengths that end the AEAD's message (RFC 8439 §2.8).
    mutating func absorbLengths(_ first: Int, _ second: Int) {
        var block = (UInt64(first).littleEndian, UInt64(second).littleEndian)
        withUnsafeBytes(of: &block) { lengths in
            if let base = lengths.baseAddress { absorbBlocks(base, count: 16) }
        }
    }

    /// Adds the last bytes of a plain Poly1305 message, fewer than 16, with the 1 byte after them (RFC 8439 §2.5).
    mutating func absorbLast(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, bytes.count < 16 else { return }
        var block: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &block) { copy in
            copy.copyMemory(from: bytes)
            copy[bytes.count] = 1
            if let base = copy.baseAddress { absorbBlocks(base, count: 16, finalBit: 0) }
        }
    }

    /// The tag: the accumulator fully reduced modulo 2^130 − 5, plus `s`, modulo 2^128, as two little-endian halves.
    func tag() -> (UInt64, UInt64) {
        var h0 = self.h0, h1 = self.h1, h2 = self.h2
        var carry = h1 >> 44
        h1 &= Self.mask44
        h2 &+= carry; carry = h2 >> 42; h2 &= Self.mask42
        h0 &+= carry &* 5; carry = h0 >> 44; h0 &= Self.mask44
        h1 &+= carry; carry = h1 >> 44; h1 &= Self.mask44
        h2 &+= carry; carry = h2 >> 42; h2 &= Self.mask42
        h0 &+= carry &* 5; carry = h0 >> 44; h0 &= Self.mask44
        h1 &+= carry
        // g = h + 5 − 2^130: h ≥ p exactly when g does not borrow; pick g then, with a mask.
        var g0 = h0 &+ 5; carry = g0 >> 44; g0 &= Self.mask44
        var g1 = h1 &+ carry; carry = g1 >> 44; g1 &= Self.mask44
        var g2 = h2 &+ carry &- (1 << 42)
        let keepG = (g2 >> 63) &- 1
        g0 &= keepG; g1 &= keepG; g2 &= keepG
        h0 = h0 & ~keepG | g0
        h1 = h1 & ~keepG | g1
        h2 = h2 & ~keepG | g2
        // h + s modulo 2^128.
        h0 &+= pad0 & Self.mask44; carry = h0 >> 44; h0 &= Self.mask44
        h1 &+= ((pad0 >> 44 | pad1 << 20) & Self.mask44) &+ carry; carry = h1 >> 44; h1 &= Self.mask44
        h2 &+= (pad1 >> 24 & Self.mask42) &+ carry; h2 &= Self.mask42
        return (h0 | h1 << 44, h1 >> 20 | h2 << 24)
    }

    /// The tag of `message` under the 32-byte `key` (RFC 8439 §2.5).
    static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var poly = key.withUnsafeBytes { Poly1305(key: $0) }
        message.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let whole = bytes.count & ~15
            poly.absorbBlocks(base, count: whole)
            poly.absorbLast(UnsafeRawBufferPointer(rebasing: bytes[whole...]))
        }
        let (low, high) = poly.tag()
        return (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? low : high) >> (8 * UInt64($0 & 7))) }
    }

    /// Whether `tag` equals the 16 bytes at `expected`, in constant time: all 16 bytes are compared, the differences
    /// accumulated with XOR and OR, and only the total is tested.
    static func tagsMatch(_ tag: (UInt64, UInt64), _ expected: UnsafeRawPointer) -> Bool {
        let low = UInt64(littleEndian: expected.loadUnaligned(as: UInt64.self))
        let high = UInt64(littleEndian: expected.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        return (tag.0 ^ low) | (tag.1 ^ high) == 0
    }

    /// Writes `tag` as 16 little-endian bytes at `output`.
    static func store(_ tag: (UInt64, UInt64), to output: UnsafeMutableRawPointer) {
        output.storeBytes(of: tag.0.littleEndian, as: UInt64.self)
        output.storeBytes(of: tag.1.littleEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// The little-endian 64-bit word at byte `offset` of `bytes`.
    private static func load(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

/// A 128-bit unsigned integer as two halves, for the products of Poly1305's limbs.
private struct Wide {
    var high: UInt64
    var low: UInt64

    /// The full product of `a` and `b`.
    @inline(__always)
    init(_ a: UInt64, _ b: UInt64) {
        (high, low) = a.multipliedFullWidth(by: b)
    }

    /// `a + b` modulo 2^128 (the sums of Poly1305 stay far below it).
    @inline(__always)
    static func + (a: Wide, b: Wide) -> Wide {
        var sum = a
        let (low, overflow) = a.low.addingReportingOverflow(b.low)
        sum.low = low
        sum.high = a.high &+ b.high &+ UInt64(overflow ? 1 : 0)
        return sum
    }

    /// Adds the 64-bit `value`.
    @inline(__always)
    mutating func add(_ value: UInt64) {
        let (sum, overflow) = low.addingReportingOverflow(value)
        low = sum
        high &+= UInt64(overflow ? 1 : 0)
    }

    /// The value shifted right by `bits` (1 to 63), truncated to 64 bits.
    @inline(__always)
    func shiftedRight(_ bits: UInt64) -> UInt64 {
        low >> bits | high << (64 - bits)
    }
}
