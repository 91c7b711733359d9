import Testing
import OfflineSync

/// A query's refusal says its kind as a code and, for a bad field name, the name.
struct QueryErrorTests {
    @Test func aBadFieldNameIsNamed() throws {
        let error = try #require(throws: QueryError.self) {
            try Query(table: "T", orderBy: [.ascending("a b")]).validate(requireIdentifiers: true)
        }
        #expect(error.code == .invalidFieldName && error.field == "a b")
        #expect(error.description.contains("\"a b\""))
    }

    @Test func negativeArgumentsHaveTheirOwnCodes() throws {
        #expect(throws: QueryError.negativeSkip(-1)) { try Query(table: "T", skip: -1).validate() }
        let error = try #require(throws: QueryError.self) { try Query(table: "T", top: -2).validate() }
        #expect(error.code == .negativeTop && error.field == nil)
    }
}
