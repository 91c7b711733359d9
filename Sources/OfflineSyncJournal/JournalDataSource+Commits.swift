import OfflineSyncCore
import OfflineSyncStore
/// One apply's record waiting in the ``CommitPipeline``.
struct PendingCommit: Sendable {
    /// The batch, with filtered deletes already resolved to ids.
    var changes: [StoreChange]
    /// The record's payload.
    var payload: [UInt8]
    /// The upserted items packed as the payload was written, which the tables keep.
    var packed: PackedItems
    /// The index entries built for the batch's large upserts (``PreparedUpserts``).
    var entries: [Int: AddedIndexEntries]
    /// Whether the apply waits for a sync (false for ``Durability/buffered`` and deferred applies).
    var sync: Bool
    var continuation: CheckedContinuation<Void, any Error>
}

extension JournalDataSource {
    /// Writes the batch's record (synced when `sync` is set), then applies the batch; throws, with nothing changed,
    /// when the write failed. Under ``JournalWriteThread/shared`` without group commit the write happens in place:
    /// the actor never suspends between a batch's encoding and its write, so one write is in flight at a time
    /// without the pipeline (a large batch's large upserts are prepared before, away from the actor:
    /// ``PreparedUpserts``). Otherwise the batch queues in the ``CommitPipeline`` and the write runs away from the
    /// actor, on the store's ``BlockingFileWork`` for writes.
    func commit(_ changes: [StoreChange], sync: Bool, holdsTurn: Bool) async throws {
        var resolved = changes
        if changes.contains(where: \.hasFilter) {
            // A filter must see every earlier batch: wait until the pipeline has written them (and, waiting, let no
            // transaction begin and end unseen).
            while !pipeline.isDrained || pipeline.isHeld || (turns.isHeld && !holdsTurn) || batchBeingWritten {
                if turns.isHeld && !holdsTurn { await waitWhileATransactionHolds() } else { await waitUntilIdle() }
            }
            try checkWritable()
            resolved = resolveFilters(changes)
        }
        var prepared = PreparedUpserts()
        if !changes.contains(where: \.hasFilter) {
            let upserts = PreparedUpserts.upserts(of: resolved, shapes: { tables.shape(table: $0) },
                                                  indexFields: tables.indexFieldsAside(for: resolved))
            if !upserts.isEmpty {
                prepared = await PreparedUpserts.prepare(upserts)
                // Other calls ran meanwhile: wait as `apply` did, and keep what still holds.
                await waitForTurnToWrite(holdsTurn: holdsTurn)
                try checkWritable()
                prepared.dropStaleEncodings(current: { tables.shape(table: $0) })
            }
        }
        var packed = PackedItems()
        if options.writeThread == .shared, !pipeline.groupsBatches, let sealing {
            // As below, the payload sealed into its record.
            await waitForTurnToWrite(holdsTurn: holdsTurn)
            let (sequence, generation, durableEnd) = (lastSequence + 1, manifest.generation, journalExtent.syncedEnd)
            var payload: [UInt8] = []
            payload.reserveCapacity(JournalPayload.estimatedBytes(of: resolved))
            try JournalPayload.write(resolved, into: &payload, shapes: { tables.shape(table: $0) },
                                     prepared: prepared.encoded, packing: &packed)
            try checkSize(payloadBytes: payload.count)
            // A large record is sealed where it is written, while the tables take the batch.
            try await write(bytes: payload.count, sync: sync, changes: resolved, packed: packed, entriesAside: prepared.entries) {
                [payload] () throws(JournalError) in
                var buffer: [UInt8] = []
                buffer.reserveCapacity(JournalRecord.sealedRecordBytes(payloadBytes: payload.count))
                try JournalRecord.appendSealedApply(sequence: sequence, generation: generation, durableEnd: durableEnd,
                                                    payload: payload, sealing: sealing, into: &buffer)
                return buffer
            }
            countWritten(lastSequence: sequence, records: 1, upserted: StoreChange.upsertedItemCount(of: resolved))
            return
        }
        if options.writeThread == .shared, !pipeline.groupsBatches {
            await waitForTurnToWrite(holdsTurn: holdsTurn)
            // The record is written around its payload in one buffer.
            let sequence = lastSequence + 1
            var buffer: [UInt8] = []
            buffer.reserveCapacity(JournalPayload.estimatedBytes(of: resolved) + JournalRecord.envelopeBytes)
            let payloadBytes = try JournalRecord.appendApply(sequence: sequence, generation: manifest.generation,
                                                             durableEnd: journalExtent.syncedEnd,
                                                             into: &buffer) { (buffer) throws(DataSourceError) in
                try JournalPayload.write(resolved, into: &buffer, shapes: { tables.shape(table: $0) },
                                         prepared: prepared.encoded, packing: &packed)
            }
            try checkSize(payloadBytes: payloadBytes)
            try await write(bytes: buffer.count, sync: sync, changes: resolved, packed: packed,
                            entriesAside: prepared.entries) { [buffer] () throws(JournalError) in buffer }
            countWritten(lastSequence: sequence, records: 1, upserted: StoreChange.upsertedItemCount(of: resolved))
            return
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(JournalPayload.estimatedBytes(of: resolved))
        try JournalPayload.write(resolved, into: &payload, shapes: { tables.shape(table: $0) }, prepared: prepared.encoded,
                                 packing: &packed)
        try checkSize(payloadBytes: payload.count)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let commit = PendingCommit(changes: resolved, payload: payload, packed: packed, entries: prepared.entries,
                                       sync: sync, continuation: continuation)
            perform(pipeline.enqueue(commit))
        }
    }

