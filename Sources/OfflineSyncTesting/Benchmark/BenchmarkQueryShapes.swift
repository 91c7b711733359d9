package import OfflineSyncCore
package import OfflineSyncStore

/// The query shapes apps write beside W5's, over the benchmark's records with the indexes `(complete, updatedAt)`
/// and `(priority)`: each one a metric of the bench, answered from the indexes.
package struct BenchmarkQueryShape: Sendable {
    /// The metric, in microseconds per call, such as `w5_day_range_us`.
    package var metric: String
    /// The query in SQL terms, for the logs.
    package var sql: String
    /// The query.
    package var query: Query

    /// The indexes the shapes are measured with: W5's, and one on `priority`.
    package static let indexes = [
        IndexDefinition(table: BenchmarkRecords.table, fields: ["complete", "updatedAt"]),
        IndexDefinition(table: BenchmarkRecords.table, fields: ["priority"]),
    ]

    /// Every shape, in the order the bench runs them.
    package static let all: [BenchmarkQueryShape] = {
        let table = BenchmarkRecords.table
        return [
            BenchmarkQueryShape(
                metric: "w5_day_range_us",
                sql: "complete = 0 AND updatedAt >= '2026-06-01T00:00:00.000Z' AND updatedAt < '2026-06-02T00:00:00.000Z' ORDER BY updatedAt DESC",
                query: Query(table: table, filter: Field("complete") == false && Field("updatedAt") >= "2026-06-01T00:00:00.000Z"
                    && Field("updatedAt") < "2026-06-02T00:00:00.000Z", orderBy: [.descending("updatedAt")])),
            BenchmarkQueryShape(
                metric: "w5_priority_newest_us", sql: "priority = 7 ORDER BY updatedAt DESC LIMIT 20",
                query: Query(table: table, filter: Field("priority") == 7, orderBy: [.descending("updatedAt")], top: 20)),
            BenchmarkQueryShape(
                metric: "w5_newest_us", sql: "ORDER BY updatedAt DESC LIMIT 20",
                query: Query(table: table, orderBy: [.descending("updatedAt")], top: 20)),
            BenchmarkQueryShape(
                metric: "w5_last_week_us", sql: "updatedAt > '2026-12-25T00:00:00.000Z'",
                query: Query(table: table, filter: Field("updatedAt") > "2026-12-25T00:00:00.000Z")),
            BenchmarkQueryShape(
                metric: "w5_deep_page_us", sql: "complete = 0 ORDER BY updatedAt DESC LIMIT 50 OFFSET 5000",
                query: Query(table: table, filter: Field("complete") == false, orderBy: [.descending("updatedAt")], skip: 5_000, top: 50)),
            BenchmarkQueryShape(
                metric: "w5_count_us", sql: "SELECT count(*) WHERE priority = 7",
                query: Query(table: table, filter: Field("priority") == 7, top: 0, includeTotalCount: true)),
            BenchmarkQueryShape(
                metric: "w5_two_equalities_us", sql: "complete = 0 AND priority = 7 LIMIT 50, with count(*)",
                query: Query(table: table, filter: Field("complete") == false && Field("priority") == 7, top: 50, includeTotalCount: true)),
        ]
    }()
}
