import Testing
import OfflineSync

struct TimestampTests {
    @Test(arguments: [
        ("2026-01-01T00:00:00.000Z", Int64(1_767_225_600_000)),
        ("1970-01-01T00:00:00.000Z", 0),
        ("1969-12-31T23:59:59.999Z", -1),
        ("2024-02-29T12:34:56.789Z", 1_709_210_096_789),
    ])
    func formatsAndParsesMilliseconds(_ text: String, _ milliseconds: Int64) {
        #expect(Timestamp.string(fromMilliseconds: milliseconds) == text)
        #expect(Timestamp.milliseconds(from: text) == milliseconds)
    }

    @Test(arguments: [
        ("2026-01-01T00:00:00Z", Int64(1_767_225_600_000)),
        ("2026-01-01T00:00:00.5Z", 1_767_225_600_500),
        ("2026-01-01T00:00:00.1234567Z", 1_767_225_600_123),
        ("2026-01-01T02:00:00.000+02:00", 1_767_225_600_000),
        ("2025-12-31T19:00:00.000-05:00", 1_767_225_600_000),
    ])
    func acceptsOtherISO8601Forms(_ text: String, _ milliseconds: Int64) {
        #expect(Timestamp.milliseconds(from: text) == milliseconds)
    }

    @Test(arguments: [
        "", "2026-01-01", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.000Zx", "2026-1-01T00:00:00Z", "not a date",
    ])
    func rejectsOtherText(_ text: String) {
        #expect(Timestamp.milliseconds(from: text) == nil)
        #expect(Timestamp.date(from: text) == nil)
    }

    @Test func dateRoundTripsAtMillisecondPrecision() throws {
        let date = Date(timeIntervalSince1970: 1_767_225_600.123)
        let text = Timestamp.string(from: date)
        #expect(text == "2026-01-01T00:00:00.123Z")
        let back = try #require(Timestamp.date(from: text))
        #expect(Timestamp.milliseconds(of: back) == 1_767_225_600_123)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
