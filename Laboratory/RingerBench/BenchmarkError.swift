/// Why a benchmark could not run or produced no valid figure.
///
/// Messages name the step, the program and its exit status or output, never a key or a provider token.
public struct BenchmarkError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidArgument, setup, sandbox, sender
    }

    private let code: Code
    /// What went wrong, for the operator.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A count, path or flag value that cannot be used.
    public static func invalidArgument(_ detail: String) -> BenchmarkError { BenchmarkError(.invalidArgument, detail) }

    /// Keys, certificates or files for the run could not be made.
    public static func setup(_ detail: String) -> BenchmarkError { BenchmarkError(.setup, detail) }

    /// The sandbox did not start, or died during the run.
    public static func sandbox(_ detail: String) -> BenchmarkError { BenchmarkError(.sandbox, detail) }

    /// A sender failed, printed no result, or had pushes rejected (the figure would be meaningless).
    public static func sender(_ name: String, _ detail: String) -> BenchmarkError {
        BenchmarkError(.sender, "\(name): \(detail)")
    }

    /// True for a bad flag value or a missing file the caller named (exit status 2 in a command line).
    public var isUsageError: Bool { code == .invalidArgument }

    public var description: String { detail }
}
