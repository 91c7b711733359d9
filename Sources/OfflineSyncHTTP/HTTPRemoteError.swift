public import OfflineSyncCore
/// Why ``HTTPRemote`` refused to send a request. Nothing was sent when this is thrown.
///
/// These are errors of the caller's arguments or configuration, not answers of the server (those are
/// ``RemoteError``). None ever holds the auth token. A struct with a ``Code``, as GRDB's `DatabaseError`, so that a
/// new kind of refusal does not break a caller's `switch`: match on ``code``.
///
/// ```swift
/// do { try await remote.read(query) } catch let error as HTTPRemoteError where error.code == .insecureTokenTransport {
///     // switch to https
/// }
/// ```
public struct HTTPRemoteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal an error is.
    public typealias Code = NamedCode<HTTPRemoteError>

    /// What kind of refusal this is.
    public let code: Code
    /// The table concerned, when there is one.
    public let table: String?
    /// What was refused: the table name, id, host, URL, header name or link (never a token).
    public let subject: String
    /// A sentence saying what is wrong and what to do.
    public let description: String

    private init(_ code: Code, table: String? = nil, subject: String, _ description: String) {
        self.code = code
        self.table = table
        self.subject = subject
        self.description = description
    }

    /// The table name breaks the rules of ``TableName``.
    public static func invalidTableName(_ name: String) -> HTTPRemoteError {
        HTTPRemoteError(.invalidTableName, table: name, subject: name,
                        "The table name \"\(name)\" cannot be sent: use 1 to 255 letters, digits, _, - or . (not starting with . or -).")
    }

    /// An id breaks the rules of ``ItemID`` (or is not a string).
    public static func invalidID(table: String, id: String, reason: String) -> HTTPRemoteError {
        HTTPRemoteError(.invalidID, table: table, subject: id,
                        "The id \"\(id)\" in table \(table) cannot be sent: \(reason); use a valid id (see ItemID).")
    }

    /// An update has no string `id`.
    public static func missingID(table: String) -> HTTPRemoteError {
        HTTPRemoteError(.missingID, table: table, subject: table,
                        "An update for table \(table) has no string id; read the item first and update it with its id.")
    }

    /// The query cannot be written as OData.
    public static func invalidQuery(table: String, _ error: QueryError) -> HTTPRemoteError {
        HTTPRemoteError(.invalidQuery, table: table, subject: table, "The query on table \(table) cannot be sent: \(error.description)")
    }

    /// A token would go over plain `http` to `host`, which is not a loopback address.
    public static func insecureTokenTransport(host: String) -> HTTPRemoteError {
        HTTPRemoteError(.insecureTokenTransport, subject: host,
                        "Refusing to send the auth token over plain http to \(host); use https, or set allowsInsecureToken for development.")
    }

    /// The base URL is not an absolute `http` or `https` URL with a host.
    public static func unsupportedBaseURL(_ url: String) -> HTTPRemoteError {
        HTTPRemoteError(.unsupportedBaseURL, subject: url,
                        "The base URL \(url) is not an absolute http or https URL with a host; pass the server's root URL.")
    }

    /// The value of the header `name` describes holds a line break or control character.
    public static func invalidHeaderValue(name: String) -> HTTPRemoteError {
        HTTPRemoteError(.invalidHeaderValue, subject: name,
                        "The \(name) holds a line break or control character and cannot be sent as a header; check its value.")
    }

    /// The `version` of the item `id` in `table` cannot be sent as an `If-Match` value (it is not a string, or it
    /// holds a line break or control character), so the write would go without its precondition.
    /// - Parameters:
    ///   - table: the table of the write.
    ///   - id: the id of the item written.
    public static func invalidVersion(table: String, id: String) -> HTTPRemoteError {
        HTTPRemoteError(.invalidVersion, table: table, subject: id,
                        "The version of item \"\(id)\" in table \(table) is not a string without line breaks or control characters, so the write cannot carry its If-Match precondition and was not sent; pull the table again for the server's version.")
    }

    /// A `nextLink` (`link`, with any credentials redacted) leaves the server of the base URL.
    public static func foreignNextLink(_ link: String) -> HTTPRemoteError {
        HTTPRemoteError(.foreignNextLink, subject: link,
                        "The next-page link \(link) leaves the server of the base URL and was not followed; page with skip and top instead.")
    }

    /// A `nextLink` (`link`, with any credentials redacted) stays on the base URL's server but names another path
    /// than the one of `table` (another table, a row, a path outside the base URL's).
    /// - Parameters:
    ///   - link: the link, credentials redacted.
    ///   - table: the table whose page was asked for.
    public static func foreignNextLink(_ link: String, table: String) -> HTTPRemoteError {
        HTTPRemoteError(.foreignNextLink, table: table, subject: link,
                        "The next-page link \(link) does not name table \(table) under the base URL and was not followed; page with skip and top instead.")
    }
}

extension NamedCode where Domain == HTTPRemoteError {
    /// The table name breaks the rules of ``TableName``, so it cannot be put into a path.
    public static var invalidTableName: Self { Self(rawValue: "invalidTableName") }
    /// An id breaks the rules of ``ItemID`` (or is not a string), so it cannot be put into a path.
    public static var invalidID: Self { Self(rawValue: "invalidID") }
    /// An update has no string `id`.
    public static var missingID: Self { Self(rawValue: "missingID") }
    /// The query cannot be written as OData (a field name that is not an identifier, a negative skip or top).
    public static var invalidQuery: Self { Self(rawValue: "invalidQuery") }
    /// A token would go over plain `http` to a host that is not a loopback address.
    public static var insecureTokenTransport: Self { Self(rawValue: "insecureTokenTransport") }
    /// The base URL is not an absolute `http` or `https` URL with a host.
    public static var unsupportedBaseURL: Self { Self(rawValue: "unsupportedBaseURL") }
    /// A header value (the token, the installation id or an additional header) holds a line break or control
    /// character.
    public static var invalidHeaderValue: Self { Self(rawValue: "invalidHeaderValue") }
    /// A `nextLink` points to another server than the base URL, or to another path there than its table's; it is
    /// not followed, so the token stays with the server it was meant for and no other table's rows are read as this
    /// one's.
    public static var foreignNextLink: Self { Self(rawValue: "foreignNextLink") }
    /// An item's `version` is not a string that can be an `If-Match` value, so its write is not sent without the
    /// precondition.
    public static var invalidVersion: Self { Self(rawValue: "invalidVersion") }
}
