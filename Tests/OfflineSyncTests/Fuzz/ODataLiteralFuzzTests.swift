import Testing
import OfflineSync

/// Random strings of quotes, combining marks, prepend characters, emoji and controls: every OData string literal
/// OfflineSync writes reads back, scalar for scalar, as the string it was written from, and ends where it should
/// (item 10 of the HTTP defects: a quote fused into one `Character` with its neighbours ended the literal early).
struct ODataLiteralFuzzTests {
    /// Pieces that fuse with a neighbouring quote into one `Character`, or that a parser may trip on.
    static let pieces: [String] = [
        "'", "''", "\u{301}", "\u{308}", "\u{600}", "\u{605}", "\u{110BD}", "\u{200D}", "\u{FE0F}", "😀", "👨‍👩‍👧",
        "\u{1F1E6}", "\u{1F3FB}", "\r\n", "\n", "\u{0}", "\u{7F}", "\u{1B}", "a", "e", " ", ")", "(", ",",
        "or id ne ", "%27",
    ]

    static func randomText(_ random: inout SeededRandom) -> String {
        var text = ""
        for _ in 0..<random.below(10) { text += random.pick(pieces) }
        return text
    }

    /// The filters that carry `text` as a string literal (a comparison and the three string functions).
    static func filters(carrying text: String) -> [Filter] {
        [Field("text") == .string(text), Field("text") != .string(text), Field("text").contains(text),
         Field("text").hasPrefix(text), Field("text").hasSuffix(text)]
    }

    @Test func everyStringLiteralReadsBackAsItsString() {
        var random = SeededRandom(seed: 0x0DA7A_11E7)
        for _ in 0..<FuzzBudget.cases(400) {
            let text = Self.randomText(&random)
            for filter in Self.filters(carrying: text) {
                for dialect in [ODataDialect.odataV3, .odataV4] {
                    let odata = filter.odata(dialect)
                    let literals = ODataGrammar.stringLiterals(in: odata)
                    #expect(literals.map { $0.map { Array($0.unicodeScalars) } } == [Array(text.unicodeScalars)],
                            "\(dialect) \(Array(text.unicodeScalars)) was written as \(Array(odata.unicodeScalars))")
                    #expect(ODataGrammar.accepts(odata), "not one filter: \(Array(odata.unicodeScalars))")
                }
            }
        }
    }

    @Test func aFieldNameThatIsNotAnIdentifierReadsBackAsOneLiteral() {
        var random = SeededRandom(seed: 0xF1E1D)
        for _ in 0..<FuzzBudget.cases(200) {
            let name = "x" + Self.randomText(&random) + "'"
            let odata = (Field(name) == 1).odata
            let literals = ODataGrammar.stringLiterals(in: odata)
            #expect(literals.map { $0.map { Array($0.unicodeScalars) } } == [Array(name.unicodeScalars)],
                    "\(Array(name.unicodeScalars)) was written as \(Array(odata.unicodeScalars))")
        }
    }
}
