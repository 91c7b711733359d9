import Foundation
import Testing

/// The README's main command must work: the demo runs end to end in a temporary directory.
struct DemoCommandTests {
    @Test func demoRunsEveryStepAndSucceeds() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let outcome = try await ToolProcess.run(["demo", "--dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.standardOutput)\n\(outcome.standardError)")
        for step in 1...10 { #expect(outcome.standardOutput.contains("\n\(step). ")) }
        #expect(outcome.standardOutput.contains("live query, after the pull: 2 open"))
        #expect(outcome.standardOutput.contains("live query, after the local edit: 1 open"))
        #expect(outcome.standardOutput.contains("conflict (HTTP 412)"))
        #expect(outcome.standardOutput.contains("Demo finished: every step succeeded."))
        // The store the demo leaves behind is sound and holds the five items.
        let verify = try await ToolProcess.run(["verify", directory.path])
        #expect(verify.status == 0)
        let inspect = try await ToolProcess.run(["inspect", directory.path])
        #expect(inspect.standardOutput.contains("TodoItem: 5"))
    }

    @Test func demoRefusesANonEmptyDirectory() async throws {
        let temporary = TemporaryDirectory(creating: true)
        defer { temporary.remove() }
        let directory = temporary.url
        try Data("x".utf8).write(to: directory.appendingPathComponent("keep.txt"))
        let outcome = try await ToolProcess.run(["demo", "--dir", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("not empty"))
    }

    @Test func demoAgainstAnUnreachableServerFailsWithAMessage() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
        let outcome = try await ToolProcess.run(["demo", "--dir", directory.path, "--url", "http://127.0.0.1:9", "--verbose"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("failed"), "\(outcome.standardError)")
        // --verbose shows each HTTP request, retries included.
        #expect(outcome.standardOutput.contains("[remote] GET http://127.0.0.1:9/tables/TodoItem"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("attempt 2"))
    }

    @Test func verboseDemoPrintsEachCallToTheBackEnd() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let outcome = try await ToolProcess.run(["demo", "--dir", directory.path, "--verbose"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains("[remote] insert TodoItem/"))
        #expect(outcome.standardOutput.contains("[remote] read TodoItem → ok"))
    }
}
