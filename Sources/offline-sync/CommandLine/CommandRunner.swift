import OfflineSync

/// Runs one subcommand: parses its arguments, answers `--help`, and turns errors into messages and exit codes
/// (2 for a command line that does not fit, 1 for work that failed).
enum CommandRunner {
    static func run(_ spec: CommandSpec, _ body: (ParsedArguments) async throws -> Int32, arguments: [String]) async -> Int32 {
        do {
            let parsed = try ParsedArguments(arguments, spec: spec)
            if parsed.wantsHelp {
                Terminal.out(spec.help)
                return 0
            }
            return try await body(parsed)
        } catch let error as UsageError {
            Terminal.error(error.description)
            return 2
        } catch let error as JournalError {
            switch error.code {
            case .locked:
                Terminal.error("offline-sync \(spec.name): the store in \(error.path ?? "DIR") is in use by another process (locked); close it there and try again.")
            case .corrupted:
                let directory = arguments.first { !$0.hasPrefix("-") } ?? "DIR"
                Terminal.error("offline-sync \(spec.name): the journal \(error.path ?? directory) is damaged at byte "
                    + "\(error.offset ?? 0) (\(error.reason ?? "unknown damage")) and "
                    + "valid records follow the damage. Run `offline-sync verify \(directory)` to list the problems, then "
                    + "`offline-sync repair \(directory)` to keep the valid prefix (the rest is moved aside, not deleted).")
            case .encrypted:
                Terminal.error("offline-sync \(spec.name): the store in \(error.path ?? "DIR") is encrypted (key \"\(error.keyIdentifier ?? "unknown")\"); "
                    + "pass --key-file PATH, a file holding its 32-byte key (raw, or as 64 hex digits).")
            case .wrongKey:
                Terminal.error("offline-sync \(spec.name): the key in --key-file does not open the store in \(error.path ?? "DIR"), "
                    + "which is encrypted with the key \"\(error.keyIdentifier ?? "unknown")\"; nothing was changed.")
            case .notEncrypted:
                Terminal.error("offline-sync \(spec.name): the store in \(error.path ?? "DIR") is not encrypted; leave out --key-file.")
            default:
                Terminal.error("offline-sync \(spec.name): \(error)")
            }
            return 1
        } catch {
            Terminal.error("offline-sync \(spec.name): \(error)")
            return 1
        }
    }
}
