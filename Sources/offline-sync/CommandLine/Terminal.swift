#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Writing to the standard streams, and whether they are terminals.
enum Terminal {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` as is to a file descriptor, retrying short writes.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                #else
                Darwin.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Whether standard error is a terminal (progress bars are drawn only then).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard input is a terminal (questions are asked only then).
    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line from standard input, or nil at end of input.
    static func readLine() -> String? { Swift.readLine() }
}
