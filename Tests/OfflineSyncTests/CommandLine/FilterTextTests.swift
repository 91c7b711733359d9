import Foundation
import Testing
import OfflineSync
@testable import offline_sync

/// The command line's filter syntax: what `Filter.odata` writes reads back as the same filter, and bad text is
/// refused with the character where it goes wrong.
struct FilterTextTests {
    @Test(arguments: [
        Field("complete") == false,
        Field("priority") >= 3 && Field("text") != "it's",
        Field("a") == .null || !(Field("b") < -2.5) && Field("c") > 1e20,
        Field("text").hasPrefix("mil") || Field("text").hasSuffix("k") || Field("text").contains("l"),
        Field("updatedAt") > Date(timeIntervalSince1970: 1_767_225_600.25),
        Field("count") <= 9_007_199_254_740_993,
    ])
    func readsBackWhatODataWrites(_ filter: Filter) throws {
        #expect(try FilterText.parse(filter.odata) == filter)
        #expect(try FilterText.parse(filter.odata(.odataV3)) == filter)
    }

    @Test func andBindsTighterThanOrAndParenthesesRegroup() throws {
        #expect(try FilterText.parse("a eq 1 or b eq 2 and c eq 3") == (Field("a") == 1 || (Field("b") == 2 && Field("c") == 3)))
        #expect(try FilterText.parse("(a eq 1 or b eq 2) and c eq 3") == ((Field("a") == 1 || Field("b") == 2) && Field("c") == 3))
        #expect(try FilterText.parse("not a eq 1 and substringof('x',t)") == (!(Field("a") == 1) && Field("t").contains("x")))
    }

    @Test(arguments: [
        ("complete = false", 10, "unexpected character '='"),
        ("complete eq", 12, "expected a value"),
        ("(a eq 1", 8, "expected ')'"),
        ("a eq 1 b eq 2", 8, "after a complete filter"),
        ("a eq 'open", 6, "quoted text is not closed"),
        ("a is 1", 3, "expected a comparison"),
        ("updatedAt gt datetimeoffset'yesterday'", 14, "not an ISO 8601 date-time"),
        ("a eq 1.2.3", 6, "'1.2.3' is not a number"),
        ("and eq 1", 1, "'and' is not a field name"),
        ("", 1, "expected a condition"),
    ] as [(String, Int, String)])
    func refusesMalformedTextAtTheRightCharacter(_ text: String, _ column: Int, _ message: String) {
        #expect(throws: FilterText.Malformed.self) { try FilterText.parse(text) }
        do {
            _ = try FilterText.parse(text)
        } catch {
            #expect(error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }
}
