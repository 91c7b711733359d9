import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// The query shapes beside W5 (``BenchmarkQueryShape``): the W3 store opened again (not timed) with the
    /// indexes `(complete, updatedAt)` and `(priority)`, each shape's plan checked to use an index, its answer
    /// checked against `Query.evaluate` over the records, then a tenth of W5's calls each timed on its own.
    /// compare.sh's GRDB bench does not run them: they are this bench's figures only.
    func runQueryShapes(_ directory: URL, _ records: [BenchmarkRecord]) async throws {
        let store = try await factory.open(directory: directory, durability: .always, indexes: BenchmarkQueryShape.indexes)
        do {
            let items = records.map(\.object)
            for shape in BenchmarkQueryShape.all {
                let plan = try await store.explain(shape.query)
                guard plan.index != nil else {
                    throw BenchFailure.checkFailed(workload: "W5", detail: "\(shape.metric): the query does not use an index: \(plan)")
                }
                log("offline-sync bench: \(shape.metric) (\(shape.sql)): \(plan)")
                var latencies: [Double] = []
                var result = QueryResult(items: [])
                for _ in 0..<max(sizes.queries / 10, 1) {
                    let begin = MonotonicClock.now()
                    result = try await store.source.read(shape.query)
                    latencies.append(MonotonicClock.now() - begin)
                }
                try Self.requireSameAnswer(result, shape.query.evaluate(over: items), shape)
                try report.record("W5", shape.metric, BenchStatistics.median(latencies) * 1e6, "us")
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// Throws unless `result` has `expected`'s count and `orderBy` values position by position, and only matches
    /// (which items fill a page is decided only up to ties).
    private static func requireSameAnswer(_ result: QueryResult, _ expected: QueryResult, _ shape: BenchmarkQueryShape) throws {
        let keys = shape.query.orderBy.map(\.field)
        let sameOrder = result.items.map { item in keys.map { item[$0] } } == expected.items.map { item in keys.map { item[$0] } }
        guard result.totalCount == expected.totalCount, result.items.count == expected.items.count, sameOrder,
              result.items.allSatisfy({ shape.query.filter?.matches($0) ?? true }) else {
            throw BenchFailure.checkFailed(
                workload: "W5", detail: "\(shape.metric): \(result.items.count) items (count \(result.totalCount ?? -1)), "
                    + "not the \(expected.items.count) (count \(expected.totalCount ?? -1)) the query selects")
        }
    }
}
