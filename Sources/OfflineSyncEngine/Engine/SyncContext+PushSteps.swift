import OfflineSyncCore
import OfflineSyncStore
extension SyncContext {
    /// An operation ready to send: marked in flight, with the body read from the store.
    struct PreparedOperation: Sendable {
        var operation: TableOperation
        /// What is sent: the local item (insert without system properties, update with its `version`),
        /// or the delete's snapshot.
        var body: JSONObject?
        /// Why it cannot be sent, when the local item is missing.
        var problem: String?

        /// What an insert or update of `local` sends: an insert without system properties, an update keeping only
        /// `version` (for `If-Match`).
        static func body(of local: JSONObject, kind: TableOperation.Kind) -> JSONObject {
            kind == .insert ? SystemProperties.removingAll(from: local) : SystemProperties.removingAllButVersion(from: local)
        }
    }

    /// What preparing one operation came to.
    enum PreparedStep: Sendable {
        /// Send it (or, with a ``PreparedOperation/problem``, record it as failed without sending).
        case ready(PreparedOperation)
        /// It waits for these operations to finish (references).
        case wait([Int64])
        /// It left the queue.
        case gone
    }

    /// What finishing one operation came to.
    enum FinishedOperation: Sendable {
        case pushed
        case failed(TableOperationError)
        case aborted(PushError.Reason, RemoteError?)

        /// How the operation ended, for the operations waiting for it in a ``PushSchedule``.
        var ending: PushSchedule.Ending {
            if case .pushed = self { return .succeeded }
            return .failed
        }

        /// Whether the push stops here.
        var aborts: Bool {
            if case .aborted = self { return true }
            return false
        }
    }

    /// Re-reads the operation (it may have been resolved since the batch was read), reads its item, asks `schedule`
    /// whether its references let it go, marks it attempted (with the operations after it, `markRun` in all) when it
    /// is not marked for this content yet, and marks it in flight.
    func prepareToSend(_ id: Int64, markRun: Int, schedule: inout PushSchedule) async throws -> PreparedStep {
        try await transaction { transaction in
            // An operation marked ahead of its turn, and its item, are as the store holds them: no need to read them.
            let ahead = mirror.markedAhead.take(id)
            var operation: TableOperation
            if let ahead {
                operation = ahead.operation
            } else {
                guard let stored = try await queue.operation(id: id) else { return .gone }
                operation = stored
            }
            var body: JSONObject?
            switch operation.kind {
            case .delete:
                body = operation.item
            case .insert, .update:
                let local: JSONObject?
                if let item = ahead?.item {
                    local = item
                } else {
                    local = try await dataSource.read(table: operation.table, id: operation.itemId)
                }
                if let local {
                    operation.item = local
                    body = PreparedOperation.body(of: local, kind: operation.kind)
                    break
                }
                // The local item is gone: a delete queued behind the operation says what the user wants (a queue
                // written before attempts were recorded may hold such a pair). Whether this one ever left is
                // unknown, so it counts as attempted and the pair becomes a delete that is sent.
                var unsent = operation
                unsent.attempted = true
                let folded = try await foldingLater(into: unsent)
                guard let merged = folded.operation, merged.kind == .delete else {
                    shared.inFlight.insert(id)
                    return .ready(PreparedOperation(operation: operation, body: nil, problem:
                        "The local item is missing, so there is nothing to send; cancel the operation with cancelAndDiscard."))
                }
                transaction.stage(folded.changes)
                operation = merged
                body = merged.item
            }
            let content = operation.kind == .delete ? nil : body
            if operation.kind == .delete {
                for other in schedule.unknownReferences(forDeleteOf: id) {
                    guard let queued = try await queue.operation(id: other) else { continue }
                    let item = queued.kind == .delete ? queued.item : try await dataSource.read(table: queued.table, id: queued.itemId)
                    schedule.learn(other, references: schedule.references(of: item, table: queued.table, relations: relations))
                }
            }
            // What the operation refers to: its content, or for a delete its snapshot (a child deleted before its
            // parent holds the parent's id there).
            let referring = operation.kind == .delete ? operation.item : content
            switch schedule.decide(id, kind: operation.kind,
                                   references: schedule.references(of: referring, table: operation.table, relations: relations)) {
            case .send:
                break
            case .wait(let others):
                return .wait(others)
            case .refuse(let table, let itemId):
                shared.inFlight.insert(id)
                return .ready(PreparedOperation(operation: operation, body: nil, problem:
                    "Not sent: the item refers to \(table) \(itemId), whose insert failed in this push; resolve that operation and push again."))
            }
            if operation.needsMark(sending: content) {
                // Read through the transaction, the operations the fold above removed are gone.
                let upcoming = schedule.upcoming(after: id, limit: markRun - 1)
                let marks = try await markingAttempted(&operation, sending: content, upcoming: upcoming[...], in: transaction)
                transaction.stage(marks.changes)
                mirror.markedAhead.stage(marks.ahead)
            }
            shared.inFlight.insert(id)
            return .ready(PreparedOperation(operation: operation, body: body, problem: nil))
        }
    }

