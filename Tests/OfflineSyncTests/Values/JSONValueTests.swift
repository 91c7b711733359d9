import Testing
import OfflineSync

struct JSONValueTests {
    @Test func maximumIntegerRoundTrips() throws {
        let value = try JSONValue(parsing: "9223372036854775807")
        #expect(value == .int(Int64.max))
        #expect(value.jsonString() == "9223372036854775807")
    }
}
