import Foundation
import Testing

/// The library's folders are layers (Docs/Architecture.md, "Layers"): a folder may use the types of the folders it
/// builds on, never those of a higher one. Checked on the source text: the top-level types each folder declares,
/// and the words of every other folder's code (comments and string literals left out).
struct LayerTests {
    /// Each folder of `Sources/OfflineSync` and the folders it may use.
    static let allowed: [String: Set<String>] = [
        "Concurrency": [],
        "Values": ["Concurrency"],
        "Query": ["Concurrency", "Values"],
        "Model": ["Concurrency", "Values", "Query"],
        "DataSource": ["Concurrency", "Values", "Query", "Model"],
        "Journal": ["Concurrency", "Values", "Query", "Model", "DataSource"],
        "Remote": ["Concurrency", "Values", "Query", "Model"],
        "Engine": ["Concurrency", "Values", "Query", "Model", "DataSource", "Remote"],
        "Presentation": ["Concurrency", "Values", "Query", "Model", "DataSource", "Remote", "Engine"],
        "Scheduling": ["Concurrency", "Values", "Query", "Model", "DataSource", "Remote", "Engine"],
    ]

    /// Concrete stores and remotes the engine must not know, though their folders' protocols it may use.
    static let engineMustNotUse: Set<String> = ["HTTPRemote", "InMemoryDataSource", "TableSet"]

    static var library: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/OfflineSync")
    }

    static func swiftFiles(in folder: String) throws -> [URL] {
        let directory = library.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
    }

    /// The top-level types a file declares.
    static func declarations(in text: String) -> Set<String> {
        let pattern = #/^(?:(?:public|package|internal|private|fileprivate|final|indirect|nonisolated) )*(?:struct|enum|class|actor|protocol|typealias) ([A-Za-z_][A-Za-z0-9_]*)/#
        var names: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let match = line.firstMatch(of: pattern) { names.insert(String(match.1)) }
        }
        return names
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

    @Test func everyFolderOfTheLibraryIsALayer() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.library.path)
            .filter { !$0.hasSuffix(".swift") && !$0.hasSuffix(".docc") }
        #expect(Set(folders) == Set(Self.allowed.keys))
    }

    @Test func noFolderUsesATypeOfAHigherLayer() throws {
        var declaredBy: [String: String] = [:]
        for folder in Self.allowed.keys {
            for file in try Self.swiftFiles(in: folder) {
                for name in Self.declarations(in: try String(contentsOf: file, encoding: .utf8)) { declaredBy[name] = folder }
            }
        }
        #expect(declaredBy["ItemID"] == "Model" && declaredBy["JournalDataSource"] == "Journal", "the scan sees the declarations")
        for (folder, allowed) in Self.allowed {
            for file in try Self.swiftFiles(in: folder) {
                let words = Self.words(in: try String(contentsOf: file, encoding: .utf8))
                for word in words {
                    guard let owner = declaredBy[word], owner != folder else { continue }
                    #expect(allowed.contains(owner), "\(folder)/\(file.lastPathComponent) uses \(word) of \(owner)")
                }
                if folder == "Engine" {
                    for word in words.intersection(Self.engineMustNotUse) {
                        Issue.record("Engine/\(file.lastPathComponent) uses the concrete \(word)")
                    }
                }
            }
        }
    }

    /// The files that load Foundation proper on Linux (URLSession, `DateFormatter`), with ICU, libcurl and their
    /// libraries: the HTTP transport. Every other file imports FoundationEssentials (Foundation only where that
    /// module is missing), so moving these files to their own module would leave a library whose processes start
    /// about 13 MiB smaller (Docs/Performance.md, W7).
    static let foundationProperFiles: Set<String> = [
        "Remote/DeadlineExchange.swift", "Remote/FreshConnectionWrites.swift", "Remote/HTTPRemote.swift",
        "Remote/HTTPRemote+Sending.swift", "Remote/HTTPRequestEvent.swift", "Remote/HTTPRetryPolicy.swift",
        "Remote/TransportPolicy.swift",
    ]

    @Test func onlyTheHTTPTransportImportsFoundationProper() throws {
        let pattern = #/^(?:(?:public|package|internal|@preconcurrency) )*import (?:Foundation|FoundationNetworking)$/#
        var importing: Set<String> = []
        for folder in Self.allowed.keys {
            for file in try Self.swiftFiles(in: folder) {
                var previous = ""
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    if line.wholeMatch(of: pattern) != nil, previous != "#else" { importing.insert("\(folder)/\(file.lastPathComponent)") }
                    previous = String(line)
                }
            }
        }
        #expect(importing == Self.foundationProperFiles, "import FoundationEssentials outside the HTTP transport")
    }
}
