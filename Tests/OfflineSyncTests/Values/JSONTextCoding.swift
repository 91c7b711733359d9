import Foundation
@testable import OfflineSyncCore

/// The conversion the typed API made before `JSONValueEncoder`/`JSONValueDecoder`: a model through `JSONEncoder` to
/// text read by ``JSONReader``, and an item written by ``JSONWriter`` through `JSONDecoder`, dates as the table
/// protocol's timestamps. The tree coders are checked against it.
enum JSONTextCoding {
    struct NotAnObject: Error {}

    static func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        return try JSONValue(parsing: try encoder.encode(value))
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date-time.")
            }
            return date
        }
        return try decoder.decode(Value.self, from: Data(value.jsonBytes()))
    }
}

/// What a decoding came to, comparable across decoders: the value, or the error's kind and coding path.
enum DecodingOutcome<Value: Equatable>: Equatable, CustomStringConvertible {
    case value(Value)
    case failure(kind: String, path: [String])
    case otherError(String)

    init(_ body: () throws -> Value) {
        do {
            self = .value(try body())
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let context): self = .failure(kind: "typeMismatch", path: context.codingPath.map(\.stringValue))
            case .valueNotFound(_, let context): self = .failure(kind: "valueNotFound", path: context.codingPath.map(\.stringValue))
            case .keyNotFound(let key, let context):
                self = .failure(kind: "keyNotFound", path: (context.codingPath + [key]).map(\.stringValue))
            case .dataCorrupted(let context): self = .failure(kind: "dataCorrupted", path: context.codingPath.map(\.stringValue))
            @unknown default: self = .otherError("\(error)")
            }
        } catch {
            self = .otherError("\(error)")
        }
    }

    var description: String {
        switch self {
        case .value(let value): return "value \(value)"
        case .failure(let kind, let path): return "\(kind) at \(path)"
        case .otherError(let error): return "error \(error)"
        }
    }
}
