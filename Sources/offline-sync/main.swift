import Foundation
import OfflineSync

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The subcommands of `offline-sync`, with their specs and entry points (`bench` parses its own options).
let commands: [(spec: CommandSpec, run: (ParsedArguments) async throws -> Int32)] = [
    (DemoCommand.spec, DemoCommand.run),
    (StoreCommands.inspectSpec, StoreCommands.inspect),
    (StoreCommands.dumpSpec, StoreCommands.dump),
    (StoreCommands.explainSpec, StoreCommands.explain),
    (JournalCheckCommands.verifySpec, JournalCheckCommands.verify),
    (JournalCheckCommands.repairSpec, JournalCheckCommands.repair),
    (StoreCommands.compactSpec, StoreCommands.compact),
]
let allSpecs = commands.map(\.spec) + [BenchCommand.spec]

let toolUsage = "usage: offline-sync [--help] [--version] <command> [options]"
let toolHelp = """
    offline-sync \(OfflineSyncVersion.current): run the OfflineSync demo, and inspect, check, repair and measure journal stores.

    \(toolUsage)

    Commands:
    \(allSpecs.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

    Run 'offline-sync <command> --help' for a command's options.
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "--version":
    Terminal.out("offline-sync \(OfflineSyncVersion.current)")
    status = 0
case "--help", "-h", "help":
    Terminal.out(toolHelp)
    status = 0
case nil:
    Terminal.error("offline-sync: missing command\n\(toolUsage)")
    status = 2
case "bench":
    status = await BenchCommand.run(arguments: Array(arguments.dropFirst()))
case let name?:
    if let command = commands.first(where: { $0.spec.name == name }) {
        status = await CommandRunner.run(command.spec, command.run, arguments: Array(arguments.dropFirst()))
    } else if name.hasPrefix("-") {
        Terminal.error("offline-sync: unknown option '\(name)'\n\(toolUsage)")
        status = 2
    } else {
        Terminal.error("offline-sync: unknown command '\(name)'\n\(toolUsage)")
        status = 2
    }
}
exit(status)
