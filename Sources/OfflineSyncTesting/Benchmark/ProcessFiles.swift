#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The calling process's own `/proc/self` files, which W7's measurement reads; every answer is nil or empty where there
/// is no procfs (Apple platforms).
package enum ProcessFiles {
    /// The whole text of `/proc/self/<name>`, read line by line (procfs files report no size).
    package static func text(_ name: String) -> String? {
        guard let file = fopen("/proc/self/\(name)", "r") else { return nil }
        defer { fclose(file) }
        var text = ""
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line { text += String(cString: line) }
        return text
    }

    /// A field of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`).
    package static func statusKiB(_ field: String) -> Double? {
        for line in text("status")?.split(separator: "\n") ?? [] where line.hasPrefix(field + ":") {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) }
        }
        return nil
    }

    /// The file names of the shared libraries mapped into the process, sorted.
    package static func mappedLibraries() -> [String] {
        let paths = (text("maps")?.split(separator: "\n") ?? []).compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init)
        }
        return Set(paths.filter { $0.contains(".so") }.map { $0.split(separator: "/").last.map(String.init) ?? $0 }).sorted()
    }
}
