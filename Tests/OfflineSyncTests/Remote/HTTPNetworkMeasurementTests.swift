import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Bench S3 and S4 over real HTTP: the loopback table server answers each request 50 ms after it acted, and the
/// push and the pull keep 8 requests in flight. A measurement, not a timed test: it runs only with
/// `OFFLINESYNC_HTTP_BENCH=1`, prints the time beside what a one-at-a-time client needs (requests × 50 ms) and the
/// ratio, and asserts only that the push and the pull were complete.
///
///     OFFLINESYNC_HTTP_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter HTTPNetworkMeasurementTests
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["OFFLINESYNC_HTTP_BENCH"] == "1"))
struct HTTPNetworkMeasurementTests {
    private static let latency = 0.05
    private static let inFlight = 8

    @Test func s3PushOf1000InsertsOverHTTP() async throws {
        let records = BenchmarkRecords.generate(count: 1_000).map(\.object)
        let server = try TableProtocolServer(responseDelay: .milliseconds(50))
        defer { server.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store, options: JournalOptions(durability: .always))
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: server.baseURL))
        let table = context.table(BenchmarkRecords.table)
        for record in records {
            var item = record
            item["version"] = nil
            try await table.insert(item)
        }
        let start = ContinuousClock.now
        let result = try await context.push(settings: PushSettings(maximumConcurrentRequests: Self.inFlight))
        let elapsed = start.duration(to: .now)
        try await store.close()
        #expect(result.pushed == records.count)
        #expect(server.rows(BenchmarkRecords.table).count == records.count)
        #expect(server.truncatedRequests.isEmpty)
        report("S3 over HTTP: push of \(records.count) inserts", elapsed, requests: server.requests.count,
               oneAtATimeRequests: records.count)
    }

    @Test func s4FirstPullOf20000RecordsOverHTTP() async throws {
        let records = BenchmarkRecords.generate(count: 20_000).map(\.object)
        let server = try TableProtocolServer(pageSize: 50, responseDelay: .milliseconds(50))
        defer { server.stop() }
        server.seed(records, table: BenchmarkRecords.table)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store, options: JournalOptions(durability: .always))
        let context = SyncContext(dataSource: store, remote: HTTPRemote(baseURL: server.baseURL))
        var settings = PullSettings(pageSize: 50)
        settings.maximumConcurrentRequests = Self.inFlight
        let start = ContinuousClock.now
        try await context.table(BenchmarkRecords.table).pull(queryId: "s4", settings: settings)
        let elapsed = start.duration(to: .now)
        let stored = try await store.read(Query(table: BenchmarkRecords.table, includeTotalCount: true)).totalCount
        try await store.close()
        #expect(stored == records.count)
        report("S4 over HTTP: first pull of \(records.count) records, page 50", elapsed, requests: server.requests.count,
               oneAtATimeRequests: records.count / 50 + 1)
    }

    /// A first pull of 2,000 rows, pages of 50, each answer 100 ms (then 50 ms) after the server acted, in both
    /// dialects: the default 4 requests in flight against one at a time, both in this run. Beside each time, how many
    /// requests were in flight on average (the requests' summed durations over the pull's time) and the most the
    /// server served at once. With `OFFLINESYNC_HTTP_TIMELINE=1` every request's start and end are printed too.
    @Test(arguments: [APIVersion.v2, .v3], [100, 50])
    func pullOf2000RowsWithFourInFlightAgainstOneAtATime(version: APIVersion, milliseconds: Int) async throws {
        let records = BenchmarkRecords.generate(count: 2_000).map(\.object)
        var seconds: [Int: Double] = [:]
        for inFlight in [1, 4] {
            let server = try TableProtocolServer(version: version, pageSize: 50, responseDelay: .milliseconds(milliseconds))
            defer { server.stop() }
            server.seed(records, table: BenchmarkRecords.table)
            let store = InMemoryDataSource()
            let timeline = RequestTimeline()
            let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: version,
                                    configuration: HTTPRemoteConfiguration(requestHook: timeline.hook))
            let context = SyncContext(dataSource: store, remote: remote)
            var settings = PullSettings(pageSize: 50)
            settings.maximumConcurrentRequests = inFlight
            let start = ContinuousClock.now
            try await context.table(BenchmarkRecords.table).pull(queryId: "all", settings: settings)
            let elapsed = Self.seconds(start.duration(to: .now))
            seconds[inFlight] = elapsed
            #expect(try await store.read(Query(table: BenchmarkRecords.table, includeTotalCount: true)).totalCount == 2_000)
            print(String(format: "Pull of 2,000 rows over HTTP (%@), %d ms a request, %d in flight: %.2f s (%d requests; "
                         + "%.2f in flight on average, at most %d at the server)", "\(version)", milliseconds, inFlight,
                         elapsed, server.requests.count, timeline.busySeconds / elapsed, server.maximumRequestsAtOnce))
            if ProcessInfo.processInfo.environment["OFFLINESYNC_HTTP_TIMELINE"] == "1" { timeline.print(from: start) }
        }
        print(String(format: "Pull over HTTP (%@), %d ms a request: 4 in flight against one at a time: %.2fx",
                     "\(version)", milliseconds, (seconds[1] ?? 0) / (seconds[4] ?? 1)))
    }

    /// A first push of 100 queued inserts, each answer 100 ms (then 50 ms) after the server acted, in both dialects:
    /// 4 requests in flight against one at a time, both in this run, each on a context of its own (which starts one at
    /// a time until it finds the remote slow).
    @Test(arguments: [APIVersion.v2, .v3], [100, 50])
    func pushOf100InsertsWithFourInFlightAgainstOneAtATime(version: APIVersion, milliseconds: Int) async throws {
        let records = BenchmarkRecords.generate(count: 100).map(\.object)
        var seconds: [Int: Double] = [:]
        for inFlight in [1, 4] {
            let server = try TableProtocolServer(version: version, responseDelay: .milliseconds(milliseconds))
            defer { server.stop() }
            let timeline = RequestTimeline()
            let remote = HTTPRemote(baseURL: server.baseURL, apiVersion: version,
                                    configuration: HTTPRemoteConfiguration(requestHook: timeline.hook))
            let context = SyncContext(dataSource: InMemoryDataSource(), remote: remote)
            let table = context.table(BenchmarkRecords.table)
            for record in records {
                var item = record
                item["version"] = nil
                try await table.insert(item)
            }
            let start = ContinuousClock.now
            let result = try await context.push(settings: PushSettings(maximumConcurrentRequests: inFlight))
            let elapsed = Self.seconds(start.duration(to: .now))
            seconds[inFlight] = elapsed
            #expect(result.pushed == records.count)
            #expect(server.rows(BenchmarkRecords.table).count == records.count)
            print(String(format: "Push of 100 inserts over HTTP (%@), %d ms a request, %d in flight: %.2f s (%d requests; "
                         + "%.2f in flight on average, at most %d at the server)", "\(version)", milliseconds, inFlight,
                         elapsed, server.requests.count, timeline.busySeconds / elapsed, server.maximumRequestsAtOnce))
            if ProcessInfo.processInfo.environment["OFFLINESYNC_HTTP_TIMELINE"] == "1" { timeline.print(from: start) }
        }
        print(String(format: "Push over HTTP (%@), %d ms a request: 4 in flight against one at a time: %.2fx",
                     "\(version)", milliseconds, (seconds[1] ?? 0) / (seconds[4] ?? 1)))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func report(_ workload: String, _ elapsed: Duration, requests: Int, oneAtATimeRequests: Int) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let oneAtATime = Double(oneAtATimeRequests) * Self.latency
        let figures = String(format: "%.2f s (%d requests); one at a time %d × 50 ms = %.2f s; %.1f× faster", seconds,
                             requests, oneAtATimeRequests, oneAtATime, oneAtATime / seconds)
        print("\(workload), \(Self.inFlight) in flight, 50 ms a request: \(figures)")
    }
}

