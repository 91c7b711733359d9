import OfflineSyncCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an answer means once read: a value, an error, or a 409/412 whose body is not the server's row.
enum RemoteOutcome<Value: Sendable>: Sendable {
    /// A successful answer, decoded.
    case value(Value)
    /// The answer maps to this error.
    case failure(RemoteError)
    /// A 409 (`status` 409) or 412 whose body is not the server's row (.NET sends a message, Node echoes the
    /// request): read the row with a lookup, then throw ``RemoteError/conflict(serverItem:)`` or
    /// ``RemoteError/preconditionFailed(serverItem:)`` with it.
    case conflictWithoutRow(status: Int)
}

/// Reads answers of the table protocol into results or ``RemoteError``s. Pure: status, headers and body in.
///
/// - 2xx with an item (insert, update): a JSON object; an `ETag` header replaces its `version`.
/// - 2xx of a delete: anything (204 without body on .NET, 200 with the item on Node).
/// - 2xx of a query: a JSON array, `{results, count}` (v2) or `{items, count, nextLink}` (v3), every element an
///   object, `count` a non-negative integer, `nextLink` a string; either dialect accepts every shape.
/// - 401 ``RemoteError/unauthorized``, 404 ``RemoteError/notFound``, 410 ``RemoteError/gone``, 409 and 412 with the
///   server's row, any other status ``RemoteError/server(status:message:)`` with the message from the body.
/// - Anything else (HTML, truncated JSON, wrong types) is ``RemoteError/invalidResponse(_:)`` naming the request.
/// - A record whose `version` could not go back as `If-Match` (not a string, or holding a line break or control
///   character) is ``RemoteError/invalidResponse(_:)`` naming the record: it is never stored, so no write of it can
///   go out without its precondition.
struct RemoteResponseDecoder: Sendable {
    /// Strings never to repeat in an error message (the auth token).
    var secrets: [String] = []

    /// Decodes the answer to an insert, update or lookup: the server's item.
    func item(_ response: RemoteResponse, for request: HTTPTableRequest) -> RemoteOutcome<JSONObject> {
        guard response.isSuccess else { return failure(response, for: request) }
        switch json(response, for: request) {
        case .failure(let error): return .failure(error)
        case .success(.object(let body)):
            let item = Self.applyingEntityTag(body, response)
            if let violation = Self.versionViolation(in: item) {
                return .failure(invalid(request, response, "the item (\(Self.idText(item))) \(violation)"))
            }
            return .value(item)
        case .success(let other):
            return .failure(invalid(request, response, "the body is \(Self.kind(other)), not the item as a JSON object"))
        }
    }

    /// Decodes the answer to a delete: success carries the deleted item when the server sent one (Node).
    func deletion(_ response: RemoteResponse, for request: HTTPTableRequest) -> RemoteOutcome<JSONObject?> {
        guard response.isSuccess else { return failure(response, for: request) }
        guard case .success(.object(let item)) = json(response, for: request) else { return .value(nil) }
        return .value(Self.applyingEntityTag(item, response))
    }

