import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A recorded exchange kept as JSON under `Fixtures/http/`: a call on ``HTTPRemote``, the requests it must
/// send, canned answers, and the result or error it must produce. `{base}` in the file is the stub's base URL and
/// `{version}` is ``OfflineSyncVersion/current``.
struct HTTPFixture: Sendable {
    struct Exchange: Sendable {
        var method: String
        var path: String
        var query: [String]
        var headers: [String: String]
        var body: JSONValue?
        var reply: StubReply
    }

    var name: String
    var apiVersion: APIVersion
    var authToken: String?
    /// Whether the base URL is plain `http` instead of `https`.
    var plainHTTP: Bool
    var call: JSONObject
    var exchanges: [Exchange]
    var expect: JSONObject

    static let installationID = "fixture-installation"

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/http")
    }

    /// The fixture names (file names without `.json`), sorted.
    static var names: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Whether the fixture `name` asks for a plain `http` base URL.
    static func wantsPlainHTTP(_ name: String) -> Bool {
        let raw = (try? String(contentsOf: directory.appendingPathComponent(name + ".json"), encoding: .utf8)) ?? ""
        return raw.contains("\"plainHTTP\": true")
    }

    /// Loads `name`, with `{base}` replaced by `base`.
    static func load(_ name: String, base: String) throws -> HTTPFixture {
        let raw = try String(contentsOf: directory.appendingPathComponent(name + ".json"), encoding: .utf8)
        let text = raw.replacingOccurrences(of: "{base}", with: base)
            .replacingOccurrences(of: "{version}", with: OfflineSyncVersion.current)
        guard case .object(let root) = try JSONValue(parsing: text) else { throw FixtureError("\(name): not an object") }
        let version: APIVersion = root["apiVersion"]?.stringValue == "v3" ? .v3 : .v2
        guard case .object(let call)? = root["call"], case .object(let expect)? = root["expect"],
              case .array(let exchanges)? = root["exchanges"] else { throw FixtureError("\(name): call, exchanges, expect") }
        return HTTPFixture(name: name, apiVersion: version, authToken: root["authToken"]?.stringValue,
                           plainHTTP: root["plainHTTP"] == true, call: call,
                           exchanges: try exchanges.map(exchange), expect: expect)
    }

    private static func exchange(_ value: JSONValue) throws -> Exchange {
        guard case .object(let exchange) = value, case .object(let request)? = exchange["request"],
              case .object(let response)? = exchange["response"] else { throw FixtureError("exchange shape") }
        var headers: [String: String] = [:]
        for (key, value) in request["headers"]?.objectValue ?? [:] { headers[key] = value.stringValue }
        let reply: StubReply
        if let code = response["urlError"]?.stringValue {
            reply = .failure(code == "timedOut" ? .timedOut : .cannotConnectToHost)
        } else {
            var replyHeaders: [String: String] = [:]
            for (key, value) in response["headers"]?.objectValue ?? [:] { replyHeaders[key] = value.stringValue }
            let body: [UInt8]
            if let text = response["bodyText"]?.stringValue {
                body = Array(text.utf8)
            } else if let json = response["body"] {
                body = json.jsonBytes()
            } else {
                body = []
            }
            reply = .response(status: Int(response["status"]?.intValue ?? 200), headers: replyHeaders, body: body)
        }
        return Exchange(method: request["method"]?.stringValue ?? "", path: request["path"]?.stringValue ?? "",
                        query: (request["query"]?.arrayValue ?? []).compactMap(\.stringValue), headers: headers,
                        body: request["body"], reply: reply)
    }

    /// Performs the call on `remote`; the result is an item, a page, nil (delete) or the error thrown.
    func perform(on remote: HTTPRemote) async -> Result<FixtureValue, any Error> {
        do {
            if case .object(let args)? = call["insert"] {
                return .success(.item(try await remote.insert(args["item"]?.objectValue ?? [:], table: table(args))))
            }
            if case .object(let args)? = call["update"] {
                return .success(.item(try await remote.update(args["item"]?.objectValue ?? [:], table: table(args))))
            }
            if case .object(let args)? = call["delete"] {
                try await remote.delete(id: args["id"]?.stringValue ?? "", version: args["version"]?.stringValue,
                                        table: table(args))
                return .success(.done)
            }
            if case .object(let args)? = call["read"] {
                return .success(.page(try await remote.read(try FixtureQuery.query(args["query"]?.objectValue ?? [:]))))
            }
            if case .object(let args)? = call["readNextLink"] {
                let url = URL(string: args["url"]?.stringValue ?? "") ?? remote.baseURL
                return .success(.page(try await remote.read(nextLink: url, table: table(args))))
            }
            return .failure(FixtureError("\(name): unknown call"))
        } catch {
            return .failure(error)
        }
    }

    private func table(_ args: JSONObject) -> String { args["table"]?.stringValue ?? "" }
}

enum FixtureValue: Sendable {
    case item(JSONObject)
    case page(RemotePage)
    case done
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Queries and filters written as JSON in fixtures:
/// `{"table": "T", "filter": {"field": "a", "op": "eq", "value": 1}, "orderBy": [["a", "asc"]], "skip": 0, …}`;
/// filters also as `{"and": [f, g]}`, `{"or": [f, g]}`, `{"not": f}`, `{"contains": ["field", "text"]}`,
/// `{"startswith": …}`, `{"endswith": …}`.
enum FixtureQuery {
    static func query(_ object: JSONObject) throws -> Query {
        var query = Query(table: object["table"]?.stringValue ?? "")
        if let filter = object["filter"] { query.filter = try self.filter(filter) }
        for key in object["orderBy"]?.arrayValue ?? [] {
            guard let pair = key.arrayValue, let field = pair.first?.stringValue else { continue }
            query.orderBy.append(pair.last?.stringValue == "desc" ? .descending(field) : .ascending(field))
        }
        query.skip = object["skip"]?.intValue.map { Int($0) }
        query.top = object["top"]?.intValue.map { Int($0) }
        query.select = object["select"]?.arrayValue?.compactMap(\.stringValue)
        query.includeTotalCount = object["includeTotalCount"]?.boolValue ?? false
        query.includeDeleted = object["includeDeleted"]?.boolValue ?? false
        return query
    }

    static func filter(_ value: JSONValue) throws -> Filter {
        guard case .object(let object) = value else { throw FixtureError("filter is not an object") }
        if let parts = object["and"]?.arrayValue, parts.count == 2 {
            return .and(try filter(parts[0]), try filter(parts[1]))
        }
        if let parts = object["or"]?.arrayValue, parts.count == 2 {
            return .or(try filter(parts[0]), try filter(parts[1]))
        }
        if let inner = object["not"] { return .not(try filter(inner)) }
        for (key, match) in [("contains", StringMatch.contains), ("startswith", .hasPrefix), ("endswith", .hasSuffix)] {
            if let args = object[key]?.arrayValue, let field = args.first?.stringValue, let text = args.last?.stringValue {
                return .string(Field(field), match, text)
            }
        }
        let operators: [String: ComparisonOperator] = [
            "eq": .equal, "ne": .notEqual, "lt": .lessThan, "le": .lessThanOrEqual, "gt": .greaterThan,
            "ge": .greaterThanOrEqual,
        ]
        guard let field = object["field"]?.stringValue, let op = object["op"]?.stringValue.flatMap({ operators[$0] })
        else { throw FixtureError("bad filter \(value)") }
        return .comparison(Field(field), op, object["value"] ?? .null)
    }
}
