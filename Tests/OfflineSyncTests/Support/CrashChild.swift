import Foundation
import Testing

/// A running `journal-crash-child` (built with the tests), its standard output read line by line, killed with
/// SIGKILL by the test or, as a bound on a child that hangs, after 60 seconds. Every wait runs on a thread of its
/// own (``onOwnThread(_:)``). One test drives a child, one call at a time, so the unchecked `Sendable` holds.
final class CrashChild: @unchecked Sendable {
    /// The child's executable in the build products directory, beside the test binary.
    static let url: URL? = BuiltProducts.executable("journal-crash-child")

    let process = Process()
    private let output: FileHandle
    private var pending = ""

    /// Starts the child with `arguments`.
    init(_ arguments: [String]) throws {
        let executable: URL = try #require(Self.url, "journal-crash-child is not built beside the tests")
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        output = pipe.fileHandleForReading
        try process.run()
        let process = process
        let pid = process.processIdentifier
        Task.detached {
            try? await Task.sleep(for: .seconds(60))
            if process.isRunning { Foundation.kill(pid, SIGKILL) }
        }
    }

    /// Reads lines until `enough` says stop or the output ends.
    func readLines(until enough: @escaping @Sendable ([String]) -> Bool) async -> [String] {
        await onOwnThread { self.readLinesBlocking(until: enough) }
    }

    private func readLinesBlocking(until enough: ([String]) -> Bool) -> [String] {
        var lines: [String] = []
        while !enough(lines) {
            let data = output.availableData
            if data.isEmpty { break }
            pending += String(decoding: data, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                lines.append(String(pending[..<newline]))
                pending = String(pending[pending.index(after: newline)...])
            }
        }
        return lines
    }

    /// Kills the child with SIGKILL and waits for it to end.
    func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        await waitUntilExit()
    }

    /// Waits for the child to end by itself.
    func waitUntilExit() async {
        let process = process
        await onOwnThread { process.waitUntilExit() }
    }
}
