import Foundation
import Testing
@testable import OfflineSync

/// Tests with a real child process (`journal-crash-child`, built with the tests): SIGKILL mid-write, and the
/// lock seen from another process.
struct JournalCrashProcessTests {
    /// The child's executable in the build products directory, beside the test binary.
    static let childURL: URL? = BuiltProducts.executable("journal-crash-child")

    /// Runs the child with `arguments`; the caller reads `output` and ends it.
    private func launch(_ arguments: [String]) throws -> (Process, FileHandle) {
        let child = try #require(Self.childURL, "journal-crash-child is not built beside the tests")
        let process = Process()
        process.executableURL = child
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        // A bound on a child that hangs: killed after 20 s, which ends its output and so the reading loop.
        let pid = process.processIdentifier
        Task.detached {
            try? await Task.sleep(for: .seconds(20))
            if process.isRunning { kill(pid, SIGKILL) }
        }
        return (process, pipe.fileHandleForReading)
    }

    /// Reads lines from `handle` until `enough` says stop or the output ends.
    private func readLines(_ handle: FileHandle, until enough: ([String]) -> Bool) -> [String] {
        var pending = ""
        var lines: [String] = []
        while !enough(lines) {
            let data = handle.availableData
            if data.isEmpty { break }
            pending += String(decoding: data, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                lines.append(String(pending[..<newline]))
                pending = String(pending[pending.index(after: newline)...])
            }
        }
        return lines
    }

    /// Durability and rounds: `.always` is the contract's main promise; `.buffered` also survives a process crash.
    @Test(arguments: [("always", 24), ("grouped", 8), ("buffered", 8)])
    func killedWriterLosesNoAcknowledgedBatchAndLeavesNoPartialOne(durability: String, rounds: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var generator = SystemRandomNumberGenerator()
        var acknowledged = 0
        for round in 0..<rounds {
            // A small compaction threshold makes kills land during compactions too.
            let (process, output) = try launch(["write", directory.storePath, "3000", durability])
            let wanted = Int.random(in: 1...25, using: &generator)
            let lines = readLines(output) { $0.count >= wanted }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(!lines.contains { $0.hasPrefix("error") }, "round \(round): \(lines)")
            let acks = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
            acknowledged = max(acknowledged, acks.max() ?? 0)

            let store = try await JournalDataSource.open(directory.storePath)
            let last = Int(try await store.read(table: "__config", id: "last")?["value"]?.intValue ?? 0)
            #expect(last >= acknowledged, "round \(round): acknowledged \(acknowledged), store holds up to \(last)")
            let items = try await store.read(Query(table: "Crash")).items
            #expect(items.count == last * 3, "round \(round): every batch up to \(last) entirely, none after")
            for batch in 1...max(last, 1) where last > 0 {
                let present = try await (0..<3).asyncCount { try await store.read(table: "Crash", id: "b\(batch)-\($0)") != nil }
                #expect(present == 3, "round \(round): batch \(batch) has \(present) of 3 items")
            }
            try await store.close()
        }
        #expect(acknowledged >= rounds)
    }

    @Test func anotherProcessGetsTheLockedError() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await JournalDataSource(directory: directory.store)
        let (process, output) = try launch(["probe", directory.storePath])
        let lines = readLines(output) { !$0.isEmpty }
        process.waitUntilExit()
        #expect(lines == ["locked"])
        try await store.close()

        let (second, secondOutput) = try launch(["probe", directory.storePath])
        let after = readLines(secondOutput) { !$0.isEmpty }
        second.waitUntilExit()
        #expect(after == ["opened"])
    }
}

extension Range where Element == Int {
    /// How many elements satisfy the asynchronous `predicate`.
    func asyncCount(_ predicate: (Int) async throws -> Bool) async rethrows -> Int {
        var count = 0
        for element in self where try await predicate(element) { count += 1 }
        return count
    }
}
