extension PackedValue {
    // Readers of one kind of value each, for decoders that know the kind they want: each returns nil, `offset`
    // unmoved, when the value packed at `offset` is of another kind (or cut short), and moves `offset` past it
    // otherwise.

    /// The flag packed at `offset` in `bytes`.
    static func bool(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Bool? {
        guard offset < bytes.count else { return nil }
        switch bytes[offset] {
        case Self.true:
            offset += 1
            return true
        case Self.false:
            offset += 1
            return false
        default:
            return nil
        }
    }

    /// The integer packed at `offset` in `bytes`.
    static func integer(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Int64? {
        guard offset < bytes.count, bytes[offset] == int else { return nil }
        var position = offset + 1
        guard let raw = readVarint(bytes, at: &position) else { return nil }
        offset = position
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// The number packed at `offset` in `bytes` as a `Double` (an integer converted, as `JSONScalarDecoding`
    /// converts it).
    static func number(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Double? {
        guard offset < bytes.count, bytes[offset] == double else { return integer(bytes, at: &offset).map(Double.init) }
        guard offset + 9 <= bytes.count else { return nil }
        let bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self))
        offset += 9
        return Double(bitPattern: bits)
    }

    /// `null`, when it is packed at `offset` in `bytes`.
    static func null(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Void? {
        guard offset < bytes.count, bytes[offset] == null else { return nil }
        offset += 1
        return ()
    }
}
