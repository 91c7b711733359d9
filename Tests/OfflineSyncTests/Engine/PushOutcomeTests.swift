import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

struct PushOutcomeTests {
    private func classify(_ kind: TableOperation.Kind, _ error: RemoteError, sent: JSONObject? = ["id": "a", "text": "x"]) -> PushOutcome {
        PushOutcome.classify(kind: kind, sent: sent, result: .failure(error))
    }

    @Test func successCarriesTheServerItem() {
        guard case .succeeded(let item) = PushOutcome.classify(kind: .insert, sent: ["id": "a"], result: .success(["id": "a", "version": "1"])) else {
            Issue.record("expected success"); return
        }
        #expect(item?["version"] == "1")
    }

    @Test(arguments: [RemoteError.notFound, .gone])
    func deleteOfAMissingItemIsSuccess(_ error: RemoteError) {
        guard case .succeeded = classify(.delete, error) else { Issue.record("expected success"); return }
    }

    @Test(arguments: [RemoteError.notFound, .gone])
    func updateOfAMissingItemFails(_ error: RemoteError) {
        guard case .failed(let status, _, _) = classify(.update, error) else { Issue.record("expected failure"); return }
        #expect(status == error.statusCode)
    }

    @Test func deleteConflictWithASoftDeletedRowIsSuccess() {
        guard case .succeeded = classify(.delete, .preconditionFailed(serverItem: ["id": "a", "deleted": true])) else {
            Issue.record("expected success"); return
        }
    }

    @Test func insertConflictWithTheSameContentIsSuccess() {
        let server: JSONObject = ["id": "A", "text": "x", "version": "v", "updatedAt": "2026-01-01T00:00:00.000Z", "deleted": false]
        guard case .succeeded(let item) = classify(.insert, .conflict(serverItem: server)) else { Issue.record("expected success"); return }
        #expect(item?["version"] == "v")
    }

    @Test func insertConflictWithOtherContentGoesToTheHandler() {
        guard case .conflict(_, let status) = classify(.insert, .conflict(serverItem: ["id": "a", "text": "other"])) else {
            Issue.record("expected conflict"); return
        }
        #expect(status == 409)
    }

    @Test func preconditionFailedWithoutServerItemGoesToTheHandler() {
        guard case .conflict(nil, 412) = classify(.update, .preconditionFailed(serverItem: nil)) else { Issue.record("expected conflict"); return }
    }

    @Test func networkAndUnauthorizedAbort() {
        guard case .abort(.network, _) = classify(.update, .network("down")) else { Issue.record("expected network abort"); return }
        guard case .abort(.unauthorized, _) = classify(.update, .unauthorized) else { Issue.record("expected 401 abort"); return }
        guard case .abort(.cancelled, _) = PushOutcome.classify(kind: .insert, sent: nil, result: .failure(CancellationError())) else {
            Issue.record("expected cancel abort"); return
        }
    }

    @Test(arguments: [RemoteError.server(status: 500, message: "boom"), .invalidResponse("junk")])
    func otherErrorsAreRecordedAndThePushGoesOn(_ error: RemoteError) {
        guard case .failed = classify(.insert, error) else { Issue.record("expected failure"); return }
    }

    @Test func useClientAfterAnInsertConflictResendsAnUpdateWithTheServerVersion() {
        let step = PushOutcome.step(for: .useClient, kind: .insert, itemId: "a", sent: ["id": "a", "text": "mine"],
                                    serverItem: ["id": "a", "text": "theirs", "version": "v9"], statusCode: 409)
        guard case .resend(.update, let item?, "v9") = step else { Issue.record("expected resend as update"); return }
        #expect(item == ["id": "a", "text": "mine", "version": "v9"])
    }

    @Test func useMergedResendsTheMergedItem() {
        let step = PushOutcome.step(for: .useMerged(["id": "a", "text": "both"]), kind: .update, itemId: "a", sent: ["id": "a", "text": "mine", "version": "v1"],
                                    serverItem: ["id": "a", "text": "theirs", "version": "v2"], statusCode: 412)
        guard case .resend(.update, let item?, "v2") = step else { Issue.record("expected resend"); return }
        #expect(item["text"] == "both")
    }

    @Test func useServerWithoutServerItemIsRecorded() {
        guard case .record = PushOutcome.step(for: .useServer, kind: .update, itemId: "a", sent: nil, serverItem: nil, statusCode: 412) else {
            Issue.record("expected record"); return
        }
    }

    @Test func failIsRecorded() {
        guard case .record = PushOutcome.step(for: .fail, kind: .update, itemId: "a", sent: nil, serverItem: ["id": "a"], statusCode: 412) else {
            Issue.record("expected record"); return
        }
    }

    @Test func useMergedWithAnotherItemsIdIsRecordedNotSent() {
        let step = PushOutcome.step(for: .useMerged(["id": "b", "text": "both"]), kind: .update, itemId: "a",
                                    sent: ["id": "a"], serverItem: ["id": "a", "version": "v2"], statusCode: 412)
        guard case .record(let message) = step else { Issue.record("expected record"); return }
        #expect(message.contains("\"b\""))
    }

    @Test func useMergedWithoutAnIdGetsTheOperationsIdAndAnyCasing() {
        let withoutId = PushOutcome.step(for: .useMerged(["text": "both"]), kind: .update, itemId: "a", sent: ["id": "a"],
                                         serverItem: ["id": "a", "version": "v2"], statusCode: 412)
        guard case .resend(.update, let item?, "v2") = withoutId else { Issue.record("expected resend"); return }
        #expect(item["id"] == "a")
        let otherCasing = PushOutcome.step(for: .useMerged(["id": "A", "text": "both"]), kind: .update, itemId: "a",
                                           sent: ["id": "a"], serverItem: ["id": "a", "version": "v2"], statusCode: 412)
        guard case .resend = otherCasing else { Issue.record("expected resend"); return }
    }
}
