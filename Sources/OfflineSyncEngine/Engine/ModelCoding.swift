import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Converts `Codable` models to and from ``JSONObject`` items through `JSONEncoder`/`JSONDecoder`.
///
/// Dates are written as the table protocol's ISO 8601 strings with milliseconds
/// (`2026-01-01T00:00:00.000Z`), so they compare as instants in filters and travel unchanged; on decoding any
/// ISO 8601 date-time is accepted. `nil` optionals are left out of the item.
struct ModelCoding: Sendable {
    let table: String

    func item<Model: Encodable>(from model: Model) throws -> JSONObject {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        do {
            let data = try encoder.encode(model)
            guard case .object(let item) = try JSONValue(parsing: data) else {
                throw SyncError.modelCoding(type: "\(Model.self)", table: table, reason: "it does not encode to a JSON object")
            }
            return item
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.modelCoding(type: "\(Model.self)", table: table, reason: "\(error)")
        }
    }

    func model<Model: Decodable>(_ type: Model.Type, from item: JSONObject) throws -> Model {
        do {
            return try decoded(Model.self, from: item)
        } catch {
            throw SyncError.modelCoding(type: "\(Model.self)", table: table, reason: "\(error)")
        }
    }

    /// The model decoded from `item`; throws the decoder's own error (a `DecodingError` when the item does not fit).
    func decoded<Model: Decodable>(_ type: Model.Type, from item: JSONObject) throws -> Model {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date-time.")
            }
            return date
        }
        return try decoder.decode(Model.self, from: Data(JSONValue.object(item).jsonBytes()))
    }
}
