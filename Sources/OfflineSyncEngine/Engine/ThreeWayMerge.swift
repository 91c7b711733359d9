public import OfflineSyncCore
import OfflineSyncStore
/// Merges a conflict field by field from the base: a field changed on one side only takes that side's value.
///
/// ```swift
/// let merge = ThreeWayMerge(fieldRules: ["title": .keepLocal]) { decision in print(decision.field) }
/// let context = SyncContext(dataSource: store, remote: remote, conflictHandler: merge)
/// ```
///
/// The contract, for a field with base `b`, local `l` and server `s`:
/// 1. No server row: `.fail`.
/// 2. The fields merged are the top-level fields of the base, local and server copies except `id` and the system
///    properties (`version`, `createdAt`, `updatedAt`, `deleted`, in any casing). A nested object or array is one
///    value. A field the local copy lacks is not part of the local change and takes `s`, whatever `b` is: an update
///    sends only the fields it holds (a `PATCH` leaves the others as they are), so an item built from a typed model
///    (which leaves a `nil` optional out) or a partial item changes only what it holds; to clear a field, set it to
///    `null`. Otherwise `null` and absent are one value, "no value", on every side: a local `null` over a value is a
///    clear, a base `null` that the local or server copy leaves out is no change. Values compare as filters compare
///    them (`1` equals `1.0`). Per field: `l` absent takes `s`; else `l == b` takes `s`; else `s == b` takes `l`;
///    else `l == s` takes `s`; else both changed it differently: `fieldRules[field] ?? rule` decides (a custom
///    rule's `nil` removes the field) and `onBothChanged` reports the decision.
/// 3. An update, or an insert, against a live server row: the result is `["id": itemId]` plus the merged fields
///    (the engine adds the server's version). It is `.useServer` when the merged fields equal the server's (`null`
///    equal to absent), else `.useMerged`. Without a base, every field the local copy holds with a value other than
///    the server's counts as changed on both sides, with base `nil`.
/// 4. An update, or an insert, against a deleted server row: the rule for `"deleted"` decides, reported as field
///    `"deleted"` with base `false` (`nil` without a base), local `false`, server `true`. A kept `true` (the
///    default, `.keepServer`) is `.useServer`: the deletion wins. Anything else, `.keepLocal` included, is `.fail`:
///    an update cannot bring a deleted row back, so the conflict is recorded for the app.
/// 5. A delete: against a deleted server row, `.useServer`; against a row whose fields equal the base's (`null`
///    equal to absent: the server did not change it), `.useClient`: the delete is sent again. Otherwise the rule
///    for `"deleted"` decides, reported as field `"deleted"` with base `false` (`nil` without a base), local `true`,
///    server `false`. A kept `true` (`.keepLocal`) is `.useClient`; anything else (the default, `.keepServer`) is
///    `.useServer`: the server's change wins and the delete is dropped.
///
/// An insert or update with no local item (neither ``SyncConflict/localItem`` nor the operation's item) is `.fail`.
/// Decisions are reported, in field-name order, only once the resolution is decided: when a custom rule throws,
/// `resolve` throws and nothing is reported.
public struct ThreeWayMerge: ConflictHandler {
    /// How to decide a field that both sides changed to different values.
    public enum Rule: Sendable {
        /// Keep the local value (`null` when the local copy cleared the field).
        case keepLocal
        /// Keep the server's value (absent when the server removed the field).
        case keepServer
        /// The value to keep (nil removes the field).
        case custom(@Sendable (_ field: String, _ base: JSONValue?, _ local: JSONValue?, _ server: JSONValue?) throws -> JSONValue?)
    }

    /// One decision on a field that both sides changed to different values; `nil` values are absent fields.
    public struct FieldDecision: Sendable, Equatable {
        /// The table of the item.
        public var table: String
        /// The id of the item, as the operation names it.
        public var itemId: String
        /// The field's name (`"deleted"` for a delete against an update).
        public var field: String
        /// The base value; nil when absent, or when there is no base.
        public var base: JSONValue?
        /// The local value.
        public var local: JSONValue?
        /// The server's value.
        public var server: JSONValue?
        /// The value the rule kept.
        public var kept: JSONValue?

        /// Creates a decision value.
        public init(table: String, itemId: String, field: String, base: JSONValue?, local: JSONValue?, server: JSONValue?,
                    kept: JSONValue?) {
            self.table = table
            self.itemId = itemId
            self.field = field
            self.base = base
            self.local = local
            self.server = server
            self.kept = kept
        }
    }

    /// The rule for a both-changed field that `fieldRules` does not name.
    let rule: Rule
    /// Rules by exact field name; `"deleted"` decides deletes against updates.
    let fieldRules: [String: Rule]
    /// Told every both-changed decision.
    let onBothChanged: (@Sendable (FieldDecision) -> Void)?

    /// Creates a merge handler.
    /// - Parameters:
    ///   - rule: Decides both-changed fields that `fieldRules` does not name; the server's value by default.
    ///   - fieldRules: Rules for single fields by exact name; `"deleted"` decides deletes against updates.
    ///   - onBothChanged: Called once for every both-changed field, so that no decision is silent.
    public init(rule: Rule = .keepServer, fieldRules: [String: Rule] = [:],
                onBothChanged: (@Sendable (FieldDecision) -> Void)? = nil) {
        self.rule = rule
        self.fieldRules = fieldRules
        self.onBothChanged = onBothChanged
    }

