import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// The JSON reader against seeded mutations of valid documents: flips, truncations, insertions, deep nesting, huge
/// numbers, invalid UTF-8. Never a crash or a hang; a rejected input gets a `JSONParseError` whose offset lies
/// within it; an accepted one writes out as text that reads back to the same value.
struct JSONReaderFuzzTests {
    /// A random JSON value, at most `depth` levels deep.
    static func randomValue(_ generator: inout SplitMix64, depth: Int) -> JSONValue {
        let kind = depth == 0 ? Int(generator.next() % 5) : Int(generator.next() % 7)
        switch kind {
        case 0: return .null
        case 1: return .bool(generator.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: generator.next()) >> Int64(generator.next() % 63))
        case 3:
            let mantissa = Double(Int64(bitPattern: generator.next()) >> 11) / Double(1 << 20)
            return .double(generator.next() % 4 == 0 ? mantissa * 1e-300 : mantissa)
        case 4: return .string(randomString(&generator))
        case 5: return .array((0..<Int(generator.next() % 5)).map { _ in randomValue(&generator, depth: depth - 1) })
        default:
            var object: JSONObject = [:]
            for _ in 0..<Int(generator.next() % 5) { object[randomString(&generator)] = randomValue(&generator, depth: depth - 1) }
            return .object(object)
        }
    }

    static func randomString(_ generator: inout SplitMix64) -> String {
        let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "é", "€", "😀", "\u{7F}", "\u{FFFF}", "日"]
        return (0..<Int(generator.next() % 8)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
    }

    /// One seeded mutation of `bytes`.
    static func mutate(_ bytes: [UInt8], _ generator: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        let position = { (generator: inout SplitMix64, count: Int) in Int(generator.next() % UInt64(max(count, 1))) }
        switch generator.next() % 9 {
        case 0 where !bytes.isEmpty:
            bytes[position(&generator, bytes.count)] ^= UInt8(1 << (generator.next() % 8))
        case 1:
            bytes = Array(bytes.prefix(position(&generator, bytes.count + 1)))
        case 2:
            let pieces: [[UInt8]] = [Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array(",".utf8),
                                     Array(":".utf8), Array("\"".utf8), Array("\\u".utf8), Array("-0.e".utf8), Array("nul".utf8)]
            bytes.insert(contentsOf: pieces[Int(generator.next() % UInt64(pieces.count))], at: position(&generator, bytes.count + 1))
        case 3:
            let depth = Int(generator.next() % 700)
            bytes = Array(repeating: UInt8(ascii: "["), count: depth) + bytes + Array(repeating: UInt8(ascii: "]"), count: depth)
        case 4:
            let numbers = ["1e999", "-1e400", "123456789012345678901234567890", "9223372036854775808", "-9223372036854775809",
                           "0.000000000000000000000000000000000000000001e-400", "1" + String(repeating: "0", count: 400)]
            bytes = Array("[\(numbers[Int(generator.next() % UInt64(numbers.count))])]".utf8)
        case 5:
            let invalid: [[UInt8]] = [[0xC0, 0x80], [0xFF], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]
            bytes.insert(contentsOf: invalid[Int(generator.next() % UInt64(invalid.count))], at: position(&generator, bytes.count + 1))
        case 6 where !bytes.isEmpty:
            bytes.remove(at: position(&generator, bytes.count))
        case 7 where bytes.count > 1:
            let start = position(&generator, bytes.count)
            let end = min(bytes.count, start + 1 + position(&generator, 16))
            bytes.insert(contentsOf: bytes[start..<end], at: position(&generator, bytes.count + 1))
        default:
            bytes[position(&generator, bytes.count)...].shuffle(using: &generator)
        }
        return bytes
    }

    @Test func mutatedDocumentsAreRejectedWithAnOffsetInsideThemOrReadBackToTheSameValue() {
        var generator = SplitMix64(seed: 20_261_125)
        var accepted = 0, rejected = 0
        for round in 0..<FuzzBudget.cases(20_000) {
            let document = Self.randomValue(&generator, depth: 4).jsonBytes()
            var input = document
            for _ in 0...Int(generator.next() % 3) { input = Self.mutate(input, &generator) }
            do throws(JSONParseError) {
                let value = try JSONValue(parsing: input)
                let written = value.jsonBytes()
                let reread = try JSONValue(parsing: written)
                #expect(reread == value, "round \(round): \(String(decoding: input, as: UTF8.self))")
                // Keys in a fixed order: a dictionary's own order is not part of the value.
                #expect(reread.jsonBytes(sortedKeys: true) == value.jsonBytes(sortedKeys: true), "round \(round)")
                accepted += 1
            } catch {
                #expect((0...input.count).contains(error.offset), "round \(round): offset \(error.offset) of \(input.count)")
                rejected += 1
            }
        }
        #expect(accepted > 100 && rejected > 100, "accepted \(accepted), rejected \(rejected)")
    }

    @Test func everyValidDocumentReadsBackToTheSameValue() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<FuzzBudget.cases(5_000) {
            let value = Self.randomValue(&generator, depth: 5)
            #expect(try JSONValue(parsing: value.jsonBytes()) == value)
            #expect(try JSONValue(parsing: value.jsonBytes(sortedKeys: true)) == value)
        }
    }
}
