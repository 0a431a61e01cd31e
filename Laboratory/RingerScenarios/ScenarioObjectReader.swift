import Foundation

/// Reads one JSON object at a known path, remembering which keys were read, so ``finish()`` can
/// reject every key the format does not know. Not thread-safe; used while parsing one file.
final class ScenarioObjectReader {
    /// The file being parsed, for errors.
    let file: String
    /// The object's JSON path, e.g. `$.devices[0]`.
    let path: String
    private let values: [String: ScenarioJSON]
    private var read: Set<String> = []

    /// - Throws: ``ScenarioFileError`` when `value` is not an object.
    init(_ value: ScenarioJSON, file: String, path: String) throws {
        guard case .object(let values) = value else {
            throw ScenarioFileError.invalid(file, at: path, "expected an object, got \(value.kind)")
        }
        self.file = file
        self.path = path
        self.values = values
    }

    /// The path of a key of this object.
    func path(_ key: String) -> String { "\(path).\(key)" }

    /// An error about `key`'s value.
    func error(_ key: String, _ message: String) -> ScenarioFileError {
        .invalid(file, at: path(key), message)
    }

    /// True when the object has `key` (even with a null value).
    func has(_ key: String) -> Bool { values[key] != nil }

    /// The raw value of `key`, marking it read.
    func value(_ key: String) -> ScenarioJSON? {
        read.insert(key)
        return values[key]
    }

    /// A string, or nil when absent.
    /// - Throws: when present but not a non-empty string.
    func string(_ key: String) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value, !text.isEmpty else {
            throw error(key, "expected a non-empty string, got \(value.shown)")
        }
        return text
    }

    /// A number of seconds in `range`, or nil when absent.
    /// - Throws: when present but not a number in range.
    func seconds(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value, number.isFinite else {
            throw error(key, "expected a number of seconds, got \(value.shown)")
        }
        guard range.contains(number) else {
            throw error(
                key,
                "must be between \(ScenarioJSON.number(range.lowerBound).shown) and "
                    + "\(ScenarioJSON.number(range.upperBound).shown) seconds, got \(value.shown)")
        }
        return number
    }

    /// A whole number ≥ 0, or nil when absent.
    /// - Throws: when present but not a whole number ≥ 0.
    func count(_ key: String) throws -> Int? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value, number >= 0, number.rounded() == number, number < 1e9 else {
            throw error(key, "expected a whole number of 0 or more, got \(value.shown)")
        }
        return Int(number)
    }

    /// A boolean, or nil when absent.
    /// - Throws: when present but not `true` or `false`.
    func bool(_ key: String) throws -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw error(key, "expected true or false, got \(value.shown)") }
        return flag
    }

    /// One of `allowed`, or nil when absent.
    /// - Throws: when present but not one of them.
    func choice(_ key: String, _ allowed: [String]) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value, allowed.contains(text) else {
            throw error(key, "expected one of \(allowed.joined(separator: ", ")); got \(value.shown)")
        }
        return text
    }

    /// An array's elements with their paths, or nil when absent.
    /// - Throws: when present but not an array.
    func array(_ key: String) throws -> [(value: ScenarioJSON, path: String)]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw error(key, "expected an array, got \(value.kind)") }
        return items.enumerated().map { ($0.element, "\(path(key))[\($0.offset)]") }
    }

    /// A nested object's reader, or nil when absent.
    /// - Throws: when present but not an object.
    func object(_ key: String) throws -> ScenarioObjectReader? {
        guard let value = value(key) else { return nil }
        return try ScenarioObjectReader(value, file: file, path: path(key))
    }

    /// The object's keys, sorted, each with its value (for maps keyed by id).
    func entries() -> [(key: String, value: ScenarioJSON)] {
        values.keys.sorted().map { key in
            read.insert(key)
            return (key, values[key]!)
        }
    }

    /// Rejects keys that were never asked for: every key the parser asked about, present or not, is
    /// a known key here, so the message can list them.
    /// - Throws: naming the first unknown key and the keys this object accepts.
    func finish() throws {
        if let unknown = values.keys.sorted().first(where: { !read.contains($0) }) {
            let known = read.sorted().joined(separator: ", ")
            throw ScenarioFileError.invalid(
                file, at: path(unknown), "unknown key \"\(unknown)\" (known keys here: \(known))")
        }
    }
}
