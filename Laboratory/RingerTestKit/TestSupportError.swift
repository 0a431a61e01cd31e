import Foundation

/// Why a throw-away fixture (a child process, a Redis, a peer, a socket, a certificate) could not do its job, in
/// the tests and in the laboratory's runs (`ringer-lab bench` starts its servers through ``ChildProcess``).
///
/// Thrown to stop with a useful message: ``description`` names the command and quotes the end of what it
/// wrote to stderr and stdout (arguments of the form `pass:…` are redacted).
/// Thread-safe: an immutable value.
public struct TestSupportError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case couldNotStart
        case timedOut
        case failed
        case noFirstLine
        case notReady
        case setup
    }

    private let code: Code
    /// One line: what failed, with its context.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// True when a child ran past its deadline and was terminated.
    public var isTimeout: Bool { code == .timedOut }

    /// A fixture could not be set up (a socket, a file, a peer's unexpected answer).
    /// - Parameter detail: What went wrong; must not quote secrets.
    /// - Returns: The error value.
    public static func setup(_ detail: String) -> TestSupportError {
        TestSupportError(.setup, "test setup failed: \(detail)")
    }

    /// The program could not be started, e.g. it is not in PATH.
    /// - Parameters:
    ///   - arguments: the command line.
    ///   - reason: why, e.g. `posix_spawnp errno 2 (No such file or directory)`.
    /// - Returns: The error value.
    package static func couldNotStart(_ arguments: [String], _ reason: String) -> TestSupportError {
        TestSupportError(.couldNotStart, "\(command(arguments)) could not start: \(reason)")
    }

    /// A child that should have announced itself (listening, ready) ended or stayed silent first.
    /// - Parameters:
    ///   - program: the program, as started.
    ///   - detail: what happened, e.g. `exited with status 1 before listen`.
    ///   - standardError: the end of its stderr, quoted.
    /// - Returns: The error value: `<program>: <detail>: <stderr>`.
    package static func notReady(_ program: String, _ detail: String, standardError: String) -> TestSupportError {
        TestSupportError(.notReady, "\(program): \(detail)\(quote(standardError))")
    }

    /// The child ran longer than `seconds` and was terminated.
    static func timedOut(_ arguments: [String], after seconds: Double, standardError: String) -> TestSupportError {
        TestSupportError(
            .timedOut, "\(command(arguments)) ran over \(seconds) s and was terminated\(quote(standardError))")
    }

    /// The child exited with a non-zero status.
    static func failed(
        _ arguments: [String], status: Int32, standardError: String,
        standardOutput: String
    ) -> TestSupportError {
        TestSupportError(
            .failed, "\(command(arguments)) exited with \(status)\(quote(standardError))\(quote(standardOutput))")
    }

    /// A peer ended or went silent before printing its first line.
    package static func noFirstLine(_ arguments: [String], status: Int32, standardError: String) -> TestSupportError {
        TestSupportError(
            .noFirstLine,
            "\(command(arguments)) printed no first line (exit status \(status))\(quote(standardError))")
    }

    /// The command line, with `pass:` password arguments (openssl) hidden.
    private static func command(_ arguments: [String]) -> String {
        arguments.map { $0.hasPrefix("pass:") ? "pass:<redacted>" : $0 }.joined(separator: " ")
    }

    /// `: <text>` with at most the last 4000 characters, or nothing for blank text.
    private static func quote(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "" }
        return ": " + (trimmed.count > 4000 ? "…" + trimmed.suffix(4000) : trimmed)
    }
}
