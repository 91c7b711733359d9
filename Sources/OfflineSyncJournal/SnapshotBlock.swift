import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One buffer that a snapshot's blocks are read into in turn, kept for the whole reading.
///
/// A fresh array per block would free a buffer of megabytes again and again; glibc's allocator then raises its
/// mmap threshold to that size and serves later large arrays from its heaps, where freed memory stays resident:
/// opening the benchmark's store held 8 MiB more at its peak that way. This buffer is allocated once and
/// freed when the reading ends. Its bytes change only between parsing rounds, never while lines are parsed.
final class SnapshotBlock: ContiguousBytes, @unchecked Sendable {
    private var storage: UnsafeMutableRawBufferPointer
    /// How many bytes of the buffer hold the current block.
    private(set) var count = 0

    init(capacity: Int) {
        storage = .allocate(byteCount: max(1, capacity), alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Lets `fill` write up to `capacity` bytes (the buffer grows to hold them) and keeps the count it returns.
    func refill<Failure: Error>(capacity: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int) throws(Failure) {
        if capacity > storage.count {
            storage.deallocate()
            storage = .allocate(byteCount: capacity, alignment: 16)
        }
        count = 0
        count = try fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<capacity]))
    }

    /// Keeps only the first `newCount` bytes.
    func truncate(to newCount: Int) {
        count = min(count, newCount)
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }
}
