/// Where ``HTTPRemote`` gets its token, for tokens that expire.
///
/// ```swift
/// struct SessionTokens: AuthenticationProvider {
///     let session: MySignInSession
///     func token(refresh: Bool) async throws -> String {
///         refresh ? try await session.refreshAccessToken() : try await session.currentAccessToken()
///     }
/// }
/// let remote = HTTPRemote(baseURL: url, apiVersion: .v3, authentication: SessionTokens(session: session))
/// ```
///
/// `HTTPRemote` asks `token(refresh: false)` before a request; when the server answers 401 it asks
/// `token(refresh: true)` once and sends the request again with the new token; a second 401 is
/// ``RemoteError/unauthorized``. Requests that meet a 401 together share one refresh. A provider that throws fails
/// the request with its error. The token never appears in an error message or a description.
public protocol AuthenticationProvider: Sendable {
    /// The token for the next request; `refresh` is true after the server answered 401 to the last one.
    func token(refresh: Bool) async throws -> String
}
