import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The chunked arena must hand back every text as appended, across chunk ends, for texts larger than a chunk, and
/// for a copy taken midway (as a compaction takes one) while the original keeps growing.
struct ItemArenaTests {
    @Test func textsComeBackAsAppendedAcrossChunksAndCopies() {
        var arena = ItemArena()
        var expected: [(location: Int, text: [UInt8])] = []
        var random = SeededRandom(seed: 7)
        var copy: ItemArena?
        var copied = 0
        for step in 0..<12_000 {
            // Mostly item-sized texts; now and then one larger than a chunk, or one written in place.
            let size = step % 997 == 0 ? ItemArena.chunkBytes + 10 : 1 + random.below(400)
            let text = [UInt8](repeating: UInt8(truncatingIfNeeded: step), count: size)
            if step % 5 == 0 {
                let (location, length) = arena.append { $0.append(contentsOf: text) }
                #expect(length == size)
                expected.append((location, text))
            } else {
                expected.append((text.withUnsafeBytes { arena.append($0) }, text))
            }
            if step == 6_000 {
                copy = arena
                copied = expected.count
            }
        }
        #expect(arena.byteCount == expected.reduce(0) { $0 + $1.text.count })
        for (location, text) in expected {
            #expect(arena.withBytes(at: location, length: text.count) { $0.map { Array($0) } } == text)
        }
        for (location, text) in expected.prefix(copied) {
            #expect(copy?.withBytes(at: location, length: text.count) { $0.map { Array($0) } } == text)
        }
    }

    @Test func textsWrittenInPlaceFillChunksOfAboutAChunkEachInsteadOfGrowingOne() {
        var arena = ItemArena()
        let text = [UInt8](repeating: 7, count: 20_000)
        var locations: [Int] = []
        for _ in 0..<200 { locations.append(arena.append { $0.append(contentsOf: text) }.location) }
        // 4 MB of texts: four chunks or a few more, each grown at most once by the text that overflowed it.
        #expect(arena.chunkCount >= 4 && arena.chunkCount <= 5, "\(arena.chunkCount) chunks")
        for location in locations {
            #expect(arena.withBytes(at: location, length: text.count) { $0.map { Array($0) } } == text)
        }
    }
}
