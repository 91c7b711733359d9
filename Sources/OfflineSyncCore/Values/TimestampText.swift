/// The one timestamp text that ``PackedValue`` holds as a number: `yyyy-MM-ddTHH:mm:ss.SSSZ` (24 bytes, UTC,
/// milliseconds, upper-case `T` and `Z`), as ``Timestamp/string(fromMilliseconds:)`` writes it for years 0 to 9999.
enum TimestampText {
    /// The milliseconds since 1970 that `utf8` writes, when it is exactly the text ``write(_:into:)`` writes for
    /// them; nil for any other text (another form of ISO 8601, an impossible date, a leap second).
    static func milliseconds(_ utf8: UnsafeBufferPointer<UInt8>) -> Int64? {
        // Of the texts ``Timestamp/parseMilliseconds(_:)`` reads, 24 bytes with an upper-case `T` and a `Z` at the
        // end leave only this one: three fraction digits, no offset.
        guard utf8.count == 24, utf8[10] == UInt8(ascii: "T"), utf8[23] == UInt8(ascii: "Z") else { return nil }
        return Timestamp.parseMilliseconds(utf8)
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
