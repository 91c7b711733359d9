import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

struct CRC32CTests {
    @Test func checkValueMatchesTheCastagnoliStandard() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test(arguments: [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 1000])
    func slicingBySixteenMatchesBytewiseComputation(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        #expect(CRC32C.checksum(bytes) == ~crc)
    }

    @Test func checksumsOfPartsComputedApartCombineIntoTheWholesChecksum() {
        let bytes = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 7) }
        for cut in [0, 1, 15, 16, 17, 1_000, 4_096, 4_999, 5_000] {
            let head = CRC32C.checksum(bytes, from: 0, to: cut), tail = CRC32C.checksum(bytes, from: cut)
            #expect(CRC32C.combine(head, tail, secondLength: bytes.count - cut) == CRC32C.checksum(bytes), "cut at \(cut)")
        }
        #expect(CRC32C.combine(0xE306_9283, 0, secondLength: 0) == 0xE306_9283)
    }

    @Test func checksumsChainAcrossPieces() {
        let bytes = Array("The quick brown fox jumps over the lazy dog".utf8)
        let first = CRC32C.checksum(bytes, from: 0, to: 10)
        #expect(CRC32C.checksum(bytes, from: 10, continuing: first) == CRC32C.checksum(bytes))
        // Pieces that start off the 16-byte stride of the whole.
        let long = (0..<301).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 3) }
        for cut in [1, 5, 16, 17, 150, 299] {
            let head = CRC32C.checksum(long, from: 0, to: cut)
            #expect(CRC32C.checksum(long, from: cut, continuing: head) == CRC32C.checksum(long), "cut at \(cut)")
        }
    }

    @Test func hexIsEightLowercaseDigitsAndRejectsUppercase() {
        var buffer = [UInt8](repeating: 0, count: 8)
        CRC32C.writeHex(0x00AB_CDEF, into: &buffer, at: 0)
        #expect(String(decoding: buffer, as: UTF8.self) == "00abcdef")
        #expect(buffer.withUnsafeBytes { CRC32C.readHex($0, at: 0) } == 0x00AB_CDEF)
        let upper = Array("00ABCDEF".utf8)
        #expect(upper.withUnsafeBytes { CRC32C.readHex($0, at: 0) } == nil)
    }
}
