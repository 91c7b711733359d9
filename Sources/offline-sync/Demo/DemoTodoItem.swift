import OfflineSync

/// The model of the demo, as the Azure Mobile Apps to-do tutorial has it.
struct DemoTodoItem: Codable, Sendable, Equatable {
    var id: String?
    var text: String
    var complete: Bool
    var version: String?

    init(text: String, complete: Bool = false) {
        self.id = nil
        self.text = text
        self.complete = complete
        self.version = nil
    }

    /// `[x] buy milk` or `[ ] buy milk`.
    var line: String { "[\(complete ? "x" : " ")] \(text)" }
}

/// The demo's conflict handler: the other device's text wins, and the item counts as complete when either
/// side completed it.
struct DemoMergeHandler: ConflictHandler {
    let report: @Sendable (String) -> Void

    func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution {
        guard let local = conflict.localItem, let server = conflict.serverItem else { return .fail }
        var merged = local
        merged["text"] = server["text"] ?? local["text"]
        let complete = (local["complete"]?.boolValue ?? false) || (server["complete"]?.boolValue ?? false)
        merged["complete"] = .bool(complete)
        report("conflict (HTTP \(conflict.statusCode)) on \(conflict.operation.itemId): this device says "
            + "\"\(local["text"]?.stringValue ?? "?")\", the server says \"\(server["text"]?.stringValue ?? "?")\"; "
            + "merged: the server's text, complete = \(complete)")
        return .useMerged(merged)
    }
}
