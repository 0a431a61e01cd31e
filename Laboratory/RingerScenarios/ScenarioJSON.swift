import Foundation

/// A parsed JSON value that keeps the distinctions strict validation needs: `true` is not `1`, and
/// `null` is not an absent key.
enum ScenarioJSON: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ScenarioJSON])
    case object([String: ScenarioJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ScenarioJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ScenarioJSON].self))
        }
    }

    /// Parses a document.
    /// - Throws: ``ScenarioFileError/notJSON(_:detail:)``.
    static func parse(_ data: Data, file: String) throws -> ScenarioJSON {
        do {
            return try JSONDecoder().decode(ScenarioJSON.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            let underlying = context.underlyingError.map { "\($0)" } ?? context.debugDescription
            throw ScenarioFileError.notJSON(file, detail: underlying)
        } catch {
            throw ScenarioFileError.notJSON(file, detail: "\(error)")
        }
    }

    /// The JSON type name, for error messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A short rendering of the value, for error messages.
    var shown: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value): "\"\(value)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
