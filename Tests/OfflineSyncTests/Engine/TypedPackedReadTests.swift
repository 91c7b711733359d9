import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Typed reads from the stores that decode models straight from their packed items (`ModelDecodingDataSource`): the
/// same models and the same errors as decoding the untyped read's item.
struct TypedPackedReadTests {
    struct Todo: Codable, Sendable, Equatable {
        var id: String
        var text: String
        var complete: Bool?
        var priority: Int?
        var dueAt: Date?
        var tags: [String]?
    }

    /// Items of the table's first shape (packed without keys), of other shapes (kept as text), and with values a
    /// model rejects.
    static let items: [JSONObject] = [
        ["id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "text": "milk", "complete": false, "priority": 3,
         "dueAt": "2026-03-04T05:06:07.089Z", "tags": ["a", "b"]],
        ["id": "second", "text": "bread", "complete": true, "priority": 9, "dueAt": "2026-03-04T05:06:07Z", "tags": []],
        ["id": "third", "text": "eggs"],
        ["id": "fourth", "text": "jam", "complete": .null, "priority": 1, "dueAt": .null, "tags": .null, "extra": ["x": 1]],
        ["id": "bad-kind", "text": 5, "complete": true, "priority": 9, "dueAt": "2026-03-04T05:06:07Z", "tags": []],
        ["id": "bad-date", "text": "t", "complete": true, "priority": 9, "dueAt": "soon", "tags": []],
        ["id": "bad-tag", "text": "t", "complete": true, "priority": 9, "dueAt": "2026-03-04T05:06:07Z", "tags": ["a", 1]],
        ["id": "no-text", "complete": true, "priority": 9, "dueAt": "2026-03-04T05:06:07Z", "tags": [], "other": 1],
        ["id": "grüße-ärger", "text": "not ASCII", "complete": false, "priority": 0, "dueAt": .null, "tags": ["ü"]],
    ]

    @Test(arguments: StoreKind.allCases)
    func theStoreDecodesEachItemAsTheTreeDecoderDecodesItsUntypedRead(_ kind: StoreKind) async throws {
        let store = try await kind.makeStore().dataSource
        try await store.apply([.upsert(table: "TodoItem", items: Self.items)])
        let decoding = try #require(store as? any ModelDecodingDataSource)
        for item in Self.items {
            let id = try #require(item["id"]?.stringValue)
            // An id of printable ASCII matches in any case; any other only as written.
            for asked in id.utf8.allSatisfy({ $0 < 0x80 }) ? [id, id.lowercased(), id.uppercased()] : [id] {
                let untyped = try #require(try await store.read(table: "TodoItem", id: asked))
                var expectedError = ""
                let expected = DecodingOutcome<Todo?> {
                    do { return try JSONValueDecoder().decode(Todo.self, from: .object(untyped)) } catch {
                        expectedError = "\(error)"
                        throw error
                    }
                }
                var error = ""
                let outcome = await AsyncDecodingOutcome.of {
                    do { return try await decoding.readModel(Todo.self, table: "TodoItem", id: asked) } catch let caught {
                        error = "\(caught)"
                        throw caught
                    }
                }
                #expect(outcome == expected, "\(id)")
                #expect(error == expectedError, "\(id)")
            }
        }
        #expect(try await decoding.readModel(Todo.self, table: "TodoItem", id: "missing") == nil)
        #expect(try await decoding.readModel(Todo.self, table: "Unwritten", id: "third") == nil)
        await #expect(throws: DataSourceError.self) { _ = try await decoding.readModel(Todo.self, table: "bad name!", id: "a") }
    }

    @Test(arguments: StoreKind.allCases)
    func aTypedReadThatDoesNotFitIsTheModelCodingErrorTheItemGives(_ kind: StoreKind) async throws {
        let fixture = try await EngineFixture(kind)
        try await fixture.store.dataSource.apply([.upsert(table: "TodoItem", items: Self.items)])
        let todos = fixture.context.table(Todo.self, name: "TodoItem")
        for id in ["bad-kind", "bad-date", "bad-tag", "no-text"] {
            let item = try #require(try await fixture.todo.read(id: id))
            var expected = ""
            do { _ = try ModelCoding(table: "TodoItem").model(Todo.self, from: item) } catch { expected = "\(error)" }
            await #expect { _ = try await todos.read(id: id) } throws: { error in
                (error as? SyncError)?.code == .modelCoding && "\(error)" == expected
            }
        }
        #expect(try await todos.read(id: "THIRD") == Todo(id: "third", text: "eggs"))
        #expect(try await todos.read(id: "nobody") == nil)
        await #expect(throws: SyncError.self) { _ = try await fixture.context.table(Todo.self, name: "__operations").read(id: "a") }
        let open = try await todos.read(Query(table: "TodoItem", filter: Field("id") == "second" || Field("id") == "third",
                                              orderBy: [.ascending("text")]))
        #expect(open.map(\.id) == ["second", "third"])
        await #expect(throws: SyncError.self) { _ = try await todos.read(Query(table: "Other")) }
        await #expect(throws: SyncError.self) { _ = try await todos.read(Query(table: "TodoItem", filter: Field("complete") == true)) }
    }

    @Test func aClosedJournalStoreRefusesATypedReadWithItsOwnError() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.url)
        try await store.apply([.upsert(table: "TodoItem", items: [Self.items[2]])])
        let todos = SyncContext(dataSource: store, remote: InMemoryRemote()).table(Todo.self, name: "TodoItem")
        #expect(try await todos.read(id: "third")?.text == "eggs")
        try await store.close()
        await #expect(throws: JournalError.self) { _ = try await todos.read(id: "third") }
        await #expect(throws: JournalError.self) { _ = try await todos.read(Query(table: "TodoItem")) }
    }

    @Test func aStoreThatDoesNotDecodeModelsGivesTheSameModelsThroughItsUntypedRead() async throws {
        let inner = InMemoryDataSource()
        try await inner.apply([.upsert(table: "TodoItem", items: Self.items)])
        let plain = ForwardingDataSource(inner: inner)
        #expect(!(plain is any ModelDecodingDataSource))
        let packed = SyncContext(dataSource: inner, remote: InMemoryRemote()).table(Todo.self, name: "TodoItem")
        let tree = SyncContext(dataSource: plain, remote: InMemoryRemote()).table(Todo.self, name: "TodoItem")
        for id in ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "second", "third", "fourth"] {
            #expect(try await packed.read(id: id) == (try await tree.read(id: id)))
        }
        let query = Query(table: "TodoItem", filter: Field("complete") == false || Field("text") == "eggs")
        #expect(try await packed.read(query) == (try await tree.read(query)))
    }
}

/// A data source that only forwards the untyped protocol to another: it decodes no model itself.
private struct ForwardingDataSource: SyncContextDataSource {
    let inner: InMemoryDataSource

    func read(table: String, id: String) async throws -> JSONObject? { try await inner.read(table: table, id: id) }
    func read(_ query: Query) async throws -> QueryResult { try await inner.read(query) }
    func apply(_ changes: [StoreChange]) async throws { try await inner.apply(changes) }
}

/// ``DecodingOutcome`` of an async read: the value, or the decoding failure's kind and path.
enum AsyncDecodingOutcome {
    static func of<Value: Equatable>(_ body: () async throws -> Value?) async -> DecodingOutcome<Value?> {
        do {
            let value = try await body()
            return DecodingOutcome { value }
        } catch {
            return DecodingOutcome { throw error }
        }
    }
}
