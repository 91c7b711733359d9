import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The packed form of a value gives back exactly the value, and a string exactly its bytes, whatever its shape.
struct PackedValueTests {
    static func roundTrip(_ value: JSONValue) -> (decoded: JSONValue?, json: [UInt8]?, packedCount: Int) {
        var packed: [UInt8] = []
        PackedValue.append(value, to: &packed)
        return packed.withUnsafeBytes { raw in
            var offset = 0
            let decoded = PackedValue.read(raw, at: &offset)
            guard offset == raw.count else { return (nil, nil, raw.count) }
            var skipped = 0
            guard PackedValue.skip(raw, at: &skipped) != nil, skipped == raw.count else { return (nil, nil, raw.count) }
            var rendered = 0
            var length: Int?
            let json = [UInt8](unsafeUninitializedCapacity: PackedValue.jsonLengthBound(packedCount: raw.count)) { output, count in
                length = PackedValue.writeJSON(raw, at: &rendered, to: output)
                count = length ?? 0
            }
            guard length != nil, rendered == raw.count else { return (decoded, nil, raw.count) }
            return (decoded, json, raw.count)
        }
    }

    /// Strings of the packed shapes, and strings that nearly have one; each must come back byte for byte, and
    /// its JSON text must be what JSONWriter writes.
    static let strings = [
        "BDD73226-2FEB-4E95-A8EF-E333B266F103", "bdd73226-2feb-4e95-a8ef-e333b266f103",
        "BDD73226-2feb-4E95-A8EF-E333B266F103", // mixed case: kept as text
        "12345678-1234-1234-1234-123456789012", // no letter
        "BDD73226-2FEB-4E95-A8EF-E333B266F10", "BDD73226-2FEB-4E95-A8EF-E333B266F1033", "BDD73226+2FEB-4E95-A8EF-E333B266F103",
        "BDD73226-2FEB-4E95-A8EF-E333B266F10G", "{DD73226-2FEB-4E95-A8EF-E333B266F103",
        "2026-11-29T09:29:49.062Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z",
        "2024-02-29T12:00:00.000Z", "2026-02-29T12:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-11-29T24:00:00.000Z",
        "2026-11-29T09:29:60.000Z", "2026-11-29t09:29:49.062Z", "2026-11-29T09:29:49.062z", "2026-11-29T09:29:49Z",
        "2026-11-29T09:29:49.06Z", "2026-11-29T09:29:49.0620Z", "2026-11-29T09:29:49.062+00:00", "2026-11-29 09:29:49.062Z",
        "+026-11-29T09:29:49.062Z", "2026-1a-29T09:29:49.062Z",
        "37e9671c", "0", "00", "0b5d7f85", "ffffffffffffffffffffffffffffffff", "fffffffffffffffffffffffffffffffff",
        "37E9671C", "37e9671g", "abc", "a",
        "", "Task 000000: fix the login bug", "quote \" backslash \\ newline \n tab \t nul \u{0} é 日本 🎉",
        "\u{1}\u{2}\u{1F}\u{8}\u{C}\r", String(repeating: "\u{1}", count: 40), "eight ok\u{7F}\"\"\"\"\"\"\"\"" + String(repeating: "x", count: 17),
    ]

