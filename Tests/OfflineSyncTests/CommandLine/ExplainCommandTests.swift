import Foundation
import Testing
import OfflineSync

/// `explain` and `dump`'s query options, through the real executable, on a store of a few to-do items.
@Suite(.serialized)
struct ExplainCommandTests {
    /// A store of twelve items: `complete` alternates, `priority` 0…3, `updatedAt` one minute apart.
    static func makeStore(_ directory: URL) async throws {
        let store = try await JournalDataSource(directory: directory)
        let items = (0..<12).map { number -> JSONObject in
            ["id": .string(String(format: "t%02d", number)), "complete": .bool(number % 2 == 0), "priority": .int(Int64(number % 4)),
             "updatedAt": .string(String(format: "2026-01-01T00:%02d:00.000Z", number))]
        }
        try await store.apply([.upsert(table: "TodoItem", items: items)])
        try await store.close()
    }

    @Test func explainNamesTheIndexGivenOnTheCommandLineAndAScanWithout() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        try await Self.makeStore(temporary.url)
        let query = ["--table", "TodoItem", "--filter", "complete eq false", "--orderby", "updatedAt desc", "--top", "5"]
        let indexed = try await ToolProcess.run(["explain", temporary.path] + query + ["--index", "complete,updatedAt", "--index", "priority"])
        #expect(indexed.status == 0, "\(indexed.standardError)")
        #expect(indexed.standardOutput.contains("Query: TodoItem filter (complete eq false) orderby updatedAt desc top 5"), "\(indexed.standardOutput)")
        #expect(indexed.standardOutput.contains("Plan: SEARCH TodoItem USING INDEX (complete, updatedAt) (complete=?)"), "\(indexed.standardOutput)")
        let plain = try await ToolProcess.run(["explain", temporary.path] + query)
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.standardOutput.contains("Plan: SCAN: no index is defined on TodoItem"), "\(plain.standardOutput)")
    }

    @Test func dumpPrintsTheItemsTheQueryOptionsSelectInOrder() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        try await Self.makeStore(temporary.url)
        let outcome = try await ToolProcess.run(["dump", temporary.path, "--table", "TodoItem", "--filter", "complete eq true and priority ge 2",
                                                 "--orderby", "updatedAt desc", "--skip", "1", "--index", "complete,updatedAt"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let items = try #require(try JSONValue(parsing: outcome.standardOutput).arrayValue)
        // complete: even numbers; priority ≥ 2: 2, 6, 10; newest first, skipping t10.
        #expect(items.compactMap { $0.objectValue?["id"]?.stringValue } == ["t06", "t02"])
        let filtered = try await ToolProcess.run(["dump", temporary.path, "--table", "TodoItem", "--filter", "startswith(id,'t1')"])
        let ids = try #require(try JSONValue(parsing: filtered.standardOutput).arrayValue).compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(ids == ["t10", "t11"])
    }

    @Test func explainOfATableTheStoreDoesNotHoldSaysWhichTablesItHolds() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        try await Self.makeStore(temporary.url)
        let outcome = try await ToolProcess.run(["explain", temporary.path, "--table", "Todo"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("has no table 'Todo' (its tables: TodoItem"), "\(outcome.standardError)")
    }

    @Test(arguments: [
        (["explain", "DIR"], "missing option --table"),
        (["explain", "DIR", "--table", "TodoItem", "--filter", "complete == false"], "--filter: malformed filter at character 10: unexpected character '='"),
        (["explain", "DIR", "--table", "TodoItem", "--filter", "priority gt"], "--filter: malformed filter at character 12: expected a value"),
        (["explain", "DIR", "--table", "TodoItem", "--orderby", "updatedAt down"], "--orderby: 'down' after updatedAt is neither asc nor desc"),
        (["explain", "DIR", "--table", "TodoItem", "--top", "-1"], "--top: '-1' is not a whole number"),
        (["explain", "DIR", "--table", "TodoItem", "--index", "complete,,updatedAt"], "--index complete,,updatedAt:"),
        (["explain", "DIR", "--table", "bad name"], "'bad name' is not a valid table name"),
        (["dump", "DIR", "--filter", "complete eq false"], "option '--filter' needs --table"),
    ])
    func badQueryOptionsAreUsageErrors(_ arguments: [String], _ message: String) async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        try await Self.makeStore(temporary.url)
        let outcome = try await ToolProcess.run(arguments.map { $0 == "DIR" ? temporary.path : $0 })
        #expect(outcome.status == 2, "\(outcome.standardError)")
        #expect(outcome.standardError.contains(message), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("usage: offline-sync \(arguments[0])"))
    }
}
