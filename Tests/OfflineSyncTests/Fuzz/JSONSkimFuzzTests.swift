import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Opening a store checks each snapshot item with `JSONReader.skimObject` instead of building it, and decodes the
/// item in full only when it is read. The two must agree on every input: the skimmer accepts exactly the objects
/// the reader accepts, and the member ranges it reports hold the values the reader builds.
struct JSONSkimFuzzTests {
    static let keys = ["id", "a", "é", "k"]

    /// A random object with some of `keys` (sometimes twice, sometimes escaped) among random members.
    static func randomObjectText(_ generator: inout SplitMix64) -> [UInt8] {
        var members: [String] = []
        for _ in 0..<Int(generator.next() % 6) {
            let key: String
            switch generator.next() % 4 {
            case 0: key = "\"" + keys[Int(generator.next() % UInt64(keys.count))] + "\""
            case 1: key = "\"i\\u0064\""  // "id", escaped
            default: key = JSONValue.string(JSONReaderFuzzTests.randomString(&generator)).jsonString()
            }
            let value = JSONReaderFuzzTests.randomValue(&generator, depth: 3).jsonString()
            members.append(key + (generator.next() % 4 == 0 ? " : " : ":") + value)
        }
        return Array(("{" + members.joined(separator: generator.next() % 4 == 0 ? " , " : ",") + "}").utf8)
    }

    @Test func keysMatchAsStringsDoWhetherPlainEscapedOrOnlyCanonicallyEqual() throws {
        // "K" equals U+212A (the Kelvin sign) as a String; "i\u0064" is "id" escaped; "é" is not ASCII.
        let text = Array(#"{"K":1, "i\u0064":2,"é":3,"x":4}"#.utf8)
        let ranges = try text.withUnsafeBufferPointer { try JSONReader.skimObject($0, keys: ["\u{212A}", "id", "é", "y"]).get() }
        let values = ranges.map { range in range.map { String(decoding: text[$0], as: UTF8.self) } }
        #expect(values == ["1", "2", "3", nil])
        let control = Array("{\"a\u{1}\":1}".utf8)
        #expect(throws: JSONParseError.self) { try control.withUnsafeBufferPointer { try JSONReader.skimObject($0, keys: ["a"]).get() } }
    }

    @Test func theSkimmerAcceptsExactlyWhatTheReaderAcceptsAndFindsTheSameValues() {
        var generator = SplitMix64(seed: 20_261_126)
        var accepted = 0, rejected = 0
        for round in 0..<FuzzBudget.cases(20_000) {
            var input = Self.randomObjectText(&generator)
            if generator.next() % 4 != 0 {
                for _ in 0...Int(generator.next() % 3) { input = JSONReaderFuzzTests.mutate(input, &generator) }
            }
            let text = String(decoding: input, as: UTF8.self)
            let read = input.withUnsafeBufferPointer { JSONReader.result($0) }
            let skimmed = input.withUnsafeBufferPointer { JSONReader.skimObject($0, keys: Self.keys) }
            switch (read, skimmed) {
            case (.success(.object(let object)), .success(let ranges)):
                accepted += 1
                for (key, range) in zip(Self.keys, ranges) {
                    let value = range.flatMap { range in
                        try? input.withUnsafeBufferPointer { try JSONReader.parse(UnsafeBufferPointer(rebasing: $0[range])) }
                    }
                    #expect(value == object[key], "round \(round), key \(key): \(text)")
                }
            case (.success(.object), .failure(let error)):
                Issue.record("round \(round): the reader accepts what the skimmer rejects (\(error)): \(text)")
            case (.success, .success):
                Issue.record("round \(round): the skimmer accepts a value that is not an object: \(text)")
            case (.success, .failure), (.failure, .failure):
                rejected += 1
            case (.failure(let error), .success):
                Issue.record("round \(round): the skimmer accepts what the reader rejects (\(error)): \(text)")
            }
        }
        #expect(accepted > 1_000 && rejected > 1_000, "accepted \(accepted), rejected \(rejected)")
    }
}
