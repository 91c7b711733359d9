import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// Items and batches used across the journal tests.
enum Sample {
    static func item(_ id: String, _ value: Int64, text: String = "hello") -> JSONObject {
        ["id": .string(id), "value": .int(value), "text": .string(text), "done": false]
    }

    /// Batch n upserts "n-a" and "n-b" into "T".
    static func batch(_ n: Int) -> [StoreChange] {
        [.upsert(table: "T", items: [item("\(n)-a", Int64(n)), item("\(n)-b", Int64(n), text: "line\nbreak \"quoted\" ü")])]
    }

    /// Whether `store` holds batch n entirely (true), not at all (false); records an issue when partly.
    static func holds(_ store: JournalDataSource, batch n: Int) async throws -> Bool {
        let a = try await store.read(table: "T", id: "\(n)-a")
        let b = try await store.read(table: "T", id: "\(n)-b")
        #expect((a == nil) == (b == nil), "batch \(n) is partly present")
        return a != nil && b != nil
    }

    /// Opens the store at `path` on the real file system (with `cipher`), returns which of `batches` it holds (each whole or not at
    /// all, as ``holds(_:batch:)`` checks), and closes it again.
    static func heldBatches(at path: String, among batches: ClosedRange<Int>, cipher: (any StoreCipher)? = nil) async throws -> [Int] {
        var options = JournalOptions()
        options.automaticCompaction = false
        options.cipher = cipher
        let store = try await JournalDataSource(path: path, options: options, fileSystem: POSIXFileSystem())
        var held: [Int] = []
        for n in batches where try await holds(store, batch: n) { held.append(n) }
        try await store.close()
        return held
    }
}

extension JournalDataSource {
    /// Opens `path` through `fileSystem` (the real one by default).
    static func open(_ path: String, durability: Durability = .always, fileSystem: any FileSystem = POSIXFileSystem(),
                     automaticCompaction: Bool = false, writeThread: JournalWriteThread = .shared) async throws -> JournalDataSource {
        var options = JournalOptions(durability: durability)
        options.automaticCompaction = automaticCompaction
        options.writeThread = writeThread
        return try await JournalDataSource(path: path, options: options, fileSystem: fileSystem)
    }

    /// A store at `path` with the default options as `configure` changes them.
    static func open(_ path: String, configuring configure: (inout JournalOptions) -> Void) async throws -> JournalDataSource {
        var options = JournalOptions()
        configure(&options)
        return try await JournalDataSource(path: path, options: options, fileSystem: POSIXFileSystem())
    }
}

func fileBytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

func writeBytes(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

/// The offsets just after each newline in `bytes`.
func lineEnds(_ bytes: [UInt8]) -> [Int] {
    bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
}
