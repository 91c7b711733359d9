import OfflineSyncCore
/// The packed items (``PackedObject``) of an ``ItemTable``, whether loaded from a snapshot or stored later, in chunks
/// of about 1 MiB that are each allocated once: a growing table never copies the items it holds (one growing buffer
/// copied all of them at each doubling, and faulted in the new pages). A copy of the table, such as the one a
/// compaction writes its snapshot from, shares every chunk; the first append to the chunk being filled then copies
/// that one chunk (copy on write), never the others.
///
/// An item is found by its location: the chunk's number in the high 32 bits, the offset in the chunk in the low ones.
struct ItemArena: Sendable {
    /// A new chunk's capacity (a larger item gets a chunk of its own size).
    static let chunkBytes = 1 << 20

    private var chunks: [[UInt8]] = []
    /// The bytes of every item appended, live or not.
    private(set) var byteCount = 0

    /// An empty arena.
    init() {}

    /// Appends `bytes`; returns their location.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let chunk = chunkWithRoom(for: bytes.count)
        let offset = chunks[chunk].count
        chunks[chunk].append(contentsOf: bytes)
        byteCount += bytes.count
        return chunk << 32 | offset
    }

    /// Appends what `write` appends to the buffer it is given; returns its location and length. The bytes need not
    /// fit the chunk's room: a chunk they overflow grows once and is then full.
    mutating func append(writing write: (inout [UInt8]) -> Void) -> (location: Int, length: Int) {
        let chunk = chunkWithRoom(for: Self.writingRoom)
        let offset = chunks[chunk].count
        write(&chunks[chunk])
        let length = chunks[chunk].count - offset
        byteCount += length
        return (chunk << 32 | offset, length)
    }

    /// Calls `body` with the `length` bytes at `location`.
    @inline(__always)
    func withBytes<T>(at location: Int, length: Int, _ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        let offset = location & 0xFFFF_FFFF
        return try chunks[location >> 32].withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]))
        }
    }

    /// The room ``append(writing:)`` asks for: more than most items take, a small share of a chunk.
    private static let writingRoom = 4_096

    /// How many chunks hold the items.
    var chunkCount: Int { chunks.count }

    /// The number of the last chunk, after starting a new one when the last has no room for `count` more bytes
    /// within ``chunkBytes`` (a chunk grown past it, or made for a larger item, is full).
    private mutating func chunkWithRoom(for count: Int) -> Int {
        if let last = chunks.indices.last, chunks[last].count + count <= Self.chunkBytes { return last }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(max(Self.chunkBytes, count))
        chunks.append(chunk)
        return chunks.count - 1
    }
}
