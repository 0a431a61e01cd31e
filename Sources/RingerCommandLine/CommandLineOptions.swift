public import Foundation
public import RingerServer

/// `--name value` / `--name=value` flags with `RINGER_NAME` environment fallbacks: the flag parser of the
/// `ringer` and `ringer-lab` commands that take named flags (`serve`, `node`, `sandbox`, `bench`).
///
/// A flag may be given more than once: ``subscript(_:)`` reads the last, ``all(_:)`` every one; its
/// environment variable lists several values separated by commas.
public struct CommandLineOptions: Sendable {
    private var values: [String: [String]] = [:]
    /// Names whose value came from the environment rather than a flag.
    private var fromEnvironment: Set<String> = []

    /// Parses flags; a flag wins over its environment variable.
    /// - Parameters:
    ///   - arguments: the flags.
    ///   - environment: the process environment.
    ///   - known: accepted flag names without dashes.
    /// - Throws: ``ConfigurationError`` for an unknown flag or a flag without a value.
    public init(arguments: [String], environment: [String: String], known: Set<String>) throws {
        for name in known {
            if let value = environment[Self.variable(of: name)], !value.isEmpty {
                values[name] = [value]
                fromEnvironment.insert(name)
            }
        }
        var given: [String: [String]] = [:]
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
            guard known.contains(name) else { throw ConfigurationError("unknown flag --\(name)") }
            if value == nil {
                guard index + 1 < arguments.count else { throw ConfigurationError("--\(name) needs a value") }
                index += 1
                value = arguments[index]
            }
            given[name, default: []].append(value!)
            index += 1
        }
        // Flags replace their environment variable as a whole, however many times they are given.
        values.merge(given) { $1 }
        fromEnvironment.subtract(given.keys)
    }

    /// The environment variable of a flag: `RINGER_` and its name in capitals, dashes as underscores
    /// (`admin-key`: `RINGER_ADMIN_KEY`).
    public static func variable(of name: String) -> String {
        "RINGER_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The value of a flag (its last, when given several times), or nil when neither the flag nor its
    /// variable is set.
    public subscript(name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable flag in the order given, or its environment variable's comma-separated
    /// values; empty when neither is set.
    /// - Parameter name: the flag name without dashes.
    /// - Returns: the values, blanks dropped.
    public func all(_ name: String) -> [String] {
        guard let given = values[name] else { return [] }
        let parts = fromEnvironment.contains(name) ? given[0].split(separator: ",").map(String.init) : given
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
