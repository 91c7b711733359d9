/// Encodes `Encodable` values straight into a ``JSONValue`` tree, with no JSON text in between: the tree is the one
/// ``JSONReader`` reads from the text `JSONEncoder` writes for the value.
///
/// Dates are written as the table protocol's ISO 8601 strings with milliseconds (``Timestamp/string(from:)``), `Data`
/// as base64, `URL` as its absolute string, numbers as ``JSONScalarEncoding`` describes. A `nil` optional property is
/// left out of its object (`encodeIfPresent`), `encodeNil` writes `null`, a value that encodes nothing below another is
/// an empty object. Errors are `EncodingError`s with the coding path of the value at fault.
package struct JSONValueEncoder: Sendable {
    package init() {}

    /// The tree `value` encodes to.
    /// - Throws: `EncodingError` for a number an item cannot hold, and when `value` encodes nothing at all.
    package func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        let encoder = JSONNodeEncoder(parent: nil, key: nil)
        if let special = try JSONNodeEncoder.directValue(value, at: []) { return special }
        try value.encode(to: encoder)
        guard let tree = encoder.finishedValue() else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        return tree
    }
}

/// The `Encoder` of ``JSONValueEncoder`` for one value of the tree, which is also its single-value container. Its
/// parent and key make the coding path, built only for an error.
final class JSONNodeEncoder: CodingPathNode, Encoder, SingleValueEncodingContainer {
    /// What has been encoded so far.
    enum Content {
        case nothing
        case value(JSONValue)
        case object(JSONObjectBuilder)
        case array(JSONArrayBuilder)
    }

    private let parent: JSONNodeEncoder?
    private let key: (any CodingKey)?
    private var content: Content

    init(parent: JSONNodeEncoder?, key: (any CodingKey)?, content: Content = .nothing) {
        self.parent = parent
        self.key = key
        self.content = content
    }

    var nodeKey: (any CodingKey)? { key }
    var parentNode: JSONNodeEncoder? { parent }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The encoded value; nil when nothing was encoded.
    func finishedValue() -> JSONValue? {
        switch content {
        case .nothing: return nil
        case .value(let value): return value
        case .object(let builder): return .object(builder.finished())
        case .array(let builder): return .array(builder.finished())
        }
    }

    /// A second request for a keyed container shares the first's object, as with `JSONEncoder`.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let builder: JSONObjectBuilder
        if case .object(let existing) = content {
            builder = existing
        } else {
            builder = JSONObjectBuilder()
            content = .object(builder)
        }
        return KeyedEncodingContainer(JSONObjectEncodingContainer(encoder: self, builder: builder))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let builder: JSONArrayBuilder
        if case .array(let existing) = content {
            builder = existing
        } else {
            builder = JSONArrayBuilder()
            content = .array(builder)
        }
        return JSONArrayEncodingContainer(encoder: self, builder: builder)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    /// The tree of `value`, which sits at `key` below this encoder (at this encoder for nil): a type written
    /// without its `encode(to:)` (``directValue(_:at:)``), or what `value.encode(to:)` makes; an empty
    /// object when it encodes nothing.
    func encodedChild<Value: Encodable>(_ value: Value, at key: (any CodingKey)?) throws -> JSONValue {
        if let special = try Self.directValue(value, at: key.map(codingPath(appending:)) ?? codingPath) {
            return special
        }
        let child = JSONNodeEncoder(parent: self, key: key)
        try value.encode(to: child)
        return child.finishedValue() ?? .object([:])
    }

    // MARK: SingleValueEncodingContainer

    func encodeNil() { content = .value(.null) }
    func encode(_ value: Bool) { content = .value(.bool(value)) }
    func encode(_ value: String) { content = .value(.string(value)) }
    func encode(_ value: Double) throws { content = .value(try JSONScalarEncoding.double(value, at: codingPath)) }
    func encode(_ value: Float) throws { content = .value(try JSONScalarEncoding.float(value, at: codingPath)) }
    func encode(_ value: Int) throws { try integer(value) }
    func encode(_ value: Int8) throws { try integer(value) }
    func encode(_ value: Int16) throws { try integer(value) }
    func encode(_ value: Int32) throws { try integer(value) }
    func encode(_ value: Int64) throws { try integer(value) }
    func encode(_ value: UInt) throws { try integer(value) }
    func encode(_ value: UInt8) throws { try integer(value) }
    func encode(_ value: UInt16) throws { try integer(value) }
    func encode(_ value: UInt32) throws { try integer(value) }
    func encode(_ value: UInt64) throws { try integer(value) }
    func encode<Value: Encodable>(_ value: Value) throws { content = .value(try encodedChild(value, at: nil)) }

    private func integer<Integer: FixedWidthInteger>(_ value: Integer) throws(EncodingError) {
        content = .value(try JSONScalarEncoding.integer(value, at: codingPath))
    }
}
