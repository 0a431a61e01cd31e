/// A scenario file that cannot be used: unreadable, not JSON, or not a valid scenario. The message
/// names the file and the JSON path of the offending value (`$.devices[1].app`), so the author can
/// fix it without reading the parser.
public struct ScenarioFileError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: Sendable, Equatable {
        case unreadable
        case notJSON
        case invalid
    }

    private let code: Code
    /// The file, as it was named to the loader.
    public let file: String
    /// The JSON path of the offending value (`$` for the whole document).
    public let path: String
    /// What is wrong, and what would be right.
    public let message: String

    private init(_ code: Code, file: String, path: String, message: String) {
        self.code = code
        self.file = file
        self.path = path
        self.message = message
    }

    /// The file could not be read (missing, a folder, no permission).
    /// - Parameters:
    ///   - file: the file's path.
    ///   - reason: the system's reason.
    /// - Returns: the error.
    public static func unreadable(_ file: String, reason: String) -> ScenarioFileError {
        ScenarioFileError(.unreadable, file: file, path: "$", message: "cannot read the file: \(reason)")
    }

    /// The file is not JSON.
    /// - Parameters:
    ///   - file: the file's path.
    ///   - detail: the JSON parser's complaint.
    /// - Returns: the error.
    public static func notJSON(_ file: String, detail: String) -> ScenarioFileError {
        ScenarioFileError(.notJSON, file: file, path: "$", message: "not valid JSON: \(detail)")
    }

    /// The JSON is not a valid scenario: an unknown key, a missing key, a wrong type or value, or a
    /// reference to a user, device or call that is not declared.
    /// - Parameters:
    ///   - file: the file's path.
    ///   - path: the JSON path of the value.
    ///   - message: what is wrong.
    /// - Returns: the error.
    public static func invalid(_ file: String, at path: String, _ message: String) -> ScenarioFileError {
        ScenarioFileError(.invalid, file: file, path: path, message: message)
    }

    /// True when the file was read and parsed as JSON, but is not a valid scenario.
    public var isInvalidScenario: Bool { code == .invalid }

    public var description: String { "\(file): \(path): \(message)" }
}
