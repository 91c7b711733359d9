import Foundation
import Testing
import OfflineSync

/// The store commands on an encrypted store, through the real executable: with `--key-file` (raw or hex) they work,
/// without it they say the store is encrypted and need the option, and a wrong key changes nothing.
@Suite(.serialized)
struct EncryptedStoreCommandTests {
    static let key: [UInt8] = (0..<32).map { UInt8(0xA0 &+ $0) }

    /// An encrypted store with two items of TodoItem, and files holding its key raw, in hex, and another key.
    static func makeStore(_ temporary: TemporaryDirectory) async throws -> (store: URL, raw: String, hex: String, wrong: String) {
        try FileManager.default.createDirectory(at: temporary.url, withIntermediateDirectories: true)
        var options = JournalOptions()
        options.cipher = try ChaChaPolyCipher(key: key, keyIdentifier: "app-key")
        let store = try await JournalDataSource(directory: temporary.store, options: options)
        try await store.apply([.upsert(table: "TodoItem", items: [["id": "a", "text": "milk"], ["id": "b", "text": "eggs"]])])
        try await store.close()
        let raw = temporary.url.appendingPathComponent("key.bin").path
        let hex = temporary.url.appendingPathComponent("key.hex").path
        let wrong = temporary.url.appendingPathComponent("wrong.hex").path
        try Data(key).write(to: URL(fileURLWithPath: raw))
        try Data(("  " + key.map { String(format: "%02X", $0) }.joined() + "\n").utf8).write(to: URL(fileURLWithPath: hex))
        try Data((String(repeating: "0f", count: 32) + "\n").utf8).write(to: URL(fileURLWithPath: wrong))
        return (temporary.store, raw, hex, wrong)
    }

    @Test func withoutAKeyFileEveryStoreCommandSaysTheStoreIsEncrypted() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let (store, _, _, _) = try await Self.makeStore(temporary)
        for command in [["inspect"], ["dump"], ["explain", "--table", "TodoItem"], ["verify"], ["repair", "--yes"], ["compact"]] {
            let outcome = try await ToolProcess.run(command + [store.path])
            #expect(outcome.status == 1, "\(command)")
            #expect(outcome.standardError.contains("is encrypted") && outcome.standardError.contains("--key-file"),
                    "\(command): \(outcome.standardError)")
        }
    }

    @Test func aKeyFileRawOrInHexOpensTheStore() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let (store, raw, hex, _) = try await Self.makeStore(temporary)
        let inspect = try await ToolProcess.run(["inspect", store.path, "--key-file", hex])
        #expect(inspect.status == 0, "\(inspect.standardError)")
        #expect(inspect.standardOutput.contains("TodoItem: 2"))
        let dump = try await ToolProcess.run(["dump", store.path, "--table", "TodoItem", "--key-file", raw])
        #expect(dump.status == 0, "\(dump.standardError)")
        #expect(dump.standardOutput.contains("milk"))
        let verify = try await ToolProcess.run(["verify", store.path, "--key-file", raw])
        #expect(verify.status == 0, "\(verify.standardError)")
        #expect(verify.standardOutput.hasPrefix("sound"))
        let compact = try await ToolProcess.run(["compact", store.path, "--key-file", hex])
        #expect(compact.status == 0, "\(compact.standardError)")
        // Still encrypted under the app's key after the tool compacted it.
        var options = JournalOptions()
        options.cipher = try ChaChaPolyCipher(key: Self.key, keyIdentifier: "app-key")
        let reopened = try await JournalDataSource(directory: store, options: options)
        #expect(try await reopened.read(table: "TodoItem", id: "b")?["text"] == "eggs")
        try await reopened.close()
    }

    @Test func aWrongKeyOrABadKeyFileIsRefusedAndChangesNothing() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let (store, _, _, wrong) = try await Self.makeStore(temporary)
        let before = try FileManager.default.contentsOfDirectory(atPath: store.path).sorted()
        let outcome = try await ToolProcess.run(["inspect", store.path, "--key-file", wrong])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("does not open"), "\(outcome.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).sorted() == before)
        let bad = temporary.url.appendingPathComponent("bad.txt").path
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: bad))
        let badOutcome = try await ToolProcess.run(["dump", store.path, "--key-file", bad])
        #expect(badOutcome.status == 1)
        #expect(badOutcome.standardError.contains("32-byte key"), "\(badOutcome.standardError)")
    }
}
