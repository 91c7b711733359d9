/// One batch waiting for the group commit's next write.
struct PendingCommit: Sendable {
    var changes: [StoreChange]
    var payload: [UInt8]
    var continuation: CheckedContinuation<Void, any Error>
}

extension JournalDataSource {
    /// `.grouped`: queues the batch; the flush loop writes every queued batch with one write and one sync,
    /// then applies them in order and resumes their callers.
    func applyGrouped(_ changes: [StoreChange]) async throws {
        var resolved = changes
        if changes.contains(where: { if case .deleteAll(_, _?) = $0 { return true } else { return false } }) {
            // A filter must see every earlier batch: wait until the queue is empty.
            while isFlushing || !pendingCommits.isEmpty || holdsFlushes { await waitUntilIdle() }
            try checkWritable()
            resolved = resolveFilters(changes)
        }
        var payload: [UInt8] = []
        JournalPayload.write(resolved, into: &payload)
        try checkSize(payload)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            pendingCommits.append(PendingCommit(changes: resolved, payload: payload, continuation: continuation))
            startFlushing()
        }
    }

    /// Starts the flush loop unless it runs or compaction holds it.
    func startFlushing() {
        guard !isFlushing, !holdsFlushes, !pendingCommits.isEmpty else { return }
        isFlushing = true
        Task { await self.flushPendingCommits() }
    }

    /// Writes queued batches, one group per write and sync, until the queue is empty.
    func flushPendingCommits() async {
        var yielded = false
        while !holdsFlushes {
            if pendingCommits.isEmpty {
                // Writers resumed by the last sync usually apply again at once: give them one turn to queue,
                // so that they share the next sync instead of splitting into two half groups.
                if yielded { break }
                yielded = true
                await Task.yield()
                continue
            }
            yielded = false
            let group = pendingCommits
            pendingCommits = []
            if let failure {
                for commit in group { commit.continuation.resume(throwing: failure) }
                continue
            }
            var buffer: [UInt8] = []
            buffer.reserveCapacity(group.reduce(0) { $0 + $1.payload.count + 64 })
            var sequence = lastSequence
            for commit in group {
                sequence += 1
                JournalRecord.appendApply(sequence: sequence, generation: manifest.generation, payload: commit.payload, into: &buffer)
            }
            let outcome = await Self.appendInBackground(buffer, to: journal.file, at: journalSize, fileSystem: fileSystem)
            do {
                try record(outcome)
                journalSize += Int64(buffer.count)
                lastSequence = sequence
                journalRecords += group.count
                for commit in group { tables.apply(commit.changes) }
                for commit in group { commit.continuation.resume() }
                scheduleAutomaticCompaction()
            } catch {
                for commit in group { commit.continuation.resume(throwing: error) }
            }
        }
        isFlushing = false
        notifyIdle()
    }
}
