/// Sort values that are all strings or null (timestamps, ids, names: the common orderings), laid out so that a sort
/// compares them without touching a `String`: every string's UTF-8 bytes in one buffer, and per value its start
/// and length (a length of -1 for null). Comparing two values is then a `memcmp`, with no reference counting, in
/// the same order as ``ValueComparison/sortOrder(_:_:)`` (null first, strings by Unicode scalars).
struct TextSortColumns {
    private var bytes: [UInt8] = []
    /// Start and length of each value, two entries per value, values in row-major order.
    private var spans: [Int] = []
    /// Items, and columns per item.
    private let count: Int, width: Int

    /// The columns of `keys` over `items`; nil when a value is neither a string, null nor missing.
    init?(_ items: [JSONObject], keys: [SortKey]) {
        count = items.count
        width = keys.count
        spans.reserveCapacity(items.count * keys.count * 2)
        for item in items {
            for key in keys {
                switch item[key.field] {
                case nil, .null?:
                    spans.append(0)
                    spans.append(-1)
                case .string(let text)?:
                    spans.append(bytes.count)
                    spans.append(text.utf8.count)
                    bytes.append(contentsOf: text.utf8)
                default:
                    return nil
                }
            }
        }
    }

    /// The items' positions sorted stably by the columns, each ascending or not as `ascending` says.
    func order(ascending: [Bool]) -> [Int] {
        bytes.withUnsafeBytes { bytes in
            spans.withUnsafeBufferPointer { spans in
                Query.stableOrder(count: count, ascending: ascending) { column, lhs, rhs in
                    let a = (lhs * width + column) * 2, b = (rhs * width + column) * 2
                    let (start, length, otherStart, otherLength) = (spans[a], spans[a + 1], spans[b], spans[b + 1])
                    if length < 0 || otherLength < 0 { return length < 0 ? (otherLength < 0 ? 0 : -1) : 1 }
                    return ValueComparison.compareBytes(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]),
                                                        UnsafeRawBufferPointer(rebasing: bytes[otherStart..<(otherStart + otherLength)]))
                }
            }
        }
    }
}
