import Foundation
import OfflineSync

/// `offline-sync demo`: the offline to-do scenario, end to end.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Runs the Azure Mobile Apps offline tutorial end to end: work offline, restart, sync, resolve a conflict.",
        options: [
            .init(name: "dir", valueName: "DIR", help: "Keep the journal store in DIR (new or empty; default: a fresh temporary directory)."),
            .init(name: "url", valueName: "URL", help: "Use a real back end at URL instead of the in-process one."),
            .init(name: "api", valueName: "v2|v3", help: "The back end's protocol with --url (default v2)."),
            .init(name: "token", valueName: "T", help: "An access token for the back end at --url."),
            .init(name: "verbose", valueName: nil, help: "Print every call to the back end (with --url: every HTTP request)."),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let backEnd: DemoBackEnd
        if let urlText = arguments.value("url") {
            guard let url = URL(string: urlText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw UsageError("--url needs an http or https URL, not '\(urlText)'", spec: spec)
            }
            let apiVersion: APIVersion
            switch arguments.value("api") ?? "v2" {
            case "v2": apiVersion = .v2
            case "v3": apiVersion = .v3
            case let other: throw UsageError("--api must be v2 or v3, not '\(other)'", spec: spec)
            }
            backEnd = .server(url: url, apiVersion: apiVersion, token: arguments.value("token"), verbose: arguments.flag("verbose"))
        } else {
            if arguments.value("api") != nil || arguments.value("token") != nil {
                throw UsageError("--api and --token go with --url", spec: spec)
            }
            backEnd = .simulator(verbose: arguments.flag("verbose"))
        }
        let directory = try storeDirectory(arguments.value("dir"))
        var scenario = DemoScenario(directory: directory, backEnd: backEnd)
        do {
            try await scenario.run()
            return 0
        } catch {
            Terminal.error("offline-sync demo: step \(scenario.currentStep) failed: \(error)")
            return 1
        }
    }

    /// The directory for the demo's store: the one given (created if missing, refused unless empty), or a new
    /// temporary one.
    private static func storeDirectory(_ path: String?) throws -> URL {
        let files = FileManager.default
        guard let path else {
            let directory = files.temporaryDirectory.appendingPathComponent("offline-sync-demo-\(UUID().uuidString)")
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory
        }
        let directory = URL(fileURLWithPath: path)
        if files.fileExists(atPath: directory.path) {
            guard (try? files.contentsOfDirectory(atPath: directory.path).isEmpty) == true else {
                throw CommandFailure("the demo needs a new or empty directory, and \(directory.path) is not empty")
            }
        } else {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        return directory
    }
}

/// A command that cannot do its work: printed as one line, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
