/// The system properties of the table protocol, and the helpers push uses on them.
enum SystemProperties {
    /// `createdAt`, `updatedAt`, `version` and `deleted` (matched case-sensitively, as the reference SDK does).
    static let names: Set<String> = ["createdAt", "updatedAt", "version", "deleted"]

    /// The item without any system property (`id` stays): the body of an insert.
    static func removingAll(from item: JSONObject) -> JSONObject {
        item.filter { !names.contains($0.key) }
    }

    /// The item without `createdAt`, `updatedAt` and `deleted`; `version` stays so the remote can send If-Match.
    static func removingAllButVersion(from item: JSONObject) -> JSONObject {
        item.filter { $0.key == "version" || !names.contains($0.key) }
    }

    /// Whether two items hold the same user fields, ignoring system properties and comparing ids
    /// case-insensitively.
    static func sameContent(_ lhs: JSONObject, _ rhs: JSONObject) -> Bool {
        var left = removingAll(from: lhs), right = removingAll(from: rhs)
        guard case .string(let leftId)? = left.removeValue(forKey: "id"),
              case .string(let rightId)? = right.removeValue(forKey: "id"),
              ItemID.key(leftId) == ItemID.key(rightId) else { return false }
        return ValueComparison.equal(.object(left), .object(right))
    }

    /// The item's `version` when it is a string.
    static func version(of item: JSONObject?) -> String? {
        item?["version"]?.stringValue
    }

    /// Whether the item is soft-deleted (`deleted` is `true`).
    static func isDeleted(_ item: JSONObject?) -> Bool {
        item?["deleted"]?.boolValue == true
    }
}
