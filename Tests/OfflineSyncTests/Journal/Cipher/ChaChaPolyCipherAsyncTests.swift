import Testing
@testable import OfflineSyncJournal

/// A ``ChaChaPolyCipher`` held as a local of an async function across suspensions, as the bench's encryption suite
/// once held it. While the cipher stored its key as a `SIMD8<UInt32>` (a 32-byte LLVM vector, alignment 32), a debug
/// build of Swift 6.3 laid out such a function's async frame 16 bytes larger than the context it allocated for it,
/// and the function wrote past its context: `malloc(): invalid next size` under glibc, a heap-buffer-overflow under
/// AddressSanitizer with `SWIFT_DEBUG_ENABLE_TASK_SLAB_ALLOCATOR=0`.
struct ChaChaPolyCipherAsyncTests {
    /// The cipher's stored properties need no more than the alignment of a word, so no vector of them can reach an
    /// async frame (the cipher with a `SIMD8` key had an alignment of 16, and of 32 as LLVM lays the vector out).
    @Test func cipherHoldsNoVectorThatAnAsyncFrameWouldOveralign() {
        #expect(MemoryLayout<ChaChaPolyCipher>.alignment <= MemoryLayout<Int>.alignment)
    }

    /// Round trips with the cipher a local of this async test across many suspensions; the key survives them, and
    /// the heap is intact afterwards (this test crashed or tripped AddressSanitizer with the `SIMD8` key).
    @Test func cipherHeldAcrossSuspensionsOfAnAsyncFunctionKeepsItsKey() async throws {
        let cipher = try ChaChaPolyCipher(key: [UInt8](repeating: 7, count: 32), keyIdentifier: "bench")
        let reference = try ChaChaPolyCipher(key: [UInt8](repeating: 7, count: 32), keyIdentifier: "reference")
        let message = [UInt8]((0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        for round in 0..<64 {
            await Task.yield()
            let sealed = try cipher.seal(Array(message.prefix(round * 15)), associatedData: [UInt8(round)])
            await Task.yield()
            #expect(try reference.open(sealed, associatedData: [UInt8(round)]) == Array(message.prefix(round * 15)))
        }
        #expect(cipher.keyIdentifier == "bench")
        try await Self.holdAcrossOneSuspension()
        try await Self.holdAsTheBenchSuiteDid()
        try await Self.holdFromAFactory()
    }

    private static let key = [UInt8](repeating: 7, count: 32)

    /// The cipher made, one suspension, then used.
    private static func holdAcrossOneSuspension() async throws {
        let cipher = try ChaChaPolyCipher(key: key, keyIdentifier: "one")
        await Task.yield()
        #expect(try cipher.open(cipher.seal([1, 2, 3], associatedData: []), associatedData: []) == [1, 2, 3])
    }

    /// The shape of the bench's encryption suite: the cipher offered as an optional existential in a loop with
    /// suspensions, then used concretely.
    private static func holdAsTheBenchSuiteDid() async throws {
        let cipher = try ChaChaPolyCipher(key: key, keyIdentifier: "bench")
        var names: [String] = []
        for encrypted in [false, true] {
            let offered: (any StoreCipher)? = encrypted ? cipher : nil
            await Task.yield()
            names.append(offered?.keyIdentifier ?? "none")
            await Task.yield()
        }
        #expect(names == ["none", "bench"])
        let sealed = try cipher.seal(Array(0..<200), associatedData: [9])
        #expect(try cipher.open(sealed, associatedData: [9]) == Array(0..<200))
    }

    /// The cipher from a non-throwing factory, held across suspensions.
    private static func holdFromAFactory() async throws {
        let cipher = make()
        await Task.yield()
        let sealed = try cipher.seal([4, 5, 6], associatedData: [])
        await Task.yield()
        #expect(try cipher.open(sealed, associatedData: []) == [4, 5, 6])
    }

    private static func make() -> ChaChaPolyCipher {
        do { return try ChaChaPolyCipher(key: key, keyIdentifier: "factory") } catch { fatalError("\(error)") }
    }
}
