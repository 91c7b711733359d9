import Testing
@testable import offline_sync

struct ArgumentParsingTests {
    static let spec = CommandSpec(
        name: "demo", summary: "Runs the demo.",
        positionals: [.init(name: "DIR", help: "A directory.", optional: true)],
        options: [.init(name: "url", valueName: "URL", help: "Server."), .init(name: "yes", valueName: nil, help: "No questions.")])

    @Test func parsesOptionsFlagsAndPositionals() throws {
        let parsed = try ParsedArguments(["--url", "http://x", "--yes", "here"], spec: Self.spec)
        #expect(parsed.value("url") == "http://x")
        #expect(parsed.flag("yes"))
        #expect(parsed.positionals == ["here"])
    }

    @Test func acceptsInlineValues() throws {
        #expect(try ParsedArguments(["--url=http://y"], spec: Self.spec).value("url") == "http://y")
    }

    @Test(arguments: [
        (["--nope"], "unknown option '--nope'"),
        (["--url"], "option '--url' needs a value"),
        (["--yes=1"], "option '--yes' takes no value"),
        (["a", "b"], "unexpected argument 'b'"),
        (["-x"], "unknown option '-x'"),
    ])
    func rejectsBadCommandLines(_ arguments: [String], _ message: String) {
        #expect(throws: UsageError(message, spec: Self.spec)) { try ParsedArguments(arguments, spec: Self.spec) }
    }

    @Test func usageLineListsOptionsAndArguments() {
        #expect(Self.spec.usage == "usage: offline-sync demo [--url URL] [--yes] [DIR]")
        #expect(Self.spec.help.contains("--url URL"))
    }

    @Test func progressLineShowsTheFraction() {
        let reporter = ProgressReporter(label: "pull", interactive: false)
        #expect(reporter.line(done: 25, total: 100) == "pull [#######.......................] 25% (25/100)")
        #expect(reporter.line(done: 7, total: nil) == "pull: 7 done")
    }
}
