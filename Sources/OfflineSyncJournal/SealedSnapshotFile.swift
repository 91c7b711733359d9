import OfflineSyncCore
import OfflineSyncStore
/// The file of a snapshot in an encrypted store: the plaintext snapshot (exactly what ``SnapshotWriter`` writes for a
/// plaintext store) cut into blocks of ``blockBytes``, each sealed on its own, so that a reader opens any block
/// without the others (Docs/JournalFormat.md, "Encrypted stores").
///
///     offset 0    16 bytes  the ASCII text "OSYNC-SEALED-01" and a newline
///     offset 16   4 bytes   the plaintext block size B, big-endian (65,536)
///     offset 20   4 bytes   the cipher's overhead V, big-endian (41 for ChaChaPolyCipher)
///     offset 24   blocks    block i: the plaintext bytes i·B ..< min((i+1)·B, length) sealed (B + V bytes, the last
///                           one possibly shorter), with the associated data of ``JournalSealing/blockData(generation:index:isLast:)``
///
/// Every block but the last holds B plaintext bytes, so the plaintext's length follows from the file's size, and
/// only the last block is sealed with `last=1`: a file cut at a block boundary fails authentication.
enum SealedSnapshotFile {
    /// The first 16 bytes of a sealed snapshot.
    static let magic = Array("OSYNC-SEALED-01\n".utf8)
    /// The bytes before the first block.
    static let headerBytes = 24
    /// The plaintext bytes each block but the last holds.
    static let blockBytes = 64 << 10

    /// Whether `prefix`, the first bytes of a snapshot file, starts a sealed snapshot.
    static func isSealed(_ prefix: [UInt8]) -> Bool { prefix.starts(with: magic) }

