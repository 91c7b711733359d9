import OfflineSyncCore

/// Converts `Codable` models to and from ``JSONObject`` items, straight between the model and the item's tree
/// (`JSONValueEncoder`, `JSONValueDecoder`): no JSON text in between, with the results `JSONEncoder` and
/// `JSONDecoder` give.
///
/// Dates are written as the table protocol's ISO 8601 strings with milliseconds
/// (`2026-01-01T00:00:00.000Z`), so they compare as instants in filters and travel unchanged; on decoding any
/// ISO 8601 date-time is accepted. `nil` optionals are left out of the item.
struct ModelCoding: Sendable {
    let table: String

    func item<Model: Encodable>(from model: Model) throws -> JSONObject {
        do {
            guard case .object(let item) = try JSONValueEncoder().encode(model) else {
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
            throw failure(Model.self, error)
        }
    }

    /// The error of a `Model` that failed to decode with `error`.
    func failure<Model>(_ type: Model.Type, _ error: any Error) -> SyncError {
        SyncError.modelCoding(type: "\(Model.self)", table: table, reason: "\(error)")
    }

    /// The model decoded from `item`; throws the decoder's own error (a `DecodingError` when the item does not fit).
    func decoded<Model: Decodable>(_ type: Model.Type, from item: JSONObject) throws -> Model {
        try JSONValueDecoder().decode(Model.self, from: .object(item))
    }
}
