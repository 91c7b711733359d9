/// A field of an item, named in a ``Filter`` or a ``SortKey``.
///
/// ```swift
/// let open = Field("complete") == false && Field("priority") >= 3
/// ```
public struct Field: Sendable, Hashable {
    /// The field's name, exactly as the item spells it.
    public var name: String

    /// Names a field.
    public init(_ name: String) {
        self.name = name
    }

    /// Whether the name is a valid OData identifier: a letter or `_`, then letters, digits or `_`,
    /// at most 128 characters. Only such names are ever written into filter text sent to a server.
    public var isValidIdentifier: Bool {
        Field.isValidIdentifier(name)
    }

    package static func isValidIdentifier(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard let first = utf8.first, utf8.count <= 128 else { return false }
        func isLetter(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
        guard isLetter(first) else { return false }
        return utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}

/// The comparison operators of a ``Filter``.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `==`, OData `eq`.
    case equal = "eq"
    /// `!=`, OData `ne`.
    case notEqual = "ne"
    /// `<`, OData `lt`.
    case lessThan = "lt"
    /// `<=`, OData `le`.
    case lessThanOrEqual = "le"
    /// `>`, OData `gt`.
    case greaterThan = "gt"
    /// `>=`, OData `ge`.
    case greaterThanOrEqual = "ge"
}

/// The string tests of a ``Filter``.
public enum StringMatch: String, Sendable, Hashable, CaseIterable {
    /// The field contains the text (OData v3 `substringof`, v4 `contains`).
    case contains
    /// The field starts with the text (`startswith`).
    case hasPrefix
    /// The field ends with the text (`endswith`).
    case hasSuffix
}
