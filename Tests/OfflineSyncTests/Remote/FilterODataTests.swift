import Testing
import OfflineSync

struct FilterODataTests {
    static let v2Cases: [(Filter, String)] = [
        (Field("text") == "bob", "(text eq 'bob')"),
        (Field("text") != "O'Neil", "(text ne 'O''Neil')"),
        (Field("text") == "日本 😀", "(text eq '日本 😀')"),
        (Field("priority") >= 3, "(priority ge 3)"),
        (Field("n") < -2, "(n lt -2)"),
        (Field("ratio") <= 2.0, "(ratio le 2.0)"),
        (Field("ratio") > 0.5, "(ratio gt 0.5)"),
        (Field("ratio") > 1e300, "(ratio gt 1e+300)"),
        (Field("complete") == false, "(complete eq false)"),
        (Field("owner").isNull, "(owner eq null)"),
        (Field("text").contains("a"), "substringof('a',text)"),
        (Field("text").hasPrefix("a"), "startswith(text,'a')"),
        (Field("text").hasSuffix("'z"), "endswith(text,'''z')"),
        (Field("a") == 1 && Field("b") == 2, "((a eq 1) and (b eq 2))"),
        (Field("a") == 1 || !(Field("b") == nil), "((a eq 1) or not((b eq null)))"),
        ((Field("a") == 1 || Field("b") == 2) && !(Field("c").contains("x") && Field("d") == true),
         "(((a eq 1) or (b eq 2)) and not((substringof('x',c) and (d eq true))))"),
        (Field("updatedAt") >= "2026-01-01T00:00:00.000Z", "(updatedAt ge datetimeoffset'2026-01-01T00:00:00.000Z')"),
        (Field("createdAt") < "2026-01-01T01:00:00+01:00", "(createdAt lt datetimeoffset'2026-01-01T00:00:00.000Z')"),
        (Field("updatedAt") == "not a date", "(updatedAt eq 'not a date')"),
        (Field("text") == "2026-01-01T00:00:00.000Z", "(text eq '2026-01-01T00:00:00.000Z')"),
        (Field("due") > Date(timeIntervalSince1970: 1_767_225_600), "(due gt datetimeoffset'2026-01-01T00:00:00.000Z')"),
    ]

    @Test(arguments: v2Cases)
    func rendersTheV2Syntax(_ filter: Filter, _ expected: String) {
        #expect(filter.odata == expected)
    }

    @Test func rendersTheV3Syntax() {
        #expect(Field("text").contains("a").odata(.odataV4) == "contains(text,'a')")
        #expect(Field("text").hasPrefix("a").odata(.odataV4) == "startswith(text,'a')")
        #expect((Field("updatedAt") > "2026-01-01T00:00:00.000Z").odata(.odataV4)
            == "(updatedAt gt cast(2026-01-01T00:00:00.000Z,Edm.DateTimeOffset))")
    }

    /// A quote fused into one `Character` with a combining mark after it, or a prepend character before it, is
    /// doubled like any other quote, so the literal cannot end early and inject `or id ne ''`.
    @Test func quotesInsideGraphemesAreDoubled() {
        let filter = Field("text") == .string("\u{600}' or id ne '\u{301}")
        #expect(Array(filter.odata.unicodeScalars) == Array("(text eq '\u{600}'' or id ne ''\u{301}')".unicodeScalars))
        #expect(ODataGrammar.stringLiterals(in: filter.odata) == ["\u{600}' or id ne '\u{301}"])
        let prefix = Field("id").hasPrefix("'\u{301}")
        #expect(Array(prefix.odata(.odataV4).unicodeScalars) == Array("startswith(id,'''\u{301}')".unicodeScalars))
    }

    @Test func invalidFieldNamesAreNeverInterpolated() {
        let filter = Field("x) or (1 eq 1") == 1
        #expect(filter.odata == "('x) or (1 eq 1' eq 1)")
        #expect(Field("it's").contains("a").odata == "substringof('a','it''s')")
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