    /// Decodes the answer to a query; a v3 `nextLink` is resolved against `tableURL` (see ``NextLink``).
    func page(_ response: RemoteResponse, for request: HTTPTableRequest, tableURL: String) -> RemoteOutcome<RemotePage> {
        guard response.isSuccess else { return failure(response, for: request) }
        let body: JSONValue
        switch json(response, for: request) {
        case .failure(let error): return .failure(error)
        case .success(let value): body = value
        }
        let elements: [JSONValue]
        var totalCount: Int?
        var nextLink: URL?
        switch body {
        case .array(let array):
            elements = array
        case .object(let object):
            guard let list = object["items"] ?? object["results"] else {
                return .failure(invalid(request, response, "the body is an object without \"items\" or \"results\""))
            }
            guard case .array(let array) = list else {
                return .failure(invalid(request, response, "\"items\" is \(Self.kind(list)), not an array"))
            }
            elements = array
            switch object["count"] {
            case .none, .some(.null): totalCount = nil
            case .some(.int(let count)) where count >= 0 && count <= Int64(Int.max): totalCount = Int(count)
            case .some(let other):
                return .failure(invalid(request, response, "\"count\" is \(Self.kind(other)), not a non-negative integer"))
            }
            switch object["nextLink"] {
            case .none, .some(.null): nextLink = nil
            case .some(.string(let link)):
                guard let url = NextLink.resolve(link, tableURL: tableURL) else {
                    return .failure(invalid(request, response, "\"nextLink\" is not a link: \(Self.preview(link))"))
                }
                nextLink = url
            case .some(let other):
                return .failure(invalid(request, response, "\"nextLink\" is \(Self.kind(other)), not a string"))
            }
        default:
            return .failure(invalid(request, response, "the body is \(Self.kind(body)), not an array or a page object"))
        }
        var items: [JSONObject] = []
        items.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(let item) = element else {
                return .failure(invalid(request, response, "record \(index) is \(Self.kind(element)), not an object"))
            }
            if let violation = Self.versionViolation(in: item) {
                return .failure(invalid(request, response, "record \(index) (\(Self.idText(item))) \(violation)"))
            }
            items.append(item)
        }
        return .value(RemotePage(items: items, totalCount: totalCount, nextLink: nextLink))
    }

    /// The error an answer that is not 2xx stands for.
    func failure<Value>(_ response: RemoteResponse, for request: HTTPTableRequest) -> RemoteOutcome<Value> {
        switch response.status {
        case 401: return .failure(.unauthorized)
        case 404: return .failure(.notFound)
        case 410: return .failure(.gone)
        case 409, 412:
            if let row = serverRow(response, for: request) {
                if let violation = Self.versionViolation(in: row) {
                    return .failure(invalid(request, response, "the server's row (\(Self.idText(row))) \(violation)"))
                }
                return .failure(response.status == 409 ? .conflict(serverItem: row) : .preconditionFailed(serverItem: row))
            }
            return .conflictWithoutRow(status: response.status)
        default:
            return .failure(.server(status: response.status, message: message(response)))
        }
    }

    /// The body of a 409 or 412 when it is the server's row: an object with the request's id (when known) and a
    /// `version` or `updatedAt`, which an echo of the request never has (system properties are not sent).
    func serverRow(_ response: RemoteResponse, for request: HTTPTableRequest) -> JSONObject? {
        guard case .success(.object(let item)) = json(response, for: request), let id = item["id"]?.stringValue
        else { return nil }
        if let wanted = request.itemID, wanted.lowercased() != id.lowercased() { return nil }
        guard item["version"]?.stringValue != nil || item["updatedAt"]?.stringValue != nil else { return nil }
        return Self.applyingEntityTag(item, response)
    }

    /// The message of an error answer, as the reference clients take it: a JSON string body, else `error`,
    /// `description`, `message`, `Message`, `detail` or `title` of an object body, or `error.message`, else the text body, else a
    /// sentence with the status. Never longer than 500 characters; the token is never repeated.
    func message(_ response: RemoteResponse) -> String {
        var text: String?
        if let value = try? JSONValue(parsing: response.body) {
            switch value {
            case .string(let string): text = string
            case .object(let object):
                for key in ["error", "description", "message", "Message", "detail", "title"] {
                    if let string = object[key]?.stringValue, !string.isEmpty { text = string; break }
                }
                if text == nil, let nested = object["error"]?.objectValue?["message"]?.stringValue, !nested.isEmpty {
                    text = nested
                }
            default: break
            }
        }
        if text == nil, !response.body.isEmpty {
            text = String(decoding: response.body, as: UTF8.self)
        }
        let trimmed = RemoteResponse.trimmed(text ?? "")
        if trimmed.isEmpty { return "The request could not be completed (HTTP \(response.status))." }
        return redacted(trimmed.count > 500 ? String(trimmed.prefix(500)) + "…" : trimmed)
    }

    /// `text` with every secret replaced by `<redacted>`.
    func redacted(_ text: String) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty {
            result = result.replacing(secret, with: "<redacted>")
        }
        return result
    }

    private func json(_ response: RemoteResponse, for request: HTTPTableRequest) -> Result<JSONValue, RemoteError> {
        if response.body.isEmpty { return .failure(invalid(request, response, "the body is empty")) }
        do {
            return .success(try JSONValue(parsing: response.body))
        } catch {
            let start = Self.preview(String(decoding: response.body.prefix(120), as: UTF8.self))
            return .failure(invalid(request, response, "the body is not JSON (\(error.description)); it starts with \(start)"))
        }
    }

    private func invalid(_ request: HTTPTableRequest, _ response: RemoteResponse, _ reason: String) -> RemoteError {
        var contentType = ""
        if let type = response.headers["content-type"] { contentType = " (\(type))" }
        return .invalidResponse(redacted("\(request.summary) answered \(response.status)\(contentType): \(reason)."))
    }

    static func applyingEntityTag(_ item: JSONObject, _ response: RemoteResponse) -> JSONObject {
        guard let version = response.entityTagVersion else { return item }
        var item = item
        item["version"] = .string(version)
        return item
    }

    /// Why the `version` of `item` cannot be kept, or nil when it can: it goes back to the server as `If-Match`, so
    /// it must be a string without line breaks or control characters (a missing or null one is no version).
    static func versionViolation(in item: JSONObject) -> String? {
        switch item["version"] {
        case .none, .some(.null): return nil
        case .some(.string(let version)):
            if TransportPolicy.isHeaderSafe(version) { return nil }
            return "has a version holding a line break or control character (\(preview(version))), which cannot be sent back as If-Match"
        case .some(let other): return "has a version that is \(kind(other)), not a string"
        }
    }

    /// `id "…"` of `item`, for error messages.
    static func idText(_ item: JSONObject) -> String {
        "id " + (item["id"]?.stringValue.map(preview) ?? "missing")
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    static func preview(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return "\"" + (cleaned.count > 80 ? String(cleaned.prefix(80)) + "…" : cleaned) + "\""
    }
}
