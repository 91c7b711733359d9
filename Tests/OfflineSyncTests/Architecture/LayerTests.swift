import Foundation
import Testing

/// The library's layers are SwiftPM targets, so the compiler refuses a lower layer that uses a higher one. These tests
/// keep what the compiler cannot see true: Docs/Architecture.md's table of modules is the dependency graph of
/// `Package.swift`, the engine names no concrete store, and only the HTTP module loads Foundation's networking.
struct LayerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Each target of `Package.swift` and the targets it depends on.
    static func packageTargets() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = #/\.(?:target|executableTarget|testTarget)\(\s*name: "([^"]+)"(?:,\s*dependencies: \[([^\]]*)\])?/#
        var targets: [String: Set<String>] = [:]
        for match in manifest.matches(of: target) {
            let dependencies = (match.2.map(String.init) ?? "").matches(of: #/"([^"]+)"/#).map { String($0.1) }
            targets[String(match.1)] = Set(dependencies)
        }
        return targets
    }

    /// Each row of Docs/Architecture.md's "Modules" table: the module and the modules it says it depends on.
    static func documentedModules() throws -> [String: Set<String>] {
        let architecture = try String(contentsOf: repository.appendingPathComponent("Docs/Architecture.md"), encoding: .utf8)
        guard let start = architecture.range(of: "## Modules\n") else { return [:] }
        var modules: [String: Set<String>] = [:]
        for line in architecture[start.upperBound...].split(separator: "\n").prefix(while: { !$0.hasPrefix("## ") }) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, let name = cells[1].firstMatch(of: #/^`([^`]+)`$/#)?.1 else { continue }
            modules[String(name)] = Set(cells[cells.count - 2].matches(of: #/`([^`]+)`/#).map { String($0.1) })
        }
        return modules
    }

    /// The Swift files under `Sources/<module>`, with their paths relative to it.
    static func swiftFiles(of module: String) throws -> [(path: String, text: String)] {
        let root = repository.appendingPathComponent("Sources/\(module)")
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map {
            ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The identifiers of a file's code, without comments and string literals.
    static func words(in text: String) -> Set<String> {
        var words: Set<String> = []
        for line in text.split(separator: "\n") {
            var code = String(line)
            if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
            code = code.replacing(#/"(?:[^"\\]|\\.)*"/#, with: "\"\"")
            for word in code.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }) { words.insert(String(word)) }
        }
        return words
    }

    @Test func theArchitectureDocumentListsEveryTargetWithItsDependencies() throws {
        let targets = try Self.packageTargets()
        #expect(targets["OfflineSyncStore"] == ["OfflineSyncCore"], "the manifest's targets were read")
        #expect(try Self.documentedModules() == targets.filter { !$0.key.hasSuffix("Tests") })
    }

    @Test func everyFolderOfSourcesIsATarget() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("Sources").path)
        #expect(Set(folders) == Set(try Self.packageTargets().keys.filter { !$0.hasSuffix("Tests") }))
    }

    @Test func noLayerDependsOnAHigherOne() throws {
        let order = ["OfflineSyncCore", "OfflineSyncStore", "OfflineSyncJournal", "OfflineSyncHTTP", "OfflineSyncEngine", "OfflineSync"]
        let targets = try Self.packageTargets()
        for (rank, module) in order.enumerated() {
            let dependencies = try #require(targets[module])
            #expect(dependencies.isSubset(of: order[..<rank]), "\(module) depends on \(dependencies)")
        }
        #expect(targets["OfflineSyncEngine"]?.contains("OfflineSyncJournal") == false)
        #expect(targets["OfflineSyncEngine"]?.contains("OfflineSyncHTTP") == false)
        #expect(targets["OfflineSyncJournal"]?.contains("OfflineSyncHTTP") == false)
    }

    /// The engine reaches a store through `SyncContextDataSource` only: its module imports the store layer for that
    /// protocol, which also declares the in-memory store and the table engine.
    @Test func theEngineNamesNoConcreteStore() throws {
        for file in try Self.swiftFiles(of: "OfflineSyncEngine") {
            for word in Self.words(in: file.text).intersection(["InMemoryDataSource", "TableSet", "ItemTable"]) {
                Issue.record("OfflineSyncEngine/\(file.path) uses the concrete \(word)")
            }
        }
    }

    /// Foundation proper on Linux loads ICU, libcurl and their libraries: only the HTTP transport may import it, so
    /// that a tool linking only the store starts without them (`StoreOnlyProcessTests`).
    @Test func onlyTheHTTPModuleImportsFoundationProper() throws {
        let pattern = #/^(?:(?:public|package|internal|@preconcurrency) )*import (?:Foundation|FoundationNetworking)$/#
        for module in ["OfflineSyncCore", "OfflineSyncStore", "OfflineSyncJournal", "OfflineSyncEngine"] {
            for file in try Self.swiftFiles(of: module) {
                var previous = ""
                for line in file.text.split(separator: "\n") {
                    if line.wholeMatch(of: pattern) != nil, previous != "#else" { Issue.record("\(module)/\(file.path) imports \(line)") }
                    previous = String(line)
                }
            }
        }
    }

    /// The names the `package` declarations of `module` give (types and members; initializers have none).
    static func packageNames(of module: String) throws -> Set<String> {
        let declaration = #/^\s*package\s+(?:(?:static|mutating|final|nonisolated|private\(set\))\s+)*(?:func|var|let|struct|enum|class|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)/#
        var names: Set<String> = []
        for file in try swiftFiles(of: module) {
            for line in file.text.split(separator: "\n") { if let match = line.firstMatch(of: declaration) { names.insert(String(match.1)) } }
        }
        return names
    }

    /// The journal reaches the table engine through a narrow interface: the `package` declarations of
    /// `OfflineSyncStore`, each of which Docs/Architecture.md names (with what a store uses it for), and no other.
    @Test func theStoreModuleSharesOnlyTheDeclarationsTheArchitectureDocumentLists() throws {
        let architecture = try String(contentsOf: Self.repository.appendingPathComponent("Docs/Architecture.md"), encoding: .utf8)
        let heading = try #require(architecture.range(of: "### What the table engine shares with the stores built on it\n"))
        var documented: Set<String> = []
        for line in architecture[heading.upperBound...].split(separator: "\n").prefix(while: { !$0.hasPrefix("#") })
        where line.hasPrefix("| `") {
            let names = line.split(separator: "|")[0]
            documented.formUnion(names.matches(of: #/`([A-Za-z_][A-Za-z0-9_]*)`/#).map { String($0.1) })
        }
        let publicType = #/public\s+(?:final\s+)?(?:struct|enum|class|protocol|actor)\s+([A-Za-z_][A-Za-z0-9_]*)/#
        let publicTypes = Set(try Self.swiftFiles(of: "OfflineSyncStore").flatMap { $0.text.matches(of: publicType).map { String($0.1) } })
        let declared = try Self.packageNames(of: "OfflineSyncStore")
        #expect(declared.count > 20, "the declarations were read")
        #expect(documented.subtracting(publicTypes) == declared)
    }
}
