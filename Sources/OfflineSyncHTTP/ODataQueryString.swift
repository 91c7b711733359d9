import OfflineSyncCore
/// One `name=value` pair of a query string, both already percent-encoded.
struct QueryPair: Sendable, Hashable {
    /// The encoded name, e.g. `$filter`.
    var name: String
    /// The encoded value, e.g. `(text%20eq%20'bob')`.
    var value: String

    /// Encodes `name` and `value` with ``PercentEncoding/queryComponent(_:)``.
    init(encoding name: String, _ value: String) {
        self.name = PercentEncoding.queryComponent(name)
        self.value = PercentEncoding.queryComponent(value)
    }

    /// A pair whose parts are already encoded.
    init(encodedName: String, encodedValue: String) {
        self.name = encodedName
        self.value = encodedValue
    }

    /// `name=value`.
    var text: String { name + "=" + value }
}

/// Writes a ``Query`` as the OData query string of the table protocol, in the .NET reference client's order:
/// `$filter`, `$orderby`, `$skip`, `$top`, `$select`, the count flag, then the include-deleted flag.
///
/// - v2: `$inlinecount=allpages`, `__includeDeleted=true`, `datetimeoffset'…'` and `substringof`.
/// - v3: `$count=true`, `__includedeleted=true`, `cast(…,Edm.DateTimeOffset)` and `contains`.
///
/// Values are percent-encoded as the iOS reference client does (``PercentEncoding/queryComponent(_:)``):
/// `$filter=(updatedAt%20ge%20datetimeoffset'1970-01-01T00%3A00%3A00.000Z')`, `$orderby=name%20asc,zip%20desc`.
enum ODataQueryString {
    /// The encoded pairs for `query` in `version`'s dialect. The query must be valid (see
    /// ``Query/validate(requireIdentifiers:)``).
    static func pairs(for query: Query, version: APIVersion) -> [QueryPair] {
        var pairs: [QueryPair] = []
        if let filter = query.filter {
            pairs.append(QueryPair(encoding: "$filter", filter.odata(version.odataDialect)))
        }
        if !query.orderBy.isEmpty {
            let keys = query.orderBy.map { $0.field + ($0.ascending ? " asc" : " desc") }
            pairs.append(QueryPair(encodedName: "$orderby",
                                   encodedValue: keys.map(PercentEncoding.queryComponent).joined(separator: ",")))
        }
        if let skip = query.skip { pairs.append(QueryPair(encoding: "$skip", String(skip))) }
        if let top = query.top { pairs.append(QueryPair(encoding: "$top", String(top))) }
        if let select = query.select {
            pairs.append(QueryPair(encodedName: "$select",
                                   encodedValue: select.map(PercentEncoding.queryComponent).joined(separator: ",")))
        }
        if query.includeTotalCount {
            switch version {
            case .v2: pairs.append(QueryPair(encoding: "$inlinecount", "allpages"))
            case .v3: pairs.append(QueryPair(encoding: "$count", "true"))
            }
        }
        if query.includeDeleted {
            pairs.append(QueryPair(encoding: version.includeDeletedParameter, "true"))
        }
        return pairs
    }

    /// The query string (`a=b&c=d`, no `?`) for `query`.
    static func string(for query: Query, version: APIVersion) -> String {
        pairs(for: query, version: version).map(\.text).joined(separator: "&")
    }
}
