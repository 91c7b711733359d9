import OfflineSyncCore
import OfflineSyncStore
/// Which queued operations a push may send now, with several in flight: a pure value, fed with the queue and with
/// what each operation came to, that the push asks for its next operation.
///
/// The rules, in the order they are checked:
/// - **One item, one at a time:** an operation is sent only once every earlier operation of its item (same table,
///   id matched case-insensitively) finished.
/// - **References:** an insert or update whose content refers to an item with a queued insert (see
///   ``references(of:table:relations:)``) waits until that insert finished, and is refused when it failed and the
///   reference is a declared one (a reference inferred from a field's name only orders); a delete waits until every
///   queued operation whose content refers to its item finished, and every queued operation of a table declared to
///   refer to its table (which may be the one that stops referring to it). The push reports a waiting operation with
///   ``park(_:until:)`` and a refused one by recording an error.
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

    /// The items of the schedule an operation's content refers to (``references(of:table:relations:)``).
    struct References: Sendable, Hashable {
        /// Named by a declared ``TableRelation``: the operation waits for their inserts, and is refused when one failed.
        var declared: Set<ItemKey> = []
        /// Named by a field whose name says it holds an id of their table (``TableRelation`` gives the rule): the
        /// operation waits for their inserts, and is sent whatever became of them.
        var inferred: Set<ItemKey> = []

        /// Whether it names no item.
        var isEmpty: Bool { declared.isEmpty && inferred.isEmpty }

        /// Every item named, declared or inferred.
        var all: Set<ItemKey> { declared.union(inferred) }
    }

    private struct Entry: Sendable {
        var kind: TableOperation.Kind
        /// Where its item's state is in ``items``.
        let itemSlot: Int
        let table: String
        let itemId: String
        var started = false
        var finished = false
        /// Released from a cycle: sent without looking at references.
        var forced = false
        /// Whether ``referencesById`` knows what it refers to (only non-empty references are kept there).
        var referencesKnown = false
    }

    /// An item (table and id key) of the schedule, what references name: its unfinished operations, in queue order.
    private struct ItemState: Sendable {
        let key: ItemKey
        var unfinished = OrderedIds()
        /// Its unfinished inserts, in queue order: what references wait for.
        var pendingInserts = OrderedIds()
        /// The id of its last insert that failed in this push: what refuses the operations declared to refer to it.
        var failedInsert: String?
    }

    /// The tables whose items refer to items of a table (declared relations), by the referred table.
    private let referringTables: [String: Set<String>]
    private var entries: [Int64: Entry] = [:]
    /// Operation ids in queue order; ``head`` skips the finished and started prefix.
    private var order: [Int64] = []
    private var head = 0
    /// Each item's state, found by its key once when an operation is added (each later step goes by slot).
    private var items: [ItemState] = []
    private var itemSlots: [ItemKey: Int] = [:]
    private var failedInsertCount = 0
    /// The tables of the scheduled items by the names of the fields that by convention hold their ids (lower-cased:
    /// `<table>id`, `<table>_id`), and those names' UTF-8 lengths (a field of another length is none of them).
    private var conventionalFields: [String: Set<String>] = [:]
    private var conventionalFieldLengths: Set<Int> = []
    private var knownTables: Set<String> = []
    /// The UTF-8 lengths of the scheduled items' ids that are ASCII: a string of another length, ASCII too, cannot
    /// name one of them, so ``references(of:table:relations:)`` skips it without building its key.
    private var asciiIdLengths: Set<Int> = []
    /// Whether a scheduled item's id is not ASCII (its key's length can differ from its own): no string is skipped.
    private var hasNonASCIIIds = false
    /// Unfinished operation ids per table, started ones included; kept only when relations are declared (a delete
    /// waits for the operations of the tables that refer to its table).
    private var unfinishedByTable: [String: Set<Int64>] = [:]
    /// The items each unfinished operation refers to, when not none.
    private var referencesById: [Int64: Set<ItemKey>] = [:]
    /// Parked operations and the operations each waits for.
    private var parked: [Int64: Set<Int64>] = [:]
    /// How many operations are in flight.
    private(set) var inFlightCount = 0

    /// Creates an empty schedule that also keeps the declared `relations` in order.
    init(relations: [TableRelation] = []) {
        referringTables = Dictionary(grouping: relations, by: \.referencedTable).mapValues { Set($0.map(\.table)) }
    }

    /// Adds operations read from the queue, in queue order. An id lower than one added before (an operation of another
    /// table that operations queued during a scoped push depend on) takes its place in queue order; it must not be
    /// lower than an operation of its own item added before.
    mutating func add(_ operations: [TableOperation]) {
        for operation in operations where entries[operation.id] == nil {
            let key = ItemKey(table: operation.table, itemId: operation.itemId)
            let itemSlot = slot(of: key)
            entries[operation.id] = Entry(kind: operation.kind, itemSlot: itemSlot, table: operation.table,
                                          itemId: operation.itemId)
            if let last = order.last, operation.id < last {
                let index = order.firstIndex { $0 > operation.id } ?? order.count
                order.insert(operation.id, at: index)
                head = min(head, index)
            } else {
                order.append(operation.id)
            }
            items[itemSlot].unfinished.append(operation.id)
            if !referringTables.isEmpty { unfinishedByTable[operation.table, default: []].insert(operation.id) }
            if Self.isASCII(operation.itemId) { asciiIdLengths.insert(operation.itemId.utf8.count) } else { hasNonASCIIIds = true }
            if operation.kind == .insert { items[itemSlot].pendingInserts.append(operation.id) }
            if knownTables.insert(operation.table).inserted {
                for name in Self.conventionalFieldNames(of: operation.table) {
                    conventionalFields[name, default: []].insert(operation.table)
                    conventionalFieldLengths.insert(name.utf8.count)
                }
            }
        }
    }

    /// The names, lower-cased, of the fields that by convention hold an id of `table`: its name followed by `id` or
    /// `_id`.
    private static func conventionalFieldNames(of table: String) -> [String] {
        let name = table.lowercased()
        return [name + "id", name + "_id"]
    }

    private mutating func slot(of key: ItemKey) -> Int {
        if let slot = itemSlots[key] { return slot }
        items.append(ItemState(key: key))
        itemSlots[key] = items.count - 1
        return items.count - 1
    }

    /// The lowest id that may be prepared now: not started, first of its item, not parked; nil when none.
    mutating func nextCandidate() -> Int64? {
        while head < order.count, let entry = entries[order[head]], entry.started || entry.finished { head += 1 }
        for id in order[head...] {
            guard let entry = entries[id], !entry.started, !entry.finished, parked.isEmpty || parked[id] == nil else { continue }
            if items[entry.itemSlot].unfinished.first == id { return id }
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
    /// given the items its content (a delete: its snapshot) refers to; records them for the deletes that wait for it.
    mutating func decide(_ id: Int64, kind: TableOperation.Kind, references: References) -> Decision {
        guard var entry = entries[id] else { return .send }
        if entry.kind != kind {
            if entry.kind == .insert { items[entry.itemSlot].pendingInserts.remove(id) }
            if kind == .insert { items[entry.itemSlot].pendingInserts.append(id) }
            entry.kind = kind
        }
        learn(id, references: references, entry: &entry)
        entries[id] = entry
        if entry.forced { return .send }
        if entry.kind == .delete {
            let referrers = unfinishedReferrers(of: items[entry.itemSlot].key, except: entry.itemSlot)
                + unfinishedOperations(in: referringTables[entry.table] ?? [], except: entry.itemSlot)
            return referrers.isEmpty ? .send : .wait(Array(Set(referrers)).sorted())
        }
        var waits: [Int64] = []
        for reference in references.all {
            guard let slot = itemSlots[reference], slot != entry.itemSlot else { continue }
            waits += items[slot].pendingInserts.all
        }
        if !waits.isEmpty { return .wait(waits.sorted()) }
        // Only a declared reference refuses: a field that merely holds an id like a failed insert's may mean
        // anything else.
        guard failedInsertCount > 0 else { return .send }
        for reference in references.declared.sorted(by: { ($0.table, $0.id) < ($1.table, $1.id) }) {
            if let slot = itemSlots[reference], slot != entry.itemSlot, let failed = items[slot].failedInsert {
                return .refuse(table: reference.table, itemId: failed)
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
            return !candidate.finished && candidate.itemSlot != entry.itemSlot && !candidate.referencesKnown
        }
    }

    /// Records what operation `id` refers to, read ahead of its turn.
    mutating func learn(_ id: Int64, references: References) {
        guard var entry = entries[id] else { return }
        learn(id, references: references, entry: &entry)
        entries[id] = entry
    }

    private mutating func learn(_ id: Int64, references: References, entry: inout Entry) {
        entry.referencesKnown = true
        if references.isEmpty {
            if !referencesById.isEmpty { referencesById[id] = nil }
        } else {
            referencesById[id] = references.all
        }
    }

    private func unfinishedReferrers(of key: ItemKey, except itemSlot: Int) -> [Int64] {
        referencesById.compactMap { id, references in
            guard references.contains(key), let entry = entries[id], !entry.finished, entry.itemSlot != itemSlot else { return nil }
            return id
        }.sorted()
    }

    /// The unfinished operations of `tables` other than those of the item in `itemSlot`: what may still refer to an
    /// item, or stop referring to it, on the server (a declared relation).
    private func unfinishedOperations(in tables: Set<String>, except itemSlot: Int) -> [Int64] {
        tables.flatMap { unfinishedByTable[$0] ?? [] }.filter { entries[$0]?.itemSlot != itemSlot }
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
        if !referencesById.isEmpty { referencesById[id] = nil }
        items[entry.itemSlot].unfinished.remove(id)
        if !referringTables.isEmpty { unfinishedByTable[entry.table]?.remove(id) }
        if entry.kind == .insert {
            items[entry.itemSlot].pendingInserts.remove(id)
            if ending == .failed {
                if items[entry.itemSlot].failedInsert == nil { failedInsertCount += 1 }
                items[entry.itemSlot].failedInsert = entry.itemId
            }
        }
        guard !parked.isEmpty else { return }
        parked[id] = nil
        for (waiting, var waits) in parked where waits.contains(id) {
            waits.remove(id)
            parked[waiting] = waits.isEmpty ? nil : waits
        }
    }

    /// The items of the schedule an item of `table` refers to with `content` (no other reference can make an
    /// operation wait), by the rule ``TableRelation`` states:
    /// - **declared:** for each relation of `table`, the item of its referenced table named by its field's string, or
    ///   by each string of its field's array;
    /// - **inferred:** for each other top-level string field whose name, ignoring case, is a scheduled table's name
    ///   followed by `id` or `_id` (`todoListId`, `TodoList_id` for `TodoList`), the item of that table it names.
    func references(of content: JSONObject?, table: String, relations: [TableRelation]) -> References {
        guard let content else { return References() }
        var found = References()
        func item(_ text: String, of referencedTable: String) -> ItemKey? {
            if !hasNonASCIIIds, !asciiIdLengths.contains(text.utf8.count), Self.isASCII(text) { return nil }
            let key = ItemKey(table: referencedTable, itemId: text)
            return itemSlots[key] != nil ? key : nil
        }
        var declaredFields: Set<String> = []
        for relation in relations where relation.table == table {
            declaredFields.insert(relation.field)
            switch content[relation.field] {
            case .string(let text)?:
                if let key = item(text, of: relation.referencedTable) { found.declared.insert(key) }
            case .array(let values)?:
                for case .string(let text) in values {
                    if let key = item(text, of: relation.referencedTable) { found.declared.insert(key) }
                }
            default:
                break
            }
        }
        guard !conventionalFields.isEmpty else { return found }
        for (name, value) in content where conventionalFieldLengths.contains(name.utf8.count) {
            guard case .string(let text) = value, !declaredFields.contains(name),
                  let tables = conventionalFields[name.lowercased()] else { continue }
            for referencedTable in tables {
                if let key = item(text, of: referencedTable) { found.inferred.insert(key) }
            }
        }
        return found
    }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }
}

/// Operation ids in the order added (queue order), the first kept inline: most items of a push have one operation, and then no
/// array is allocated.
private struct OrderedIds: Sendable {
    private(set) var first: Int64?
    private var rest: [Int64] = []

    /// Every id, in order.
    var all: [Int64] { first.map { [$0] + rest } ?? [] }

    /// Adds `id` last.
    mutating func append(_ id: Int64) {
        if first == nil { first = id } else { rest.append(id) }
    }

    /// Removes `id` when held.
    mutating func remove(_ id: Int64) {
        if first == id {
            first = rest.isEmpty ? nil : rest.removeFirst()
        } else if let index = rest.firstIndex(of: id) {
            rest.remove(at: index)
        }
    }
}
