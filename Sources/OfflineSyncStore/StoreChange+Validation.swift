package import OfflineSyncCore
extension StoreChange {
    /// Checks a whole batch without changing anything: valid table names (``TableName``) and ids (``ItemID``),
    /// every upserted item an object with a string `id` whose numbers JSON can hold and whose nesting is at most
    /// ``maximumItemDepth``. Every store calls it before applying a batch; the engine calls it on what it is about
    /// to write.
    /// - Throws: ``DataSourceError`` naming the first problem.
    public static func validate(_ changes: [StoreChange]) throws(DataSourceError) {
        for change in changes {
            try validateTable(change.table)
            switch change {
            case .upsert(let table, let items):
                for item in items { try validateItem(item, table: table) }
            case .delete(let table, let ids):
                for id in ids where ItemID.violation(in: id) != nil {
                    throw DataSourceError.invalidID(table: table, id: id, reason: ItemID.violation(in: id) ?? "")
                }
            case .deleteAll:
                break
            }
        }
    }

    package static func validateTable(_ name: String) throws(DataSourceError) {
        guard TableName.isValid(name) else { throw DataSourceError.invalidTableName(name) }
    }

    package static func validateItem(_ item: JSONObject, table: String) throws(DataSourceError) {
        let id = try validID(of: item, table: table)
        if let problem = storageProblem(in: .object(item), depth: 1) {
            throw DataSourceError.invalidItem(table: table, reason: "item \(id) \(problem)")
        }
    }

    /// The id of `item`, a string that ``ItemID`` accepts; throws the first check of ``validateItem(_:table:)`` that
    /// fails.
    static func validID(of item: JSONObject, table: String) throws(DataSourceError) -> String {
        guard let idValue = item["id"] else {
            throw DataSourceError.invalidItem(table: table, reason: "it has no \"id\"")
        }
        guard case .string(let id) = idValue else {
            throw DataSourceError.invalidItem(table: table, reason: "its \"id\" is not a string")
        }
        if let reason = ItemID.violation(in: id) {
            throw DataSourceError.invalidID(table: table, id: id, reason: reason)
        }
        return id
    }

    /// Why an item holding a non-finite double cannot be stored.
    static let nonFiniteProblem = "holds NaN or infinity, which JSON cannot store"
    /// Why an item nesting containers deeper than ``maximumItemDepth`` cannot be stored.
    static let depthProblem = "nests arrays and objects deeper than \(maximumItemDepth) levels"

    /// The deepest nesting of arrays and objects an item may hold (the item itself is level 1). Stores wrap items
    /// in a few levels of their own (a journal record), and every reader stops at ``JSONReader/maximumDepth``.
    public static let maximumItemDepth = JSONReader.maximumDepth - 16

    /// Why `value`, a container at nesting level `depth`, cannot be stored: a number JSON cannot hold, or nesting
    /// deeper than ``maximumItemDepth``. One walk, no allocation.
    static func storageProblem(in value: JSONValue, depth: Int) -> String? {
        switch value {
        case .double(let number):
            return number.isFinite ? nil : nonFiniteProblem
        case .array(let array):
            if depth > maximumItemDepth { return depthProblem }
            for element in array {
                if let problem = storageProblem(in: element, depth: depth + 1) { return problem }
            }
            return nil
        case .object(let object):
            if depth > maximumItemDepth { return depthProblem }
            for element in object.values {
                if let problem = storageProblem(in: element, depth: depth + 1) { return problem }
            }
            return nil
        default:
            return nil
        }
    }
}
