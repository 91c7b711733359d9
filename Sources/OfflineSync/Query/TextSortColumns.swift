/// Sort values that are all strings or null (timestamps, ids, names: the common orderings), laid out so that a sort
/// compares them without touching a `String`: every string's UTF-8 bytes in one buffer, and per value its start
/// and length (a length of -1 for null). Comparing two values is then a `memcmp`, with no reference counting, in
/// the same order as ``ValueComparison/sortOrder(_:_:)`` (null first, strings by Unicode scalars).
struct TextSortColumns {
    private var bytes: [UInt8] = []
    /// Start and length of each value, two entries per value, values in row-major order.
    private var spans: [Int] = []

    /// The layout of `values` (each item's sort values in turn); nil when a value is neither a string nor null.
    init?(_ values: [JSONValue]) {
        spans.reserveCapacity(values.count * 2)
        for value in values {
            switch value {
            case .null:
                spans.append(0)
                spans.append(-1)
            case .string(let text):
                spans.append(bytes.count)
                spans.append(text.utf8.count)
                bytes.append(contentsOf: text.utf8)
            default:
                return nil
            }
        }
    }

    /// The positions `0..<count` sorted stably by the columns, each ascending or not as `ascending` says.
    func order(count: Int, ascending: [Bool]) -> [Int] {
        let width = ascending.count
        return bytes.withUnsafeBufferPointer { bytes in
            spans.withUnsafeBufferPointer { spans in
                (0..<count).sorted { lhs, rhs in
                    for column in 0..<width {
                        let a = (lhs * width + column) * 2, b = (rhs * width + column) * 2
                        let comparison = Self.compare(bytes, spans[a], spans[a + 1], spans[b], spans[b + 1])
                        if comparison != 0 { return ascending[column] ? comparison < 0 : comparison > 0 }
                    }
                    return lhs < rhs
                }
            }
        }
    }

    private static func compare(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int,
                                _ otherStart: Int, _ otherLength: Int) -> Int {
        if length < 0 || otherLength < 0 { return length < 0 ? (otherLength < 0 ? 0 : -1) : 1 }
        return ValueComparison.compareBytes(UnsafeBufferPointer(rebasing: bytes[start..<(start + length)]),
                                            UnsafeBufferPointer(rebasing: bytes[otherStart..<(otherStart + otherLength)]))
    }
}
