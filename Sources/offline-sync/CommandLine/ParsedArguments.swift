/// A command line split into positionals, options with values and flags, checked against a ``CommandSpec``.
struct ParsedArguments: Sendable {
    var positionals: [String] = []
    var values: [String: String] = [:]
    /// Every value of each option, in order, for options that may be given more than once.
    var allValues: [String: [String]] = [:]
    var flags: Set<String> = []
    /// Whether `--help` was given.
    var wantsHelp = false

    /// The value of `--name`, if given.
    func value(_ name: String) -> String? { values[name] }
    /// Every value given to `--name`, in order (the last one is ``value(_:)``).
    func values(_ name: String) -> [String] { allValues[name] ?? [] }
    /// Whether the flag `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Parses `arguments` (without the command name) for `spec`.
    /// - Throws: ``UsageError`` for unknown options, missing values, missing or extra positionals.
    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            var name = String(argument.drop(while: { $0 == "-" }))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard argument.hasPrefix("--"), let option = spec.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(argument)'", spec: spec)
            }
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value", spec: spec) }
                flags.insert(name)
            } else if let inlineValue {
                values[name] = inlineValue
                allValues[name, default: []].append(inlineValue)
            } else {
                guard index < arguments.count else {
                    throw UsageError("option '--\(name)' needs a value", spec: spec)
                }
                values[name] = arguments[index]
                allValues[name, default: []].append(arguments[index])
                index += 1
            }
        }
        if wantsHelp { return }
        let required = spec.positionals.filter { !$0.optional }.count
        if positionals.count < required {
            throw UsageError("missing argument \(spec.positionals[positionals.count].name)", spec: spec)
        }
        if positionals.count > spec.positionals.count {
            throw UsageError("unexpected argument '\(positionals[spec.positionals.count])'", spec: spec)
        }
    }
}

/// A command line that does not fit its command: printed as one line plus the usage line, exit code 2.
struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    var message: String
    var usage: String

    init(_ message: String, spec: CommandSpec) {
        self.message = message
        self.usage = spec.usage
    }

    init(_ message: String, usage: String) {
        self.message = message
        self.usage = usage
    }

    var description: String { "offline-sync: \(message)\n\(usage)" }
}
