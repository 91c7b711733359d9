import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// Random filter trees: their OData text is well-formed in both dialects, local evaluation agrees with a
/// straightforward evaluator written here from the documented rules, and filters with one canonical form select the
/// same items.
struct FilterFuzzTests {
    static let values: [JSONValue] = [
        .null, true, false, 0, 1, -3, 2, .double(2.0), .double(-2.5), .double(0.5), "", "a", "ab", "b", "B", "é",
        "e\u{301}", "it's", "a\\b", [1], [1, "a"], ["k": 1],
    ]
    static let names = ["f0", "f1", "f2", "f3", "bad name"]

    static func pick<T>(_ options: [T], _ generator: inout SplitMix64) -> T {
        options[Int(generator.next() % UInt64(options.count))]
    }

    static func randomItem(_ generator: inout SplitMix64) -> JSONObject {
        var item: JSONObject = [:]
        for name in names where generator.next() % 4 != 0 { item[name] = pick(values, &generator) }
        return item
    }

    static func randomFilter(_ generator: inout SplitMix64, depth: Int) -> Filter {
        let field = Field(pick(names, &generator))
        switch depth == 0 ? generator.next() % 2 : generator.next() % 5 {
        case 0:
            let ops: [ComparisonOperator] = [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
            return .comparison(field, pick(ops, &generator), pick(values, &generator))
        case 1:
            let needles = ["", "a", "b", "é", "'", "ab"]
            return .string(field, pick([.contains, .hasPrefix, .hasSuffix], &generator), pick(needles, &generator))
        case 2: return .and(randomFilter(&generator, depth: depth - 1), randomFilter(&generator, depth: depth - 1))
        case 3: return .or(randomFilter(&generator, depth: depth - 1), randomFilter(&generator, depth: depth - 1))
        default: return .not(randomFilter(&generator, depth: depth - 1))
        }
    }

    // MARK: - The reference evaluator

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let int): return Double(int)
        case .double(let double): return double
        default: return nil
        }
    }

    static func same(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return Array(a.unicodeScalars) == Array(b.unicodeScalars)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            return Set(a.keys) == Set(b.keys) && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
        default:
            guard let a = number(lhs), let b = number(rhs) else { return false }
            return a == b
        }
    }

    /// -1, 0 or 1 for two values of one ordered kind; nil otherwise.
    static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.string(let a), .string(let b)):
            let x = a.unicodeScalars.map(\.value), y = b.unicodeScalars.map(\.value)
            return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        default:
            guard let a = number(lhs), let b = number(rhs) else { return nil }
            return a == b ? 0 : (a < b ? -1 : 1)
        }
    }

    static func holds(_ filter: Filter, _ item: JSONObject) -> Bool {
        switch filter {
        case .comparison(let field, let op, let value):
            let held = item[field.name] ?? .null
            switch op {
            case .equal: return same(held, value)
            case .notEqual: return !same(held, value)
            case .lessThan: return compare(held, value) == -1
            case .greaterThan: return compare(held, value) == 1
            case .lessThanOrEqual: return same(held, value) || compare(held, value) == -1
            case .greaterThanOrEqual: return same(held, value) || compare(held, value) == 1
            }
        case .string(let field, let match, let needle):
            guard case .string(let text)? = item[field.name] else { return false }
            let haystack = Array(text.unicodeScalars), part = Array(needle.unicodeScalars)
            switch match {
            case .hasPrefix: return haystack.starts(with: part)
            case .hasSuffix: return haystack.reversed().starts(with: part.reversed())
            case .contains:
                return part.isEmpty || (0..<max(0, haystack.count - part.count + 1)).contains { haystack[$0...].starts(with: part) }
            }
        case .and(let lhs, let rhs): return holds(lhs, item) && holds(rhs, item)
        case .or(let lhs, let rhs): return holds(lhs, item) || holds(rhs, item)
        case .not(let inner): return !holds(inner, item)
        case .dateComparison: return false
        }
    }

    // MARK: - Tests

    @Test func localEvaluationAgreesWithTheReferenceEvaluator() {
        var generator = SplitMix64(seed: 4242)
        let items = (0..<64).map { _ in Self.randomItem(&generator) }
        var matched = 0
        for round in 0..<FuzzBudget.cases(10_000) {
            let filter = Self.randomFilter(&generator, depth: 3)
            for item in items {
                let expected = Self.holds(filter, item)
                #expect(filter.matches(item) == expected, "round \(round): \(filter.odata) on \(JSONValue.object(item).jsonString())")
                if expected { matched += 1 }
            }
        }
        #expect(matched > 1000)
    }

    @Test func odataTextIsWellFormedInBothDialects() {
        var generator = SplitMix64(seed: 99)
        for round in 0..<FuzzBudget.cases(5_000) {
            var filter = Self.randomFilter(&generator, depth: 4)
            if generator.next() % 4 == 0 {
                filter = filter && .dateComparison(Field("updatedAt"), .greaterThan, .init(timeIntervalSince1970: 1.5e9))
            }
            for dialect in [ODataDialect.odataV3, .odataV4] {
                let text = filter.odata(dialect)
                #expect(ODataGrammar.accepts(text), "round \(round), \(dialect): \(text)")
            }
        }
    }

    @Test func theGrammarCheckRejectsMalformedText() {
        for text in ["", "(a eq 1", "a eq 1", "(a eq)", "((a eq 1) xor (b eq 2))", "not (a eq 1)", "(a eq 'x)",
                     "startswith('x',a)", "(eq eq 1)", "substringof(a,'x')"] {
            #expect(!ODataGrammar.accepts(text), "\(text)")
        }
        #expect(ODataGrammar.accepts("((a eq 1) and not((b ne 'it''s')))"))
    }

    /// Regroups every chain of `and`s (and of `or`s) at random, keeping its operands in order.
    static func regrouped(_ filter: Filter, _ generator: inout SplitMix64) -> Filter {
        func chain(_ filter: Filter, and: Bool) -> [Filter] {
            switch (filter, and) {
            case (.and(let lhs, let rhs), true), (.or(let lhs, let rhs), false): return chain(lhs, and: and) + chain(rhs, and: and)
            default: return [filter]
            }
        }
        func group(_ operands: [Filter], and: Bool, _ generator: inout SplitMix64) -> Filter {
            guard operands.count > 1 else { return regrouped(operands[0], &generator) }
            let cut = 1 + Int(generator.next() % UInt64(operands.count - 1))
            let lhs = group(Array(operands[..<cut]), and: and, &generator), rhs = group(Array(operands[cut...]), and: and, &generator)
            return and ? .and(lhs, rhs) : .or(lhs, rhs)
        }
        switch filter {
        case .and: return group(chain(filter, and: true), and: true, &generator)
        case .or: return group(chain(filter, and: false), and: false, &generator)
        case .not(let inner): return .not(regrouped(inner, &generator))
        default: return filter
        }
    }

    @Test func filtersWithOneCanonicalFormSelectTheSameItems() {
        var generator = SplitMix64(seed: 7)
        let items = (0..<64).map { _ in Self.randomItem(&generator) }
        var byForm: [[UInt8]: Filter] = [:]  // Keyed by bytes: Swift strings compare by canonical equivalence.
        var shared = 0
        for round in 0..<FuzzBudget.cases(5_000) {
            let filter = Self.randomFilter(&generator, depth: Int(generator.next() % 4))
            let regrouped = Self.regrouped(filter, &generator)
            #expect(Array(regrouped.canonicalForm.utf8) == Array(filter.canonicalForm.utf8), "round \(round): \(filter) and \(regrouped)")
            for candidate in [filter, regrouped] {
                let form = Array(candidate.canonicalForm.utf8)
                guard let earlier = byForm[form] else {
                    byForm[form] = candidate
                    continue
                }
                shared += 1
                for item in items where earlier.matches(item) != candidate.matches(item) {
                    Issue.record("round \(round): \(earlier) and \(candidate) share a form but not \(item)")
                }
            }
        }
        #expect(shared > 1000)
    }
}
