import OfflineSyncCore
import OfflineSyncStore
/// How an encrypted journal store uses its ``StoreCipher``: what each sealed piece binds as associated data, and the
/// key check the manifest carries (Docs/JournalFormat.md, "Encrypted stores").
///
/// Associated data ties every sealed piece to its place, so a sealed record or snapshot block moved to another
/// sequence number, generation or block position fails authentication and reads as damage:
/// - an apply record: the ASCII text `OfflineSync apply g=<generation> s=<sequence>`;
/// - a snapshot block: `OfflineSync snapshot g=<generation> block=<index> last=<0|1>`;
/// - the key check: `OfflineSync key check`, over the plaintext `OfflineSync key check`.
struct JournalSealing: Sendable {
    /// The cipher every piece is sealed with.
    let cipher: any StoreCipher
    /// How many bytes longer than its plaintext a message sealed by the cipher is (41 for ``ChaChaPolyCipher``),
    /// measured once by sealing an empty message. Snapshot blocks rely on it being the same for every message.
    let overhead: Int

    /// The sealing of `cipher`; seals an empty message to measure its overhead.
    /// - Throws: ``JournalError/sealingFailed(keyIdentifier:reason:)`` when the cipher cannot seal.
    init(_ cipher: any StoreCipher) throws(JournalError) {
        self.cipher = cipher
        do {
            overhead = try cipher.seal([], associatedData: []).count
        } catch {
            throw JournalError.sealingFailed(keyIdentifier: cipher.keyIdentifier, reason: "\(error)")
        }
    }

    /// The key check's plaintext, which is also its associated data.
    static let keyCheckText = Array("OfflineSync key check".utf8)

    var keyIdentifier: String { cipher.keyIdentifier }

    /// Seals `payload`, the JSON payload of the apply record `sequence` of the journal of `generation`.
    func sealRecord(_ payload: [UInt8], sequence: Int64, generation: Int64) throws(JournalError) -> [UInt8] {
        try seal(payload, associatedData: Self.recordData(sequence: sequence, generation: generation))
    }

    /// Opens the sealed payload of the apply record `sequence` of the journal of `generation`; nil when it fails
    /// authentication (changed bytes, another place, another key).
    func openRecord(_ sealed: [UInt8], sequence: Int64, generation: Int64) -> [UInt8]? {
        try? cipher.open(sealed, associatedData: Self.recordData(sequence: sequence, generation: generation))
    }

    /// Seals block `index` of the snapshot of `generation`; `isLast` for the file's last block.
    func sealBlock(_ plaintext: [UInt8], generation: Int64, index: Int, isLast: Bool) throws(JournalError) -> [UInt8] {
        try seal(plaintext, associatedData: Self.blockData(generation: generation, index: index, isLast: isLast))
    }

    /// Opens block `index` of the snapshot of `generation`; nil when it fails authentication.
    func openBlock(_ sealed: [UInt8], generation: Int64, index: Int, isLast: Bool) -> [UInt8]? {
        try? cipher.open(sealed, associatedData: Self.blockData(generation: generation, index: index, isLast: isLast))
    }

    /// A fresh key check for the manifest: the known text sealed under the key.
    func keyCheck() throws(JournalError) -> [UInt8] {
        try seal(Self.keyCheckText, associatedData: Self.keyCheckText)
    }

    /// Whether `check`, read from the manifest, was sealed under this cipher's key.
    func opens(keyCheck check: [UInt8]) -> Bool {
        (try? cipher.open(check, associatedData: Self.keyCheckText)) == Self.keyCheckText
    }

    private func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws(JournalError) -> [UInt8] {
        do {
            return try cipher.seal(plaintext, associatedData: associatedData)
        } catch {
            throw JournalError.sealingFailed(keyIdentifier: cipher.keyIdentifier, reason: "\(error)")
        }
    }

    static func recordData(sequence: Int64, generation: Int64) -> [UInt8] {
        Array("OfflineSync apply g=\(generation) s=\(sequence)".utf8)
    }

    static func blockData(generation: Int64, index: Int, isLast: Bool) -> [UInt8] {
        Array("OfflineSync snapshot g=\(generation) block=\(index) last=\(isLast ? 1 : 0)".utf8)
    }
}
