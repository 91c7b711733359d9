import OfflineSyncCore

/// A write that ``HTTPRemote`` sent again after an attempt whose answer it never read (no answer, or a transient
/// status that a server may send after acting): when the retry is refused with a 409 (insert) or 412 (update) whose
/// server row holds exactly what was sent, the earlier attempt landed, and that row is the write's result rather
/// than a conflict with the caller's own change.
enum LandedWrite {
    /// The server's row when it is what `request` sent (same user fields, not deleted), else nil.
    static func result(of request: HTTPTableRequest, in serverRow: JSONObject?) -> JSONObject? {
        guard let serverRow, !SystemProperties.isDeleted(serverRow), let body = request.body,
              case .object(let sent)? = try? JSONValue(parsing: body),
              SystemProperties.sameContent(sent, serverRow) else { return nil }
        return serverRow
    }
}
