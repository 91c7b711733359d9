import Foundation

/// Executables of this package, found beside the test binary in the build products directory.
enum BuiltProducts {
    /// The built executable `name` (e.g. `"offline-sync"`), or nil when it is not there.
    static func executable(_ name: String) -> URL? {
        var candidates: [URL] = []
        #if os(Linux)
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        #endif
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        candidates.append(repositoryRoot.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The repository's root directory (where `Package.swift` is).
    static var repositoryRoot: URL {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root
    }
}
