/// The gates the default ``SyncContextDataSource/transaction(isolation:_:)`` runs a store's transactions through:
/// one per store object, for as long as the object lives, and one shared by every store that is a value type
/// (which has no identity to tell two copies apart).
actor TransactionGates {
    /// The gates of this process.
    static let shared = TransactionGates()

    private struct Entry {
        weak var store: AnyObject?
        let gate: SerialGate
    }

    private var gates: [ObjectIdentifier: Entry] = [:]
    private let valueStoreGate = SerialGate()

    /// The gate of `store`.
    func gate(for store: any SyncContextDataSource) -> SerialGate {
        guard type(of: store) is AnyObject.Type else { return valueStoreGate }
        let object = store as AnyObject
        let key = ObjectIdentifier(object)
        if let entry = gates[key], entry.store === object { return entry.gate }
        gates = gates.filter { $0.value.store != nil }
        let gate = SerialGate()
        gates[key] = Entry(store: object, gate: gate)
        return gate
    }
}
