import Foundation
@testable import OfflineSyncCore

/// Models of the shapes apps give the typed API, for the tree coders' tests.
enum CodingSamples {
    struct Scalars: Codable, Equatable {
        var string = "text ü 🙂 \"quoted\""
        var bool = true
        var int = Int.min
        var int8 = Int8.max
        var int16 = Int16.min
        var int32 = Int32.max
        var int64 = Int64.max
        var uint = UInt(Int64.max)
        var uint8 = UInt8.max
        var uint16 = UInt16.max
        var uint32 = UInt32.max
        var uint64 = UInt64(Int64.max)
        var double = 2.5
        var float: Float = 0.1
    }

    struct Numbers: Codable, Equatable {
        var double: Double
        var float: Float
        var decimal: Decimal
    }

    static let doubles: [Double] = [0, -0.0, 0.1, 1, -1, 2.5, 1e15, 999_999_999_999_999, 1e16, 1.5e300, .leastNonzeroMagnitude, 0.000123,
                                    123_456_789_012_345_680, -9_007_199_254_740_994, 9_007_199_254_740_992, 1e-5, -7e22]
    static let floats: [Float] = [0, -0.0, 0.1, 1, 3.4e38, 16_777_216, 1e10, .leastNormalMagnitude, .leastNonzeroMagnitude, 0.3333333, 7e7, 123.456]
    static let decimals: [Decimal] = ["3.14", "5", "-0.000001", "123456789012345678", "1e10", "0.1", "0"].compactMap { Decimal(string: $0) }

    struct Optionals: Codable, Equatable {
        var set: String? = "here"
        var unset: String?
        var number: Int? = 0
        var noNumber: Int?
        var flag: Bool? = false
        var ratio: Double? = 1.5
        var count: Int64? = 7
        var date: Date? = Date(timeIntervalSince1970: 1_767_225_600.5)
        var noDate: Date?
        var inner: Inner? = Inner(name: "i", values: [])
        var noInner: Inner?
        var list: [Int?]? = [1, nil, 3]
    }

    struct Inner: Codable, Equatable {
        var name: String
        var values: [Double]
    }