    /// Resolves the conflict by the merge the type describes.
    /// - Throws: What a custom rule throws.
    public func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution {
        try resolution(for: conflict)
    }

    /// The resolution for a conflict, reporting its both-changed decisions.
    func resolution(for conflict: SyncConflict) throws -> ConflictResolution {
        guard let server = conflict.serverItem else { return .fail }
        var decisions: [FieldDecision] = []
        let result: ConflictResolution
        switch conflict.operation.kind {
        case .delete: result = try deleteResolution(conflict, server: server, decisions: &decisions)
        case .insert, .update: result = try writeResolution(conflict, server: server, decisions: &decisions)
        }
        if let onBothChanged {
            for decision in decisions { onBothChanged(decision) }
        }
        return result
    }

    /// An insert or update against the server's row (contract items 3 and 4).
    private func writeResolution(_ conflict: SyncConflict, server: JSONObject,
                                 decisions: inout [FieldDecision]) throws -> ConflictResolution {
        if SystemProperties.isDeleted(server) {
            let kept = try decideDeletion(conflict, localDeleted: false, decisions: &decisions)
            return kept == .bool(true) ? .useServer : .fail
        }
        guard let local = conflict.localItem ?? conflict.operation.item else { return .fail }
        let serverFields = Self.userFields(of: server)
        let merged = try mergedFields(base: conflict.baseItem.map(Self.userFields(of:)), local: Self.userFields(of: local),
                                      server: serverFields, operation: conflict.operation, decisions: &decisions)
        if Self.sameFields(merged, serverFields) { return .useServer }
        var item = merged
        item["id"] = .string(conflict.operation.itemId)
        return .useMerged(item)
    }

    /// A delete against the server's row (contract item 5).
    private func deleteResolution(_ conflict: SyncConflict, server: JSONObject,
                                  decisions: inout [FieldDecision]) throws -> ConflictResolution {
        if SystemProperties.isDeleted(server) { return .useServer }
        if let base = conflict.baseItem, Self.sameFields(Self.userFields(of: server), Self.userFields(of: base)) {
            return .useClient
        }
        let kept = try decideDeletion(conflict, localDeleted: true, decisions: &decisions)
        return kept == .bool(true) ? .useClient : .useServer
    }

    /// The merged user fields (contract item 2; without a base, item 3's rule for differing fields).
    private func mergedFields(base: JSONObject?, local: JSONObject, server: JSONObject, operation: TableOperation,
                              decisions: inout [FieldDecision]) throws -> JSONObject {
        var fields = Set(local.keys).union(server.keys)
        if let base { fields.formUnion(base.keys) }
        var merged: JSONObject = [:]
        for field in fields.sorted() {
            let localValue = local[field], serverValue = server[field]
            let kept: JSONValue?
            if localValue == nil {
                kept = serverValue
            } else if let base, Self.same(localValue, base[field]) {
                kept = serverValue
            } else if let base, Self.same(serverValue, base[field]) {
                kept = localValue
            } else if Self.same(localValue, serverValue) {
                kept = serverValue
            } else {
                kept = try decide(field, base: base?[field], local: localValue, server: serverValue, operation: operation,
                                  decisions: &decisions)
            }
            merged[field] = kept
        }
        return merged
    }

    /// Decides `deleted` between a delete and a live row, or an update and a deleted row; the kept value.
    private func decideDeletion(_ conflict: SyncConflict, localDeleted: Bool,
                                decisions: inout [FieldDecision]) throws -> JSONValue? {
        let base: JSONValue? = conflict.baseItem == nil ? nil : .bool(false)
        return try decide("deleted", base: base, local: .bool(localDeleted), server: .bool(!localDeleted),
                          operation: conflict.operation, decisions: &decisions)
    }

    /// Applies the field's rule to a both-changed field and records the decision.
    private func decide(_ field: String, base: JSONValue?, local: JSONValue?, server: JSONValue?, operation: TableOperation,
                        decisions: inout [FieldDecision]) throws -> JSONValue? {
        let kept: JSONValue?
        switch fieldRules[field] ?? rule {
        case .keepLocal: kept = local
        case .keepServer: kept = server
        case .custom(let choose): kept = try choose(field, base, local, server)
        }
        decisions.append(FieldDecision(table: operation.table, itemId: operation.itemId, field: field, base: base,
                                       local: local, server: server, kept: kept))
        return kept
    }

    /// The fields the merge covers: the item without `id` and the system properties, in any casing.
    static func userFields(of item: JSONObject) -> JSONObject {
        item.filter { !SystemProperties.isSystemProperty($0.key) && $0.key.lowercased() != "id" }
    }

    /// Whether two field values are the same: both without a value (`null` or absent), or equal as filters compare
    /// them.
    static func same(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Bool {
        switch (lhs ?? .null, rhs ?? .null) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (let left, let right): return ValueComparison.equal(left, right)
        }
    }

    /// Whether two sets of fields are the same field by field (``same(_:_:)``: `null` equal to absent).
    static func sameFields(_ lhs: JSONObject, _ rhs: JSONObject) -> Bool {
        Set(lhs.keys).union(rhs.keys).allSatisfy { same(lhs[$0], rhs[$0]) }
    }
}
