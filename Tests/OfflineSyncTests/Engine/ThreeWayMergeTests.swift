import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// ThreeWayMerge merges field by field from the base and decides deletes against updates by the rule for `deleted`.
struct ThreeWayMergeTests {
    /// A ConflictResolution that tests can compare.
    enum Outcome: Equatable, Sendable {
        case fail, useServer, useClient, useMerged(JSONObject)

        init(_ resolution: ConflictResolution) {
            switch resolution {
            case .fail: self = .fail
            case .useServer: self = .useServer
            case .useClient: self = .useClient
            case .useMerged(let item): self = .useMerged(item)
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var base: JSONObject?
        var local: JSONObject
        var server: JSONObject
        var merge = ThreeWayMerge()
        var expected: Outcome
        var testDescription: String { name }
    }

    struct CustomRuleFailure: Error {}

    /// The item `a` with system properties, which the merge must ignore; each copy gets its own version.
    static func row(_ fields: JSONObject, version: String) -> JSONObject {
        fields.merging(["id": "a", "version": .string(version), "updatedAt": .string("2026-01-01T00:00:0\(version.count).000Z")]) { $1 }
    }

    static func conflict(_ kind: TableOperation.Kind = .update, base: JSONObject?, local: JSONObject?, server: JSONObject?) -> SyncConflict {
        SyncConflict(operation: TableOperation(id: 1, kind: kind, table: "T", itemId: "a", item: nil),
                     localItem: local, serverItem: server, baseItem: base, statusCode: kind == .insert ? 409 : 412)
    }

    static let table: [Case] = [
        Case(name: "different fields changed on the two sides both survive",
             base: ["a": 1, "b": 1], local: ["a": 2, "b": 1], server: ["a": 1, "b": 2],
             expected: .useMerged(["id": "a", "a": 2, "b": 2])),
        Case(name: "same field changed to the same value is no conflict",
             base: ["a": 1, "b": 1], local: ["a": 2, "b": 5], server: ["a": 2, "b": 1], merge: ThreeWayMerge(rule: .custom { _, _, _, _ in "conflict" }),
             expected: .useMerged(["id": "a", "a": 2, "b": 5])),
        Case(name: "both changed keeps the server's value by default",
             base: ["a": 1, "b": 1], local: ["a": 2, "b": 2], server: ["a": 3, "b": 1],
             expected: .useMerged(["id": "a", "a": 3, "b": 2])),
        Case(name: "a field rule keeps the local value of one field",
             base: ["a": 1, "b": 1], local: ["a": 2, "b": 2], server: ["a": 3, "b": 3], merge: ThreeWayMerge(fieldRules: ["a": .keepLocal]),
             expected: .useMerged(["id": "a", "a": 2, "b": 3])),
        Case(name: "a custom rule returning nil removes the field",
             base: ["a": 1, "b": 1], local: ["a": 2, "b": 2], server: ["a": 3, "b": 1], merge: ThreeWayMerge(rule: .custom { _, _, _, _ in nil }),
             expected: .useMerged(["id": "a", "b": 2])),
        Case(name: "a field the local copy lacks is no local change and keeps the server's value",
             base: ["a": 1, "b": 1, "c": 1], local: ["b": 1, "c": 2], server: ["a": 3, "b": 2, "c": 1], merge: ThreeWayMerge(rule: .keepLocal),
             expected: .useMerged(["id": "a", "a": 3, "b": 2, "c": 2])),
        Case(name: "a field cleared locally only is cleared",
             base: ["a": 1, "b": 1], local: ["a": .null, "b": 1], server: ["a": 1, "b": 2],
             expected: .useMerged(["id": "a", "a": .null, "b": 2])),
        Case(name: "a field added on the server only is kept",
             base: ["a": 1], local: ["a": 2], server: ["a": 1, "c": "new"],
             expected: .useMerged(["id": "a", "a": 2, "c": "new"])),
        Case(name: "a nested object changed on both sides counts as one value",
             base: ["o": ["x": 1, "y": 1], "t": 1], local: ["o": ["x": 2, "y": 1], "t": 2], server: ["o": ["x": 1, "y": 2], "t": 1],
             expected: .useMerged(["id": "a", "o": ["x": 1, "y": 2], "t": 2])),
        Case(name: "1 and 1.0 are equal, so only the server changed the number",
             base: ["n": 1, "t": 1], local: ["n": 1.0, "t": 2], server: ["n": 2, "t": 1], merge: ThreeWayMerge(rule: .keepLocal),
             expected: .useMerged(["id": "a", "n": 2, "t": 2])),
        Case(name: "without a base differing fields are decided by the rule",
             base: nil, local: ["a": 1, "b": 1, "c": 1], server: ["a": 2, "b": 1], merge: ThreeWayMerge(rule: .keepLocal),
             expected: .useMerged(["id": "a", "a": 1, "b": 1, "c": 1])),
        Case(name: "without a base the default rule keeps the server's fields",
             base: nil, local: ["a": 1, "c": 1], server: ["a": 2, "b": 1],
             expected: .useServer),
        Case(name: "a merge equal to the server's row is useServer",
             base: ["a": 1, "b": 1], local: ["a": 1, "b": 1.0], server: ["a": 2, "b": 1],
             expected: .useServer),
    ]

    @Test(arguments: table)
    func mergesFieldByField(_ item: Case) throws {
        var local = Self.row(item.local, version: "v1")
        local["UpdatedAt"] = "2026-02-02T00:00:00.000Z"
        let conflict = Self.conflict(base: item.base.map { Self.row($0, version: "v1") }, local: local,
                                     server: Self.row(item.server, version: "v22"))
        #expect(Outcome(try item.merge.resolution(for: conflict)) == item.expected)
    }

    @Test func anInsertWithABaseMergesLikeAnUpdate() throws {
        let conflict = Self.conflict(.insert, base: Self.row(["a": 1, "b": 1], version: "v1"), local: Self.row(["a": 2, "b": 1], version: "v1"),
                                     server: Self.row(["a": 1, "b": 2], version: "v22"))
        #expect(Outcome(try ThreeWayMerge().resolution(for: conflict)) == .useMerged(["id": "a", "a": 2, "b": 2]))
    }

    @Test func onBothChangedIsToldEveryBothChangedFieldOnce() throws {
        let decisions = LockedValue<[ThreeWayMerge.FieldDecision]>([])
        let merge = ThreeWayMerge(fieldRules: ["b": .keepLocal]) { decision in decisions.withLock { $0.append(decision) } }
        let conflict = Self.conflict(base: Self.row(["a": 1, "b": ["x": 1], "c": 1, "d": 1], version: "v1"),
                                     local: Self.row(["a": 2, "b": ["x": 2], "c": 2, "d": 1], version: "v1"),
                                     server: Self.row(["a": 3, "c": 1, "d": 4], version: "v22"))
        #expect(Outcome(try merge.resolution(for: conflict)) == .useMerged(["id": "a", "a": 3, "b": ["x": 2], "c": 2, "d": 4]))
        #expect(decisions.current == [
            .init(table: "T", itemId: "a", field: "a", base: 1, local: 2, server: 3, kept: 3),
            .init(table: "T", itemId: "a", field: "b", base: ["x": 1], local: ["x": 2], server: nil, kept: ["x": 2]),
        ])
    }