/// The requests an ``HTTPRemote`` sent, each with its end and duration, from its request hook.
private final class RequestTimeline: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [(end: ContinuousClock.Instant, duration: Duration, query: String)] = []

    var hook: HTTPRequestHook {
        HTTPRequestHook { [self] event in
            let end = ContinuousClock.now
            lock.withLock { events.append((end, event.duration, event.url.query ?? "")) }
        }
    }

    /// The summed durations of the requests, in seconds.
    var busySeconds: Double {
        lock.withLock { events.reduce(0) { $0 + Double($1.duration.components.attoseconds) / 1e18 + Double($1.duration.components.seconds) } }
    }

    /// Prints every request's start and end in milliseconds from `start`, by start.
    func print(from start: ContinuousClock.Instant) {
        let rows = lock.withLock { events }.map { event -> (Double, Double, String) in
            let end = start.duration(to: event.end)
            let endMilliseconds = Double(end.components.seconds) * 1e3 + Double(end.components.attoseconds) / 1e15
            let length = Double(event.duration.components.seconds) * 1e3 + Double(event.duration.components.attoseconds) / 1e15
            return (endMilliseconds - length, endMilliseconds, event.query.removingPercentEncoding ?? event.query)
        }.sorted { $0.0 < $1.0 }
        for row in rows { Swift.print(String(format: "  %7.1f → %7.1f ms  %@", row.0, row.1, String(row.2.prefix(150)))) }
    }
}
