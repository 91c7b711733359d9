import OfflineSync

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: offline-sync [--help] [--version] | bench [--json] [--quick] [--dir PATH]"
switch arguments.first {
case "bench":
    exit(await BenchCommand.run(arguments: Array(arguments.dropFirst())))
case "--version":
    print("offline-sync \(OfflineSyncVersion.current)")
case "--help", "-h", nil:
    print("""
    offline-sync: inspect and exercise OfflineSync stores.

    \(usage)
    """)
default:
    fputs("offline-sync: unknown argument '\(arguments[0])'\n\(usage)\n", stderr)
    exit(2)
}
