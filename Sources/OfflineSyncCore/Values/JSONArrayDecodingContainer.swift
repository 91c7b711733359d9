/// The unkeyed container of ``JSONValueDecoder`` over an array of the tree. An element that fails to decode is not
/// consumed, as with `JSONDecoder`.
struct JSONArrayDecodingContainer: UnkeyedDecodingContainer {
    let decoder: JSONNodeDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: JSONNodeDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The key of the current element.
    private var currentKey: JSONCodingKey { JSONCodingKey(index: currentIndex) }

    private var currentPath: [any CodingKey] { decoder.codingPath(appending: currentKey) }

    /// The current element, not consumed; `valueNotFound` at the end.
    private func current(_ type: Any.Type) throws(DecodingError) -> JSONValue {
        guard currentIndex < elements.count else {
            throw .valueNotFound(type, .init(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex]
    }

    /// `decoded`, after which the current element is consumed.
    private mutating func consumed<Value>(_ decoded: Value) -> Value {
        currentIndex += 1
        return decoded
    }

    mutating func decodeNil() throws -> Bool {
        guard try current(Any?.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        consumed(try JSONScalarDecoding.bool(current(type), at: currentPath))
    }

    mutating func decode(_ type: String.Type) throws -> String {
        consumed(try JSONScalarDecoding.string(current(type), at: currentPath))
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        consumed(try JSONScalarDecoding.double(current(type), at: currentPath))
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        consumed(try JSONScalarDecoding.float(current(type), at: currentPath))
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        consumed(try decoder.decodeChild(Value.self, from: current(type), at: currentKey))
    }

    private mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws(DecodingError) -> Integer {
        consumed(try JSONScalarDecoding.integer(Integer.self, current(type), at: currentPath))
    }

    // MARK: Nested containers

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        consumed(try currentDecoder([String: Any].self).container(keyedBy: NestedKey.self))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        consumed(try currentDecoder([Any].self).unkeyedContainer())
    }

    mutating func superDecoder() throws -> any Decoder {
        consumed(try currentDecoder((any Decoder).self))
    }

    private func currentDecoder(_ type: Any.Type) throws(DecodingError) -> JSONNodeDecoder {
        JSONNodeDecoder(value: try current(type), parent: decoder, key: currentKey)
    }
}
