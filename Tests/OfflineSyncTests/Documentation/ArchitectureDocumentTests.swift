import Foundation
import Testing

/// Keeps Docs/Architecture.md's table of the engine's files true: a file added to the engine without a line there
/// fails, so the next reader finds every file described.
struct ArchitectureDocumentTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyFileOfTheEngineIsDescribed() throws {
        let architecture = try String(contentsOf: Self.repository.appendingPathComponent("Docs/Architecture.md"), encoding: .utf8)
        let engine = Self.repository.appendingPathComponent("Sources/OfflineSyncEngine/Engine")
        let files = try FileManager.default.contentsOfDirectory(atPath: engine.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10, "the engine's folder was not found at \(engine.path)")
        let undescribed = files.filter { !architecture.contains("`\($0)`") }.sorted()
        #expect(undescribed.isEmpty, "Docs/Architecture.md, \"The sync engine\", does not describe \(undescribed)")
    }
}
