import OfflineSyncCore
import OfflineSyncStore
/// Where a snapshot's bytes come from: read a block of whole lines at a time, so that opening a store never holds
/// the whole file, only the tables it builds from it.
struct SnapshotSource: Sendable {
    /// The file's length in bytes.
    let count: Int
    /// Whether every read is authenticated (a sealed snapshot's blocks): a changed byte fails the read, so the file
    /// is checked as it is parsed, in one pass (``SnapshotStreamCheck``).
    let isAuthenticated: Bool
    /// Fills the buffer with the bytes from an offset on; returns how many it read. Several tasks may read at once.
    private let readInto: @Sendable (UnsafeMutableRawBufferPointer, Int) throws(JournalError) -> Int

    /// A source of `count` bytes that `readInto` reads (``SnapshotSource/opening(_:path:size:generation:sealing:fileSystem:)``
    /// decrypts them), `isAuthenticated` as ``isAuthenticated`` says.
    init(count: Int, isAuthenticated: Bool,
         readInto: @escaping @Sendable (UnsafeMutableRawBufferPointer, Int) throws(JournalError) -> Int) {
        self.count = count
        self.isAuthenticated = isAuthenticated
        self.readInto = readInto
    }

    /// Bytes already in memory.
    init(bytes: [UInt8]) {
        count = bytes.count
        isAuthenticated = false
        readInto = { buffer, offset throws(JournalError) in
            let length = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + length)])) }
            return length
        }
    }

    /// The file at `path`, open as `file`, `count` bytes long, read by the task that asks
    /// (``BlockingFileWork/runInPlace(_:)``: each block on a thread of the store's own cost W4 1.2 to 1.5 times the time).
    init(file: FileDescriptor, path: String, count: Int, fileSystem: any FileSystem) {
        self.count = count
        isAuthenticated = false
        readInto = { buffer, offset throws(JournalError) in try BlockingFileWork.runInPlace { () throws(JournalError) in
            var done = 0
            while done < buffer.count {
                let read = try fileSystem.read(file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: Int64(offset + done))
                if read == 0 { break }
                done += read
            }
            guard done == buffer.count else {
                throw JournalError.invalidSnapshot(file: path, offset: Int64(offset + done), reason: "the file shrank while it was read")
            }
            return done
        } }
    }

    /// The bytes in `range` (within `0..<count`).
    func read(_ range: Range<Int>) throws(JournalError) -> [UInt8] {
        var failure: JournalError?
        let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
            do throws(JournalError) {
                initialized = try readInto(UnsafeMutableRawBufferPointer(buffer), range.lowerBound)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Bytes read at a time.
    static let blockBytes = 512 << 10

    /// Reads into `block` the whole lines from `start` on, about ``blockBytes`` of them, within `start..<end`
    /// (whose last byte is a newline); a line longer than a block comes in a block of its own.
    func read(into block: SnapshotBlock, from start: Int, upTo end: Int) throws(JournalError) {
        var size = Self.blockBytes
        while true {
            let length = min(end - start, size)
            try block.refill(capacity: length) { buffer throws(JournalError) in try readInto(buffer, start) }
            if let lastNewline = block.withUnsafeBytes({ $0.lastIndex(of: 0x0A) }) {
                block.truncate(to: lastNewline + 1)
                return
            }
            // No whole line: read a larger block (the region ends with a newline, so one is found).
            guard start + size < end else { return }
            size *= 2
        }
    }

    /// Where the line ending just before `end` starts (0 when no newline precedes it).
    func lineStart(before end: Int) throws(JournalError) -> Int {
        var windowEnd = end
        while windowEnd > 0 {
            let windowStart = max(0, windowEnd - 4_096)
            let window = try read(windowStart..<windowEnd)
            if let newline = window.lastIndex(of: 0x0A) { return windowStart + newline + 1 }
            windowEnd = windowStart
        }
        return 0
    }
}
