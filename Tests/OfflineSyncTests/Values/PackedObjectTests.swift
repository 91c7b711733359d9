import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// An object packed, from its value or from its text, decodes to what the JSON reader reads from its text, and
/// its JSON text written back reads the same.
struct PackedObjectTests {
    static let shape = JSONObjectShape(keys: ["id", "text", "complete", "priority", "updatedAt", "version"])

    static let texts = [
        #"{"id":"BDD73226-2FEB-4E95-A8EF-E333B266F103","text":"Task 000000: fix the login bug","complete":false,"priority":0,"updatedAt":"2026-11-29T09:29:49.062Z","version":"37e9671c"}"#,
        #"{"version":"851f9773","complete":true,"updatedAt":"2026-05-05T21:31:51.398Z","priority":6,"id":"ccf635ee-9e9e-4fa4-9705-b8770b3d7dd5","text":"x"}"#,
        #"{"id":"a\"b","text":"\u00e9\n","complete":null,"priority":1.5e3,"updatedAt":"2026-05-05T21:31:51Z","version":[1,{"a":2}]}"#,
        #"{"id":"Mixed-Case","text":"","complete":true,"priority":-0,"updatedAt":"2026-05-05T21:31:51.398+01:00","version":"ABC"}"#,
        #"{"id":"few","text":"keys"}"#,
        #"{"id":"a","text":"b","complete":true,"priority":1,"updatedAt":"u","version":"v","extra":1}"#,
        #"{"id":"a","text":"b","complete":true,"priority":1,"updatedAt":"u","other":"v"}"#,
        #"{"id":"a","id":"b","complete":true,"priority":1,"updatedAt":"u","version":"v"}"#,
        #"{ "id" : "spaced", "text":"t","complete":false,"priority":2,"updatedAt":"2026-01-01T00:00:00.000Z","version":"00" }"#,
        #"{}"#,
    ]

    static func read(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }

    static func check(_ packed: [UInt8], against text: String, shape: JSONObjectShape?) throws {
        let expected = try Self.read(text)
        #expect(packed.withUnsafeBytes { PackedObject.decode($0, shape: shape) }.map(JSONValue.object) == expected, "\(text)")
        // Written with room to spare, so that a bound too small fails here rather than overrunning.
        let bound = packed.withUnsafeBytes { PackedObject.jsonLengthBound($0, shape: shape) }
        var output = [UInt8](repeating: 0, count: bound + 256)
        let written = try #require(packed.withUnsafeBytes { raw in
            output.withUnsafeMutableBufferPointer { PackedObject.writeJSON(raw, shape: shape, to: $0) }
        })
        #expect(written <= bound, "\(text)")
        let json = Array(output[..<written])
        #expect(try JSONValue(parsing: json) == expected, "\(text)")
        guard case .object(let object) = expected else { return }
        let fields = ["priority", "id", "missing", "version"]
        #expect(packed.withUnsafeBytes { PackedObject.values(of: fields, in: $0, shape: shape) } == fields.map { object[$0] ?? .null }, "\(text)")
        for field in fields {
            #expect(packed.withUnsafeBytes { PackedObject.value(of: field, in: $0, shape: shape) } == object[field] ?? .null, "\(text)")
        }
    }

    @Test func packedFromTextDecodesAsTheReaderReadsTheText() throws {
        for shape in [Self.shape, nil] {
            for text in Self.texts {
                var packed: [UInt8] = []
                let accepted = Array(text.utf8).withUnsafeBufferPointer { PackedObject.append(json: $0, shape: shape, to: &packed) }
                #expect(accepted, "\(text)")
                try Self.check(packed, against: text, shape: shape)
            }
        }
    }

    @Test func packedFromValuesDecodesAsTheReaderReadsTheirText() throws {
        for shape in [Self.shape, nil] {
            for text in Self.texts {
                guard case .object(let object) = try Self.read(text) else { continue }
                var packed: [UInt8] = []
                PackedObject.append(object, shape: shape, to: &packed)
                try Self.check(packed, against: JSONValue.object(object).jsonString(), shape: shape)
            }
        }
    }

    @Test func packingFromValuesDoesNotDependOnTheOrderTheDictionaryListsThem() throws {
        let shape = try #require(JSONObjectShape(keys: (0..<12).map { "key\($0)" }))
        var first: [UInt8]?
        for round in 0..<20 {
            // Dictionaries built in other orders and sizes list their keys in other orders.
            var object = JSONObject(minimumCapacity: 12 + round * 5)
            for position in (0..<12).shuffled() { object["key\(position)"] = .string(String(repeating: "v", count: position)) }
            var packed: [UInt8] = []
            PackedObject.append(object, shape: shape, to: &packed)
            #expect(packed.first == PackedObject.shaped)
            #expect(packed.withUnsafeBytes { PackedObject.decode($0, shape: shape) } == object)
            if let first { #expect(packed == first, "round \(round)") } else { first = packed }
        }
        // A key outside the shape, with as many keys: kept as text, with nothing of the attempt left.
        var other: JSONObject = [:]
        for position in 0..<11 { other["key\(position)"] = .int(Int64(position)) }
        other["other"] = true
        var packed: [UInt8] = [9]
        PackedObject.append(other, shape: shape, to: &packed)
        #expect(packed[0] == 9 && packed[1] == PackedObject.text)
        #expect(packed[1...].withUnsafeBytes { PackedObject.decode($0, shape: shape) } == other)
    }

    @Test func onlyObjectsOfTheShapeArePackedWithoutKeys() throws {
        func tag(_ text: String) -> UInt8? {
            var packed: [UInt8] = []
            _ = Array(text.utf8).withUnsafeBufferPointer { PackedObject.append(json: $0, shape: Self.shape, to: &packed) }
            return packed.first
        }
        #expect(tag(Self.texts[0]) == PackedObject.shaped)
        #expect(tag(Self.texts[1]) == PackedObject.shaped)
        for text in Self.texts[4...7] { #expect(tag(text) == PackedObject.text, "\(text)") }
        var packed: [UInt8] = []
        _ = Array(Self.texts[0].utf8).withUnsafeBufferPointer { PackedObject.append(json: $0, shape: Self.shape, to: &packed) }
        #expect(packed.count == 68)
    }

    @Test func textThatIsNotOneObjectIsRefused() {
        for text in [#"[1]"#, #"{"a":}"#, #"{"a":1} x"#, #""s""#, ""] {
            var packed: [UInt8] = []
            let accepted = Array(text.utf8).withUnsafeBufferPointer { PackedObject.append(json: $0, shape: Self.shape, to: &packed) }
            #expect(!accepted && packed.isEmpty, "\(text)")
        }
    }
}
