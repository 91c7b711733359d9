/// Which queued operations a push may send now, with several in flight: a pure value, fed with the queue and with
/// what each operation came to, that the push asks for its next operation.
///
/// The rules, in the order they are checked:
/// - **One item, one at a time:** an operation is sent only once every earlier operation of its item (same table,
///   id matched case-insensitively) finished.
/// - **References:** an insert or update whose content refers to an item with a queued insert (see
///   ``references(of:table:relations:)``) waits until that insert finished, and is refused when it failed; a delete
///   waits until every queued operation whose content refers to its item finished, and every queued operation of a
///   table declared to refer to its table (which may be the one that stops referring to it). The push reports a waiting
///   operation with ``park(_:until:)`` and a refused one by recording an error.
/// - **Queue order otherwise:** among the operations these rules allow, the lowest id goes first, so one operation in
///   flight sends them in queue order unless a reference says otherwise.
/// - **Cycles:** when nothing is in flight and every operation left waits for another (a cycle of references), the
///   lowest waiting id is released to go anyway (``releaseLowestParked()``): a cycle falls back to queue order.
struct PushSchedule: Sendable {
    /// How an operation ended, for the operations that wait for it.
    enum Ending: Sendable, Hashable {
        /// The server accepted it (or it counts as accepted).
        case succeeded
        /// It failed or was stopped; it stays queued.
        case failed
        /// It left the queue without being sent (resolved or folded meanwhile).
        case gone
    }

    private struct Entry: Sendable {
        var id: Int64
        var kind: TableOperation.Kind
        var item: ItemKey
        var table: String
        var itemId: String
        var started = false
        var finished = false
        /// Released from a cycle: sent without looking at references.
        var forced = false
    }

    /// The tables whose items refer to items of a table (declared relations), by the referred table.
    private let referringTables: [String: Set<String>]
    private var entries: [Int64: Entry] = [:]
    /// Operation ids in queue order; ``head`` skips the finished and started prefix.
    private var order: [Int64] = []
    private var head = 0
    /// The id keys of every item with an operation in the schedule: the only ids a reference can wait for.
    private var scheduledIds: Set<String> = []
    /// The UTF-8 lengths of the scheduled items' ids that are ASCII: a string of another length, ASCII too, cannot
    /// name one of them, so ``references(of:table:relations:)`` skips it without building its key.
    private var asciiIdLengths: Set<Int> = []
    /// Whether a scheduled item's id is not ASCII (its key's length can differ from its own): no string is skipped.
    private var hasNonASCIIIds = false
    /// Unfinished operation ids per table, started ones included.
    private var unfinishedByTable: [String: Set<Int64>] = [:]
    /// Unfinished operation ids per item key, in queue order.
    private var unfinishedByItem: [ItemKey: [Int64]] = [:]
    /// Unfinished inserts per item id key (any table): what references wait for.
    private var pendingInserts: [String: [Int64]] = [:]
    /// Failed inserts per item id key, with their table and id: what refuses the operations referring to them.
    private var failedInserts: [String: (table: String, itemId: String)] = [:]
    /// The id keys each unfinished insert or update refers to, once known.
    private var referencesById: [Int64: Set<String>] = [:]
    /// Parked operations and the operations each waits for.
    private var parked: [Int64: Set<Int64>] = [:]
    /// How many operations are in flight.
    private(set) var inFlightCount = 0

    /// Creates an empty schedule that also keeps the declared `relations` in order.
    init(relations: [TableRelation] = []) {
        referringTables = Dictionary(grouping: relations, by: \.referencedTable).mapValues { Set($0.map(\.table)) }
    }

    /// Adds operations read from the queue (ids greater than any added before), in queue order.
    mutating func add(_ operations: [TableOperation]) {
        for operation in operations where entries[operation.id] == nil {
            let item = ItemKey(table: operation.table, itemId: operation.itemId)
            entries[operation.id] = Entry(id: operation.id, kind: operation.kind, item: item, table: operation.table,
                                          itemId: operation.itemId)
            order.append(operation.id)
            unfinishedByItem[item, default: []].append(operation.id)
            unfinishedByTable[operation.table, default: []].insert(operation.id)
            scheduledIds.insert(item.id)
            if Self.isASCII(operation.itemId) { asciiIdLengths.insert(operation.itemId.utf8.count) } else { hasNonASCIIIds = true }
            if operation.kind == .insert { pendingInserts[item.id, default: []].append(operation.id) }
        }
    }

    /// The lowest id that may be prepared now: not started, first of its item, not parked; nil when none.
    mutating func nextCandidate() -> Int64? {
        while head < order.count, let entry = entries[order[head]], entry.started || entry.finished { head += 1 }
        for id in order[head...] {
            guard let entry = entries[id], !entry.started, !entry.finished, parked[id] == nil else { continue }
            if unfinishedByItem[entry.item]?.first == id { return id }
        }
        return nil
    }

    /// Up to `limit` ids after `id` that are neither started nor finished, in queue order: the run an attempted mark
    /// may cover.
    func upcoming(after id: Int64, limit: Int) -> [Int64] {
        var result: [Int64] = []
        for next in order[head...] where next > id {
            guard result.count < limit else { break }
            if let entry = entries[next], !entry.started, !entry.finished { result.append(next) }
        }
        return result
    }

    /// What an operation's references ask of it now (``decide(_:kind:references:)``).
    enum Decision: Sendable, Hashable {
        /// Send it.
        case send
        /// Wait for these operations to finish (``park(_:until:)``).
        case wait([Int64])
        /// Do not send it: it refers to an item whose insert failed (table, id).
        case refuse(table: String, itemId: String)
    }