    /// Sends the operation and classifies the result. A 409/412 caused by an earlier attempt of the operation
    /// (``PushOutcome/landedEarlier(serverItem:)``) is answered by sending the pending change again over the
    /// server's version; any other 409/412 goes to the conflict handler. At most ``maximumSendRounds`` requests.
    /// Never throws: every failure is an outcome.
    ///
    /// Returns the outcome with `prepared` as the send left it: a resend a conflict handler asked for is recorded in
    /// the queue (``recordingResend(of:sending:resolving:)``: the content it sends, the server's copy as the base, the
    /// resolved local item), and finishing the operation must start from that record, or a fold of a later write into
    /// it would store the operation's earlier state over it.
    func send(_ prepared: PreparedOperation) async -> (sent: SentOperation, prepared: PreparedOperation) {
        var prepared = prepared
        let sent = await sending(&prepared)
        return (sent, prepared)
    }

    /// ``send(_:)``, updating `prepared.operation` with what a resend records.
    private func sending(_ prepared: inout PreparedOperation) async -> SentOperation {
        if let problem = prepared.problem { return .failed(statusCode: nil, message: problem, serverItem: nil) }
        if prepared.operation.kind != .delete, !attachmentQueues.isEmpty,
           let problem = await attachmentsReadyToSend(table: prepared.operation.table, item: prepared.body) {
            return .failed(statusCode: nil, message: problem, serverItem: nil)
        }
        var operation = prepared.operation
        var kind = operation.kind
        var body = prepared.body
        var deleteVersion = SystemProperties.version(of: body)
        var lastConflict: (status: Int?, serverItem: JSONObject?) = (nil, nil)
        // A delete of an item this device inserted, without a version from the server, reads the server's row first:
        // that round's answer is what the row says (``readsServerRowFirst(_:version:)``).
        var readingRowFirst = Self.readsServerRowFirst(operation, version: deleteVersion)
        for _ in 0..<Self.maximumSendRounds {
            let result: Result<JSONObject?, any Error>
            do {
                switch kind {
                case .insert: result = .success(try await remote.insert(body ?? [:], table: operation.table))
                case .update: result = .success(try await remote.update(body ?? [:], table: operation.table))
                case .delete where readingRowFirst:
                    result = .failure(try await serverRowAnswer(forDeleteOf: operation))
                case .delete:
                    try await remote.delete(id: operation.itemId, version: deleteVersion, table: operation.table)
                    result = .success(nil)
                }
            } catch {
                result = .failure(error)
            }
            if case .failure = result, Task.isCancelled { return .abort(.cancelled, nil) }
            let step: PushOutcome.ConflictStep
            switch PushOutcome.classify(kind: kind, sent: body, result: result, attempts: operation) {
            case .landedEarlier(let serverItem):
                lastConflict = (nil, serverItem)
                step = PushOutcome.resend(kind: kind, item: body, serverVersion: SystemProperties.version(of: serverItem))
            case .conflict(let serverItem, let status):
                lastConflict = (status, serverItem)
                let resolution: ConflictResolution
                do {
                    let conflict = SyncConflict(operation: operation, localItem: body, serverItem: serverItem,
                                                baseItem: operation.base, statusCode: status)
                    resolution = try await conflictHandler?.resolve(conflict) ?? .fail
                } catch is CancellationError {
                    return .abort(.cancelled, nil)
                } catch {
                    return .failed(statusCode: status, message: "The conflict handler failed: \(error)", serverItem: serverItem)
                }
                if readingRowFirst, case .fail = resolution {
                    step = .record(message: Self.unseenRowMessage)
                } else {
                    step = PushOutcome.step(for: resolution, kind: kind, itemId: operation.itemId, sent: body,
                                            serverItem: serverItem, statusCode: status)
                }
                if case .resend(let newKind, let item?, _) = step, newKind != .delete {
                    // The handler's content is a new attempt: record it before it leaves (recordingResend says how).
                    do {
                        operation = try await recordingResend(of: operation, sending: item, resolving: serverItem)
                        prepared.operation = operation
                    } catch {
                        return .failed(statusCode: nil, message: "The resend could not be recorded: \(error)", serverItem: serverItem)
                    }
                }
            case .succeeded(let serverItem):
                return .succeeded(serverItem: serverItem)
            case .failed(let status, let message, let serverItem):
                return .failed(statusCode: status, message: message, serverItem: serverItem)
            case .abort(let reason, let underlying):
                return .abort(reason, underlying)
            }
            switch step {
            case .record(let message):
                return .failed(statusCode: lastConflict.status, message: message, serverItem: lastConflict.serverItem)
            case .acceptServer(let item):
                return .succeeded(serverItem: item)
            case .resend(let newKind, let item, let version):
                kind = newKind
                body = item
                deleteVersion = version
            }
            readingRowFirst = false
        }
        return .failed(statusCode: lastConflict.status ?? 412, message: "The conflict was still unresolved after \(Self.maximumSendRounds) requests.",
                       serverItem: lastConflict.serverItem)
    }

