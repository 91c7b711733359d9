import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Sequence and generation numbers are written in decimal without building strings; the digits must be exactly
/// what `String(_:)` prints.
struct JournalRecordDecimalTests {
    @Test(arguments: [Int64(0), 1, 9, 10, 99, 100, 12_345, -1, -10, Int64.max, Int64.min, 1 << 40])
    func decimalDigitsMatchTheStandardLibrary(value: Int64) {
        var buffer: [UInt8] = [0x2A]
        JSONWriter.appendDecimal(value, into: &buffer)
        #expect(buffer == [0x2A] + Array(String(value).utf8))
    }
}
