import OfflineSyncCore
extension ItemTable {
    /// The items of a table, decoded while iterated (a scan holds one decoded item at a time).
    struct DecodedItems: Sequence {
        let table: ItemTable

        func makeIterator() -> Iterator { Iterator(table: table) }

        struct Iterator: IteratorProtocol {
            let table: ItemTable
            var position = 0
            var shape: JSONObjectShape?

            init(table: ItemTable) { self.table = table }

            mutating func next() -> JSONObject? {
                while position < table.slotCount {
                    let slot = Int32(position)
                    position += 1
                    if let item = table.decode(slot, shape: &shape) { return item }
                }
                return nil
            }
        }
    }
}
