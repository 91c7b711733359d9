import OfflineSyncCore
import OfflineSyncStore
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Splitting a file into lines and decoding them on every core: the hot path of opening a large store.
enum ParallelLines {
    /// The half-open byte ranges of the complete lines in `bytes[start..<end]` (newline excluded), and the offset
    /// just after the last newline.
    static func lines(in bytes: [UInt8], from start: Int = 0, to end: Int? = nil) -> (ranges: [Range<Int>], end: Int) {
        let limit = end ?? bytes.count
        return bytes.withUnsafeBytes { raw in
            var ranges: [Range<Int>] = []
            var offset = start
            guard let base = raw.baseAddress else { return (ranges, offset) }
            while offset < limit, let found = memchr(base + offset, 0x0A, limit - offset) {
                let newline = base.distance(to: UnsafeRawPointer(found))
                ranges.append(offset..<newline)
                offset = newline + 1
            }
            return (ranges, offset)
        }
    }

    /// `transform` applied to every range, in order, spread over the available cores in contiguous chunks.
    static func map<Bytes: ContiguousBytes & Sendable, T: Sendable>(_ ranges: [Range<Int>], of bytes: Bytes,
                                 _ transform: @escaping @Sendable (UnsafeRawBufferPointer) -> T) async -> [T] {
        await map(ranges, of: bytes, state: {}) { _, line in transform(line) }
    }

    /// Like ``map(_:of:_:)``, with a state that `transform` carries from one line to the next within a chunk
    /// (each chunk starts from `state()`), such as the reader's last object shape.
    static func map<Bytes: ContiguousBytes & Sendable, State, T: Sendable>(_ ranges: [Range<Int>], of bytes: Bytes, state: @escaping @Sendable () -> State,
                                        _ transform: @escaping @Sendable (inout State, UnsafeRawBufferPointer) -> T) async -> [T] {
        let totalBytes = ranges.reduce(0) { $0 + $1.count }
        let cores = max(1, activeProcessorCount())
        guard cores > 1, ranges.count > 1, totalBytes >= 256 << 10 else {
            var carried = state()
            return bytes.withUnsafeBytes { raw in ranges.map { transform(&carried, UnsafeRawBufferPointer(rebasing: raw[$0])) } }
        }
        var chunks: [Range<Int>] = []
        let target = totalBytes / (cores * 2) + 1
        var chunkStart = 0
        var chunkBytes = 0
        for (index, range) in ranges.enumerated() {
            chunkBytes += range.count
            if chunkBytes >= target {
                chunks.append(chunkStart..<(index + 1))
                chunkStart = index + 1
                chunkBytes = 0
            }
        }
        if chunkStart < ranges.count { chunks.append(chunkStart..<ranges.count) }
        return await withTaskGroup(of: (Int, [T]).self) { group in
            for (position, chunk) in chunks.enumerated() {
                group.addTask {
                    var carried = state()
                    let values = bytes.withUnsafeBytes { raw in
                        ranges[chunk].map { transform(&carried, UnsafeRawBufferPointer(rebasing: raw[$0])) }
                    }
                    return (position, values)
                }
            }
            var parts = [[T]](repeating: [], count: chunks.count)
            for await (position, values) in group { parts[position] = values }
            return parts.flatMap { $0 }
        }
    }

    private static func activeProcessorCount() -> Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
