import Testing
import OfflineSync
import OfflineSyncTesting
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The back-end simulator keeps the reference server's semantics.
struct InMemoryRemoteTests {
    @Test func insertAssignsSystemPropertiesWithMilliseconds() async throws {
        let remote = InMemoryRemote()
        let row = try await remote.insert(["id": "a", "text": "x"], table: "T")
        #expect(row["version"]?.stringValue?.isEmpty == false)
        #expect(row["deleted"] == false)
        let updatedAt = try #require(row["updatedAt"]?.stringValue)
        #expect(updatedAt.count == 24 && updatedAt.hasSuffix("Z") && Timestamp.milliseconds(from: updatedAt) != nil)
        #expect(row["createdAt"] == row["updatedAt"])
        #expect(await remote.requests == ["POST T/a"])
    }

    @Test func everyWriteChangesTheVersion() async throws {
        let remote = InMemoryRemote()
        let first = try await remote.insert(["id": "a"], table: "T")
        let second = try await remote.update(["id": "a", "text": "y"], table: "T")
        #expect(first["version"] != second["version"])
        let third = try #require(await remote.serverUpdate(id: "a", table: "T", fields: ["text": "z"]))
        #expect(third["version"] != second["version"])
    }

    @Test func duplicateInsertAnswers409WithTheServerRow() async throws {
        let remote = InMemoryRemote()
        await remote.seed([["id": "a", "text": "server"]], table: "T")
        await #expect { try await remote.insert(["id": "A", "text": "mine"], table: "T") } throws: { error in
            guard case RemoteError.conflict(let item?) = error else { return false }
            return item["text"] == "server"
        }
    }

    @Test func insertWithReservedPropertiesAnswers400() async throws {
        let remote = InMemoryRemote()
        await #expect { try await remote.insert(["id": "a", "updatedAt": "2026-01-01T00:00:00.000Z"], table: "T") } throws: { error in
            guard case RemoteError.server(400, _) = error else { return false }
            return true
        }
    }

    @Test func versionMismatchAnswers412WithTheServerRow() async throws {
        let remote = InMemoryRemote()
        await remote.seed([["id": "a", "text": "server"]], table: "T")
        await #expect { try await remote.update(["id": "a", "version": "old"], table: "T") } throws: { error in
            guard case RemoteError.preconditionFailed(let item?) = error else { return false }
            return item["text"] == "server"
        }
        await #expect { try await remote.delete(id: "a", version: "old", table: "T") } throws: { error in
            guard case RemoteError.preconditionFailed = error else { return false }
            return true
        }
        #expect(await remote.requestLog.map(\.ifMatch) == ["old", "old"])
    }

    @Test func deleteIsSoftAndHidesTheRowFromReads() async throws {
        let remote = InMemoryRemote()
        await remote.seed([["id": "a"], ["id": "b"]], table: "T")
        try await remote.delete(id: "a", version: nil, table: "T")
        #expect(await remote.items(table: "T").count == 1)
        #expect(await remote.items(table: "T", includeDeleted: true).count == 2)
        #expect(try await remote.read(Query(table: "T")).items.count == 1)
        #expect(try await remote.read(Query(table: "T", includeDeleted: true)).items.count == 2)
        await #expect(throws: RemoteError.self) { try await remote.delete(id: "a", version: nil, table: "T") }
        await #expect(throws: RemoteError.self) { try await remote.update(["id": "a"], table: "T") }
        await #expect(throws: RemoteError.self) { try await remote.insert(["id": "a"], table: "T") }
    }

    @Test func readsReturnAtMostThePageSizeInAStableOrder() async throws {
        let remote = InMemoryRemote(pageSize: 3)
        await remote.freezeClock(at: Date(timeIntervalSince1970: 1_000))
        await remote.seed((1...5).map { ["id": .string("r\($0)")] }, table: "T")
        let query = Query(table: "T", orderBy: [.ascending("updatedAt")], skip: 2, top: 50, includeTotalCount: true)
        let page = try await remote.read(query)
        #expect(page.items.map(\.["id"]) == ["r3", "r4", "r5"])
        #expect(page.totalCount == 5)
    }

    @Test func filtersUseTheLocalSemanticsAndTimestampsCompareAsInstants() async throws {
        let remote = InMemoryRemote()
        await remote.seed([["id": "a", "n": 1, "updatedAt": "2026-01-01T00:00:00.5Z"], ["id": "b", "n": 2.5, "updatedAt": "2026-01-01T00:00:00.400Z"]], table: "T")
        let page = try await remote.read(Query(table: "T", filter: Field("updatedAt") >= "2026-01-01T00:00:00.500Z" && Field("n") < 2))
        #expect(page.items.map(\.["id"]) == ["a"])
    }

    @Test func faultsOfflineAndLostResponses() async throws {
        let remote = InMemoryRemote()
        await remote.failNext(1, with: .unauthorized, on: .read)
        _ = try await remote.insert(["id": "a"], table: "T")
        await #expect(throws: RemoteError.self) { try await remote.read(Query(table: "T")) }
        await remote.setOffline(true)
        await #expect(throws: RemoteError.self) { try await remote.insert(["id": "b"], table: "T") }
        await remote.setOffline(false)
        #expect(await remote.item(id: "b", table: "T") == nil)
        await remote.loseNextResponses(1)
        await #expect(throws: RemoteError.self) { try await remote.insert(["id": "c"], table: "T") }
        #expect(await remote.item(id: "c", table: "T") != nil)
        #expect(await remote.requests == ["POST T/a", "GET T", "POST T/b", "POST T/c"])
    }

    @Test func seedKeepsGivenTimestampsAndGeneratesMissingIds() async throws {
        let remote = InMemoryRemote()
        await remote.seed([["updatedAt": "2020-02-02T02:02:02.002Z", "text": "x"]], table: "T")
        let row = try #require(await remote.items(table: "T").first)
        #expect(row["updatedAt"] == "2020-02-02T02:02:02.002Z")
        #expect(row["id"]?.stringValue.map(ItemID.isValid) == true)
        #expect(await remote.requests.isEmpty)
    }
}

extension InMemoryRemoteTests {
    @Test func insertWithoutIdLogsTheGeneratedId() async throws {
        let remote = InMemoryRemote()
        let row = try await remote.insert(["text": "x"], table: "T")
        let id = try #require(row["id"]?.stringValue)
        #expect(await remote.requests == ["POST T/\(id)"])
    }
}
