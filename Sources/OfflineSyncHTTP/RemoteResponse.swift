import OfflineSyncCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One HTTP answer as ``HTTPRemote`` received it: status, headers (names lower-cased) and body bytes.
struct RemoteResponse: Sendable, Hashable {
    /// The HTTP status code.
    var status: Int
    /// The headers, names lower-cased.
    var headers: [String: String]
    /// The body bytes (empty when there is none).
    var body: [UInt8]

    /// Creates a response; header names are lower-cased.
    init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The version an `ETag` header carries: quotes removed, `\"` unescaped, a weak `W/` prefix dropped.
    var entityTagVersion: String? {
        guard var tag = headers["etag"].map(RemoteResponse.trimmed), !tag.isEmpty else { return nil }
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") {
            tag = String(tag.dropFirst().dropLast())
        }
        return tag.replacing("\\\"", with: "\"")
    }

    /// `text` without leading and trailing spaces, tabs and line breaks.
    static func trimmed(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let start = text.firstIndex(where: { !isSpace($0) }), let end = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[start...end])
    }

    /// Whether the status is 2xx.
    var isSuccess: Bool { (200..<300).contains(status) }
}
