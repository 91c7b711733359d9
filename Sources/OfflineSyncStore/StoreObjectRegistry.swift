import OfflineSyncCore
import Dispatch

/// A value kept per store object for as long as the object lives: what the default
/// ``SyncContextDataSource/transaction(isolation:_:)`` and the contexts that share a store keep about it. A store that
/// is a value type has no identity to key by, so it gets none.
package final class StoreObjectRegistry<Value: AnyObject & Sendable>: @unchecked Sendable {
    private struct Entry {
        weak var store: AnyObject?
        let value: Value
    }

    private let queue = DispatchQueue(label: "OfflineSync.StoreObjectRegistry")
    /// Guarded by `queue`.
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// A registry that keeps nothing yet.
    package init() {}

    /// The value kept for `store`, made by `make` the first time; nil when `store` is a value type.
    package func value(for store: any SyncContextDataSource, make: () -> Value) -> Value? {
        guard type(of: store) is AnyObject.Type else { return nil }
        let object = store as AnyObject
        return queue.sync {
            let key = ObjectIdentifier(object)
            if let entry = entries[key], entry.store === object { return entry.value }
            entries = entries.filter { $0.value.store != nil }
            let value = make()
            entries[key] = Entry(store: object, value: value)
            return value
        }
    }
}
