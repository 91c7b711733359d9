import Foundation
import Testing
import OfflineSync

/// The tool's command line: help, version, and one-line errors with a usage line and exit code 2.
struct ToolArgumentTests {
    @Test func versionAndHelpSucceed() async throws {
        let version = try await ToolProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.standardOutput == "offline-sync \(OfflineSyncVersion.current)\n")
        let help = try await ToolProcess.run(["--help"])
        #expect(help.status == 0)
        for command in ["demo", "inspect", "dump", "explain", "verify", "repair", "compact", "bench"] {
            #expect(help.standardOutput.contains("  \(command) "), "help lacks \(command)")
        }
    }

    @Test(arguments: ["demo", "inspect", "dump", "explain", "verify", "repair", "compact", "bench"])
    func everyCommandHasHelp(_ command: String) async throws {
        let outcome = try await ToolProcess.run([command, "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains("usage: offline-sync \(command)"))
    }

    @Test(arguments: [
        (["nonsense"], "unknown command 'nonsense'"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        ([], "missing command"),
        (["inspect"], "missing argument DIR"),
        (["inspect", "a", "b"], "unexpected argument 'b'"),
        (["dump", "x", "--table"], "option '--table' needs a value"),
        (["verify", "--bogus", "x"], "unknown option '--bogus'"),
        (["demo", "--api", "v9", "--url", "http://127.0.0.1:9"], "--api must be v2 or v3"),
        (["demo", "--token", "t"], "--api and --token go with --url"),
        (["bench", "--bogus"], "unknown argument '--bogus'"),
    ])
    func badCommandLinesExitWithUsage(_ arguments: [String], _ message: String) async throws {
        let outcome = try await ToolProcess.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains(message), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("usage: offline-sync"))
        #expect(outcome.standardOutput.isEmpty)
    }
}
