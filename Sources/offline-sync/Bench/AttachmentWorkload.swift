import Foundation
import OfflineSync
import OfflineSyncTesting

extension BenchRunner {
    /// A1, attachments over a network: 200 files of 256 KiB added offline to an `AttachmentQueue` (not timed), then
    /// one `sync()` uploading them through `HTTPAttachmentTransport` to a file endpoint on the loopback interface whose
    /// every answer waits 50 ms, 8 transfers at once; then a second device whose items name the 200 files downloads
    /// them with one `sync()`. Timed: each sync. Beside them: what one transfer at a time needs (one request per file,
    /// each 50 ms), and the ratios.
    func runAttachments() async throws {
        let server = try BenchFileServer(latency: Self.networkLatency)
        defer { server.stop() }
        let transport = HTTPAttachmentTransport(url: { id in
            guard let url = server.url(of: id) else { throw BenchFailure.checkFailed(workload: "A1", detail: "no URL for \(id)") }
            return url
        }, configuration: HTTPRemoteConfiguration(timeout: .seconds(30), retryPolicy: .none))
        let fields = [AttachmentField(table: BenchmarkRecords.table, field: "photo")]
        let settings = AttachmentSettings(cacheLimitBytes: 1 << 30, maximumConcurrentTransfers: 8, downloadsAfterPull: false)
        let file = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })

        let sender = SyncContext(dataSource: InMemoryDataSource(), remote: InMemoryRemote())
        let uploads = try await AttachmentQueue(context: sender, directory: try freshDirectory("a1-up"), fields: fields,
                                                transport: transport, settings: settings)
        var ids: [String] = []
        for _ in 0..<sizes.attachmentFiles { ids.append(try await uploads.add(file)) }
        var start = MonotonicClock.now()
        try await uploads.sync()
        let uploadSeconds = MonotonicClock.now() - start
        guard server.fileCount == ids.count else {
            throw BenchFailure.checkFailed(workload: "A1", detail: "the endpoint holds \(server.fileCount) files, expected \(ids.count)")
        }

        let receiver = SyncContext(dataSource: InMemoryDataSource(), remote: InMemoryRemote())
        let downloads = try await AttachmentQueue(context: receiver, directory: try freshDirectory("a1-down"), fields: fields,
                                                  transport: transport, settings: settings)
        for (number, id) in ids.enumerated() {
            try await receiver.table(BenchmarkRecords.table).insert(["id": .string("r\(number)"), "photo": .string(id)])
        }
        start = MonotonicClock.now()
        try await downloads.sync()
        let downloadSeconds = MonotonicClock.now() - start
        for id in ids where try await downloads.state(of: id) != .local {
            throw BenchFailure.checkFailed(workload: "A1", detail: "attachment \(id) was not downloaded")
        }
        let oneAtATime = Double(ids.count) * Self.seconds(Self.networkLatency)
        try report.record("A1", "a1_upload_s", uploadSeconds, "s")
        try report.record("A1", "a1_download_s", downloadSeconds, "s")
        try report.record("A1", "a1_one_at_a_time_s", oneAtATime, "s")
        try report.record("A1", "a1_upload_speedup", oneAtATime / uploadSeconds, "x")
        try report.record("A1", "a1_download_speedup", oneAtATime / downloadSeconds, "x")
    }
}