    @Test func anUpdateOfAServerDeletedRowLetsTheDeletionWinByDefault() throws {
        let decisions = LockedValue<[ThreeWayMerge.FieldDecision]>([])
        let merge = ThreeWayMerge { decision in decisions.withLock { $0.append(decision) } }
        let conflict = Self.conflict(base: Self.row(["a": 1], version: "v1"), local: Self.row(["a": 2], version: "v1"),
                                     server: Self.row(["a": 1, "deleted": true], version: "v22"))
        #expect(Outcome(try merge.resolution(for: conflict)) == .useServer)
        #expect(decisions.current == [.init(table: "T", itemId: "a", field: "deleted", base: false, local: false, server: true, kept: true)])
    }

    @Test func anUpdateOfAServerDeletedRowKeptLocallyFails() throws {
        let conflict = Self.conflict(base: nil, local: Self.row(["a": 2], version: "v1"),
                                     server: Self.row(["a": 1, "deleted": true], version: "v22"))
        #expect(Outcome(try ThreeWayMerge(fieldRules: ["deleted": .keepLocal]).resolution(for: conflict)) == .fail)
    }

    @Test func aDeleteOfAnUnchangedServerRowIsSentAgain() throws {
        let merge = ThreeWayMerge { _ in Issue.record("no field changed on both sides") }
        let conflict = Self.conflict(.delete, base: Self.row(["a": 1], version: "v1"), local: Self.row(["a": 1], version: "v1"),
                                     server: Self.row(["a": 1.0], version: "v22"))
        #expect(Outcome(try merge.resolution(for: conflict)) == .useClient)
    }