    /// The 24-byte header for blocks of `blockBytes` and a cipher of `overhead`.
    static func header(overhead: Int) -> [UInt8] {
        var bytes = magic
        for value in [UInt32(blockBytes), UInt32(overhead)] {
            bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        return bytes
    }

    /// Writes a snapshot's plaintext into `file`: as it comes for a plaintext store, sealed block by block with
    /// `sealing`. Call ``write(_:)`` with the bytes in order, then ``finish()``.
    struct Sink {
        let file: FileDescriptor
        let fileSystem: any FileSystem
        let sealing: JournalSealing?
        let generation: Int64
        /// Where the next write goes in the file.
        private(set) var offset: Int64 = 0
        /// Plaintext not yet sealed: the last block is sealed by ``finish()`` only, since it is sealed as the last.
        private var pending: [UInt8] = []
        private var blockIndex = 0

        init(file: FileDescriptor, fileSystem: any FileSystem, sealing: JournalSealing?, generation: Int64) {
            self.file = file
            self.fileSystem = fileSystem
            self.sealing = sealing
            self.generation = generation
        }

        /// Writes the next plaintext bytes (sealing every block that is known not to be the last).
        mutating func write(_ bytes: UnsafeRawBufferPointer) throws(JournalError) {
            guard let sealing else {
                try fileSystem.writeAll(file, bytes, at: offset)
                offset += Int64(bytes.count)
                return
            }
            if offset == 0 { try put(SealedSnapshotFile.header(overhead: sealing.overhead)) }
            pending.append(contentsOf: bytes)
            var start = 0
            while pending.count - start > SealedSnapshotFile.blockBytes {
                let block = Array(pending[start..<(start + SealedSnapshotFile.blockBytes)])
                try put(try seal(block, sealing: sealing, isLast: false))
                start += SealedSnapshotFile.blockBytes
            }
            pending.removeFirst(start)
        }

        /// Seals and writes the last block; returns the file's size.
        mutating func finish() throws(JournalError) -> Int64 {
            guard let sealing else { return offset }
            if offset == 0 { try put(SealedSnapshotFile.header(overhead: sealing.overhead)) }
            try put(try seal(pending, sealing: sealing, isLast: true))
            pending = []
            return offset
        }

        private mutating func seal(_ block: [UInt8], sealing: JournalSealing, isLast: Bool) throws(JournalError) -> [UInt8] {
            let sealed = try sealing.sealBlock(block, generation: generation, index: blockIndex, isLast: isLast)
            guard sealed.count == block.count + sealing.overhead else {
                throw JournalError.sealingFailed(keyIdentifier: sealing.keyIdentifier,
                                                 reason: "the cipher added \(sealed.count - block.count) bytes to a snapshot block, not the \(sealing.overhead) it adds to an empty message; a store cipher must add the same number of bytes to every message")
            }
            blockIndex += 1
            return sealed
        }

        private mutating func put(_ bytes: [UInt8]) throws(JournalError) {
            try fileSystem.writeAll(file, bytes, at: offset)
            offset += Int64(bytes.count)
        }
    }
}

extension SnapshotSource {
    /// The snapshot of `generation` at `path`, open as `file`, `size` bytes long: read as it is in a plaintext store,
    /// through its sealed blocks in an encrypted one (`sealing`).
    /// - Throws: ``JournalError/encrypted(directory:keyIdentifier:)`` for a sealed snapshot read without a cipher (not
    ///   damage: nothing may repair it away), ``JournalError/invalidSnapshot(file:offset:reason:)`` for a plaintext
    ///   snapshot in an encrypted store or a sealed file whose header or size is wrong.
    static func opening(_ file: FileDescriptor, path: String, size: Int, generation: Int64, sealing: JournalSealing?,
                        fileSystem: any FileSystem) throws(JournalError) -> SnapshotSource {
        let plain = SnapshotSource(file: file, path: path, count: size, fileSystem: fileSystem)
        let prefix = try plain.read(0..<min(size, SealedSnapshotFile.headerBytes))
        let isSealed = SealedSnapshotFile.isSealed(prefix)
        guard let sealing else {
            if isSealed {
                let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                throw JournalError.encrypted(directory: directory, keyIdentifier: "(named in the manifest)")
            }
            return plain
        }
        guard isSealed, prefix.count == SealedSnapshotFile.headerBytes else {
            throw JournalError.invalidSnapshot(file: path, offset: 0, reason: "the snapshot of an encrypted store is not sealed")
        }
        let blockBytes = Int(prefix[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let overhead = Int(prefix[20..<24].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard blockBytes > 0, blockBytes <= 1 << 24, overhead == sealing.overhead else {
            throw JournalError.invalidSnapshot(file: path, offset: 16, reason: "the sealed snapshot's header names a block size of \(blockBytes) bytes and an overhead of \(overhead), not what this cipher uses")
        }
        let sealedBlock = blockBytes + overhead
        let body = size - SealedSnapshotFile.headerBytes
        let blocks = (body + sealedBlock - 1) / sealedBlock
        let lastSealed = body - (blocks - 1) * sealedBlock
        guard blocks > 0, lastSealed > overhead else {
            throw JournalError.invalidSnapshot(file: path, offset: Int64(size), reason: "the sealed snapshot is cut short (its last block is incomplete)")
        }
        let count = (blocks - 1) * blockBytes + lastSealed - overhead
        return SnapshotSource(count: count, isAuthenticated: true) { buffer, offset throws(JournalError) in
            var done = 0
            while done < buffer.count {
                let position = offset + done
                let index = position / blockBytes
                let isLast = index == blocks - 1
                let fileOffset = SealedSnapshotFile.headerBytes + index * sealedBlock
                let sealed = try plain.read(fileOffset..<(fileOffset + (isLast ? lastSealed : sealedBlock)))
                guard let block = sealing.openBlock(sealed, generation: generation, index: index, isLast: isLast) else {
                    throw JournalError.invalidSnapshot(file: path, offset: Int64(fileOffset), reason: "sealed block \(index) fails authentication (changed on disk, moved, or sealed under another key)")
                }
                let start = position - index * blockBytes
                let length = min(block.count - start, buffer.count - done)
                block.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[done..<(done + length)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]))
                }
                done += length
            }
            return done
        }
    }
}
