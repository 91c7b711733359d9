/// What a subcommand accepts: its name, a one-line summary, positional arguments and options.
struct CommandSpec: Sendable {
    /// One `--name` option.
    struct Option: Sendable {
        /// The option's name without dashes, e.g. `"dir"` for `--dir`.
        var name: String
        /// The placeholder of its value (`"DIR"`), or nil for a flag.
        var valueName: String?
        /// What it does, for `--help`.
        var help: String
    }

    /// One positional argument.
    struct Positional: Sendable {
        /// Its placeholder, e.g. `"DIR"`.
        var name: String
        /// What it is, for `--help`.
        var help: String
        /// Whether it may be left out.
        var optional: Bool = false
    }

    var name: String
    var summary: String
    var positionals: [Positional] = []
    var options: [Option] = []

    /// `usage: offline-sync NAME [--opt VALUE] ARG`.
    var usage: String {
        var parts = ["usage: offline-sync", name]
        for option in options {
            parts.append("[--\(option.name)\(option.valueName.map { " \($0)" } ?? "")]")
        }
        for positional in positionals {
            parts.append(positional.optional ? "[\(positional.name)]" : positional.name)
        }
        return parts.joined(separator: " ")
    }

    /// The full `--help` text.
    var help: String {
        var lines = [summary, "", usage]
        if !positionals.isEmpty {
            lines.append("")
            lines.append("Arguments:")
            for positional in positionals {
                lines.append("  " + pad(positional.name, 22) + positional.help)
            }
        }
        lines.append("")
        lines.append("Options:")
        for option in options {
            let label = "--\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
            lines.append("  " + pad(label, 22) + option.help)
        }
        lines.append("  " + pad("--help", 22) + "Show this help.")
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
