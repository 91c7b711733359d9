import OfflineSyncCore
import OfflineSyncStore
/// The argument rules of a pull (its query, query id, paging and page size), checked before any store read or request.
enum PullArguments {
    /// Throws the first broken rule, in the order they are listed here.
    static func validate(table: String, query: Query, queryId: String?, settings: PullSettings) throws(SyncError) {
        guard query.table == table else {
            throw SyncError.queryTableMismatch(table: table, queryTable: query.table)
        }
        if query.select != nil {
            throw SyncError.invalidPullArguments(table: table, reason: "select is not supported: a pull stores whole items; remove select")
        }
        if query.includeTotalCount {
            throw SyncError.invalidPullArguments(table: table, reason: "includeTotalCount is not supported; use PullSettings.requestsTotalCount for progress")
        }
        if let queryId {
            let count = queryId.count
            if count == 0 || count > 255
                || queryId.unicodeScalars.contains(where: { (0...0x1F).contains($0.value) || (0x7F...0x9F).contains($0.value) }) {
                throw SyncError.invalidQueryId(queryId)
            }
            if !query.orderBy.isEmpty {
                throw SyncError.invalidPullArguments(table: table, reason: "orderBy is not supported with a query id: an incremental pull orders by updatedAt")
            }
            if query.skip != nil || query.top != nil {
                throw SyncError.invalidPullArguments(table: table, reason: "skip and top are not supported with a query id: an incremental pull pages by itself")
            }
        }
        guard settings.pageSize >= 1 else { throw SyncError.invalidPageSize(settings.pageSize) }
        if settings.lookBack < .zero {
            throw SyncError.invalidPullArguments(table: table, reason: "lookBack \(settings.lookBack) is negative; use zero or more")
        }
        do {
            try query.validate(requireIdentifiers: true)
        } catch {
            throw SyncError.invalidPullArguments(table: table, reason: error.description)
        }
    }
}
