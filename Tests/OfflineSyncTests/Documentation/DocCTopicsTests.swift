import Foundation
import Testing

/// The DocC catalog's landing page lists every public type of the library under a topic, so that none is left
/// without a page reachable from it.
struct DocCTopicsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The top-level public types declared in the library's modules (`OfflineSyncTesting` is not part of it).
    static func publicTypes() throws -> Set<String> {
        let declaration = #/^public\s+(?:final\s+)?(?:struct|enum|class|actor|protocol)\s+([A-Za-z_][A-Za-z0-9_]*)/#
        var names: Set<String> = []
        for module in ["OfflineSyncCore", "OfflineSyncStore", "OfflineSyncJournal", "OfflineSyncHTTP", "OfflineSyncEngine"] {
            let root = repository.appendingPathComponent("Sources/\(module)")
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") { if let match = line.firstMatch(of: declaration) { names.insert(String(match.1)) } }
            }
        }
        return names
    }

    @Test func theLandingPageListsEveryPublicType() throws {
        let landing = try String(contentsOf: Self.repository.appendingPathComponent("Sources/OfflineSync/OfflineSync.docc/OfflineSync.md"),
                                 encoding: .utf8)
        let listed = Set(landing.split(separator: "\n").compactMap { $0.wholeMatch(of: #/- ``([A-Za-z_][A-Za-z0-9_]*)``/#).map { String($0.1) } })
        let types = try Self.publicTypes()
        #expect(types.count > 50, "the declarations were read")
        // `OfflineSyncVersion` has no page: the symbol graph leaves out a type named after its module.
        // `NetworkPathConnectivity` exists only where the Network framework does, so a catalog built on Linux
        // cannot link to it.
        // `NetworkPathConnectivity` and `BackgroundSyncTask` exist only on Apple platforms, so the catalog built here
        // cannot link them; the articles name them in code font.
        #expect(types.subtracting(listed).subtracting(["OfflineSyncVersion", "NetworkPathConnectivity", "BackgroundSyncTask"]).sorted() == [])
    }
}
