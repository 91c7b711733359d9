import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The snapshot is read a block of lines at a time: items on both sides of every block boundary, a line longer
/// than a block, several tables (one empty, one of items with other keys) and a repeated id all come back as
/// stored, with the index built as `apply` builds it.
struct SnapshotBlockReadTests {
    static func items() -> [String: [JSONObject]] {
        var todo: [JSONObject] = []
        for index in 0..<9_000 {
            var item: JSONObject = [:]
            item["id"] = .string(String(format: "%08X-2FEB-4E95-A8EF-E333B266F103", index))
            item["text"] = .string("Task \(index) \u{e9}\"q\"")
            item["complete"] = .bool(index % 3 == 0)
            item["priority"] = .int(Int64(index % 10))
            item["updatedAt"] = .string(String(format: "2026-01-%02dT00:00:00.%03dZ", index % 28 + 1, index % 1_000))
            item["version"] = .string(String(format: "%08x", index))
            todo.append(item)
        }
        // A line longer than a block, and items whose keys differ from the table's shape.
        todo[4_500]["text"] = .string(String(repeating: "long ", count: 250_000))
        todo[4_501]["extra"] = [1, 2]
        todo[4_502].removeValue(forKey: "version")
        let notes: [JSONObject] = (0..<3_000).map { ["id": .string("n\($0)"), "body": .string(String(repeating: "n", count: $0 % 300))] }
        return ["TodoItem": todo, "Note": notes, "Empty": [["id": "gone"]]]
    }

    @Test func itemsAcrossBlocksComeBackAsStored() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = JournalOptions(durability: .always)
        options.indexes = [IndexDefinition(table: "TodoItem", fields: ["complete", "updatedAt"])]
        let items = Self.items()
        let store = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: POSIXFileSystem())
        for (table, list) in items.sorted(by: { $0.key < $1.key }) {
            try await store.apply([StoreChange.upsert(table: table, items: list)])
        }
        try await store.apply([.delete(table: "Empty", ids: ["gone"])])
        try await store.compact()
        try await store.close()
        let snapshotSize = try FileManager.default.attributesOfItem(atPath: directory.storePath + "/snapshot.2.json")[.size] as? Int
        #expect((snapshotSize ?? 0) > 4 * SnapshotSource.blockBytes)

        let reopened = try await JournalDataSource(path: directory.storePath, options: options, fileSystem: POSIXFileSystem())
        var expected = TableSet()
        try expected.defineIndexes(options.indexes)
        for (table, list) in items { expected.apply([.upsert(table: table, items: list)]) }
        expected.apply([.delete(table: "Empty", ids: ["gone"])])
        for table in ["TodoItem", "Note", "Empty"] {
            let query = Query(table: table, orderBy: [.ascending("id")])
            #expect(try await reopened.read(query).items == expected.read(query).items, "\(table)")
        }
        let indexed = Query(table: "TodoItem", filter: Field("complete") == false, orderBy: [.descending("updatedAt")], top: 40)
        #expect(try await reopened.read(indexed).items == expected.read(indexed).items)
        #expect(try await reopened.read(table: "TodoItem", id: "00001194-2feb-4e95-a8ef-e333b266f103")?["text"]?.stringValue?.count == 1_250_000)
        try await reopened.close()
    }

    @Test func idsInAnyCaseOrBeyondASCIIAreFoundByTheirKeysAfterReopening() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let ids = ["MiXeD-Case", "with space", "Été-ÜBER", "ÅNGSTRÖM", "plain"]
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply([.upsert(table: "T", items: ids.enumerated().map { ["id": .string($1), "n": .int(Int64($0))] })])
        try await store.compact()
        try await store.close()
        let reopened = try await JournalDataSource.open(directory.storePath)
        for (position, id) in ids.enumerated() {
            for asked in [id, id.lowercased(), id.uppercased()] {
                #expect(try await reopened.read(table: "T", id: asked) == ["id": .string(id), "n": .int(Int64(position))], "\(asked)")
            }
        }
        try await reopened.close()
    }

    @Test(arguments: [0.25, 0.75])
    func aLargeSnapshotDamagedInEitherHalfIsReportedAsTheChecksumMismatch(at fraction: Double) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        let text = String(repeating: "x", count: 200)
        try await store.apply([.upsert(table: "T", items: (0..<20_000).map { ["id": .string("i\($0)"), "text": .string(text)] })])
        try await store.compact()
        try await store.close()
        let path = directory.storePath + "/snapshot.2.json"
        var bytes = try fileBytes(path)
        #expect(bytes.count > 2 * SnapshotLayout.splitBytes, "large enough to be checked in two halves")
        let intact = try await SnapshotReader.read(bytes, path: path)
        #expect(intact.tables.count(table: "T") == 20_000)
        // A line break in the middle of an item line: a fault of the line structure as well.
        bytes[Int(Double(bytes.count) * fraction)] = 0x0A
        do {
            _ = try await SnapshotReader.read(bytes, path: path)
            Issue.record("a damaged snapshot was read")
        } catch {
            #expect(error.reason?.hasPrefix("checksum mismatch") == true, "\(error)")
        }
    }

    @Test func aDamagedSnapshotIsReportedAsTheChecksumMismatch() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource.open(directory.storePath)
        try await store.apply([.upsert(table: "T", items: (0..<8_000).map { Sample.item("i\($0)", Int64($0)) })])
        try await store.compact()
        try await store.close()
        let path = directory.storePath + "/snapshot.2.json"
        var bytes = try fileBytes(path)
        // A broken item line far past the first block.
        bytes[bytes.count - 2_000] = UInt8(ascii: "{")
        do {
            _ = try await SnapshotReader.read(bytes, path: path)
            Issue.record("a damaged snapshot was read")
        } catch {
            #expect(error.reason?.hasPrefix("checksum mismatch") == true, "\(error)")
        }
    }
}
