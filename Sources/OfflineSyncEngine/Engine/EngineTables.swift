import OfflineSyncCore
import OfflineSyncStore
/// The names of the sync engine's own tables in every data source.
enum EngineTables {
    /// Pending operations, one row per operation (see ``OperationStore``).
    static let operations = "__operations"
    /// Operation errors of the last push, one row per failed operation.
    static let errors = "__errors"
    /// Delta tokens and the operation id counter.
    static let config = "__config"
    /// The files of an ``AttachmentQueue``, one row per attachment (see ``AttachmentRecord``).
    static let attachments = "__attachments"

    /// The row id of operation `id`: zero-padded so that row ids sort like operation ids.
    static func rowID(forOperation id: Int64) -> String {
        guard id >= 0 else {
            let digits = String(id)
            return String(repeating: "0", count: max(0, 19 - digits.count)) + digits
        }
        // Written in place: one allocation, where padding and joining strings took three (once per pushed operation).
        return String(unsafeUninitializedCapacity: 19) { buffer in
            var rest = id
            for index in stride(from: 18, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            return 19
        }
    }
}
