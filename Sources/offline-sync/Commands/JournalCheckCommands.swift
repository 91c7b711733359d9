import Foundation
import OfflineSync

/// `verify` and `repair`: checking a journal store's files, and moving a damaged part aside (rebuilding a missing or
/// damaged manifest first).
enum JournalCheckCommands {
    static let verifySpec = CommandSpec(
        name: "verify", summary: "Checks every checksum and sequence number of a journal store without changing it (exit 0 sound, 1 not).",
        positionals: [.init(name: "DIR", help: "The store's directory.")], options: [KeyFile.option])
    static let repairSpec = CommandSpec(
        name: "repair", summary: "Keeps the valid prefix of a damaged journal store (the rest moved aside, kept) and rebuilds a missing or damaged manifest (CURRENT) from the store's files.",
        positionals: [.init(name: "DIR", help: "The store's directory.")],
        options: [.init(name: "yes", valueName: nil, help: "Do not ask before moving anything aside."), KeyFile.option])

    static func verify(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try StoreCommands.existingStoreDirectory(arguments.positionals[0])
        let verification = try await JournalDataSource.verify(directory: directory, cipher: try KeyFile.cipher(arguments))
        if verification.isSound {
            Terminal.out("sound: generation \(verification.generation), \(verification.records) records, last sequence \(verification.lastSequence)")
            return 0
        }
        printProblems(verification)
        Terminal.out("not sound: \(verification.problems.count) problem(s); `offline-sync repair \(arguments.positionals[0])` keeps the valid prefix")
        return 1
    }

    /// Lists what is wrong, asks (unless `--yes`), then repairs. A manifest that is missing or damaged, which `verify`
    /// cannot read past, is rebuilt by the repair from the snapshot and journal files in the directory (see
    /// ``JournalDataSource/repair(directory:cipher:)``); the rest of the repair then runs as for any damage.
    static func repair(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try StoreCommands.existingStoreDirectory(arguments.positionals[0])
        let cipher = try KeyFile.cipher(arguments)
        do {
            let verification = try await JournalDataSource.verify(directory: directory, cipher: cipher)
            if verification.isSound {
                Terminal.out("sound: nothing to repair (generation \(verification.generation), \(verification.records) records)")
                return 0
            }
            printProblems(verification)
        } catch let error as JournalError where error.code == .notAStore || error.code == .invalidManifest {
            guard let problem = manifestProblem(error, in: directory) else { throw error }
            Terminal.out("problem: \(problem); repair writes a new one naming the newest snapshot and the journals from its generation on, "
                + "then keeps their valid prefix")
        }
        if !arguments.flag("yes") {
            Terminal.write("Move the damaged part aside and keep the valid prefix? [y/N] ", to: 1)
            let answer = Terminal.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else {
                Terminal.out("nothing changed")
                return 1
            }
        }
        let progress = ProgressReporter(label: "repair")
        progress.update(done: 0, total: nil)
        let report = try await JournalDataSource.repair(directory: directory, cipher: cipher)
        progress.finish(done: report.recordsKept, total: report.recordsKept)
        Terminal.out("repaired: kept \(report.recordsKept) records; moved \(report.bytesMovedAside) bytes aside:")
        for path in report.movedAside { Terminal.out("  \(path)") }
        return 0
    }

    /// What is wrong with the manifest (`CURRENT`) of the store in `directory`, from the error `verify` threw; nil when
    /// the directory holds no manifest and no snapshot or journal file either: then it holds no store to repair.
    private static func manifestProblem(_ error: JournalError, in directory: URL) -> String? {
        let manifest = directory.appendingPathComponent("CURRENT").path
        if error.code == .invalidManifest { return "the manifest \(manifest) is damaged (\(error.reason ?? "unreadable"))" }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { name in
            (name.hasPrefix("journal.") && name.hasSuffix(".jsonl")) || (name.hasPrefix("snapshot.") && name.hasSuffix(".json"))
        }
        guard !names.isEmpty else { return nil }
        return "the manifest \(manifest) is missing, beside the store's files \(names.sorted().joined(separator: ", "))"
    }

    /// One line per problem: file, byte offset, sequence number and what is wrong.
    private static func printProblems(_ verification: JournalVerification) {
        for problem in verification.problems {
            Terminal.out("problem: \(problem.file) at byte \(problem.offset), sequence \(problem.sequence.map(String.init) ?? "unknown"): \(problem.message)")
        }
    }
}