    /// Suspends while a transaction other than the caller's holds the store (`holdsTurn` for the one holding it), a
    /// large batch is being written after it was applied (``appendApplying(_:sync:changes:packed:entriesAside:)``), or a
    /// compaction holds writes while it starts a new journal.
    private func waitForTurnToWrite(holdsTurn: Bool) async {
        while (turns.isHeld && !holdsTurn) || batchBeingWritten || pipeline.isHeld {
            if turns.isHeld && !holdsTurn { await waitWhileATransactionHolds() } else { await waitUntilIdle() }
        }
    }

    /// Writes the record of `changes` that `record` makes (about `bytes` long), in place, then applies them; a large
    /// batch without `deleteAll` is applied while its record is made and written
    /// (``appendApplying(_:sync:changes:packed:entriesAside:)``).
    private func write(bytes: Int, sync: Bool, changes: [StoreChange], packed: PackedItems,
                       entriesAside: [Int: AddedIndexEntries],
                       record: @escaping @Sendable () throws(JournalError) -> [UInt8]) async throws(JournalError) {
        if bytes >= options.applyWhileWritingBytes, !changes.contains(where: \.isDeleteAll) {
            try await appendApplying(record, sync: sync, changes: changes, packed: packed, entriesAside: entriesAside)
        } else {
            try appendInPlace(try record(), sync: sync)
            var notRecording: BatchReversal?
            tables.apply(changes, packed: packed, recording: &notRecording, entriesAside: entriesAside)
        }
    }

    /// Carries out what the pipeline decided.
    func perform(_ action: CommitPipeline<PendingCommit>.Action) {
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

    /// Writes the group's records with one write (and one sync) away from the actor, then applies the batches in
    /// order and resumes their callers; on failure every caller of the group gets the error.
    private func writeAway(_ group: [PendingCommit]) async {
        let started = ContinuousClock.now
        do {
            if let failure { throw failure }
            let (buffer, sequence) = try records(of: group.map(\.payload))
            try await appendAway(buffer, sync: group.contains(where: \.sync))
            applyWritten(lastSequence: sequence, group)
            for commit in group { commit.continuation.resume() }
        } catch {
            for commit in group { commit.continuation.resume(throwing: error) }
        }
        perform(pipeline.writeFinished(duration: ContinuousClock.now - started))
    }

    /// The journal records of these payloads, one line each (sealed in an encrypted store), each carrying how far the
    /// journal is known durable, and the sequence number of the last.
    private func records(of payloads: [[UInt8]]) throws(JournalError) -> (buffer: [UInt8], lastSequence: Int64) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(payloads.reduce(0) { $0 + (sealing == nil ? $1.count + 64 : JournalRecord.sealedRecordBytes(payloadBytes: $1.count)) })
        try JournalRecord.appendApplies(payloads, firstSequence: lastSequence + 1, generation: manifest.generation,
                                        durableEnd: journalExtent.syncedEnd, sealing: sealing, into: &buffer)
        return (buffer, lastSequence + Int64(payloads.count))
    }

    /// After a successful write of records up to `sequence`: applies the batches in order, each keeping its items
    /// packed as its payload was written, and counts the records.
    private func applyWritten(lastSequence sequence: Int64, _ batches: [PendingCommit]) {
        var upserted = 0
        for batch in batches {
            var notRecording: BatchReversal?
            tables.apply(batch.changes, packed: batch.packed, recording: &notRecording, entriesAside: batch.entries)
            upserted += StoreChange.upsertedItemCount(of: batch.changes)
        }
        countWritten(lastSequence: sequence, records: batches.count, upserted: upserted)
    }

    /// After a successful write of `records` records up to `sequence`, applied to the tables, which upserted
    /// `upserted` items.
    private func countWritten(lastSequence sequence: Int64, records: Int, upserted: Int) {
        lastSequence = sequence
        journalRecords += records
        journalUpserts += upserted
        scheduleAutomaticCompaction()
    }
}
