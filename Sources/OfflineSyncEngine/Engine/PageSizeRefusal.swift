import OfflineSyncCore
import OfflineSyncStore
/// A server's refusal of the page size a pull asked for, and the size to ask for instead.
///
/// The Node server refuses `$top` above its `maxTop` (1000 by default) with `400 {"error":"You cannot request more
/// than 1000 records"}` instead of sending fewer records; the Datasync server refuses `$top` above its `MaxTop` with
/// `400` "The limit of '128000' for Top query has been exceeded…". A pull so refused asks again with the size the
/// server states, or with half the size when it states none, and its context remembers the size for later pulls.
enum PageSizeRefusal {
    /// The page size to ask for after `error` answered a request for `asked` records, or nil when `error` is not a
    /// refusal of the page size: not a 400, a message that speaks of no limit (`top`, `records`, `limit`), or a page of
    /// one record already. The size is the largest number below `asked` that the message states, else half of `asked`.
    static func allowedPageSize(after error: RemoteError, asked: Int) -> Int? {
        guard case .server(400, let message) = error, asked > 1 else { return nil }
        let lowered = message.lowercased()
        guard ["top", "records", "limit"].contains(where: lowered.contains) else { return nil }
        let stated = numbers(in: message).filter { $0 >= 1 && $0 < asked }.max()
        return stated ?? asked / 2
    }

    /// The whole numbers written in `text`, in order.
    private static func numbers(in text: String) -> [Int] {
        text.split { !$0.isASCII || !$0.isNumber }.compactMap { Int($0) }
    }
}
