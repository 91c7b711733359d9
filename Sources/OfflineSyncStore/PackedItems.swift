import OfflineSyncCore
/// The items of a batch's upserts that were packed as the batch was written (``StorableItemWriter/writePacked(_:table:shape:into:packing:)``),
/// in the batch's order of upserted items: each item's bytes in `bytes` and the shape it was packed with, or nil for
/// an item left to be packed when it is applied. The tables keep those bytes as they are
/// (``TableSet/apply(_:packed:recording:entriesAside:)``) when their shape is still that one.
package struct PackedItems: Sendable {
    var bytes: [UInt8] = []
    var items: [(range: Range<Int>, shape: JSONObjectShape)?] = []

    /// No item packed.
    package init() {}

    /// Appends `other`'s items after these, in order.
    package mutating func append(_ other: PackedItems) {
        let offset = bytes.count
        bytes.append(contentsOf: other.bytes)
        items.append(contentsOf: other.items.lazy.map { $0.map { (($0.range.lowerBound + offset)..<($0.range.upperBound + offset), $0.shape) } })
    }

    /// Calls `body` with the packed bytes of the item at `ordinal` among the batch's upserted items when it was packed
    /// with `shape`, nil otherwise.
    func withItem<T>(at ordinal: Int, shape: JSONObjectShape?, _ body: (UnsafeRawBufferPointer?) -> T) -> T {
        guard ordinal < items.count, let (range, packedShape) = items[ordinal], let shape, packedShape === shape else { return body(nil) }
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
