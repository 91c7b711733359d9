/// One apply's record waiting in the ``CommitPipeline``.
struct PendingCommit: Sendable {
    /// The batch, with filtered deletes already resolved to ids.
    var changes: [StoreChange]
    /// The record's payload; the items' texts in it are kept as the stored items.
    var payload: [UInt8]
    var itemTexts: [Range<Int>]
    /// Whether the apply waits for a sync (false for ``Durability/buffered`` and deferred applies).
    var sync: Bool
    var continuation: CheckedContinuation<Void, any Error>
}

extension JournalDataSource {
    /// Queues the batch in the pipeline and returns once its record is written (and synced when `sync` is set)
    /// and the batch applied; throws, with nothing changed, when the write failed.
    func commit(_ changes: [StoreChange], sync: Bool) async throws {
        var resolved = changes
        if changes.contains(where: { if case .deleteAll(_, _?) = $0 { return true } else { return false } }) {
            // A filter must see every earlier batch: wait until the pipeline has written them.
            while !pipeline.isDrained || pipeline.isHeld { await waitUntilIdle() }
            try checkWritable()
            resolved = resolveFilters(changes)
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(JournalPayload.estimatedBytes(of: resolved))
        var itemTexts: [Range<Int>] = []
        JournalPayload.write(resolved, into: &payload, itemTexts: &itemTexts)
        try checkSize(payload)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let commit = PendingCommit(changes: resolved, payload: payload, itemTexts: itemTexts, sync: sync, continuation: continuation)
            perform(pipeline.enqueue(commit))
        }
    }

    /// Carries out what the pipeline decided. Under ``JournalWriteThread/shared`` without group commit, writes run
    /// in place, one after another; otherwise away from the actor, so that applies can queue meanwhile.
    func perform(_ action: CommitPipeline<PendingCommit>.Action) {
        var action = action
        while case .write(let group) = action, ioThread == nil, !pipeline.groupsBatches {
            action = writeInPlace(group)
        }
        switch action {
        case .none:
            return
        case .write(let group):
            Task { await self.writeAway(group) }
        case .yieldTurn:
            Task { self.perform(self.pipeline.turnReturned()) }
        case .startTimer(let wait, let delay):
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                await self?.timerFired(wait)
            }
        case .becameIdle:
            notifyIdle()
        }
    }

    private func timerFired(_ wait: Int) {
        perform(pipeline.timerFired(wait: wait))
    }

    private func writeInPlace(_ group: [PendingCommit]) -> CommitPipeline<PendingCommit>.Action {
        let started = ContinuousClock.now
        let (buffer, sequence) = records(of: group)
        let outcome = failure.map(AppendOutcome.failed)
            ?? Self.append(buffer, to: journal.file, at: journalSize, sync: group.contains(where: \.sync), fileSystem: fileSystem)
        finish(group, buffer: buffer, sequence: sequence, outcome: outcome)
        return pipeline.writeFinished(duration: ContinuousClock.now - started)
    }

    private func writeAway(_ group: [PendingCommit]) async {
        let started = ContinuousClock.now
        let (buffer, sequence) = records(of: group)
        let outcome: AppendOutcome
        if let failure {
            outcome = .failed(failure)
        } else {
            outcome = await appendAway(buffer, sync: group.contains(where: \.sync))
        }
        finish(group, buffer: buffer, sequence: sequence, outcome: outcome)
        perform(pipeline.writeFinished(duration: ContinuousClock.now - started))
    }

    /// The group's journal records, one line per batch, and the sequence number of the last.
    private func records(of group: [PendingCommit]) -> (buffer: [UInt8], lastSequence: Int64) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(group.reduce(0) { $0 + $1.payload.count + 64 })
        var sequence = lastSequence
        for commit in group {
            sequence += 1
            JournalRecord.appendApply(sequence: sequence, generation: manifest.generation, payload: commit.payload, into: &buffer)
        }
        return (buffer, sequence)
    }

    /// After the group's write: applies the batches in order and resumes their callers, or gives every caller of
    /// the group the error.
    private func finish(_ group: [PendingCommit], buffer: [UInt8], sequence: Int64, outcome: AppendOutcome) {
        do {
            try record(outcome)
            journalSize += Int64(buffer.count)
            lastSequence = sequence
            journalRecords += group.count
            for commit in group { tables.apply(commit.changes, itemTexts: commit.payload, at: commit.itemTexts) }
            for commit in group { commit.continuation.resume() }
            scheduleAutomaticCompaction()
        } catch {
            for commit in group { commit.continuation.resume(throwing: error) }
        }
    }
}