    enum Status: String, Codable { case open, done }
    enum Priority: Int, Codable { case low = 1, high = 9 }
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case square(Double)
        case empty
    }

    struct Nested: Codable, Equatable {
        var id = "A1"
        var inner = Inner(name: "first", values: [1, 1.5, -2])
        var inners = [Inner(name: "a", values: []), Inner(name: "b", values: [0.25])]
        var byName = ["x": Inner(name: "x", values: [3])]
        var byNumber = [1: "one", 20: "twenty"]
        var byStatus = [Status.open: 1]
        var matrix = [[1, 2], [], [3]]
        var status = Status.done
        var statuses = [Status.open, .done]
        var priority = Priority.high
        var shapes = [Shape.circle(radius: 2), .square(1.5), .empty]
        var empty = NothingEncoded()
    }

    /// Encodes nothing at all: `JSONEncoder` writes an empty object for it below another value.
    struct NothingEncoded: Codable, Equatable {
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    struct Foundations: Codable, Equatable {
        var whole = Date(timeIntervalSince1970: 1_767_225_600)
        var milliseconds = Date(timeIntervalSince1970: 1_767_225_600.123)
        var beforeEpoch = Date(timeIntervalSince1970: -1.5)
        var data = Data([0, 1, 2, 250, 255])
        var emptyData = Data()
        var url = URL(string: "https://example.com/a/b?c=d#e")
        var relative = URL(string: "x/y", relativeTo: URL(string: "https://example.com/base/"))
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        var decimal = Decimal(string: "12.5")
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86_400.001)]
        var datesByName = ["due": Date(timeIntervalSince1970: 1_000_000)]
    }

    struct Renamed: Codable, Equatable {
        var id = "r"
        var title = "t"
        var dueAt: Date? = Date(timeIntervalSince1970: 60)

        enum CodingKeys: String, CodingKey {
            case id = "ID", title = "the_title", dueAt = "due_at"
        }
    }

    /// A single-value type, as a wrapper over a scalar codes itself.
    struct Celsius: Codable, Equatable {
        var degrees: Double

        init(degrees: Double) {
            self.degrees = degrees
        }

        init(from decoder: any Decoder) throws {
            degrees = try decoder.singleValueContainer().decode(Double.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(degrees)
        }
    }

    /// Custom coding through nested keyed and unkeyed containers and a super-encoder.
    struct Custom: Codable, Equatable {
        var name = "c"
        var x = 3
        var y = -4
        var flags = [true, false]
        var base = "from super"
        var temperatures = [Celsius(degrees: 21.5), Celsius(degrees: 20)]

        enum Keys: String, CodingKey { case name, position, flags, temperatures }
        enum PositionKeys: String, CodingKey { case x, y }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            name = try container.decode(String.self, forKey: .name)
            let position = try container.nestedContainer(keyedBy: PositionKeys.self, forKey: .position)
            x = try position.decode(Int.self, forKey: .x)
            y = try position.decode(Int.self, forKey: .y)
            var flagList = try container.nestedUnkeyedContainer(forKey: .flags)
            flags = []
            while !flagList.isAtEnd { flags.append(try flagList.decode(Bool.self)) }
            base = try container.superDecoder().singleValueContainer().decode(String.self)
            temperatures = try container.decode([Celsius].self, forKey: .temperatures)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            var position = container.nestedContainer(keyedBy: PositionKeys.self, forKey: .position)
            try position.encode(x, forKey: .x)
            try position.encode(y, forKey: .y)
            var flagList = container.nestedUnkeyedContainer(forKey: .flags)
            for flag in flags { try flagList.encode(flag) }
            var superContainer = container.superEncoder().singleValueContainer()
            try superContainer.encode(base)
            try container.encode(temperatures, forKey: .temperatures)
        }
    }

    /// An array coded by hand, with nested containers and a super-encoder at positions of it.
    struct Row: Codable, Equatable {
        var cells = ["a", "b"]
        var note = "n"
        var point = [1, 2]

        enum NoteKeys: String, CodingKey { case note }

        init() {}

        init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            cells = [try row.decode(String.self)]
            cells.append(try row.superDecoder().singleValueContainer().decode(String.self))
            note = try row.nestedContainer(keyedBy: NoteKeys.self).decode(String.self, forKey: .note)
            var point = try row.nestedUnkeyedContainer()
            self.point = [try point.decode(Int.self), try point.decode(Int.self)]
            _ = try row.decodeNil()
        }

        func encode(to encoder: any Encoder) throws {
            var row = encoder.unkeyedContainer()
            try row.encode(cells[0])
            let superEncoder = row.superEncoder()
            var noteContainer = row.nestedContainer(keyedBy: NoteKeys.self)
            try noteContainer.encode(note, forKey: .note)
            var point = row.nestedUnkeyedContainer()
            for coordinate in self.point { try point.encode(coordinate) }
            try row.encodeNil()
            var superContainer = superEncoder.singleValueContainer()
            try superContainer.encode(cells[1])
        }
    }

    /// A class hierarchy that codes its base class through `superEncoder()`.
    class Base: Codable {
        var created: Date

        init(created: Date) {
            self.created = created
        }
    }

    final class Derived: Base, Equatable {
        var title: String

        enum Keys: String, CodingKey { case title }

        init(title: String, created: Date) {
            self.title = title
            super.init(created: created)
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            title = try container.decode(String.self, forKey: .title)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(title, forKey: .title)
            try super.encode(to: container.superEncoder())
        }

        static func == (left: Derived, right: Derived) -> Bool {
            left.title == right.title && left.created == right.created
        }
    }

    /// Scalars as elements of arrays and dictionaries, which reach the coders through the generic `encode`/`decode`.
    struct Collections: Codable, Equatable {
        var tags = ["a", "", "ü"]
        var flags = [true, false]
        var counts: [Int64] = [.min, 0, .max]
        var ints = [-1, 0, 1]
        var ratios = ["half": 0.5, "whole": 2.0, "big": 1e16]
        var notes: [String: String?] = ["set": "x", "unset": nil]
        var emptyTags: [String] = []
    }

    struct Trees: Codable, Equatable {
        var extra: JSONValue = ["whole": .double(2), "half": .double(2.5), "big": .double(1e16), "list": [.double(-0.0), 1, "s", .null]]
        var plain: JSONValue = ["a": 1, "b": [true, "x"]]
        var list: [JSONValue] = [.double(3), .int(4), .object([:])]
    }
}
