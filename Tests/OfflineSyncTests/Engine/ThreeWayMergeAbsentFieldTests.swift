import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// How ThreeWayMerge reads a field that a copy lacks or holds as `null`: a field the local copy lacks is not part of
/// the local change (an update sends only the fields it holds, and a `PATCH` leaves the others as they are), and
/// otherwise `null` and absent are the same value, "no value".
struct ThreeWayMergeAbsentFieldTests {
    /// One copy's value of the field `f`.
    enum Slot: Sendable, Equatable, CustomStringConvertible {
        case absent, null, value(Int)

        var json: JSONValue? {
            switch self {
            case .absent: return nil
            case .null: return .null
            case .value(let number): return .int(Int64(number))
            }
        }

        init(_ json: JSONValue?) {
            switch json {
            case nil: self = .absent
            case .null?: self = .null
            case let other?: self = .value(Int(other.intValue ?? -1))
            }
        }

        var description: String {
            switch self {
            case .absent: return "absent"
            case .null: return "null"
            case .value(let number): return "\(number)"
            }
        }
    }

    /// Base (nil: no base), local and server values of `f`; what `.keepLocal` keeps, and whether the field counts as
    /// changed on both sides (then `.keepServer` keeps the server's value, else it keeps what `.keepLocal` keeps).
    struct Case: Sendable, CustomTestStringConvertible {
        var base: Slot?
        var local: Slot
        var server: Slot
        var kept: Slot
        var bothChanged: Bool

        init(_ base: Slot?, _ local: Slot, _ server: Slot, kept: Slot, bothChanged: Bool = false) {
            (self.base, self.local, self.server, self.kept, self.bothChanged) = (base, local, server, kept, bothChanged)
        }

        var testDescription: String {
            "base \(base.map(\.description) ?? "none"), local \(local), server \(server): keeps \(kept)\(bothChanged ? ", both changed" : "")"
        }
    }

    static let cases: [Case] = [
        // A field the local copy lacks is unchanged locally: the server's value stays, whatever it is.
        Case(.null, .absent, .value(3), kept: .value(3)),
        Case(.null, .absent, .null, kept: .null),
        Case(.null, .absent, .absent, kept: .absent),
        Case(.value(1), .absent, .value(3), kept: .value(3)),
        Case(.value(1), .absent, .value(1), kept: .value(1)),
        Case(.absent, .absent, .value(3), kept: .value(3)),
        Case(nil, .absent, .value(3), kept: .value(3)),
        // `null` and absent are the same value on every side.
        Case(.absent, .null, .value(3), kept: .value(3)),
        Case(.null, .null, .value(3), kept: .value(3)),
        Case(.null, .value(2), .absent, kept: .value(2)),
        Case(.value(1), .null, .absent, kept: .absent),
        Case(nil, .null, .absent, kept: .absent),
        Case(nil, .null, .null, kept: .null),
        // A local `null` over a value is a clear, a change like any other.
        Case(.value(1), .null, .value(1), kept: .null),
        Case(.value(1), .null, .value(3), kept: .null, bothChanged: true),
        Case(.value(1), .value(2), .null, kept: .value(2), bothChanged: true),
        // Values, as before.
        Case(.absent, .value(2), .absent, kept: .value(2)),
        Case(.value(1), .value(2), .value(1), kept: .value(2)),
        Case(.value(1), .value(1), .absent, kept: .absent),
        Case(.value(1), .value(2), .value(3), kept: .value(2), bothChanged: true),
        Case(.value(1), .value(2), .value(2), kept: .value(2)),
        Case(nil, .value(2), .null, kept: .value(2), bothChanged: true),
        Case(nil, .value(2), .absent, kept: .value(2), bothChanged: true),
        Case(nil, .value(2), .value(2), kept: .value(2)),
    ]

    /// The copy of item `a` with `f` as given, `g` as given and system properties the merge ignores.
    private static func row(_ slot: Slot, g: Int, version: String) -> JSONObject {
        var item: JSONObject = ["id": "a", "g": .int(Int64(g)), "version": .string(version)]
        item["f"] = slot.json
        return item
    }

    /// The value of `f` that `rule` keeps, and whether it reported `f` as changed on both sides. The field `g`, changed
    /// locally only (so that the result is a merge), stays out of the way: without a base it is equal on both sides.
    private static func merged(_ item: Case, rule: ThreeWayMerge.Rule) throws -> (kept: Slot, reported: Bool) {
        let decisions = LockedValue<[String]>([])
        let merge = ThreeWayMerge(rule: rule) { decision in decisions.withLock { $0.append(decision.field) } }
        let localG = item.base == nil ? 1 : 2
        let server = row(item.server, g: 1, version: "v2")
        let conflict = SyncConflict(operation: TableOperation(id: 1, kind: .update, table: "T", itemId: "a", item: nil),
                                    localItem: row(item.local, g: localG, version: "v1"), serverItem: server,
                                    baseItem: item.base.map { row($0, g: 1, version: "v1") }, statusCode: 412)
        let kept: Slot
        switch try merge.resolution(for: conflict) {
        case .useServer: kept = Slot(server["f"])
        case .useMerged(let merged): kept = Slot(merged["f"])
        case let other: throw MergeOutcomeError(resolution: "\(other)")
        }
        #expect(decisions.current.allSatisfy { $0 == "f" })
        return (kept, decisions.current == ["f"])
    }

    struct MergeOutcomeError: Error { var resolution: String }

    @Test(arguments: cases)
    func aFieldTheLocalCopyLacksIsUnchangedAndNullEqualsAbsent(_ item: Case) throws {
        let local = try Self.merged(item, rule: .keepLocal)
        #expect(local.kept == item.kept, "keepLocal")
        #expect(local.reported == item.bothChanged, "reported as changed on both sides")
        let server = try Self.merged(item, rule: .keepServer)
        #expect(server.kept == (item.bothChanged ? item.server : item.kept), "keepServer")
        #expect(server.reported == item.bothChanged, "reported as changed on both sides")
    }

    /// A delete against a server row that differs from the base only by a field the base holds as `null` and the
    /// server leaves out: the server did not change the row, so the delete is sent again.
    @Test func aDeleteOfARowThatOnlyDropsANullFieldIsSentAgain() throws {
        let merge = ThreeWayMerge { _ in Issue.record("no field changed on both sides") }
        let conflict = SyncConflict(operation: TableOperation(id: 1, kind: .delete, table: "T", itemId: "a", item: nil),
                                    localItem: ["id": "a", "g": 1, "f": .null, "version": "v1"],
                                    serverItem: ["id": "a", "g": 1, "version": "v2"],
                                    baseItem: ["id": "a", "g": 1, "f": .null, "version": "v1"], statusCode: 412)
        guard case .useClient = try merge.resolution(for: conflict) else {
            Issue.record("expected useClient")
            return
        }
    }
}
