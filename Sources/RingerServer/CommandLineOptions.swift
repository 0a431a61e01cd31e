import Foundation

/// `--name value` / `--name=value` flags with `RINGER_NAME` environment fallbacks.
public struct CommandLineOptions: Sendable {
    private var values: [String: String] = [:]

    /// Parses flags; a flag wins over its environment variable.
    /// - Parameters:
    ///   - arguments: the flags.
    ///   - environment: the process environment.
    ///   - known: accepted flag names without dashes.
    ///   - switches: flag names that take no value (their value is `"true"`).
    /// - Throws: ``ConfigurationError`` for an unknown flag or a flag without a value.
    public init(arguments: [String], environment: [String: String], known: Set<String>,
                switches: Set<String> = []) throws {
        for name in known.union(switches) {
            let variable = "RINGER_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
            if let value = environment[variable], !value.isEmpty { values[name] = value }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw ConfigurationError("unexpected argument: \(argument)") }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if switches.contains(name) {
                values[name] = value ?? "true"
                index += 1
                continue
            }
            guard known.contains(name) else { throw ConfigurationError("unknown flag --\(name)") }
            if value == nil {
                guard index + 1 < arguments.count else { throw ConfigurationError("--\(name) needs a value") }
                index += 1
                value = arguments[index]
            }
            values[name] = value
            index += 1
        }
    }

    /// The value of a flag, or nil when neither the flag nor its variable is set.
    public subscript(name: String) -> String? { values[name] }

    /// True when a switch was given (or its variable is `1`/`true`).
    public func isSet(_ name: String) -> Bool {
        guard let value = values[name] else { return false }
        return value == "true" || value == "1"
    }
}
