import Foundation
import OfflineSync

/// The options that describe a query of one table on the command line (`--filter`, `--orderby`, `--top`,
/// `--skip`) and the indexes to open the store with (`--index`), shared by `explain` and `dump`.
struct QueryOptions {
    /// The options, for a ``CommandSpec``.
    static let specOptions: [CommandSpec.Option] = [
        .init(name: "filter", valueName: "TEXT",
              help: "Only items matching TEXT, in OData $filter syntax: \"complete eq false and priority ge 3\", "
                + "\"updatedAt gt datetimeoffset'2026-01-01T00:00:00Z'\", startswith(text,'a'), not(...), or."),
        .init(name: "orderby", valueName: "KEYS", help: "Order by comma-separated fields, each optionally asc or desc: \"priority,updatedAt desc\"."),
        .init(name: "top", valueName: "N", help: "At most N items."),
        .init(name: "skip", valueName: "N", help: "Skip the first N matching items."),
        .init(name: "index", valueName: "FIELDS",
              help: "Open the store with an index of the table on comma-separated FIELDS, as an app declares it in "
                + "JournalOptions.indexes (indexes live in memory, so a store has none unless given); repeatable."),
    ]

    /// The query of `table` the options describe, and the indexes they declare.
    /// - Throws: ``UsageError`` for an option value that does not parse, naming the option and the problem.
    static func query(table: String, _ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError) -> (Query, [IndexDefinition]) {
        guard TableName.isValid(table) else { throw UsageError("'\(table)' is not a valid table name", spec: spec) }
        var query = Query(table: table)
        if let text = arguments.value("filter") {
            do { query.filter = try FilterText.parse(text) } catch { throw UsageError("--filter: \(error)", spec: spec) }
        }
        if let text = arguments.value("orderby") {
            query.orderBy = try sortKeys(text, spec: spec)
        }
        query.top = try count("top", arguments, spec: spec)
        query.skip = try count("skip", arguments, spec: spec)
        var indexes: [IndexDefinition] = []
        for text in arguments.values("index") {
            let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let index = IndexDefinition(table: table, fields: fields)
            do { try index.validate() } catch { throw UsageError("--index \(text): \(error)", spec: spec) }
            indexes.append(index)
        }
        return (query, indexes)
    }

    private static func sortKeys(_ text: String, spec: CommandSpec) throws(UsageError) -> [SortKey] {
        var keys: [SortKey] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let words = part.split(separator: " ").map(String.init)
            guard let field = words.first, words.count <= 2, Field(field).isValidIdentifier else {
                throw UsageError("--orderby: '\(part.trimmingCharacters(in: .whitespaces))' is not a field name optionally followed by asc or desc", spec: spec)
            }
            switch words.dropFirst().first {
            case nil, "asc": keys.append(.ascending(field))
            case "desc": keys.append(.descending(field))
            case let direction?: throw UsageError("--orderby: '\(direction)' after \(field) is neither asc nor desc", spec: spec)
            }
        }
        return keys
    }

    private static func count(_ name: String, _ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError) -> Int? {
        guard let text = arguments.value(name) else { return nil }
        guard let number = Int(text), number >= 0 else { throw UsageError("--\(name): '\(text)' is not a whole number of 0 or more", spec: spec) }
        return number
    }
}
