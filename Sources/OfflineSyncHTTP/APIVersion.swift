public import OfflineSyncCore
/// The table-protocol version a server speaks, sent as the `ZUMO-API-VERSION` header.
///
/// - `v2`: Azure Mobile Apps .NET and Node servers (`ZUMO-API-VERSION: 2.0.0`): `PATCH` updates, OData v3 filters,
///   `X-ZUMO-AUTH`, query results as an array or `{results, count}`.
/// - `v3`: Datasync servers (Community Toolkit, Azure Mobile Apps v5; `3.0.0`): `PUT` updates, OData v4 filters,
///   `Authorization: Bearer`, query results as `{items, count, nextLink}`, 410 for deleted records.
///
/// See `Docs/Protocol.md` for what OfflineSync sends and accepts in each.
public enum APIVersion: Sendable, Hashable {
    /// Azure Mobile Apps, `ZUMO-API-VERSION: 2.0.0`.
    case v2
    /// Datasync, `ZUMO-API-VERSION: 3.0.0`.
    case v3

    /// The value of the `ZUMO-API-VERSION` header: `2.0.0` or `3.0.0`.
    public var headerValue: String {
        switch self {
        case .v2: return "2.0.0"
        case .v3: return "3.0.0"
        }
    }

    /// The OData dialect `$filter` is written in for this version.
    public var odataDialect: ODataDialect {
        switch self {
        case .v2: return .odataV3
        case .v3: return .odataV4
        }
    }

    /// The name of the query parameter that makes a server include soft-deleted records.
    var includeDeletedParameter: String {
        switch self {
        case .v2: return "__includeDeleted"
        case .v3: return "__includedeleted"
        }
    }
}
