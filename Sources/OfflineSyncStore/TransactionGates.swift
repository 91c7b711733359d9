import OfflineSyncCore
/// The gates the default ``SyncContextDataSource/transaction(isolation:_:)`` runs a store's transactions through:
/// one per store object, for as long as the object lives, and one shared by every store that is a value type
/// (which has no identity to tell two copies apart).
enum TransactionGates {
    private static let gates = StoreObjectRegistry<SerialGate>()
    private static let valueStoreGate = SerialGate()

    /// The gate of `store`.
    static func gate(for store: any SyncContextDataSource) -> SerialGate {
        gates.value(for: store) { SerialGate() } ?? valueStoreGate
    }
}
