import Foundation
import OfflineSync

/// `inspect`, `dump` and `compact`: commands that open a journal store, look at it or maintain it, and close it.
enum StoreCommands {
    static let inspectSpec = CommandSpec(
        name: "inspect", summary: "Shows a journal store: tables, queued operations, push errors, delta tokens and file sizes.",
        positionals: [.init(name: "DIR", help: "The store's directory.")])
    static let dumpSpec = CommandSpec(
        name: "dump", summary: "Prints a journal store's items as JSON on standard output.",
        positionals: [.init(name: "DIR", help: "The store's directory.")],
        options: [.init(name: "table", valueName: "T", help: "Only table T, as a JSON array (default: every table, as an object).")])
    static let compactSpec = CommandSpec(
        name: "compact", summary: "Writes a new snapshot of a journal store and starts an empty journal.",
        positionals: [.init(name: "DIR", help: "The store's directory.")])

    static func inspect(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try existingStoreDirectory(arguments.positionals[0])
        return try await withStore(directory) { store in
            let statistics = await store.statistics()
            let context = SyncContext(dataSource: store, remote: NoRemote())
            Terminal.out("Store \(directory.path)")
            Terminal.out("  generation \(statistics.generation), last sequence \(statistics.lastSequence)")
            Terminal.out("  journal \(statistics.journalBytes) bytes in \(statistics.journalRecords) records; snapshot \(statistics.snapshotBytes) bytes")
            Terminal.out("Tables (items):")
            let tables = statistics.tables.sorted { $0.key < $1.key }
            if tables.isEmpty { Terminal.out("  (none)") }
            for (name, count) in tables { Terminal.out("  \(name): \(count)") }
            let operations = try await context.pendingOperations()
            Terminal.out("Pending operations: \(operations.count)")
            for operation in operations {
                let attempted = operation.attempted ? " (attempted: it may have reached the server)" : ""
                Terminal.out("  #\(operation.id) \(operation.kind.rawValue) \(operation.table)/\(operation.itemId)\(attempted)")
            }
            let errors = try await context.operationErrors()
            Terminal.out("Errors from the last push: \(errors.count)")
            for error in errors {
                let status = error.statusCode.map { " (HTTP \($0))" } ?? ""
                Terminal.out("  #\(error.operation.id) \(error.operation.kind.rawValue) \(error.operation.table)/\(error.operation.itemId)\(status): \(error.message)")
            }
            let tokens = try await context.deltaTokens()
            Terminal.out("Delta tokens: \(tokens.count)")
            for token in tokens { Terminal.out("  \(token.table) \"\(token.queryId)\": \(token.updatedAt)") }
            return 0
        }
    }

    static func dump(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try existingStoreDirectory(arguments.positionals[0])
        return try await withStore(directory) { store in
            let writer = JSONWriter(sortedKeys: true)
            var output: [UInt8] = []
            func items(_ table: String) async throws -> JSONValue {
                let result = try await store.read(Query(table: table, orderBy: [.ascending("id")]))
                return .array(result.items.map { .object($0) })
            }
            if let table = arguments.value("table") {
                guard TableName.isValid(table) else { throw CommandFailure("'\(table)' is not a valid table name") }
                writer.write(try await items(table), into: &output)
            } else {
                var all = JSONObject()
                for name in await store.statistics().tables.keys { all[name] = try await items(name) }
                writer.write(.object(all), into: &output)
            }
            Terminal.out(String(decoding: output, as: UTF8.self))
            return 0
        }
    }

    static func compact(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try existingStoreDirectory(arguments.positionals[0])
        return try await withStore(directory) { store in
            let before = await store.statistics()
            try await store.compact()
            let after = await store.statistics()
            Terminal.out("Compacted \(directory.path): generation \(before.generation) -> \(after.generation); "
                + "journal \(before.journalBytes) -> \(after.journalBytes) bytes; snapshot \(before.snapshotBytes) -> \(after.snapshotBytes) bytes")
            return 0
        }
    }

    /// Opens the store in `directory`, runs `body`, and closes the store on every path.
    static func withStore(_ directory: URL, _ body: (JournalDataSource) async throws -> Int32) async throws -> Int32 {
        let store = try await JournalDataSource(directory: directory)
        do {
            let status = try await body(store)
            try await store.close()
            return status
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// The directory of an existing store; a command that only looks never creates one.
    static func existingStoreDirectory(_ path: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure("\(path) is not a directory")
        }
        guard let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty else {
            throw CommandFailure("\(path) holds no journal store (it is empty)")
        }
        return URL(fileURLWithPath: path)
    }
}

/// The remote of a context that only inspects a store: it never contacts a back end.
struct NoRemote: SyncRemote {
    private var offline: RemoteError { .network("offline-sync does not contact a back end here") }
    func insert(_ item: JSONObject, table: String) async throws -> JSONObject { throw offline }
    func update(_ item: JSONObject, table: String) async throws -> JSONObject { throw offline }
    func delete(id: String, version: String?, table: String) async throws { throw offline }
    func read(_ query: Query) async throws -> RemotePage { throw offline }
}
