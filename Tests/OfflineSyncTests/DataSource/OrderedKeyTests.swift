import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Index entries compare their encoded bytes instead of the values: the byte order must be the total sort order
/// of the local query rules, value for value, for every kind and at the edges of the number types.
struct OrderedKeyTests {
    static let values: [JSONValue] = [
        .null, false, true,
        .int(.min), .int(.min + 1), .double(-9.3e18), .int(-(1 << 53) - 1), .double(-9_007_199_254_740_992.0),
        .int(-1), .double(-0.5), .double(-0.0), .int(0), .double(0.0), .double(.leastNonzeroMagnitude), .double(0.5), .int(1), .double(1.0),
        .int(1 << 53), .double(9_007_199_254_740_992.0), .int((1 << 53) + 1), .double(9_007_199_254_740_994.0),
        .int(.max - 1), .int(.max), .double(9.3e18), .double(1.7e308),
        "", "\u{0}", "\u{0}\u{0}", "\u{0}a", "a", "a\u{0}", "a\u{0}b", "ab", "b", "é", "日本",
        [], [.null], [false], [0], [0, 1], [1], ["a"], [[]],
        [:], ["a": .null], ["a": 0], ["a": 0, "b": 0], ["a": 1], ["b": 0], ["\u{0}": 0],
    ]

    static func encoded(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        OrderedKey.append(value, to: &bytes)
        return bytes
    }

    static func byteOrder(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in ValueComparison.compareBytes(a, b) } }
    }

    @Test func bytesCompareAsTheValuesSort() {
        for lhs in Self.values {
            for rhs in Self.values {
                #expect(Self.byteOrder(Self.encoded(lhs), Self.encoded(rhs)) == ValueComparison.sortOrder(lhs, rhs),
                        "\(lhs) against \(rhs)")
            }
        }
    }

    @Test func concatenatedEncodingsCompareFieldByField() {
        let seconds: [JSONValue] = [.null, 0, "a", [1]]
        let pairs: [(JSONValue, JSONValue)] = Self.values.flatMap { first in seconds.map { (first, $0) } }
        for (a1, a2) in pairs.prefix(120) {
            for (b1, b2) in pairs.suffix(120) {
                let lhs = Self.encoded(a1) + Self.encoded(a2), rhs = Self.encoded(b1) + Self.encoded(b2)
                let first = ValueComparison.sortOrder(a1, b1)
                let expected = first != 0 ? first : ValueComparison.sortOrder(a2, b2)
                #expect(Self.byteOrder(lhs, rhs) == expected, "(\(a1), \(a2)) against (\(b1), \(b2))")
            }
        }
    }

    @Test func randomIntegersAndDoublesCompareExactly() {
        var random = SeededRandom(seed: 5)
        for _ in 0..<20_000 {
            let int = Int64(bitPattern: random.next()) >> Int64(random.below(64))
            let double = Double(int) + [0, 0.5, -0.5, 1, -1, 1e-3][random.below(6)]
            let lhs = JSONValue.int(int), rhs = random.below(2) == 0 ? JSONValue.double(double) : .int(int &+ Int64(random.below(3)) - 1)
            #expect(Self.byteOrder(Self.encoded(lhs), Self.encoded(rhs)) == ValueComparison.sortOrder(lhs, rhs), "\(lhs) against \(rhs)")
        }
    }

    @Test(arguments: [
        #""2026-12-31T23:55:41.465Z""#, #""""#, #""a\"b""#, #""a\\b""#, #""\u0000x""#, #""tab\tin""#, #""é""#,
        #""\u00e9""#, "\"\u{7F}\"", "true", "false", "null", "7", "-0.5", "1e3", #"[1,"a"]"#, #"{"k":1}"#,
    ])
    func encodingFromTextEqualsEncodingTheParsedValue(text: String) throws {
        let json = Array(text.utf8)
        var fromText: [UInt8] = []
        json.withUnsafeBufferPointer { OrderedKey.append(json: $0, to: &fromText) }
        #expect(fromText == Self.encoded(try JSONValue(parsing: json)))
    }

    @Test(arguments: [#""unterminated"#, #""bad \q escape""#, "tru", "", "\"\u{1}\""])
    func textThatIsNoValueEncodesAsNull(text: String) {
        var bytes: [UInt8] = []
        Array(text.utf8).withUnsafeBufferPointer { OrderedKey.append(json: $0, to: &bytes) }
        #expect(bytes == Self.encoded(.null))
    }

    @Test func theSlotSuffixReadsBack() {
        for slot: Int32 in [0, 1, 255, 256, 65_536, .max] {
            var bytes = Self.encoded("x")
            OrderedKey.append(slot: slot, to: &bytes)
            #expect(bytes.withUnsafeBytes { OrderedKey.slot(endingAt: $0) } == slot)
        }
    }
}
