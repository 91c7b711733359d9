import Foundation
import Testing
@testable import OfflineSyncJournal
import OfflineSync

/// Every vector of Project Wycheproof's ChaCha20-Poly1305 and XChaCha20-Poly1305 files (`Fixtures/wycheproof/`):
/// valid ones seal to their ciphertext and tag and open again, invalid ones are refused with a ``CipherError``.
struct WycheproofTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/wycheproof", isDirectory: true)

    struct Vector {
        var id: Int
        var key: [UInt8], nonce: [UInt8], associatedData: [UInt8]
        var message: [UInt8], ciphertext: [UInt8], tag: [UInt8]
        var valid: Bool
        var flags: [String]
    }

    /// The file's declared number of tests and its vectors.
    static func load(_ name: String) throws -> (numberOfTests: Int, vectors: [Vector]) {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let declared = try #require(root["numberOfTests"] as? Int)
        var vectors: [Vector] = []
        for group in try #require(root["testGroups"] as? [[String: Any]]) {
            for test in try #require(group["tests"] as? [[String: Any]]) {
                func bytes(_ field: String) throws -> [UInt8] { [UInt8](hexDigits: try #require(test[field] as? String)) }
                let result = try #require(test["result"] as? String)
                #expect(result == "valid" || result == "invalid", "no vector is only acceptable")
                vectors.append(Vector(id: try #require(test["tcId"] as? Int), key: try bytes("key"), nonce: try bytes("iv"),
                                      associatedData: try bytes("aad"), message: try bytes("msg"),
                                      ciphertext: try bytes("ct"), tag: try bytes("tag"), valid: result == "valid",
                                      flags: test["flags"] as? [String] ?? []))
            }
        }
        return (declared, vectors)
    }

    typealias Seal = ([UInt8], [UInt8], [UInt8], [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8])
    typealias Open = ([UInt8], [UInt8], [UInt8], [UInt8], [UInt8]) throws -> [UInt8]

    /// Runs every vector of `name` through `seal` and `open`; returns how many it checked.
    private func check(_ name: String, nonceLength: Int, seal: Seal, open: Open) throws -> (checked: Int, declared: Int) {
        let (declared, vectors) = try Self.load(name)
        var checked = 0
        for vector in vectors {
            if vector.nonce.count != nonceLength {
                #expect(!vector.valid, "\(name) #\(vector.id)")
                #expect(throws: CipherError.wrongNonceLength(expected: nonceLength, actual: vector.nonce.count), "\(name) #\(vector.id)") {
                    _ = try seal(vector.message, vector.key, vector.nonce, vector.associatedData)
                }
                #expect(throws: CipherError.wrongNonceLength(expected: nonceLength, actual: vector.nonce.count), "\(name) #\(vector.id)") {
                    _ = try open(vector.ciphertext, vector.tag, vector.key, vector.nonce, vector.associatedData)
                }
            } else if vector.valid {
                let sealed = try seal(vector.message, vector.key, vector.nonce, vector.associatedData)
                #expect(sealed.ciphertext == vector.ciphertext && sealed.tag == vector.tag, "\(name) #\(vector.id)")
                #expect(try open(vector.ciphertext, vector.tag, vector.key, vector.nonce, vector.associatedData) == vector.message, "\(name) #\(vector.id)")
            } else {
                #expect(throws: CipherError.authenticationFailed, "\(name) #\(vector.id) \(vector.flags)") { _ = try open(vector.ciphertext, vector.tag, vector.key, vector.nonce, vector.associatedData) }
            }
            checked += 1
        }
        return (checked, declared)
    }

    @Test func everyChaCha20Poly1305VectorPasses() throws {
        let counts = try check("chacha20_poly1305_test.json", nonceLength: 12, seal: ChaChaPolyCipher.seal(_:key:nonce:associatedData:),
                               open: ChaChaPolyCipher.open(_:tag:key:nonce:associatedData:))
        #expect(counts.checked == counts.declared)
        #expect(counts.checked == 325)
    }

    @Test func everyXChaCha20Poly1305VectorPasses() throws {
        let counts = try check("xchacha20_poly1305_test.json", nonceLength: 24,
                               seal: ChaChaPolyCipher.sealExtended(_:key:nonce:associatedData:),
                               open: ChaChaPolyCipher.openExtended(_:tag:key:nonce:associatedData:))
        #expect(counts.checked == counts.declared)
        #expect(counts.checked == 315)
    }
}
