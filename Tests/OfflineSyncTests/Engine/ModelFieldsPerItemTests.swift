import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Whether a typed write clears a field or keeps it is learned from the item being written, never from another item
/// of the same model type, and from what the model encodes, so that an older stored row the model no longer decodes
/// does not block a clear.
struct ModelFieldsPerItemTests {
    /// A model that reads `details` only for notes; each test uses its own `Tag`, so that what one test's writes learn
    /// cannot reach another's.
    struct Entry<Tag: Sendable>: Codable, Sendable {
        var id: String
        var kind: String
        var title: String
        var details: String?

        enum CodingKeys: String, CodingKey { case id, kind, title, details }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            kind = try container.decode(String.self, forKey: .kind)
            title = try container.decode(String.self, forKey: .title)
            details = kind == "note" ? try container.decodeIfPresent(String.self, forKey: .details) : nil
        }
    }

    enum NoteFirst {}
    enum TaskFirst {}

    /// A device that pulled a note "n" and a task "t", each with `details` (the task's written by another client).
    private static func entries<Tag>(_ tag: Tag.Type) async throws -> (EngineFixture, TypedSyncTable<Entry<Tag>>) {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "n", "kind": "note", "title": "milk", "details": "2 litres"],
                                   ["id": "t", "kind": "task", "title": "call", "details": "from another client"]],
                                  table: "Entry")
        let entries = fixture.context.table(Entry<Tag>.self, name: "Entry")
        try await entries.pull()
        return (fixture, entries)
    }

    private static func clearNoteDetails<Tag>(_ entries: TypedSyncTable<Entry<Tag>>) async throws {
        var note = try #require(try await entries.read(id: "n"))
        #expect(note.details == "2 litres")
        note.details = nil
        try await entries.update(note)
    }

    private static func retitleTask<Tag>(_ entries: TypedSyncTable<Entry<Tag>>) async throws {
        var task = try #require(try await entries.read(id: "t"))
        task.title = "call Bob"
        try await entries.update(task)
    }

    /// Both entries after the push, locally and on the server: the note's `details` cleared, the task's kept.
    private static func expectNoteClearedAndTaskKept(_ fixture: EngineFixture) async throws {
        _ = try await fixture.context.push()
        let local = fixture.context.table("Entry")
        for (copy, place) in [(try await local.read(id: "n"), "local"), (await fixture.remote.item(id: "n", table: "Entry"), "server")] {
            #expect(copy?["details"] == .null, "the note's details cleared (\(place)): \(String(describing: copy))")
        }
        for (copy, place) in [(try await local.read(id: "t"), "local"), (await fixture.remote.item(id: "t", table: "Entry"), "server")] {
            #expect(copy?["details"] == "from another client", "the task's details kept (\(place)): \(String(describing: copy))")
            #expect(copy?["title"] == "call Bob")
        }
    }

    @Test func aFieldTheModelReadsOnlyForNotesIsKeptOnATaskUpdatedAfterANote() async throws {
        let (fixture, entries) = try await Self.entries(NoteFirst.self)
        try await Self.clearNoteDetails(entries)
        try await Self.retitleTask(entries)
        try await Self.expectNoteClearedAndTaskKept(fixture)
    }

    @Test func aFieldTheModelReadsOnlyForNotesIsClearedOnANoteUpdatedAfterATask() async throws {
        let (fixture, entries) = try await Self.entries(TaskFirst.self)
        try await Self.retitleTask(entries)
        try await Self.clearNoteDetails(entries)
        try await Self.expectNoteClearedAndTaskKept(fixture)
    }

    /// Version 2 of an app's model: `priority` is new and required, `note` stays optional.
    struct TodoV2: Codable, Sendable {
        var id: String
        var text: String
        var priority: Int
        var note: String?
    }

    /// A row stored before the model gained `priority` does not decode as the new model, yet a write that leaves
    /// `note` nil clears it, locally and on the server.
    @Test func aClearedOptionalIsClearedOverARowWithoutTheNewRequiredField() async throws {
        let fixture = try await EngineFixture(.inMemory)
        await fixture.remote.seed([["id": "x", "text": "buy milk", "note": "2 litres", "extra": 7]], table: "TodoItem")
        try await fixture.todo.pull()
        let todos = fixture.context.table(TodoV2.self, name: "TodoItem")
        await #expect(throws: SyncError.self) { try await todos.read(id: "x") }
        try await todos.update(TodoV2(id: "x", text: "buy milk", priority: 1))
        _ = try await fixture.context.push()
        for (copy, place) in [(try await fixture.todo.read(id: "x"), "local"), (await fixture.remote.item(id: "x", table: "TodoItem"), "server")] {
            #expect(copy?["note"] == .null, "note cleared (\(place)): \(String(describing: copy))")
            #expect(copy?["priority"] == 1 && copy?["extra"] == 7, "\(place): \(String(describing: copy))")
        }
    }
}
