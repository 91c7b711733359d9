/// Why ``HTTPRemote`` refused to send a request. Nothing was sent when this is thrown.
///
/// These are errors of the caller's arguments or configuration, not answers of the server (those are
/// ``RemoteError``). No case ever holds the auth token.
public enum HTTPRemoteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The table name breaks the rules of ``TableName``, so it cannot be put into a path.
    case invalidTableName(String)
    /// An id breaks the rules of ``ItemID`` (or is not a string), so it cannot be put into a path.
    case invalidID(table: String, id: String, reason: String)
    /// An update has no string `id`.
    case missingID(table: String)
    /// The query cannot be written as OData (a field name that is not an identifier, a negative skip or top).
    case invalidQuery(table: String, QueryError)
    /// A token would go over plain `http` to a host that is not a loopback address.
    case insecureTokenTransport(host: String)
    /// The base URL is not an absolute `http` or `https` URL with a host.
    case unsupportedBaseURL(String)
    /// A header value (the token or the installation id, named here) holds a line break or control character.
    case invalidHeaderValue(name: String)
    /// A `nextLink` points to another server than the base URL; it is not followed, so the token stays with the
    /// server it was meant for.
    case foreignNextLink(String)

    /// A sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case .invalidTableName(let name):
            return "The table name \"\(name)\" cannot be sent: use 1 to 255 letters, digits, _, - or . (not starting with . or -)."
        case .invalidID(let table, let id, let reason):
            return "The id \"\(id)\" in table \(table) cannot be sent: \(reason); use a valid id (see ItemID)."
        case .missingID(let table):
            return "An update for table \(table) has no string id; read the item first and update it with its id."
        case .invalidQuery(let table, let error):
            return "The query on table \(table) cannot be sent: \(error.description)"
        case .insecureTokenTransport(let host):
            return "Refusing to send the auth token over plain http to \(host); use https, or set allowsInsecureToken for development."
        case .unsupportedBaseURL(let url):
            return "The base URL \(url) is not an absolute http or https URL with a host; pass the server's root URL."
        case .invalidHeaderValue(let name):
            return "The \(name) holds a line break or control character and cannot be sent as a header; check its value."
        case .foreignNextLink(let link):
            return "The next-page link \(link) leaves the server of the base URL and was not followed; page with skip and top instead."
        }
    }
}
