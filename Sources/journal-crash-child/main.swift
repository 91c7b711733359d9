// A helper process for OfflineSync's journal crash tests; not a product.
//
//   journal-crash-child write <directory> [compactionMinimumBytes] [always|grouped|buffered] [hex key]
//       Opens the store (`.always` by default; encrypted with ChaChaPolyCipher under the 32-byte key given in 64 hex
//       digits) and applies batches forever. Batch n upserts items "b<n>-0" … "b<n>-2"
//       into table "Crash" and sets item "last" of "__config" to n, as one apply; after each apply returns it
//       prints "ack <n>". It starts after the "last" batch it finds in the store.
//   journal-crash-child probe <directory>
//       Tries to open the store and prints "opened", "locked" or "error <description>".
//   journal-crash-child sync <directory> <baseURL> <v2|v3> <seed>
//       A device that writes, pushes and pulls until it is killed; see SyncChild.swift.
//   journal-crash-child push-insert <directory> <baseURL> <v2|v3>
//       Inserts one item and pushes it; see SyncChild.swift.
//   journal-crash-child bases <directory> <baseURL> <v2|v3> <seed>
//       A device that edits pulled items and pushes until it is killed; see BaseChild.swift.
//   journal-crash-child attachments <directory> <tablesURL> <filesURL> <v2|v3> <seed>
//       A device that adds photos, pushes the items naming them and downloads others' until it is killed; see
//       AttachmentChild.swift.
//   journal-crash-child batch <directory>
//       Writes batches across three tables with SyncContext.write until it is killed; see SyncChild.swift.
import Foundation
import OfflineSync

func output(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    output("usage: journal-crash-child write|probe <directory> [compactionMinimumBytes]")
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[2])

switch arguments[1] {
case "probe":
    do {
        let store = try await JournalDataSource(directory: directory)
        output("opened")
        try await store.close()
    } catch let error as JournalError where error.code == .locked {
        output("locked")
    } catch {
        output("error \(error)")
    }
case "write":
    var options = JournalOptions(durability: .always)
    options.indexes = [IndexDefinition(table: "Crash", fields: ["batch"])]
    if arguments.count >= 4, let minimum = Int64(arguments[3]) { options.compactionMinimumBytes = minimum }
    if arguments.count >= 5 {
        switch arguments[4] {
        case "grouped": options.durability = .grouped
        case "buffered": options.durability = .buffered
        default: options.durability = .always
        }
    }
    if arguments.count >= 6 {
        let digits = Array(arguments[5].utf8)
        let key = stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...($0 + 1)], as: UTF8.self), radix: 16) }
        do {
            options.cipher = try ChaChaPolyCipher(key: key, keyIdentifier: "crash-child")
        } catch {
            output("error \(error)")
            exit(2)
        }
    }
    do {
        let store = try await JournalDataSource(directory: directory, options: options)
        var batch = (try await store.read(table: "__config", id: "last"))?["value"]?.intValue ?? 0
        while true {
            batch += 1
            let items: [JSONObject] = (0..<3).map { ["id": .string("b\(batch)-\($0)"), "batch": .int(batch), "text": .string("item \($0) of batch \(batch)")] }
            // The same eight items rewritten in every batch: garbage, so that automatic compactions start.
            let churn: [JSONObject] = (0..<8).map { ["id": .string("c\($0)"), "batch": .int(batch)] }
            try await store.apply([
                .upsert(table: "Crash", items: items),
                .upsert(table: "Churn", items: churn),
                .upsert(table: "__config", items: [["id": "last", "value": .int(batch)]]),
            ])
            output("ack \(batch)")
        }
    } catch {
        output("error \(error)")
        exit(1)
    }
case "sync":
    guard arguments.count >= 6, let baseURL = URL(string: arguments[3]), let seed = UInt64(arguments[5]) else {
        output("usage: journal-crash-child sync <directory> <baseURL> <v2|v3> <seed> [faults]")
        exit(2)
    }
    do {
        try await SyncChild.run(directory: directory, baseURL: baseURL, apiVersion: arguments[4] == "v3" ? .v3 : .v2, seed: seed,
                                faults: arguments.count >= 7 && arguments[6] == "faults")
    } catch {
        output("error \(error)")
        exit(1)
    }
case "bases":
    guard arguments.count >= 6, let baseURL = URL(string: arguments[3]), let seed = UInt64(arguments[5]) else {
        output("usage: journal-crash-child bases <directory> <baseURL> <v2|v3> <seed>")
        exit(2)
    }
    do {
        try await BaseChild.run(directory: directory, baseURL: baseURL, apiVersion: arguments[4] == "v3" ? .v3 : .v2, seed: seed)
    } catch {
        output("error \(error)")
        exit(1)
    }
case "attachments":
    guard arguments.count >= 7, let tablesURL = URL(string: arguments[3]), let filesURL = URL(string: arguments[4]),
          let seed = UInt64(arguments[6]) else {
        output("usage: journal-crash-child attachments <directory> <tablesURL> <filesURL> <v2|v3> <seed>")
        exit(2)
    }
    do {
        try await AttachmentChild.run(directory: directory, tablesURL: tablesURL, filesURL: filesURL,
                                      apiVersion: arguments[5] == "v3" ? .v3 : .v2, seed: seed)
    } catch {
        output("error \(error)")
        exit(1)
    }
case "batch":
    do {
        try await SyncChild.writeBatches(directory: directory)
    } catch {
        output("error \(error)")
        exit(1)
    }
case "push-insert":
    guard arguments.count >= 5, let baseURL = URL(string: arguments[3]) else {
        output("usage: journal-crash-child push-insert <directory> <baseURL> <v2|v3>")
        exit(2)
    }
    do {
        try await SyncChild.pushInsert(directory: directory, baseURL: baseURL, apiVersion: arguments[4] == "v3" ? .v3 : .v2)
    } catch {
        output("error \(error)")
        exit(1)
    }
default:
    output("unknown mode \(arguments[1])")
    exit(2)
}
