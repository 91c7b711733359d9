import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TableProtocolServer {
    /// A bare v2 request to `tables/<table>` of this server, for tests of the exchange below `HTTPRemote`; with a
    /// `body`, a POST of it.
    func exchangeRequest(table: String, body: String? = nil) -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent("tables/\(table)"))
        request.setValue("2.0.0", forHTTPHeaderField: "ZUMO-API-VERSION")
        if let body {
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