    /// The most requests one operation sends in one push: the first (for a delete that reads the server's row first,
    /// that read), a resend over the version its own earlier attempt produced, and the resends a conflict handler asks
    /// for.
    static let maximumSendRounds = 4

    /// Applies the outcome in one transaction (``finishing(_:_:in:)``) and records the operation's ending in
    /// `schedule`. With `prepareNext`, the same transaction then prepares the next operation when that needs nothing
    /// read from the store (``preparedFromMark(_:schedule:)``), so that a push one at a time takes one transaction
    /// per operation; the caller sends it as it would one ``prepareToSend(_:markRun:schedule:)`` made ready.
    func finish(_ prepared: PreparedOperation, _ outcome: SentOperation, schedule: inout PushSchedule,
                prepareNext: Bool) async throws -> (finished: FinishedOperation, next: (id: Int64, prepared: PreparedOperation)?) {
        var next: (id: Int64, prepared: PreparedOperation)?
        // When the store refuses the changes, the operation prepared with them is not left in flight (``transaction(_:)``).
        let finished = try await transaction { transaction in
            let finished = try await finishing(prepared, outcome, in: &transaction)
            schedule.finished(prepared.operation.id, finished.ending)
            if prepareNext, !finished.aborts, !Task.isCancelled, let candidate = schedule.nextCandidate() {
                if let ready = preparedFromMark(candidate, staged: transaction.changes, schedule: &schedule) {
                    next = (candidate, ready)
                }
            }
            return finished
        }
        return (finished, next)
    }

    /// Operation `id` ready to send from what its mark left in ``MarkedAhead``, unless the running transaction's
    /// `staged` changes touch it (then it is no longer as marked); taken from the mirror and marked in flight. Nil,
    /// with nothing taken, when preparing it needs the store (no entry, a delete, no local item, content its mark does
    /// not cover) or its references hold it back. Call inside a transaction.
    private func preparedFromMark(_ id: Int64, staged: [StoreChange], schedule: inout PushSchedule) -> PreparedOperation? {
        guard let ahead = mirror.markedAhead.peek(id, untouchedBy: staged), ahead.operation.kind != .delete, let local = ahead.item else { return nil }
        var operation = ahead.operation
        operation.item = local
        let body = PreparedOperation.body(of: local, kind: operation.kind)
        let references = schedule.references(of: body, table: operation.table, relations: relations)
        guard !operation.needsMark(sending: body),
              schedule.decide(id, kind: operation.kind, references: references) == .send else { return nil }
        _ = mirror.markedAhead.take(id)
        shared.inFlight.insert(id)
        return PreparedOperation(operation: operation, body: body, problem: nil)
    }

