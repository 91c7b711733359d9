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
        payload.reserveCapacity(JournalPayload.estimatedBytes(of: resolved))
        JournalPayload.write(resolved, into: &payload)
        try checkSize(payload)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            pendingCommits.append(PendingCommit(changes: resolved, payload: payload, continuation: continuation))
            if pendingCommits.count >= groupWanted { endGroupWait(groupWait) }
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
        var expected = 0
        var lastWrite = Duration.zero
        while !holdsFlushes {
            await gatherGroup(expecting: expected, lastWrite: lastWrite)
            if holdsFlushes || pendingCommits.isEmpty { break }
            let group = pendingCommits
            pendingCommits = []
            expected = group.count
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
            let started = ContinuousClock.now
            let outcome = await Self.appendInBackground(buffer, to: journal.file, at: journalSize, fileSystem: fileSystem)
            lastWrite = ContinuousClock.now - started
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

    /// Commit delay: the writers resumed by the last sync usually apply again at once, so before taking the next
    /// group, wait until as many batches are queued as the last group carried. After a group of one the loop only
    /// gives the actor's turn away once; otherwise it suspends until an apply fills the group or a timer ends the
    /// wait after half the last write's duration (at most 2 ms), so a lone writer is never delayed and a shrinking
    /// crowd is delayed by less than a sync.
    private func gatherGroup(expecting expected: Int, lastWrite: Duration) async {
        let wanted = max(expected, 1)
        if pendingCommits.count >= wanted { return }
        if expected <= 1 {
            await Task.yield()
            return
        }
        if holdsFlushes { return }
        groupWait &+= 1
        let wait = groupWait
        groupWanted = wanted
        let delay = min(lastWrite / 2, .milliseconds(2))
        let timer = Task { [weak self] in
            // Cancelled when the group filled first: then it has nothing to do on the actor.
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            await self?.endGroupWait(wait)
        }
        await withCheckedContinuation { groupWaiter = $0 }
        timer.cancel()
    }

    /// Resumes the flush loop if it is still in wait number `wait`.
    func endGroupWait(_ wait: Int) {
        guard wait == groupWait, let waiter = groupWaiter else { return }
        groupWaiter = nil
        groupWanted = 0
        waiter.resume()
    }
}
