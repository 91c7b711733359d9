package import OfflineSyncCore
import OfflineSyncStore

/// One record of the store benchmark (table `TodoItem`).
package struct BenchmarkRecord: Sendable, Hashable {
    /// A version-4 UUID in upper-case canonical form.
    package var id: String
    /// Exactly 30 ASCII characters: `"Task " + index padded to 6 digits + ": " + phrase`.
    package var text: String
    /// Whether the task is done.
    package var complete: Bool
    /// 0 to 9.
    package var priority: Int
    /// ISO 8601 in UTC with milliseconds, somewhere in 2026.
    package var updatedAt: String
    /// 8 lower-case hex digits.
    package var version: String

    /// Creates a record from its six fields.
    package init(id: String, text: String, complete: Bool, priority: Int, updatedAt: String, version: String) {
        self.id = id
        self.text = text
        self.complete = complete
        self.priority = priority
        self.updatedAt = updatedAt
        self.version = version
    }

    /// The item a data source stores: exactly the six keys, `complete` as `.bool`, `priority` as `.int`.
    package var object: JSONObject {
        [
            "id": .string(id), "text": .string(text), "complete": .bool(complete),
            "priority": .int(Int64(priority)), "updatedAt": .string(updatedAt), "version": .string(version),
        ]
    }

    /// The canonical JSON text: the six keys in the benchmark's order, no spaces, nothing escaped.
    package var canonicalJSON: String {
        "{\"id\":\"\(id)\",\"text\":\"\(text)\",\"complete\":\(complete),\"priority\":\(priority),"
            + "\"updatedAt\":\"\(updatedAt)\",\"version\":\"\(version)\"}"
    }

    /// The record read back from a stored item, or nil when a field is missing, has the wrong kind, or the
    /// item holds other keys.
    package init?(_ object: JSONObject) {
        guard object.count == 6,
              case .string(let id)? = object["id"], case .string(let text)? = object["text"],
              case .bool(let complete)? = object["complete"], case .int(let priority)? = object["priority"],
              case .string(let updatedAt)? = object["updatedAt"], case .string(let version)? = object["version"]
        else { return nil }
        self.init(id: id, text: text, complete: complete, priority: Int(priority), updatedAt: updatedAt, version: version)
    }
}
