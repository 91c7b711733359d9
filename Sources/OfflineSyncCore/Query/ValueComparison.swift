#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The comparison semantics shared by filters and sorting: numbers compared exactly across `Int64` and `Double`,
/// strings by Unicode scalar order, containers element-wise.
package enum ValueComparison {
    /// Compares two numbers exactly, an `Int64` with a `Double` included.
    static func compareNumbers(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.double(let a), .double(let b)): return a < b ? -1 : (a == b ? 0 : (a > b ? 1 : nil))
        case (.int(let a), .double(let b)): return compare(a, b)
        case (.double(let a), .int(let b)): return compare(b, a).map { -$0 }
        default: return nil
        }
    }

    /// Exact comparison of an integer with a double (no rounding of large integers).
    private static func compare(_ int: Int64, _ double: Double) -> Int? {
        guard !double.isNaN else { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let truncated = double.rounded(.towardZero)
        let whole = Int64(truncated)
        if int != whole { return int < whole ? -1 : 1 }
        let fraction = double - truncated
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    /// Compares strings by Unicode scalar order (equivalently, by UTF-8 bytes).
    package static func compareStrings(_ lhs: String, _ rhs: String) -> Int {
        let result = lhs.utf8.withContiguousStorageIfAvailable { a in
            rhs.utf8.withContiguousStorageIfAvailable { b in compareBytes(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) }
        }
        if let result = result ?? nil { return result }
        // A string without contiguous UTF-8 (bridged from Objective-C): compare it as a sequence.
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : (lhs.utf8.elementsEqual(rhs.utf8) ? 0 : 1)
    }

    /// Compares two byte strings in `memcmp` order: by their first differing byte, else the shorter (a proper
    /// prefix) first. Strings, sort columns, index entries and the testing back end's ids all compare through this.
    package static func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let count = min(a.count, b.count)
        if count > 0, let first = a.baseAddress, let second = b.baseAddress {
            let result = memcmp(first, second, count)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
    }

    /// Scalar-exact equality: numbers numerically, strings byte for byte, containers element-wise.
    package static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double):
            return compareNumbers(lhs, rhs) == 0
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let other = b[key], equal(value, other) else { return false }
            }
            return true
        default: return false
        }
    }

    /// Orders two values of the same orderable kind (numbers, strings, Booleans); nil when the kinds differ
    /// or the kind is not ordered by filters (null, arrays, objects).
    static func order(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.string(let a), .string(let b)): return compareStrings(a, b)
        default: return compareNumbers(lhs, rhs)
        }
    }

    /// The total order used for sorting: null (and missing) < bool < number < string < array < object.
    package static func sortOrder(_ lhs: JSONValue, _ rhs: JSONValue) -> Int {
        if case .string(let a) = lhs, case .string(let b) = rhs { return compareStrings(a, b) }
        let lhsRank = rank(lhs), rhsRank = rank(rhs)
        if lhsRank != rhsRank { return lhsRank < rhsRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let result = sortOrder(x, y)
                if result != 0 { return result }
            }
            return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
        case (.object(let a), .object(let b)):
            let aKeys = a.keys.sorted { compareStrings($0, $1) < 0 }
            let bKeys = b.keys.sorted { compareStrings($0, $1) < 0 }
            for (x, y) in zip(aKeys, bKeys) {
                let keyOrder = compareStrings(x, y)
                if keyOrder != 0 { return keyOrder }
                let valueOrder = sortOrder(a[x] ?? .null, b[y] ?? .null)
                if valueOrder != 0 { return valueOrder }
            }
            return aKeys.count < bKeys.count ? -1 : (aKeys.count == bKeys.count ? 0 : 1)
        case (.double(let a), .double(let b)) where a.isNaN || b.isNaN:
            return a.isNaN == b.isNaN ? 0 : (a.isNaN ? -1 : 1)
        default:
            return order(lhs, rhs) ?? 0
        }
    }

    private static func rank(_ value: JSONValue) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .int, .double: return 2
        case .string: return 3
        case .array: return 4
        case .object: return 5
        }
    }
}