    /// Stages the outcome in `transaction`: on success removes the operation and stores the server's item
    /// (unless a newer operation exists for the item); otherwise folds the operations queued behind it for the same
    /// item into it (``foldingLater(into:)``) and, for a failure, records the error.
    private func finishing(_ prepared: PreparedOperation, _ outcome: SentOperation,
                           in transaction: inout StoreTransaction) async throws -> FinishedOperation {
        let operation = prepared.operation
        shared.inFlight.remove(operation.id)
        let failure: (status: Int?, message: String, serverItem: JSONObject?)
        switch outcome {
        case .abort(let reason, let underlying):
            transaction.stage(try await foldingLater(into: operation).changes)
            return .aborted(reason, underlying)
        case .failed(let status, let message, let serverItem):
            failure = (status, message, serverItem)
        case .succeeded(let serverItem):
            return try await recordSuccess(of: operation, serverItem: serverItem, in: &transaction)
        }
        let folded = try await foldingLater(into: operation)
        let error = TableOperationError(operation: folded.operation ?? operation, item: prepared.body,
                                        serverItem: failure.serverItem, statusCode: failure.status, message: failure.message)
        transaction.stage(folded.changes + (folded.operation != nil ? [OperationErrorStore.saving(error)] : []))
        return .failed(error)
    }

    /// Removes the pushed operation and stores the server's item, unless a newer operation exists for the item
    /// (which then takes the server's version), staging the changes in `transaction`.
    private func recordSuccess(of operation: TableOperation, serverItem: JSONObject?,
                               in transaction: inout StoreTransaction) async throws -> FinishedOperation {
        var changes = queue.removing(operation.id)
        // The local item's version that the server's answer replaces, when it does.
        var replacedVersion = operation.kind == .delete ? nil : SystemProperties.version(of: operation.item)
        let newer = try await loadedOperationIndex().ids(table: operation.table, itemId: operation.itemId)
            .contains { $0 != operation.id }
        if newer, let version = serverItem?["version"], !SystemProperties.isDeleted(serverItem) {
            // The newer operation was built on this one: it must carry the version this one produced,
            // in the local item (updates) and in a delete's snapshot, or it would conflict with itself.
            if var local = try await dataSource.read(table: operation.table, id: operation.itemId) {
                replacedVersion = SystemProperties.version(of: local)
                local["version"] = version
                changes.append(.upsert(table: operation.table, items: [local]))
            }
            // The server's answer is the copy the later changes now start from: their base.
            for var later in try await queue.operations(table: operation.table, itemId: operation.itemId)
            where later.id != operation.id && later.kind != .insert {
                if later.kind == .delete, later.item != nil { later.item?["version"] = version }
                later.base = serverItem
                changes.append(queue.saving(later))
            }
        }
        if !newer, var serverItem {
            if SystemProperties.isDeleted(serverItem) {
                changes.append(.delete(table: operation.table, ids: [operation.itemId]))
            } else {
                if serverItem["id"]?.stringValue.map(ItemID.isValid) != true {
                    serverItem["id"] = .string(operation.itemId)
                }
                changes.append(.upsert(table: operation.table, items: [serverItem]))
            }
        }
        // Losing this bookkeeping in a crash only means sending the operation again: it is attempted, and the
        // server's answer (its own row, or 404 for a delete) then counts as success. So it need not wait for fsync.
        transaction.stage(changes)
        transaction.defersDurability = true
        if SystemProperties.isDeleted(serverItem) || operation.kind == .delete {
            mirror.ownVersions.forget(table: operation.table, itemId: operation.itemId)
        } else {
            mirror.ownVersions.record(table: operation.table, itemId: operation.itemId, replaced: replacedVersion,
                               by: SystemProperties.version(of: serverItem))
        }
        return .pushed
    }
}

/// How sending one operation ended, conflicts settled: what ``SyncContext`` records for it.
enum SentOperation: Sendable {
    /// The server accepted the operation (or it counts as accepted); `serverItem` is its copy, when any.
    case succeeded(serverItem: JSONObject?)
    /// The operation failed; record an error and go on with the next operation.
    case failed(statusCode: Int?, message: String, serverItem: JSONObject?)
    /// Stop the push; every unsent operation stays queued.
    case abort(PushError.Reason, RemoteError?)
}
