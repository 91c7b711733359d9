import Foundation
import OfflineSync

/// The part of a `$filter` that ``TableProtocolServer`` understands: an incremental pull's lower bound, in either
/// dialect's date literal (`datetimeoffset'…'` or `cast(…,Edm.DateTimeOffset)`), possibly inside a larger filter:
/// - `updatedAt ge T` and `updatedAt gt T`;
/// - the key of a pull by key, `((updatedAt gt T) or ((updatedAt eq T) and (id gt 'x')))`.
struct DeltaFilter: Equatable {
    /// The lower bound on `updatedAt` in milliseconds.
    var instant: Int64
    /// Whether `updatedAt` must be later than `instant`, not just at or after it.
    var strict: Bool
    /// With a pull's key, the id after which the records at `instant` are kept.
    var afterId: String?

    /// Parses `filter`; nil when it holds no bound this server understands.
    init?(_ filter: String) {
        if let range = filter.range(of: "(updatedAt gt "), let instant = Self.instant(filter[range.upperBound...]),
           let idRange = filter.range(of: "(id gt '", range: range.upperBound..<filter.endIndex),
           filter[range.upperBound..<idRange.lowerBound].contains(" or ((updatedAt eq ") {
            self.init(instant: instant, strict: true, afterId: Self.quoted(filter[idRange.upperBound...]))
            return
        }
        for (op, strict) in [("updatedAt ge ", false), ("updatedAt gt ", true)] {
            guard let range = filter.range(of: op), let instant = Self.instant(filter[range.upperBound...]) else { continue }
            self.init(instant: instant, strict: strict, afterId: nil)
            return
        }
        return nil
    }

    init(instant: Int64, strict: Bool, afterId: String?) {
        self.instant = instant
        self.strict = strict
        self.afterId = afterId
    }

    /// Whether a row updated at `milliseconds` with `id` matches, ids compared by `idPrecedes` (the server's
    /// collation).
    func keeps(milliseconds: Int64, id: String, idPrecedes: (String, String) -> Bool) -> Bool {
        if milliseconds != instant { return milliseconds > instant }
        if let afterId { return idPrecedes(afterId, id) }
        return !strict
    }

    /// The instant of the date literal at the start of `text`.
    private static func instant(_ text: Substring) -> Int64? {
        var rest = text
        if rest.hasPrefix("datetimeoffset'") {
            rest = rest.dropFirst("datetimeoffset'".count)
            return Timestamp.milliseconds(from: String(rest.prefix { $0 != "'" }))
        }
        if rest.hasPrefix("cast(") {
            rest = rest.dropFirst("cast(".count)
            return Timestamp.milliseconds(from: String(rest.prefix { $0 != "," }))
        }
        return nil
    }

    /// The text of the quoted string whose opening quote ends just before `text` (a doubled quote is one quote).
    private static func quoted(_ text: Substring) -> String? {
        var result = "", rest = text[...]
        while let character = rest.popFirst() {
            guard character == "'" else {
                result.append(character)
                continue
            }
            guard rest.first == "'" else { return result }
            result.append("'")
            rest = rest.dropFirst()
        }
        return nil
    }
}
