import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A 409 or 412 caused by this device's own earlier attempt, whose answer was lost, is not a conflict: the
/// pending change is sent again over the server's version, and the queue drains without the conflict handler.
struct OwnAttemptConflictTests {
    enum Write: Sendable {
        case insert(String), update(String), delete
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        /// The local writes; a push whose answer is lost follows each but the last.
        var writes: [Write]
        /// Whether the item exists on the server (and locally, pulled) before the first write.
        var seeded: Bool
        /// Whether the first push loses two answers in a row (the second one: of the next request sent).
        var lostTwice: Bool
        var testDescription: String { name + (lostTwice ? ", answers lost twice in a row" : ", answers lost once") }
    }

    static let scenarios: [Scenario] = [true, false].flatMap { twice in [
        Scenario(name: "update then update", writes: [.update("A"), .update("B")], seeded: true, lostTwice: twice),
        Scenario(name: "update then delete", writes: [.update("A"), .delete], seeded: true, lostTwice: twice),
        Scenario(name: "insert then update then delete", writes: [.insert("A"), .update("B"), .delete], seeded: false,
                 lostTwice: twice),
        Scenario(name: "insert then update", writes: [.insert("A"), .update("B")], seeded: false, lostTwice: twice),
    ] }

    private func perform(_ write: Write, on fixture: EngineFixture) async throws {
        let local = try await fixture.todo.read(id: "x") ?? ["id": "x"]
        switch write {
        case .insert(let text): try await fixture.todo.insert(["id": "x", "text": .string(text)])
        case .update(let text):
            var item = local
            item["text"] = .string(text)
            try await fixture.todo.update(item)
        case .delete: try await fixture.todo.delete(local)
        }
    }

    @Test(arguments: StoreKind.allCases, scenarios)
    func theDevicesOwnLandedAttemptIsNotAConflict(_ kind: StoreKind, _ scenario: Scenario) async throws {
        let handler = FixedResolution(.fail)
        var fixture = try await EngineFixture(kind, handler: handler)
        if scenario.seeded {
            await fixture.remote.seed([["id": "x", "text": "server"]], table: "TodoItem")
            try await fixture.todo.pull()
        }
        for (index, write) in scenario.writes.enumerated() {
            try await perform(write, on: fixture)
            guard index < scenario.writes.count - 1 else { break }
            await fixture.remote.loseNextResponses(index == 0 && scenario.lostTwice ? 2 : 1)
            let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
            #expect(error?.reason == .network && error?.errors.isEmpty == true)
            if index == 0 { try await fixture.restart(handler: handler) }
        }
        if scenario.lostTwice {
            // The second lost answer: the next request the device sends applies, and its answer is lost too.
            let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
            #expect(error?.reason == .network && error?.errors.isEmpty == true)
        }

        try await fixture.context.push()
        #expect(try await fixture.operations().isEmpty)
        #expect(try await fixture.context.operationErrors().isEmpty)
        #expect(await handler.conflicts.isEmpty)
        let server = await fixture.remote.item(id: "x", table: "TodoItem")
        switch scenario.writes.last {
        case .delete?:
            #expect(server?["deleted"] == true)
            #expect(try await fixture.todo.read(id: "x") == nil)
        case .update(let text)?, .insert(let text)?:
            #expect(server?["text"] == .string(text) && server?["deleted"] == false)
            #expect(try await fixture.todo.read(id: "x") == server)
        case nil:
            Issue.record("a scenario without writes")
        }
    }

    /// A fixture whose server and store hold `x`, and whose update of `x` to "A" landed with its answer lost.
    private func updateWhoseAnswerWasLost(_ kind: StoreKind) async throws -> EngineFixture {
        let fixture = try await EngineFixture(kind)
        await fixture.remote.seed([["id": "x", "text": "server"]], table: "TodoItem")
        try await fixture.todo.pull()
        try await perform(.update("A"), on: fixture)
        await fixture.remote.loseNextResponses(1)
        await #expect(throws: PushError.self) { try await fixture.context.push() }
        return fixture
    }

    @Test(arguments: StoreKind.allCases)
    func anotherWritersChangeAfterOurLandedUpdateIsStillAConflict(_ kind: StoreKind) async throws {
        let fixture = try await updateWhoseAnswerWasLost(kind)
        await fixture.remote.serverUpdate(id: "x", table: "TodoItem", fields: ["text": "theirs"])
        try await perform(.update("B"), on: fixture)

        let error = await #expect(throws: PushError.self) { try await fixture.context.push() }
        #expect(error?.errors.first?.statusCode == 412)
        #expect(error?.errors.first?.serverItem?["text"] == "theirs")
        #expect(try await fixture.operations().map(\.kind) == [.update])
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteWhoseItemTheServerHoldsUnderANewerVersionIsResentWithIt(_ kind: StoreKind) async throws {
        // The update's answer was lost; the delete that replaced it carries the old version in its snapshot.
        let fixture = try await updateWhoseAnswerWasLost(kind)
        let landed = await fixture.remote.item(id: "x", table: "TodoItem")?["version"]?.stringValue
        try await perform(.delete, on: fixture)
        await fixture.remote.clearRequests()

        try await fixture.context.push()
        let log = await fixture.remote.requestLog
        #expect(log.map(\.description) == ["DELETE TodoItem/x", "DELETE TodoItem/x"])
        #expect(log.first?.ifMatch != landed)
        #expect(log.last?.ifMatch == landed)
        #expect(await fixture.remote.item(id: "x", table: "TodoItem")?["deleted"] == true)
    }
}
