import Foundation
import OfflineSync

/// `inspect`, `dump`, `explain` and `compact`: commands that open a journal store, look at it or maintain it, and close it.
enum StoreCommands {
    static let inspectSpec = CommandSpec(
        name: "inspect", summary: "Shows a journal store: tables, queued operations, push errors, delta tokens and file sizes.",
        positionals: [.init(name: "DIR", help: "The store's directory.")], options: [KeyFile.option])
    static let dumpSpec = CommandSpec(
        name: "dump", summary: "Prints a journal store's items as JSON on standard output.",
        positionals: [.init(name: "DIR", help: "The store's directory.")],
        options: [.init(name: "table", valueName: "T", help: "Only table T, as a JSON array (default: every table, as an object), "
                        + "by id unless --orderby says otherwise; the query options need it.")]
            + QueryOptions.specOptions + [KeyFile.option])
    static let explainSpec = CommandSpec(
        name: "explain", summary: "Shows how a journal store answers a query: the index it walks, or a scan, and why.",
        positionals: [.init(name: "DIR", help: "The store's directory.")],
        options: [.init(name: "table", valueName: "T", help: "The table to query (required).")] + QueryOptions.specOptions
            + [.init(name: "count", valueName: nil, help: "Count every match too, as includeTotalCount does."), KeyFile.option])
    static let compactSpec = CommandSpec(
        name: "compact", summary: "Writes a new snapshot of a journal store and starts an empty journal.",
        positionals: [.init(name: "DIR", help: "The store's directory.")], options: [KeyFile.option])

    static func inspect(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try existingStoreDirectory(arguments.positionals[0])
        return try await withStore(directory, arguments) { store in
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
            for token in tokens {
                Terminal.out("  \(token.table) \"\(token.queryId)\": \(token.updatedAt)" + (token.afterId.map { " after id \"\($0)\"" } ?? ""))
            }
            return 0
        }
    }

    static func dump(_ arguments: ParsedArguments) async throws -> Int32 {
        var selected: (query: Query, indexes: [IndexDefinition])?
        if let table = arguments.value("table") {
            selected = try QueryOptions.query(table: table, arguments, spec: dumpSpec)
        } else if let option = QueryOptions.specOptions.first(where: { arguments.value($0.name) != nil }) {
            throw UsageError("option '--\(option.name)' needs --table", spec: dumpSpec)
        }
        let directory = try existingStoreDirectory(arguments.positionals[0])
        return try await withStore(directory, arguments, indexes: selected?.indexes ?? []) { store in
            let writer = JSONWriter(sortedKeys: true)
            var output: [UInt8] = []
            func items(_ query: Query) async throws -> JSONValue {
                .array(try await store.read(query).items.map { .object($0) })
            }
            if var query = selected?.query {
                if query.orderBy.isEmpty { query.orderBy = [.ascending("id")] }
                writer.write(try await items(query), into: &output)
            } else {
                var all = JSONObject()
                for name in await store.statistics().tables.keys {
                    all[name] = try await items(Query(table: name, orderBy: [.ascending("id")]))
                }
                writer.write(.object(all), into: &output)
            }
            Terminal.out(String(decoding: output, as: UTF8.self))
            return 0
        }
    }

    static func explain(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let table = arguments.value("table") else { throw UsageError("missing option --table", spec: explainSpec) }
        var (query, indexes) = try QueryOptions.query(table: table, arguments, spec: explainSpec)
        query.includeTotalCount = arguments.flag("count")
        let directory = try existingStoreDirectory(arguments.positionals[0])
        return try await withStore(directory, arguments, indexes: indexes) { store in
            let tables = await store.statistics().tables
            guard tables[table] != nil else {
                let names = tables.keys.sorted().joined(separator: ", ")
                throw CommandFailure("the store in \(directory.path) has no table '\(table)' (its tables: \(names.isEmpty ? "none" : names))")
            }
            let plan = try await store.explain(query)
            Terminal.out("Query: \(describe(query))")
            Terminal.out("Plan: \(plan)")
            return 0
        }
    }

    /// The query in the command line's terms, e.g. `TodoItem filter (priority eq 7) orderby updatedAt desc top 20`.
    private static func describe(_ query: Query) -> String {
        var parts = [query.table]
        if let filter = query.filter { parts.append("filter \(filter.odata)") }
        if !query.orderBy.isEmpty {
            parts.append("orderby " + query.orderBy.map { "\($0.field) \($0.ascending ? "asc" : "desc")" }.joined(separator: ","))
        }
        if let skip = query.skip { parts.append("skip \(skip)") }
        if let top = query.top { parts.append("top \(top)") }
        if query.includeTotalCount { parts.append("count") }
        return parts.joined(separator: " ")
    }

    static func compact(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try existingStoreDirectory(arguments.positionals[0])
        return try await withStore(directory, arguments) { store in
            let before = await store.statistics()
            try await store.compact()
            let after = await store.statistics()
            Terminal.out("Compacted \(directory.path): generation \(before.generation) -> \(after.generation); "
                + "journal \(before.journalBytes) -> \(after.journalBytes) bytes; snapshot \(before.snapshotBytes) -> \(after.snapshotBytes) bytes")
            return 0
        }
    }

    /// Opens the store in `directory` (with the key of `--key-file`, when given), runs `body`, and closes the store on
    /// every path.
    static func withStore(_ directory: URL, _ arguments: ParsedArguments, indexes: [IndexDefinition] = [],
                          _ body: (JournalDataSource) async throws -> Int32) async throws -> Int32 {
        var options = JournalOptions()
        options.indexes = indexes
        options.cipher = try KeyFile.cipher(arguments)
        let store = try await JournalDataSource(directory: directory, options: options)
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