    /// Decides on operation `id`, of `kind` now (a local write during the push may have turned it into a delete),
    /// given the id keys its content (a delete: its snapshot) refers to; records them for the deletes that wait for it.
    mutating func decide(_ id: Int64, kind: TableOperation.Kind, references: Set<String>) -> Decision {
        guard var entry = entries[id] else { return .send }
        if entry.kind != kind {
            if entry.kind == .insert { removePendingInsert(id, key: entry.item.id) }
            if kind == .insert { pendingInserts[entry.item.id, default: []].append(id) }
            entry.kind = kind
            entries[id] = entry
        }
        referencesById[id] = references
        if entry.forced { return .send }
        if entry.kind == .delete {
            let referrers = unfinishedReferrers(of: entry.item.id, except: entry.item)
                + unfinishedOperations(in: referringTables[entry.table] ?? [], except: entry.item)
            return referrers.isEmpty ? .send : .wait(Array(Set(referrers)).sorted())
        }
        var waits: [Int64] = []
        for reference in references {
            if let inserts = pendingInserts[reference] {
                waits += inserts.filter { entries[$0]?.item != entry.item }
            }
        }
        if !waits.isEmpty { return .wait(waits) }
        guard !failedInserts.isEmpty else { return .send }
        for reference in references.sorted() {
            if let failed = failedInserts[reference], ItemKey(table: failed.table, itemId: failed.itemId) != entry.item {
                return .refuse(table: failed.table, itemId: failed.itemId)
            }
        }
        return .send
    }

    /// The unfinished operations of other items whose references are not known yet: what a delete's decision needs
    /// read first (``learn(_:references:)``; a delete's references are its snapshot's).
    func unknownReferences(forDeleteOf id: Int64) -> [Int64] {
        guard let entry = entries[id], entry.kind == .delete else { return [] }
        return order[head...].filter { other in
            guard let candidate = entries[other] else { return false }
            return !candidate.finished && candidate.item != entry.item && referencesById[other] == nil
        }
    }

    /// Records what operation `id` refers to, read ahead of its turn.
    mutating func learn(_ id: Int64, references: Set<String>) {
        referencesById[id] = references
    }

    private func unfinishedReferrers(of key: String, except item: ItemKey) -> [Int64] {
        referencesById.compactMap { id, references in
            guard references.contains(key), let entry = entries[id], !entry.finished, entry.item != item else { return nil }
            return id
        }.sorted()
    }

    /// The unfinished operations of `tables` other than those of `item`: what may still refer to an item, or stop
    /// referring to it, on the server (a declared relation).
    private func unfinishedOperations(in tables: Set<String>, except item: ItemKey) -> [Int64] {
        tables.flatMap { unfinishedByTable[$0] ?? [] }.filter { entries[$0]?.item != item }
    }

    private mutating func removePendingInsert(_ id: Int64, key: String) {
        guard var inserts = pendingInserts[key] else { return }
        inserts.removeAll { $0 == id }
        pendingInserts[key] = inserts.isEmpty ? nil : inserts
    }

    /// Holds operation `id` back until every operation of `waits` finished.
    mutating func park(_ id: Int64, until waits: [Int64]) {
        let open = Set(waits.filter { entries[$0].map { !$0.finished } ?? false })
        if !open.isEmpty { parked[id] = open }
    }

    /// Releases the lowest parked operation to be sent whatever it refers to; false when none is parked. Call when
    /// nothing is in flight and no candidate is left: the parked operations wait for each other.
    mutating func releaseLowestParked() -> Bool {
        guard let lowest = parked.keys.min() else { return false }
        parked[lowest] = nil
        entries[lowest]?.forced = true
        return true
    }

    /// Marks operation `id` as sent.
    mutating func started(_ id: Int64) {
        entries[id]?.started = true
        inFlightCount += 1
    }

    /// Marks operation `id` as finished (`wasStarted`: it was in flight), releasing the operations that waited for it.
    mutating func finished(_ id: Int64, _ ending: Ending) {
        guard var entry = entries[id], !entry.finished else { return }
        if entry.started { inFlightCount -= 1 }
        entry.finished = true
        entries[id] = entry
        referencesById[id] = nil
        parked[id] = nil
        if var ids = unfinishedByItem[entry.item] {
            ids.removeAll { $0 == id }
            unfinishedByItem[entry.item] = ids.isEmpty ? nil : ids
        }
        unfinishedByTable[entry.table]?.remove(id)
        if entry.kind == .insert {
            removePendingInsert(id, key: entry.item.id)
            if ending == .failed { failedInserts[entry.item.id] = (entry.table, entry.itemId) }
        }
        for (waiting, var waits) in parked where waits.contains(id) {
            waits.remove(id)
            parked[waiting] = waits.isEmpty ? nil : waits
        }
    }

    /// The id keys an item's content refers to among the items of the schedule (no other reference can make an
    /// operation wait): every top-level string field (other than `id` and the system properties) and, for a declared
    /// relation of `table`, its field's string or strings.
    func references(of content: JSONObject?, table: String, relations: [TableRelation]) -> Set<String> {
        guard let content else { return [] }
        var keys = Set<String>()
        func consider(_ text: String) {
            if !hasNonASCIIIds, !asciiIdLengths.contains(text.utf8.count), Self.isASCII(text) { return }
            let key = ItemID.key(text)
            if scheduledIds.contains(key) { keys.insert(key) }
        }
        for (name, value) in content where name != "id" && !SystemProperties.isSystemProperty(name) {
            if case .string(let text) = value { consider(text) }
        }
        for relation in relations where relation.table == table {
            guard case .array(let values)? = content[relation.field] else { continue }
            for case .string(let text) in values { consider(text) }
        }
        return keys
    }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }
}