    @Test func aDeleteOfAChangedServerRowLetsTheServerWinByDefault() throws {
        let decisions = LockedValue<[ThreeWayMerge.FieldDecision]>([])
        let merge = ThreeWayMerge { decision in decisions.withLock { $0.append(decision) } }
        let conflict = Self.conflict(.delete, base: Self.row(["a": 1], version: "v1"), local: Self.row(["a": 1], version: "v1"),
                                     server: Self.row(["a": 2], version: "v22"))
        #expect(Outcome(try merge.resolution(for: conflict)) == .useServer)
        #expect(decisions.current == [.init(table: "T", itemId: "a", field: "deleted", base: false, local: true, server: false, kept: false)])
    }

    @Test func aDeleteOfAChangedServerRowKeptLocallyIsSentAgain() throws {
        let conflict = Self.conflict(.delete, base: Self.row(["a": 1], version: "v1"), local: Self.row(["a": 1], version: "v1"),
                                     server: Self.row(["a": 2], version: "v22"))
        #expect(Outcome(try ThreeWayMerge(rule: .keepLocal).resolution(for: conflict)) == .useClient)
    }

    @Test func aDeleteWithoutABaseIsDecidedByTheRule() throws {
        let conflict = Self.conflict(.delete, base: nil, local: Self.row(["a": 1], version: "v1"), server: Self.row(["a": 1], version: "v22"))
        #expect(Outcome(try ThreeWayMerge().resolution(for: conflict)) == .useServer)
        #expect(Outcome(try ThreeWayMerge(fieldRules: ["deleted": .custom { _, _, _, _ in true }]).resolution(for: conflict)) == .useClient)
    }

    @Test func aDeleteOfAnAlreadyDeletedServerRowIsUseServer() throws {
        let conflict = Self.conflict(.delete, base: Self.row(["a": 1], version: "v1"), local: Self.row(["a": 1], version: "v1"),
                                     server: Self.row(["a": 2, "deleted": true], version: "v22"))
        #expect(Outcome(try ThreeWayMerge(rule: .keepLocal).resolution(for: conflict)) == .useServer)
    }

    @Test(arguments: [TableOperation.Kind.insert, .update, .delete])
    func withoutAServerRowTheConflictFails(_ kind: TableOperation.Kind) async throws {
        let conflict = Self.conflict(kind, base: Self.row(["a": 1], version: "v1"), local: Self.row(["a": 2], version: "v1"), server: nil)
        #expect(Outcome(try await ThreeWayMerge().resolve(conflict)) == .fail)
    }

    @Test func aThrowingCustomRuleMakesResolveThrowAndReportsNothing() async throws {
        let merge = ThreeWayMerge(rule: .custom { field, _, _, _ in
            if field == "b" { throw CustomRuleFailure() }
            return nil
        }, onBothChanged: { _ in Issue.record("nothing is reported when the merge throws") })
        let conflict = Self.conflict(base: Self.row(["a": 1, "b": 1], version: "v1"), local: Self.row(["a": 2, "b": 2], version: "v1"),
                                     server: Self.row(["a": 3, "b": 3], version: "v22"))
        await #expect(throws: CustomRuleFailure.self) { try await merge.resolve(conflict) }
    }
}
