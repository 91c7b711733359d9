import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Ids of printable ASCII are judged in one pass over their bytes; the verdict, message included, must be the one
/// the scalar-by-scalar rules give for every id.
struct ItemIDFastPathTests {
    @Test func theVerdictOnEveryIdIsTheGeneralRulesVerdict() {
        var random = SeededRandom(seed: 17)
        // Printable ASCII with the forbidden characters, dots and spaces over-represented, plus a few others.
        let alphabet: [String] = [" ", ".", "+", "?", "`", "\"", "/", "\\", "a", "Z", "0", "-", "~", "\t", "é", "\u{7F}", "日"]
        var ids = ["", ".", "..", "...", " ", "  ", String(repeating: "a", count: 255), String(repeating: "a", count: 256),
                   String(repeating: " ", count: 300), String(repeating: ".", count: 2)]
        for _ in 0..<5_000 {
            let length = random.below(4) == 0 ? random.below(300) : random.below(6)
            ids.append(String((0..<length).map { _ in alphabet[random.below(random.below(3) == 0 ? alphabet.count : 13)] }.joined()))
        }
        for id in ids {
            #expect(ItemID.violation(in: id) == ItemID.generalViolation(in: id), "\(id.debugDescription)")
        }
    }
}
