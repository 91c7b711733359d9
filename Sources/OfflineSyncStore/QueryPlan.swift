import OfflineSyncCore
/// How a store answers a query, like SQLite's `EXPLAIN QUERY PLAN`: through an index or by a scan of the table.
public struct QueryPlan: Sendable, Hashable, CustomStringConvertible {
    /// Where the items come from.
    public enum Access: Sendable, Hashable {
        /// Every item of the table is tested.
        case scan
        /// The index is walked in order; `equalityFields` is the prefix of its fields fixed by the filter.
        case index(IndexDefinition, equalityFields: [String])
    }

    /// Where the items come from.
    public var access: Access
    /// Why this access was chosen, for people.
    public var reason: String
    /// The bounds that narrow the walk to a range of the field after the equality fields (or, for a skip-scan, of
    /// the second field), as SQLite writes them: `updatedAt>=?`, `updatedAt<?`. Empty for a scan or a walk of a
    /// whole prefix.
    public var rangeConditions: [String]

    /// A plan with `access`, explained by `reason`, its walk narrowed by `rangeConditions`.
    public init(access: Access, reason: String, rangeConditions: [String] = []) {
        self.access = access
        self.reason = reason
        self.rangeConditions = rangeConditions
    }

    /// The index used, or nil for a scan.
    public var index: IndexDefinition? {
        if case .index(let definition, _) = access { return definition }
        return nil
    }

    /// A one-line summary, e.g. `SEARCH TodoItem USING INDEX (complete, updatedAt) (complete=? AND updatedAt>=?)`.
    public var description: String {
        switch access {
        case .scan:
            return "SCAN: \(reason)"
        case .index(let definition, let fields):
            let conditions = fields.map { "\($0)=?" } + rangeConditions
            let bound = conditions.isEmpty ? "" : " (" + conditions.joined(separator: " AND ") + ")"
            return "SEARCH \(definition.table) USING INDEX (\(definition.fields.joined(separator: ", ")))\(bound): \(reason)"
        }
    }
}
