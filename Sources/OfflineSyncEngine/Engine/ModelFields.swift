import OfflineSyncCore
import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch

/// How a write made from an app's `Codable` model completes the item the model encodes from the item stored, so that
/// an app version whose model lacks a field never erases it, and a field the model clears is cleared everywhere.
///
/// `Codable` does not list a type's keys, and a model leaves a `nil` optional out of what it encodes. So for each field
/// the stored item holds and the encoded item lacks, the model is asked whether it declares it: the stored item is
/// decoded once more with that field set to a value of the wrong shape, and a decoding error at that field says the
/// model reads it (``declares(_:in:)``). Then:
/// - a system property (`version`, `updatedAt`, …) is taken from the stored item, so conflict detection keeps working;
/// - a field the model declares is set to `null`, so that a `PATCH` clears it on the server too (a field left out of a
///   `PATCH` keeps its old value);
/// - any other field, one the model does not know, is kept as stored, locally and in what is sent.
///
/// Only top-level fields are completed: a nested object the model declares is written as the model encodes it. A field
/// whose declared type accepts any JSON (an object and a number alike) reads as undeclared and is kept.
struct ModelFields: Sendable {
    /// Whether the model reads `field` of `stored`; false when it ignores the field or decoding fails elsewhere.
    let declares: @Sendable (_ field: String, _ stored: JSONObject) -> Bool

    /// The fields of `Model` as decoded with `coding`. What a probe settles (the model reads the field, or decodes the
    /// item without reading it) is kept per model type, so each field of a type is probed once per process.
    init<Model: Decodable & Sendable>(_ type: Model.Type, coding: ModelCoding) {
        let model = ObjectIdentifier(Model.self)
        declares = { field, stored in
            if let known = ModelFields.settled.value(model: model, field: field) { return known }
            let answer = ModelFields.probe(Model.self, field: field, in: stored, coding: coding)
            if let answer { ModelFields.settled.keep(answer, model: model, field: field) }
            return answer ?? false
        }
    }

    /// Whether `Model` reads `field` of `stored`: true when a value of the wrong shape there fails the decoding at
    /// that field, false when the item decodes without it, nil when the decoding fails elsewhere (nothing learned).
    private static func probe<Model: Decodable & Sendable>(_ type: Model.Type, field: String, in stored: JSONObject,
                                                          coding: ModelCoding) -> Bool? {
        var settled = true
        for probe in probes {
            var item = stored
            item[field] = probe
            do {
                _ = try coding.decoded(Model.self, from: item)
            } catch let error as DecodingError {
                if path(of: error).first?.stringValue == field { return true }
                settled = false
            } catch {
                return nil
            }
        }
        return settled ? false : nil
    }

    /// What the probes settled, per model type and field.
    private static let settled = SettledFields()

    /// Values no declared field of an ordinary type accepts: an object for scalars and arrays, a number for objects.
    private static let probes: [JSONValue] = [.object(["__offlineSyncProbe": .bool(true)]), .double(0.5)]

    /// `encoded`, the item a model encodes, completed from `stored`, the item as stored (see the type's description).
    func completing(_ encoded: JSONObject, from stored: JSONObject) -> JSONObject {
        var item = encoded
        for (field, value) in stored where item[field] == nil {
            if SystemProperties.isSystemProperty(field) {
                item[field] = value
            } else if value != .null, declares(field, stored) {
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

/// The fields probes settled for each model type: whether the type reads each. Guarded by a serial queue.
private final class SettledFields: @unchecked Sendable {
    private var answers: [ObjectIdentifier: [String: Bool]] = [:]
    private let queue = DispatchQueue(label: "OfflineSync.ModelFields.settled")

    func value(model: ObjectIdentifier, field: String) -> Bool? {
        queue.sync { answers[model]?[field] }
    }

    func keep(_ answer: Bool, model: ObjectIdentifier, field: String) {
        queue.sync {
            // A bound against stored items with ever new field names: forget and probe again.
            if answers[model, default: [:]].count >= 1_024 { answers[model] = [:] }
            answers[model, default: [:]][field] = answer
        }
    }
}
