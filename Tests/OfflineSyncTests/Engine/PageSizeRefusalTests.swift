import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Which answers refuse a pull's page size, and the size asked for next.
struct PageSizeRefusalTests {
    @Test(arguments: [
        (RemoteError.server(status: 400, message: "You cannot request more than 1000 records"), 2000, 1000),
        (.server(status: 400, message: "The limit of '128000' for Top query has been exceeded. The value from the incoming request is '200000'."),
         200_000, 128_000),
        (.server(status: 400, message: "$top is too large"), 500, 250),
        (.server(status: 400, message: "You cannot request more than 1000 records"), 700, 350),
    ] as [(RemoteError, Int, Int)])
    func aRefusedPageSizeGivesTheStatedSizeOrHalf(_ error: RemoteError, _ asked: Int, _ allowed: Int) {
        #expect(PageSizeRefusal.allowedPageSize(after: error, asked: asked) == allowed)
    }

    @Test(arguments: [
        (RemoteError.server(status: 400, message: "unsupported filter"), 50),
        (.server(status: 500, message: "You cannot request more than 1000 records"), 2000),
        (.server(status: 400, message: "You cannot request more than 1000 records"), 1),
        (.network("offline"), 2000),
    ] as [(RemoteError, Int)])
    func otherAnswersAreNoRefusal(_ error: RemoteError, _ asked: Int) {
        #expect(PageSizeRefusal.allowedPageSize(after: error, asked: asked) == nil)
    }
}
