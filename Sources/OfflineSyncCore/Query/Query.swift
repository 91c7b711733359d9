/// A query against one table: filter, ordering, paging and projection.
///
/// ```swift
/// let query = Query(table: "TodoItem", filter: Field("complete") == false,
///                   orderBy: [.ascending("priority"), .descending("updatedAt")], top: 20)
/// let result = try await dataSource.read(query)
/// ```
public struct Query: Sendable, Hashable {
    /// The table to read.
    public var table: String
    /// Only items matching this filter; nil means every item.
    public var filter: Filter?
    /// The ordering, highest priority first; empty means unspecified order.
    public var orderBy: [SortKey]
    /// How many matching items to skip.
    public var skip: Int?
    /// At most this many items.
    public var top: Int?
    /// The fields to return (plus `id`); nil means all fields.
    public var select: [String]?
    /// Whether to report the count of all matches, regardless of `skip` and `top`.
    public var includeTotalCount: Bool
    /// Whether a server should include soft-deleted records. Local stores never hold them.
    public var includeDeleted: Bool

    /// Creates a query.
    public init(table: String, filter: Filter? = nil, orderBy: [SortKey] = [],
                skip: Int? = nil, top: Int? = nil, select: [String]? = nil,
                includeTotalCount: Bool = false, includeDeleted: Bool = false) {
        self.table = table
        self.filter = filter
        self.orderBy = orderBy
        self.skip = skip
        self.top = top
        self.select = select
        self.includeTotalCount = includeTotalCount
        self.includeDeleted = includeDeleted
    }

    /// Checks the query's own arguments: `skip` and `top` not negative; with `requireIdentifiers`, every field
    /// in the filter, ordering and selection a valid identifier (needed before sending it to a server).
    /// - Throws: ``QueryError``.
    public func validate(requireIdentifiers: Bool = false) throws(QueryError) {
        if let skip, skip < 0 { throw QueryError.negativeSkip(skip) }
        if let top, top < 0 { throw QueryError.negativeTop(top) }
        guard requireIdentifiers else { return }
        try filter?.validate()
        for name in orderBy.map(\.field) + (select ?? []) where !Field.isValidIdentifier(name) {
            throw QueryError.invalidFieldName(name)
        }
    }
}

/// Why a query cannot run.
///
/// A struct with a ``Code``, as GRDB's `DatabaseError`, so that a new kind of refusal does not break a caller's
/// `switch`: match on ``code``.
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal an error is.
    public typealias Code = NamedCode<QueryError>

    /// What kind of refusal this is.
    public let code: Code
    /// The field name refused, for the code `invalidFieldName`.
    public let field: String?
    /// A sentence saying what is wrong.
    public let description: String

    private init(_ code: Code, field: String? = nil, _ description: String) {
        self.code = code
        self.field = field
        self.description = description
    }

    /// A field name that is not a valid identifier (a letter or `_`, then letters, digits or `_`).
    public static func invalidFieldName(_ name: String) -> QueryError {
        QueryError(.invalidFieldName, field: name,
                   "The field name \"\(name)\" is not a valid identifier; use letters, digits and _ only, starting with a letter or _.")
    }

    /// `skip` below zero.
    public static func negativeSkip(_ skip: Int) -> QueryError {
        QueryError(.negativeSkip, "Query skip must be 0 or more, not \(skip).")
    }

    /// `top` below zero.
    public static func negativeTop(_ top: Int) -> QueryError {
        QueryError(.negativeTop, "Query top must be 0 or more, not \(top).")
    }
}

extension NamedCode where Domain == QueryError {
    /// A field name that is not a valid identifier.
    public static var invalidFieldName: Self { Self(rawValue: "invalidFieldName") }
    /// `skip` below zero.
    public static var negativeSkip: Self { Self(rawValue: "negativeSkip") }
    /// `top` below zero.
    public static var negativeTop: Self { Self(rawValue: "negativeTop") }
}

/// The items a query returned, and the count of all matches when it was asked for.
public struct QueryResult: Sendable, Hashable {
    /// The matching items after ordering, `skip`, `top` and `select`.
    public var items: [JSONObject]
    /// The count of every match regardless of `skip`/`top`; nil unless the query set `includeTotalCount`.
    public var totalCount: Int?

    /// Creates a result (data sources written outside the library build results with this).
    public init(items: [JSONObject], totalCount: Int? = nil) {
        self.items = items
        self.totalCount = totalCount
    }
}
