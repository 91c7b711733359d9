import OfflineSyncCore
/// The JSON text of one stored item, to be written into the caller's buffer straight from the item's packed form
/// (``PackedObject``), with no copy of it built on the way: how a snapshot is written. Refers to the table's
/// bytes, so it is valid only inside the call that hands it out (``TableSet/forEachItemText(table:_:)``).
package struct ItemText {
    /// The item's packed form, with the shape it was packed with.
    let packed: UnsafeRawBufferPointer
    let shape: JSONObjectShape?

    /// How many bytes the text can take at most: the room ``write(to:)`` needs.
    package var lengthBound: Int { PackedObject.jsonLengthBound(packed, shape: shape) }

    /// Writes the text at the start of `output`, which has room for ``lengthBound``; returns its length, or nil
    /// when the item's bytes are not a packed object.
    package func write(to output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        PackedObject.writeJSON(packed, shape: shape, to: output)
    }
}
