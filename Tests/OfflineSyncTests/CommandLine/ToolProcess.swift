import Foundation
import Testing

/// Runs the built `offline-sync` executable as a child process and collects what it printed.
struct ToolProcess {
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `offline-sync arguments`, feeding `input` on standard input; kills it after `timeout` seconds.
    static func run(_ arguments: [String], input: String = "", timeout: Duration = .seconds(120)) async throws -> Outcome {
        let tool = try #require(BuiltProducts.executable("offline-sync"), "offline-sync is not built beside the tests")
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let output = Pipe(), errors = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        standardInput.fileHandleForWriting.write(Data(input.utf8))
        try standardInput.fileHandleForWriting.close()
        let pid = process.processIdentifier
        let watchdog = Task.detached {
            try await Task.sleep(for: timeout)
            if process.isRunning { kill(pid, SIGKILL) }
        }
        async let outputData = onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
        async let errorData = onOwnThread { errors.fileHandleForReading.readDataToEndOfFile() }
        let (out, err) = await (outputData, errorData)
        await onOwnThread { process.waitUntilExit() }
        watchdog.cancel()
        return Outcome(status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self),
                       standardError: String(decoding: err, as: UTF8.self))
    }

    /// A copy of the journal fixture `name` (`valid`, `torn-tail`, `mid-log-corrupted`) in a new temporary directory
    /// (the caller removes it).
    static func fixtureCopy(_ name: String) throws -> URL {
        let source = BuiltProducts.repositoryRoot.appendingPathComponent("Fixtures/journal/\(name)")
        let target = TemporaryDirectory().url
        try FileManager.default.copyItem(at: source, to: target)
        return target
    }
}
