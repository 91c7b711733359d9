/// The OData dialects servers speak: v2 for Azure Mobile Apps (ZUMO-API-VERSION 2.0.0), v4 for Datasync (3.0.0).
public enum ODataDialect: Sendable, Hashable {
    /// OData v3 syntax as the Azure Mobile Apps v2 clients write it (`substringof`, `datetimeoffset'…'`).
    case v2
    /// OData v4 syntax as the Datasync v3 clients write it (`contains`, `cast(…,Edm.DateTimeOffset)`).
    case v3
}
