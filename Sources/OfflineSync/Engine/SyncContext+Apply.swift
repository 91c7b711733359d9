extension SyncContext {
    /// Applies `changes` to the store in one `apply`, then marks the observers whose result they may alter. Every
    /// change the engine commits goes through here, so this is also where ``MarkedAhead`` drops what they touch.
    /// - Parameter deferringDurability: the changes can be redone after a crash that loses them, so the store need
    ///   not make them durable before it returns (``SyncContextDataSource/applyDeferringDurability(_:)``).
    func apply(_ changes: [StoreChange], deferringDurability: Bool = false) async throws {
        markedAhead.forget(touchedBy: changes)
        if deferringDurability {
            try await dataSource.applyDeferringDurability(changes)
        } else {
            try await dataSource.apply(changes)
        }
        for (key, observer) in queryObservers {
            let mayAlter: Bool
            if let last = observer.last, !observer.isEvaluating {
                mayAlter = ObservationScope.mayAlter(observer.query, lastResult: last, shown: observer.shownKeys, by: changes)
            } else {
                // An evaluation is under way: whether its result saw these changes is unknown.
                mayAlter = changes.contains { $0.table == observer.query.table }
            }
            if mayAlter { markDirty(key) }
        }
    }
}
