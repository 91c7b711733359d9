import Foundation
import Testing
import OfflineSync

/// `inspect`, `dump`, `verify`, `repair` and `compact` against the journal fixtures, through the real executable.
@Suite(.serialized)
struct StoreCommandTests {
    @Test func inspectShowsTablesFilesAndQueue() async throws {
        let store = try ToolProcess.fixtureCopy("valid")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try await ToolProcess.run(["inspect", store.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        for expected in ["generation 2", "TodoItem: 3", "__config: 1", "Pending operations: 0", "Errors from the last push: 0",
                         "Delta tokens: 0", "snapshot 553 bytes"] {
            #expect(outcome.standardOutput.contains(expected), "missing \(expected) in\n\(outcome.standardOutput)")
        }
    }

    @Test func inspectListsQueuedOperationsErrorsAndTokens() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let store = try await JournalDataSource(directory: directory)
        let context = SyncContext(dataSource: store, remote: FailingRemote())
        try await context.table("TodoItem").insert(["id": "a1", "text": "x"])
        await #expect(throws: PushError.self) { try await context.push() }
        try await store.close()
        let outcome = try await ToolProcess.run(["inspect", directory.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("Pending operations: 1"))
        #expect(outcome.standardOutput.contains("#1 insert TodoItem/a1 (attempted: it may have reached the server)"))
        #expect(outcome.standardOutput.contains("Errors from the last push: 1"))
        #expect(outcome.standardOutput.contains("insert TodoItem/a1 (HTTP 500): The server answered 500: boom"))
    }

    @Test func dumpPrintsItemsAsJSON() async throws {
        let store = try ToolProcess.fixtureCopy("valid")
        defer { try? FileManager.default.removeItem(at: store) }
        let table = try await ToolProcess.run(["dump", store.path, "--table", "TodoItem"])
        #expect(table.status == 0)
        let items = try #require(try JSONValue(parsing: table.standardOutput).arrayValue)
        #expect(items.compactMap { $0.objectValue?["id"]?.stringValue } == ["T2", "t1", "t4"])
        let all = try await ToolProcess.run(["dump", store.path])
        let tables = try #require(try JSONValue(parsing: all.standardOutput).objectValue)
        #expect(Set(tables.keys) == ["TodoItem", "__config"])
    }

    @Test func verifyTellsSoundFromTornAndCorrupted() async throws {
        let sound = try ToolProcess.fixtureCopy("valid"), torn = try ToolProcess.fixtureCopy("torn-tail")
        let corrupted = try ToolProcess.fixtureCopy("mid-log-corrupted")
        defer { for url in [sound, torn, corrupted] { try? FileManager.default.removeItem(at: url) } }
        let soundOutcome = try await ToolProcess.run(["verify", sound.path])
        #expect(soundOutcome.status == 0)
        #expect(soundOutcome.standardOutput.hasPrefix("sound"))
        let tornOutcome = try await ToolProcess.run(["verify", torn.path])
        #expect(tornOutcome.status == 1)
        #expect(tornOutcome.standardOutput.contains("journal.1.jsonl"))
        let corruptedOutcome = try await ToolProcess.run(["verify", corrupted.path])
        #expect(corruptedOutcome.status == 1)
        #expect(corruptedOutcome.standardOutput.contains("journal.1.jsonl at byte"))
        #expect(corruptedOutcome.standardOutput.contains("sequence 2"))
        // verify changes nothing: the torn store is still torn.
        #expect(try await ToolProcess.run(["verify", torn.path]).status == 1)
    }

    @Test func inspectingACorruptedStoreTellsHowToRepairIt() async throws {
        let store = try ToolProcess.fixtureCopy("mid-log-corrupted")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try await ToolProcess.run(["inspect", store.path])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("offline-sync repair \(store.path)"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("journal.1.jsonl"))
        #expect(!outcome.standardError.contains("JournalDataSource.repair"), "a CLI user is not told of a Swift method")
    }

    @Test func repairAsksFirstAndKeepsTheValidPrefix() async throws {
        let store = try ToolProcess.fixtureCopy("mid-log-corrupted")
        defer { try? FileManager.default.removeItem(at: store) }
        let declined = try await ToolProcess.run(["repair", store.path], input: "n\n")
        #expect(declined.status == 1)
        #expect(declined.standardOutput.contains("nothing changed"))
        #expect(try await ToolProcess.run(["verify", store.path]).status == 1)
        let accepted = try await ToolProcess.run(["repair", store.path], input: "y\n")
        #expect(accepted.status == 0, "\(accepted.standardError)")
        #expect(accepted.standardOutput.contains("repaired"))
        #expect(try await ToolProcess.run(["verify", store.path]).status == 0)
        let kept = try FileManager.default.contentsOfDirectory(atPath: store.path)
        #expect(kept.contains { $0.hasSuffix(".broken") }, "the damaged part is kept: \(kept)")
    }

    @Test func repairWithYesDoesNotAsk() async throws {
        let store = try ToolProcess.fixtureCopy("torn-tail")
        defer { try? FileManager.default.removeItem(at: store) }
        let outcome = try await ToolProcess.run(["repair", "--yes", store.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try await ToolProcess.run(["verify", store.path]).status == 0)
    }

    /// `repair` of a store whose manifest (`CURRENT`) is gone (nil) or holds garbage, while its snapshot and journal
    /// (with records) remain: it asks first, then rebuilds the manifest from the files, and the store opens with
    /// every item it held.
    @Test(arguments: [nil, "garbage\n"] as [String?])
    func repairRebuildsAMissingOrDamagedManifestFromTheStoresFiles(_ manifest: String?) async throws {
        let store = try ToolProcess.fixtureCopy("valid")
        defer { try? FileManager.default.removeItem(at: store) }
        let before = try await ToolProcess.run(["dump", store.path])
        #expect(before.status == 0, "\(before.standardError)")
        let current = store.appendingPathComponent("CURRENT")
        try FileManager.default.removeItem(at: current)
        if let manifest { try Data(manifest.utf8).write(to: current) }

        let declined = try await ToolProcess.run(["repair", store.path], input: "n\n")
        #expect(declined.status == 1)
        #expect(declined.standardOutput.contains("CURRENT"), "the problem is named: \(declined.standardOutput)\(declined.standardError)")
        #expect(declined.standardOutput.contains("nothing changed"), "\(declined.standardOutput)\(declined.standardError)")
        #expect(FileManager.default.fileExists(atPath: current.path) == (manifest != nil))

        let outcome = try await ToolProcess.run(["repair", store.path, "--yes"])
        #expect(outcome.status == 0, "\(outcome.standardOutput)\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("repaired"), "\(outcome.standardOutput)")
        #expect(try await ToolProcess.run(["verify", store.path]).status == 0)
        let after = try await ToolProcess.run(["dump", store.path])
        #expect(after.status == 0, "\(after.standardError)")
        #expect(after.standardOutput == before.standardOutput, "every item the store held")
        let names = try FileManager.default.contentsOfDirectory(atPath: store.path)
        #expect(names.contains("CURRENT.broken") == (manifest != nil), "a damaged manifest is kept aside: \(names)")
    }

    @Test func repairsHelpTellsThatItRebuildsAManifest() async throws {
        let help = try await ToolProcess.run(["repair", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("manifest (CURRENT)"), "\(help.standardOutput)")
    }

    @Test func compactKeepsEveryItem() async throws {
        let store = try ToolProcess.fixtureCopy("valid")
        defer { try? FileManager.default.removeItem(at: store) }
        let before = try await ToolProcess.run(["dump", store.path]).standardOutput
        let outcome = try await ToolProcess.run(["compact", store.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("generation 2 -> 3"))
        #expect(try await ToolProcess.run(["dump", store.path]).standardOutput == before)
        #expect(try await ToolProcess.run(["verify", store.path]).status == 0)
    }

    @Test(arguments: [["inspect"], ["dump"], ["verify"], ["repair", "--yes"], ["compact"]])
    func everyCommandRefusesALockedStore(_ command: [String]) async throws {
        let directory = try ToolProcess.fixtureCopy("valid")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await JournalDataSource(directory: directory)
        let outcome = try await ToolProcess.run(command + [directory.path])
        try await store.close()
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("locked"), "\(outcome.standardError)")
    }

    @Test(arguments: ["inspect", "dump", "verify", "repair", "compact"])
    func commandsRefuseADirectoryWithoutAStore(_ command: String) async throws {
        let temporary = TemporaryDirectory(creating: true)
        defer { temporary.remove() }
        let empty = temporary.url
        let outcome = try await ToolProcess.run([command, empty.path])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("holds no journal store"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty)
    }
}

/// A back end that answers every write with HTTP 500.
private struct FailingRemote: SyncRemote {
    func insert(_ item: JSONObject, table: String) async throws -> JSONObject { throw RemoteError.server(status: 500, message: "boom") }
    func update(_ item: JSONObject, table: String) async throws -> JSONObject { throw RemoteError.server(status: 500, message: "boom") }
    func delete(id: String, version: String?, table: String) async throws { throw RemoteError.server(status: 500, message: "boom") }
    func read(_ query: Query) async throws -> RemotePage { RemotePage(items: []) }
}
