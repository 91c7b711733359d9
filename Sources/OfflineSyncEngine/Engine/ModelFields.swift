import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a write made from an app's `Codable` model completes the item the model encodes from the item stored, so that
/// an app version whose model lacks a field never erases it, and a field the model clears is cleared everywhere.
///
/// `Codable` does not list a type's keys, and a model leaves a `nil` optional out of what it encodes. So for each field
/// the stored item holds and the encoded item lacks, the model is asked whether it declares it: the encoded item,
/// completed with the stored fields it lacks, is decoded once more with that field set to a value of the wrong shape,
/// and a decoding error at that field says the model reads it (``declares(_:in:)``). The probe decodes what the model
/// encoded, not the stored item, so a stored row that the model no longer decodes (one written before the model
/// gained a required field) does not hide a clear; when a stored field of an old shape makes the completed item fail
/// elsewhere, the encoded item alone is probed. Then:
/// - a system property (`version`, `updatedAt`, …) is taken from the stored item, so conflict detection keeps working;
/// - a field the model declares is set to `null`, so that a `PATCH` clears it on the server too (a field left out of a
///   `PATCH` keeps its old value);
/// - any other field, one the model does not know, is kept as stored, locally and in what is sent.
///
/// Nothing is remembered between writes: whether a model reads a field can depend on the item (an `init(from:)` that
/// reads `details` only when `kind == "note"`), so each write probes its own item.
///
/// Only top-level fields are completed: a nested object the model declares is written as the model encodes it. A field
/// whose declared type accepts any JSON (an object and a number alike) reads as undeclared and is kept.
struct ModelFields: Sendable {
    /// Whether the model reads `field` when it decodes `item`: true when a value of the wrong shape there fails the
    /// decoding at that field, false when the item decodes without it, nil when the decoding fails elsewhere (nothing
    /// learned).
    let declares: @Sendable (_ field: String, _ item: JSONObject) -> Bool?

    /// The fields of `Model` as decoded with `coding`.
    init<Model: Decodable & Sendable>(_ type: Model.Type, coding: ModelCoding) {
        declares = { field, item in ModelFields.probe(Model.self, field: field, in: item, coding: coding) }
    }

    /// Whether `Model` reads `field` of `item`: true when a value of the wrong shape there fails the decoding at
    /// that field, false when the item decodes without it, nil when the decoding fails elsewhere (nothing learned).
    private static func probe<Model: Decodable & Sendable>(_ type: Model.Type, field: String, in item: JSONObject,
                                                          coding: ModelCoding) -> Bool? {
        var settled = true
        for probe in probes {
            var probed = item
            probed[field] = probe
            do {
                _ = try coding.decoded(Model.self, from: probed)
            } catch let error as DecodingError {
                if path(of: error).first?.stringValue == field { return true }
                settled = false
            } catch {
                return nil
            }
        }
        return settled ? false : nil
    }

    /// Values no declared field of an ordinary type accepts: an object for scalars and arrays, a number for objects.
    private static let probes: [JSONValue] = [.object(["__offlineSyncProbe": .bool(true)]), .double(0.5)]

    /// `encoded`, the item a model encodes, completed from `stored`, the item as stored (see the type's description).
    func completing(_ encoded: JSONObject, from stored: JSONObject) -> JSONObject {
        var completed = encoded
        for (field, value) in stored where completed[field] == nil { completed[field] = value }
        var item = encoded
        for (field, value) in stored where item[field] == nil {
            if SystemProperties.isSystemProperty(field) {
                item[field] = value
            } else if value != .null, declares(field, completed) ?? declares(field, encoded) ?? false {
                item[field] = .null
            } else {
                item[field] = value
            }
        }
        return item
    }

    private static func path(of error: DecodingError) -> [any CodingKey] {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
             .dataCorrupted(let context):
            return context.codingPath
        @unknown default:
            return []
        }
    }
}
