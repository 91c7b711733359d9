/// The one timestamp text that ``PackedValue`` holds as a number: `yyyy-MM-ddTHH:mm:ss.SSSZ` (24 bytes, UTC,
/// milliseconds, upper-case `T` and `Z`), as ``Timestamp/string(fromMilliseconds:)`` writes it for years 0 to 9999.
enum TimestampText {
    /// The milliseconds since 1970 that `utf8` writes, when it is exactly the text ``write(_:into:)`` writes for
    /// them; nil for any other text (another form of ISO 8601, an impossible date, a leap second).
    static func milliseconds(_ utf8: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard utf8.count == 24, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"), utf8[10] == UInt8(ascii: "T"),
              utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"), utf8[19] == UInt8(ascii: "."),
              utf8[23] == UInt8(ascii: "Z") else { return nil }
        // Each field's digits, or -1 for a byte that is not one.
        func number(_ start: Int, _ width: Int) -> Int64 {
            var value: Int64 = 0
            for position in start..<(start + width) {
                let digit = utf8[position] &- UInt8(ascii: "0")
                if digit > 9 { return -1 }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        let fields = (number(0, 4), number(5, 2), number(8, 2), number(11, 2), number(14, 2), number(17, 2), number(20, 3))
        let (year, month, day, hour, minute, second, millisecond) = fields
        guard year >= 0, hour >= 0, minute >= 0, second >= 0, millisecond >= 0, (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        return (days * 86_400 + hour * 3_600 + minute * 60 + second) * 1_000 + millisecond
    }

    /// Writes the 24 bytes of the timestamp `milliseconds` after 1970 into `output` (at least 24 bytes), for a
    /// time from year 0 to 9999.
    static func write(_ milliseconds: Int64, into output: UnsafeMutableRawBufferPointer) {
        let (days, msOfDay) = Timestamp.floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = Timestamp.civilDate(fromDays: days)
        var position = 0
        func digits(_ value: Int64, _ width: Int, then separator: Unicode.Scalar) {
            var value = value
            for place in stride(from: position + width - 1, through: position, by: -1) {
                output[place] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                value /= 10
            }
            output[position + width] = UInt8(ascii: separator)
            position += width + 1
        }
        digits(year, 4, then: "-")
        digits(month, 2, then: "-")
        digits(day, 2, then: "T")
        digits(msOfDay / 3_600_000, 2, then: ":")
        digits(msOfDay / 60_000 % 60, 2, then: ":")
        digits(msOfDay / 1000 % 60, 2, then: ".")
        digits(msOfDay % 1000, 3, then: "Z")
    }
}
