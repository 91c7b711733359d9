import OfflineSyncCore
public import OfflineSyncStore

/// A reusable check that a ``SyncContextDataSource`` keeps every promise of the protocol.
///
/// Run it in your own tests against your own store; each check gets a fresh, empty data source from your factory:
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await DataSourceConformance.check { MyStore() }
/// }
/// // or one test per check:
/// @Test(arguments: DataSourceConformance.checks)
/// func conformance(_ check: DataSourceConformance.Check) async throws {
///     try await check.run { MyStore() }
/// }
/// ```
/// It covers reads of missing items, whole-item upserts, case-insensitive ids that keep the last casing, deletes
/// (by id, unknown ids, all, by filter), every query feature (filter operators and comparison semantics, multi-key
/// ordering, skip, top, select, total count), atomicity of a batch holding one invalid change, and transactions
/// (all or nothing, and isolated: concurrent read-then-write transactions lose no update).
/// A failure throws ``ConformanceFailure`` naming the check and the difference.
public enum DataSourceConformance {
    /// One named conformance check.
    public struct Check: Sendable, CustomStringConvertible {
        /// The behaviour the check verifies, e.g. `"ids match case-insensitively"`.
        public let name: String
        let body: @Sendable (any SyncContextDataSource, inout Expectations) async throws -> Void

        init(_ name: String, _ body: @escaping @Sendable (any SyncContextDataSource, inout Expectations) async throws -> Void) {
            self.name = name
            self.body = body
        }

        /// The check's name.
        public var description: String { name }

        /// Runs the check on a fresh data source from `makeDataSource`.
        /// - Throws: ``ConformanceFailure`` when a promise is broken, or what the data source threw unexpectedly.
        public func run(_ makeDataSource: @Sendable () async throws -> any SyncContextDataSource) async throws {
            let dataSource = try await makeDataSource()
            var expectations = Expectations(check: name)
            do {
                try await body(dataSource, &expectations)
            } catch let failure as ConformanceFailure {
                throw failure
            } catch {
                throw ConformanceFailure(check: name, detail: "unexpected error: \(error)")
            }
            if let failure = expectations.failure { throw failure }
        }
    }

    /// Every check, in a stable order.
    public static var checks: [Check] { itemChecks + queryChecks + filterChecks + transactionChecks }

    /// Runs every check, each on a fresh data source.
    /// - Throws: ``ConformanceFailure`` listing every failed check.
    public static func check(_ makeDataSource: @Sendable () async throws -> any SyncContextDataSource) async throws {
        var failures: [String] = []
        for check in checks {
            do {
                try await check.run(makeDataSource)
            } catch {
                failures.append("\(error)")
            }
        }
        if !failures.isEmpty {
            throw ConformanceFailure(
                check: "all", detail: "\(failures.count) of \(checks.count) checks failed:\n" + failures.joined(separator: "\n"))
        }
    }
}

/// Collects the broken expectations of one check.
struct Expectations {
    let check: String
    private var problems: [String] = []

    init(check: String) { self.check = check }

    var failure: ConformanceFailure? {
        problems.isEmpty ? nil : ConformanceFailure(check: check, detail: problems.joined(separator: "; "))
    }

    mutating func equal<T: Equatable>(_ actual: T, _ expected: T, _ what: String) {
        if actual != expected { problems.append("\(what): expected \(expected), got \(actual)") }
    }

    mutating func that(_ condition: Bool, _ what: String) {
        if !condition { problems.append(what) }
    }

    /// Expects `body` to throw; records a problem if it does not.
    mutating func throwsError(_ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            problems.append("\(what): expected an error, none was thrown")
        } catch {}
    }
}

extension SyncContextDataSource {
    /// The ids of every item `query` returns, in order.
    func ids(_ query: Query) async throws -> [String] {
        try await read(query).items.map { $0["id"]?.stringValue ?? "<no id>" }
    }

    /// The ids of the items matching `filter` in `table`, sorted.
    func matchingIds(_ table: String, _ filter: Filter) async throws -> [String] {
        try await ids(Query(table: table, filter: filter)).sorted()
    }
}
