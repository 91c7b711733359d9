import Foundation
import OfflineSync
import OfflineSyncTesting

/// The inputs of J1 and J2, prepared outside every timed region: the benchmark records as canonical JSON lines
/// (bytes and `Data`), as `JSONObject`s, as Foundation dictionaries and as a `Codable` struct.
struct JSONCorpus {
    let records: [BenchmarkRecord]
    /// Each record's canonical JSON, without a newline.
    let lines: [[UInt8]]
    /// The same lines as `Data`, for Foundation's decoders.
    let lineData: [Data]
    /// Each record as the item a data source stores.
    let objects: [JSONObject]
    /// Each record as the `[String: Any]` JSONSerialization writes.
    let dictionaries: [[String: Any]]
    /// Each record as a plain `Codable` struct.
    let todos: [CodableTodo]
    /// The bytes of all lines, newlines not counted.
    let byteCount: Int

    init(records: [BenchmarkRecord]) {
        self.records = records
        lines = records.map { Array($0.canonicalJSON.utf8) }
        lineData = lines.map { Data($0) }
        objects = records.map(\.object)
        dictionaries = records.map {
            ["id": $0.id, "text": $0.text, "complete": $0.complete, "priority": $0.priority,
             "updatedAt": $0.updatedAt, "version": $0.version]
        }
        todos = records.map(CodableTodo.init)
        byteCount = lines.reduce(0) { $0 + $1.count }
    }
}

/// A benchmark record as an app would declare it for `JSONEncoder` and `JSONDecoder`.
struct CodableTodo: Codable, Hashable, Sendable {
    var id: String
    var text: String
    var complete: Bool
    var priority: Int
    var updatedAt: String
    var version: String

    init(_ record: BenchmarkRecord) {
        id = record.id
        text = record.text
        complete = record.complete
        priority = record.priority
        updatedAt = record.updatedAt
        version = record.version
    }

    /// The record these fields hold.
    var record: BenchmarkRecord {
        BenchmarkRecord(id: id, text: text, complete: complete, priority: priority, updatedAt: updatedAt, version: version)
    }

    /// The record JSONSerialization read, or nil when a field is missing or has the wrong type.
    static func record(from any: Any) -> BenchmarkRecord? {
        guard let dictionary = any as? [String: Any], dictionary.count == 6,
              let id = dictionary["id"] as? String, let text = dictionary["text"] as? String,
              let complete = dictionary["complete"] as? Bool, let priority = dictionary["priority"] as? Int,
              let updatedAt = dictionary["updatedAt"] as? String, let version = dictionary["version"] as? String
        else { return nil }
        return BenchmarkRecord(id: id, text: text, complete: complete, priority: priority, updatedAt: updatedAt, version: version)
    }
}
