#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// The canonical form of a filter (what delta tokens are keyed by): equal for equal filters, different whenever a
/// field, operator, literal, literal type or the structure differs, and written in no wire dialect.
struct FilterCanonicalFormTests {
    /// Filters that all differ from one another, each in one respect from a neighbour.
    static func distinct() -> [Filter] { [
        Field("a") == 1, Field("a") == 2, Field("a") == 1.0, Field("a") == "1", Field("a") == true, Field("a") == false,
        Field("a").isNull, Field("a") == -0.0, Field("a") == 0.0, Field("a") == 0, Field("a") == "",
        Field("a") == "é", Field("a") == "e\u{301}", Field("é") == 1, Field("e\u{301}") == 1, Field("a") == [1], Field("a") == ["1"], Field("a") == [1, 2], Field("a") == [2, 1], Field("a") == "[1]",
        Field("a") == ["k": 1], Field("a") == ["k": "1"], Field("a") == ["j": 1], Field("a") == "{\"k\":1}",
        Field("b") == 1, Field("A") == 1, Field("a ") == 1,
        Field("a") != 1, Field("a") < 1, Field("a") <= 1, Field("a") > 1, Field("a") >= 1,
        Field("a").contains("1"), Field("a").hasPrefix("1"), Field("a").hasSuffix("1"), Field("a").contains("2"),
        Field("updatedAt") == "2026-01-01T00:00:00.000Z", Field("updatedAt") == Date(timeIntervalSince1970: 1_767_225_600),
        Field("updatedAt") == Date(timeIntervalSince1970: 1_767_225_601), Field("updatedAt") > Date(timeIntervalSince1970: 1_767_225_600),
        Field("createdAt") == Date(timeIntervalSince1970: 1_767_225_600),
        Field("a") == 1 && Field("b") == 2, Field("b") == 2 && Field("a") == 1, Field("a") == 1 || Field("b") == 2,
        !(Field("a") == 1), !(!(Field("a") == 1)), !(Field("a") == 1 && Field("b") == 2), !(Field("a") == 1) && Field("b") == 2,
        (Field("a") == 1 && Field("b") == 2) || Field("c") == 3, Field("a") == 1 && (Field("b") == 2 || Field("c") == 3),
        Field("a") == 1 && Field("a") == 1,
    ] }

    @Test func filtersThatDifferInAnyRespectHaveDifferentForms() {
        // Compared as bytes: Swift strings compare by canonical equivalence ("é" == "e\u{301}").
        let filters = Self.distinct(), forms = filters.map { Array($0.canonicalForm.utf8) }
        for (index, form) in forms.enumerated() {
            for other in forms.indices where other > index {
                #expect(form != forms[other], "\(filters[index]) and \(filters[other])")
            }
        }
    }

    @Test func equalFiltersHaveEqualForms() {
        for (filter, rebuilt) in zip(Self.distinct(), Self.distinct()) {
            #expect(Array(filter.canonicalForm.utf8) == Array(rebuilt.canonicalForm.utf8))
        }
        let object: Filter = Field("a") == ["x": 1, "y": [true, nil], "z": ["w": 2.5]]
        let sameObject: Filter = Field("a") == ["z": ["w": 2.5], "y": [true, nil], "x": 1]
        #expect(Array(object.canonicalForm.utf8) == Array(sameObject.canonicalForm.utf8))
    }

    @Test func aDateIsItsWholeMilliseconds() {
        let instant = Date(timeIntervalSince1970: 1_767_225_600)
        #expect((Field("updatedAt") > instant).canonicalForm
                == (Field("updatedAt") > instant.addingTimeInterval(0.000_4)).canonicalForm)
    }

    @Test func groupingOfAndOrChainsDoesNotMatter() {
        let (a, b, c) = (Field("a") == 1, Field("b") == 2, Field("c") == 3)
        #expect(((a && b) && c).canonicalForm == (a && (b && c)).canonicalForm)
        #expect(((a || b) || c).canonicalForm == (a || (b || c)).canonicalForm)
        #expect(((a && b) || c).canonicalForm != (a && (b || c)).canonicalForm)
    }

    @Test func theFormIsTheDocumentedJSON() {
        #expect((Field("complete") == false).canonicalForm == #"["cmp","complete","eq",["bool",false]]"#)
        #expect((Field("n") >= 1.0).canonicalForm == #"["cmp","n","ge",["double","3ff0000000000000"]]"#)
        let filter = Field("a") == 1 && Field("t").hasPrefix("x\"y") && !(Field("o") == ["b": nil, "a": [2]])
            && Field("updatedAt") < Date(timeIntervalSince1970: 1.5)
        #expect(filter.canonicalForm == #"["and",["cmp","a","eq",["int",1]],["str","t","hasPrefix","x\"y"],"#
                + #"["not",["cmp","o","eq",["object",[["a",["array",[["int",2]]]],["b",["null"]]]]]],"#
                + #"["date","updatedAt","lt",1500]]"#)
    }

    @Test func theFormDoesNotDependOnTheODataDialect() {
        let filter = Field("text").contains("a") && Field("updatedAt") > Date(timeIntervalSince1970: 0)
        #expect(filter.odata(.odataV3) != filter.odata(.odataV4))
        #expect(filter.canonicalForm == #"["and",["str","text","contains","a"],["date","updatedAt","gt",0]]"#)
    }
}
