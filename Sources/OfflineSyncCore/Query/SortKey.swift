/// One key of a query's ordering.
public struct SortKey: Sendable, Hashable {
    /// The field to sort by.
    public var field: String
    /// `true` for ascending order, `false` for descending.
    public var ascending: Bool

    /// Creates a sort key.
    public init(field: String, ascending: Bool) {
        self.field = field
        self.ascending = ascending
    }

    /// Sorts by `field`, smallest first (missing and `null` first).
    public static func ascending(_ field: String) -> SortKey { SortKey(field: field, ascending: true) }
    /// Sorts by `field`, largest first.
    public static func descending(_ field: String) -> SortKey { SortKey(field: field, ascending: false) }
}
