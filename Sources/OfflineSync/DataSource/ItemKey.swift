/// The identity of an item id for lookups: the id lower-cased, compared and hashed by its UTF-8 bytes.
///
/// Ids match case-insensitively (API.md), but nothing else is folded: ids that differ only in Unicode
/// normalization (`é` and `e` + U+0301) stay two items, as on a server with a binary collation. Swift's own `String`
/// equality would merge them, so stores key items by `ItemKey`, never by the lower-cased `String`.
public struct ItemKey: Hashable, Sendable, CustomStringConvertible {
    /// The lower-cased id.
    public let text: String

    /// The key of `id`. An id that is already lower-case ASCII is its own key (no copy is made).
    public init(id: String) {
        if id.utf8.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) {
            text = id
        } else {
            text = id.lowercased()
        }
    }

    /// A key whose lower-cased text was stored earlier (as `__operations` rows keep it).
    public init(lowercased text: String) {
        self.text = text
    }

    /// Byte-wise equality of the lower-cased ids.
    public static func == (lhs: ItemKey, rhs: ItemKey) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    /// Hashes the lower-cased id's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The lower-cased id.
    public var description: String { text }
}
