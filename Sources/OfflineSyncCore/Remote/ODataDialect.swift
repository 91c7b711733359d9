/// The OData syntax a server's `$filter` is written in: OData v3 for Azure Mobile Apps (``APIVersion/v2``, ZUMO-API-VERSION
/// 2.0.0), OData v4 for Datasync (``APIVersion/v3``, 3.0.0). The names say the OData version; the API versions that
/// speak each are ``APIVersion``'s.
public enum ODataDialect: Sendable, Hashable {
    /// OData v3 syntax, as the Azure Mobile Apps clients write it (`substringof`, `datetimeoffset'…'`).
    case odataV3
    /// OData v4 syntax, as the Datasync clients write it (`contains`, `cast(…,Edm.DateTimeOffset)`).
    case odataV4

    /// The dialect of Azure Mobile Apps (API version 2.0.0): OData v3.
    @available(*, deprecated, renamed: "odataV3", message: "The dialect is OData v3 syntax; API version 2.0.0 speaks it.")
    public static let v2 = ODataDialect.odataV3
    /// The dialect of Datasync (API version 3.0.0): OData v4.
    @available(*, deprecated, renamed: "odataV4", message: "The dialect is OData v4 syntax; API version 3.0.0 speaks it.")
    public static let v3 = ODataDialect.odataV4
}
