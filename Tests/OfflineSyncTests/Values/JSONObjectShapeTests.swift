import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Objects built from a learned shape (a prototype copied, values replaced) equal objects built key by key.
struct JSONObjectShapeTests {
    static func parse(_ text: String) throws -> JSONValue {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { try JSONReader.parse($0) }
    }

    /// Documents read one after another with the shape carried over, as the snapshot reader does.
    static func parseCarryingShape(_ texts: [String]) throws -> [JSONValue] {
        var shape: JSONObjectShape?
        return try texts.map { text in
            let bytes = Array(text.utf8)
            return try bytes.withUnsafeBufferPointer { try JSONReader.result($0, shape: &shape).get() }
        }
    }

    static let documents = [
        #"{"id":"a","n":1,"done":false}"#,
        #"{"n":2,"done":true,"id":"b"}"#,                    // same keys, another order
        #"{"id":"c","n":3,"done":null}"#,
        #"{"id":"d","n":4}"#,                                // fewer keys
        #"{"id":"e","n":5,"done":true,"extra":[1,{"x":1}]}"#, // more keys, nested
        #"{"id":"f","n":6,"other":true}"#,                   // same count, another key
        #"{"id":"g","id":"h","n":7}"#,                        // a repeated key: the last one wins
        #"{"id":"i","n":8,"n":9}"#,
        #"{"id":"j","n":10,"done":false}"#,
        #"[{"a":1,"b":2},{"b":3,"a":4},{"a":5,"c":6},{"a":7,"b":8,"b":9},{"b":10,"a":11}]"#,
    ]

    @Test func carriedShapesGiveTheSameValuesAsBuildingKeyByKey() throws {
        let carried = try Self.parseCarryingShape(Self.documents)
        for (text, value) in zip(Self.documents, carried) {
            #expect(value == (try Self.parse(text)), "\(text)")
        }
        #expect(carried[6] == ["id": "h", "n": 7])
        #expect(carried[7] == ["id": "i", "n": 9])
    }

    @Test func arraysOfObjectsWithOneShapeEqualTheirKeyByKeyForm() throws {
        let items = (0..<50).map { n in n % 2 == 0 ? #"{"id":"\#(n)","v":\#(n),"t":"x"}"# : #"{"t":"y","v":\#(n),"id":"\#(n)"}"# }
        let parsed = try Self.parse("[" + items.joined(separator: ",") + "]")
        guard case .array(let values) = parsed else {
            Issue.record("not an array")
            return
        }
        #expect(values.count == 50)
        for (n, value) in values.enumerated() {
            #expect(value == ["id": .string("\(n)"), "v": .int(Int64(n)), "t": n % 2 == 0 ? "x" : "y"])
        }
    }

    @Test func aShapeRejectsMembersThatAreNotItsKeys() throws {
        let shape = try #require(JSONObjectShape(keys: ["a", "b"]))
        #expect(shape.instantiate([Member(key: "a", value: 1), Member(key: "a", value: 2)][...]) == nil)
        #expect(shape.instantiate([Member(key: "a", value: 1), Member(key: "c", value: 2)][...]) == nil)
        #expect(shape.instantiate([Member(key: "a", value: 1)][...]) == nil)
        #expect(shape.instantiate([Member(key: "b", value: 1), Member(key: "a", value: 2)][...]) == ["a": 2, "b": 1])
    }
}
