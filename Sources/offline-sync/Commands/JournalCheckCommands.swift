import Foundation
import OfflineSync

/// `verify` and `repair`: checking a journal store's files, and moving a damaged part aside.
enum JournalCheckCommands {
    static let verifySpec = CommandSpec(
        name: "verify", summary: "Checks every checksum and sequence number of a journal store without changing it (exit 0 sound, 1 not).",
        positionals: [.init(name: "DIR", help: "The store's directory.")], options: [KeyFile.option])
    static let repairSpec = CommandSpec(
        name: "repair", summary: "Moves the damaged part of a journal store aside (kept, not deleted) and keeps the valid prefix.",
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

    static func repair(_ arguments: ParsedArguments) async throws -> Int32 {
        let directory = try StoreCommands.existingStoreDirectory(arguments.positionals[0])
        let verification = try await JournalDataSource.verify(directory: directory, cipher: try KeyFile.cipher(arguments))
        if verification.isSound {
            Terminal.out("sound: nothing to repair (generation \(verification.generation), \(verification.records) records)")
            return 0
        }
        printProblems(verification)
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
        let report = try await JournalDataSource.repair(directory: directory, cipher: try KeyFile.cipher(arguments))
        progress.finish(done: report.recordsKept, total: report.recordsKept)
        Terminal.out("repaired: kept \(report.recordsKept) records; moved \(report.bytesMovedAside) bytes aside:")
        for path in report.movedAside { Terminal.out("  \(path)") }
        return 0
    }

    /// One line per problem: file, byte offset, sequence number and what is wrong.
    private static func printProblems(_ verification: JournalVerification) {
        for problem in verification.problems {
            Terminal.out("problem: \(problem.file) at byte \(problem.offset), sequence \(problem.sequence.map(String.init) ?? "unknown"): \(problem.message)")
        }
    }
}
