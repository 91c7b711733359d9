import OfflineSyncCore
import OfflineSyncStore

extension SyncContext {
    /// The queued operations outside `tables` that a push of `tables` must send too, from `queued` (the queue, in
    /// order), as a whole push's ``PushSchedule`` would send them first (references as ``TableRelation`` says):
    /// - for an insert or update, the operations of the items it refers to that have a queued insert (without them the
    ///   referring item would reach the server before the item it refers to);
    /// - for a delete, the operations that may still refer to its item on the server: those of a table declared to
    ///   refer to its table, and those whose content (a delete: its snapshot) refers to it;
    /// - and so on for each operation found, transitively. Every operation of an item found is included (an item's
    ///   operations go in queue order).
    ///
    /// Starts from `start` (operations of `tables`, those queued during the push) when given, else from every
    /// operation of `tables`. Reads the local item of each insert or update looked at: those of `tables` when another
    /// table has a queued insert, and every other table's when `tables` have a queued delete. Empty when nothing else
    /// is queued.
    func dependencies(of queued: [TableOperation], tables: Set<String>,
                      startingFrom start: [TableOperation]? = nil) async throws -> Set<Int64> {
        let outside = queued.filter { !tables.contains($0.table) }
        guard !outside.isEmpty else { return [] }
        let insertedOutside = Set(outside.filter { $0.kind == .insert }.map { ItemKey(table: $0.table, itemId: $0.itemId) })
        let inScope = start ?? queued.filter { tables.contains($0.table) }
        guard !insertedOutside.isEmpty || inScope.contains(where: { $0.kind == .delete }) else { return [] }
        // A schedule of the whole queue names, among the references of a content, the queued items.
        var lookup = PushSchedule(relations: relations)
        lookup.add(queued)
        let outsideByItem = Dictionary(grouping: outside) { ItemKey(table: $0.table, itemId: $0.itemId) }
        // The outside operations by the items their content refers to: read when the first delete needs them.
        var outsideReferrers: [ItemKey: [ItemKey]]?
        var found = Set<Int64>()
        var unread = inScope
        func include(_ item: ItemKey) {
            for operation in outsideByItem[item] ?? [] where found.insert(operation.id).inserted { unread.append(operation) }
        }
        while let operation = unread.popLast() {
            let key = ItemKey(table: operation.table, itemId: operation.itemId)
            if operation.kind == .delete {
                let referringTables = Set(relations.filter { $0.referencedTable == operation.table }.map(\.table))
                for other in outside where referringTables.contains(other.table) {
                    include(ItemKey(table: other.table, itemId: other.itemId))
                }
                if outsideReferrers == nil {
                    var referrers: [ItemKey: [ItemKey]] = [:]
                    for other in outside {
                        let content = other.kind == .delete ? other.item : try await dataSource.read(table: other.table, id: other.itemId)
                        for reference in lookup.references(of: content, table: other.table, relations: relations).all {
                            referrers[reference, default: []].append(ItemKey(table: other.table, itemId: other.itemId))
                        }
                    }
                    outsideReferrers = referrers
                }
                for referrer in outsideReferrers?[key] ?? [] { include(referrer) }
            } else if !insertedOutside.isEmpty {
                let content = try await dataSource.read(table: operation.table, id: operation.itemId)
                for reference in lookup.references(of: content, table: operation.table, relations: relations).all
                where insertedOutside.contains(reference) && reference != key {
                    include(reference)
                }
            }
        }
        return found
    }
}
