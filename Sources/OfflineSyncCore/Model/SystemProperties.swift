/// The system properties of the table protocol (`createdAt`, `updatedAt`, `version`, `deleted`), the one place
/// that names them, and the helpers the engine, the HTTP remote and the in-process back end use on them.
package enum SystemProperties {
    /// The names as the servers write them.
    static let names = ["createdAt", "updatedAt", "version", "deleted"]
    private static let lowercasedNames = Set(names.map { $0.lowercased() })

    /// Whether `key` names a system property. Matched case-insensitively, as the servers bind JSON members:
    /// a client never sends `UpdatedAt` either.
    package static func isSystemProperty(_ key: String) -> Bool {
        switch key.utf8.count {
        case 7, 9: return lowercasedNames.contains(key.lowercased())
        default: return false
        }
    }

    /// The item without any system property (`id` stays): the body of an insert, and what the remote sends.
    package static func removingAll(from item: JSONObject) -> JSONObject {
        item.filter { !isSystemProperty($0.key) }
    }

    /// The item without `createdAt`, `updatedAt` and `deleted`; `version` stays so the remote can send If-Match.
    package static func removingAllButVersion(from item: JSONObject) -> JSONObject {
        item.filter { $0.key == "version" || !isSystemProperty($0.key) }
    }

    /// Whether two items hold the same user fields, ignoring system properties and comparing ids
    /// case-insensitively.
    package static func sameContent(_ lhs: JSONObject, _ rhs: JSONObject) -> Bool {
        var left = removingAll(from: lhs), right = removingAll(from: rhs)
        guard case .string(let leftId)? = left.removeValue(forKey: "id"),
              case .string(let rightId)? = right.removeValue(forKey: "id"),
              ItemID.key(leftId) == ItemID.key(rightId) else { return false }
        return ValueComparison.equal(.object(left), .object(right))
    }

    /// The item's `version` when it is a string.
    package static func version(of item: JSONObject?) -> String? {
        item?["version"]?.stringValue
    }

    /// Whether the item is soft-deleted (`deleted` is `true`).
    package static func isDeleted(_ item: JSONObject?) -> Bool {
        item?["deleted"]?.boolValue == true
    }
}
