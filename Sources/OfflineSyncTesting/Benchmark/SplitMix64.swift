import OfflineSyncCore
import OfflineSyncStore
/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, deterministic 64-bit generator.
///
/// The store benchmark draws every record and every lookup from it, so that OfflineSync's bench and the
/// GRDB bench produce byte-identical data (Docs/Performance.md, "Measuring").
package struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's state; it advances by a fixed odd constant on every draw.
    package private(set) var state: UInt64

    /// A generator whose stream starts from `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next value of the stream. All arithmetic wraps.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
