#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The ISO 8601 timestamps of the table protocol: UTC with millisecond precision and a `Z`
/// (`2026-01-01T00:00:00.000Z`), as `createdAt` and `updatedAt` carry them.
public enum Timestamp {
    /// Formats `date` as `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC, truncating to whole milliseconds.
    public static func string(from date: Date) -> String {
        string(fromMilliseconds: milliseconds(of: date))
    }

    /// Formats a count of milliseconds since 1970-01-01T00:00:00Z as `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
    public static func string(fromMilliseconds milliseconds: Int64) -> String {
        let (days, msOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(fromDays: days)
        var out = [UInt8]()
        out.reserveCapacity(24)
        if year < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(abs(year), width: 4, to: &out); out.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &out); out.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &out); out.append(UInt8(ascii: "T"))
        appendDigits(msOfDay / 3_600_000, width: 2, to: &out); out.append(UInt8(ascii: ":"))
        appendDigits(msOfDay / 60_000 % 60, width: 2, to: &out); out.append(UInt8(ascii: ":"))
        appendDigits(msOfDay / 1000 % 60, width: 2, to: &out); out.append(UInt8(ascii: "."))
        appendDigits(msOfDay % 1000, width: 3, to: &out); out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the decimal digits of `value` (not negative), zero-padded to at least `width` digits.
    private static func appendDigits(_ value: Int64, width: Int, to out: inout [UInt8]) {
        var divisor: Int64 = 1
        var digits = 1
        while digits < width || value / divisor >= 10 {
            divisor *= 10
            digits += 1
        }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// Parses an ISO 8601 date-time (`yyyy-MM-ddTHH:mm:ss`, optional fraction of 1 to 9 digits, then `Z` or an
    /// offset `±hh:mm`). Returns nil for anything else.
    public static func date(from text: String) -> Date? {
        guard let milliseconds = milliseconds(from: text) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Parses like ``date(from:)`` and returns milliseconds since 1970 (fraction digits beyond the
    /// millisecond are truncated).
    public static func milliseconds(from text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parseMilliseconds($0) }
    }

    /// Milliseconds since 1970 of `date`, rounded down.
    public static func milliseconds(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite, value > -9.0e15, value < 9.0e15 else { return 0 }
        return Int64(value)
    }

    /// Parses UTF-8 bytes like ``milliseconds(from:)``.
    package static func parseMilliseconds(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var cursor = TimestampCursor(bytes: b)
        guard let year = cursor.number(4), cursor.expect("-"), let month = cursor.number(2), cursor.expect("-"),
              let day = cursor.number(2), cursor.expect("T") || cursor.expect("t") else { return nil }
        guard let hour = cursor.number(2), cursor.expect(":"), let minute = cursor.number(2), cursor.expect(":"),
              let second = cursor.number(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60 else { return nil }
        var fractionMs: Int64 = 0
        if cursor.expect(".") {
            var digits = 0
            while let digit = cursor.digit() {
                if digits < 3 { fractionMs = fractionMs * 10 + digit }
                digits += 1
            }
            guard (1...9).contains(digits) else { return nil }
            if digits < 3 { for _ in digits..<3 { fractionMs *= 10 } }
        }
        var offsetMinutes: Int64 = 0
        if cursor.expect("Z") || cursor.expect("z") {
        } else if cursor.expect("+") || cursor.expect("-") {
            let sign: Int64 = b[cursor.index - 1] == UInt8(ascii: "-") ? -1 : 1
            guard let offsetHours = cursor.number(2), cursor.expect(":"), let offsetMins = cursor.number(2),
                  offsetHours < 24, offsetMins < 60 else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        guard cursor.isAtEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1000 + fractionMs
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilDate(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads a timestamp's bytes left to right. A value, not nested functions capturing a position: those made every
/// step a dynamically checked access to a boxed variable (a pull parses two timestamps a record).
private struct TimestampCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index == bytes.count }

    /// The next `width` bytes as a decimal number, all digits; nil (nothing read) otherwise.
    mutating func number(_ width: Int) -> Int64? {
        guard index + width <= bytes.count else { return nil }
        var value: Int64 = 0
        for offset in 0..<width {
            let byte = bytes[index + offset]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += width
        return value
    }

    /// The next byte's value when it is a digit, read; nil otherwise.
    mutating func digit() -> Int64? {
        guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
        index += 1
        return Int64(bytes[index - 1] - 0x30)
    }

    /// Reads the next byte when it is `ascii`.
    mutating func expect(_ ascii: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: ascii) else { return false }
        index += 1
        return true
    }
}