    @Test func onlyTheCanonicalTimestampTextIsReadAsMilliseconds() {
        let accepted = Self.strings.filter { text in
            var utf8 = text
            guard let milliseconds = utf8.withUTF8(TimestampText.milliseconds) else { return false }
            #expect(Timestamp.string(fromMilliseconds: milliseconds) == text, "\(text)")
            return true
        }
        #expect(accepted == ["2026-11-29T09:29:49.062Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
                             "1969-12-31T23:59:59.999Z", "2024-02-29T12:00:00.000Z"])
    }

    @Test func stringsComeBackByteForByte() {
        for text in Self.strings {
            let (decoded, json, _) = Self.roundTrip(.string(text))
            guard case .string(let back)? = decoded else {
                Issue.record("\(text): no string back")
                continue
            }
            #expect(Array(back.utf8) == Array(text.utf8), "\(text)")
            #expect(json == JSONValue.string(text).jsonBytes(), "\(text)")
        }
    }

    @Test func theCommonShapesTakeFewBytes() {
        #expect(Self.roundTrip(.string("BDD73226-2FEB-4E95-A8EF-E333B266F103")).packedCount == 17)
        #expect(Self.roundTrip(.string("bdd73226-2feb-4e95-a8ef-e333b266f103")).packedCount == 17)
        #expect(Self.roundTrip(.string("2026-11-29T09:29:49.062Z")).packedCount == 9)
        #expect(Self.roundTrip(.string("37e9671c")).packedCount == 6)
        #expect(Self.roundTrip(.string("BDD73226-2feb-4E95-A8EF-E333B266F103")).packedCount == 38)
        #expect(Self.roundTrip(.string("2026-11-29T09:29:49Z")).packedCount == 22)
    }

    @Test func otherValuesComeBackAsTheReaderReadsTheirText() throws {
        let values: [JSONValue] = [
            .null, true, false, 0, 7, -1, .int(Int64.max), .int(Int64.min), 1.5, -0.0, 1e300,
            .double(.leastNonzeroMagnitude), .double(1.0),
            .double(.infinity), .double(.nan), [1, "a", nil, [true]], ["k": "v", "n": ["x": 1.25]], [], [:],
        ]
        for value in values {
            let (decoded, json, _) = Self.roundTrip(value)
            let expected = try JSONValue(parsing: value.jsonBytes())
            #expect(decoded == expected, "\(value)")
            if case .double(let number) = value, number.isFinite, case .double(let back)? = decoded {
                #expect(back.bitPattern == number.bitPattern)
            }
            #expect(json == value.jsonBytes(), "\(value)")
        }
    }

    @Test func truncatedOrUnknownBytesAreRejected() {
        var packed: [UInt8] = []
        PackedValue.append(.string("BDD73226-2FEB-4E95-A8EF-E333B266F103"), to: &packed)
        PackedValue.append(.string("plain text"), to: &packed)
        for end in 0..<packed.count where end != 17 {
            packed[0..<end].withUnsafeBytes { raw in
                var offset = 0
                let first = PackedValue.read(raw, at: &offset)
                var second: JSONValue?
                if first != nil { second = PackedValue.read(raw, at: &offset) }
                #expect(first == nil || second == nil, "\(end) bytes")
            }
        }
        [UInt8(200)].withUnsafeBytes { raw in
            var offset = 0
            #expect(PackedValue.read(raw, at: &offset) == nil)
        }
    }

    @Test func theReadersOfOneKindReadWhatReadReadsAndLeaveOtherKindsUnread() {
        let values: [JSONValue] = [.null, true, false, 0, -1, .int(Int64.min), 1.5, -0.0, "", "s", "grüße 😀",
                                   "BDD73226-2FEB-4E95-A8EF-E333B266F103", "2026-11-29T09:29:49.062Z", "0a1b2c3", [1], ["a": 1]]
        for value in values {
            var packed: [UInt8] = []
            PackedValue.append(value, to: &packed)
            packed.withUnsafeBytes { raw in
                var end = 0
                let read = PackedValue.read(raw, at: &end)
                func expectRead<Kind: Equatable>(_ reader: (UnsafeRawBufferPointer, inout Int) -> Kind?, _ expected: Kind?) {
                    var offset = 0
                    let kind = reader(raw, &offset)
                    #expect(kind == expected, "\(value)")
                    #expect(offset == (kind == nil ? 0 : end), "\(value)")
                }
                expectRead(PackedValue.string, read?.stringValue)
                expectRead(PackedValue.bool, read.flatMap { if case .bool(let flag) = $0 { flag } else { nil } })
                expectRead(PackedValue.integer, read.flatMap { if case .int(let number) = $0 { number } else { nil } })
                expectRead(PackedValue.number, read.flatMap { value -> Double? in
                    switch value {
                    case .int(let number): Double(number)
                    case .double(let number): number
                    default: nil
                    }
                })
                expectRead({ PackedValue.null($0, at: &$1).map { true } }, read == .null ? true : nil)
                let utf8 = PackedValue.withUTF8(raw, at: 0) { Array($0) == Array((read?.stringValue ?? "").utf8) }
                #expect(utf8 == (read?.stringValue == nil ? nil : true), "\(value)")
            }
        }
    }
}
