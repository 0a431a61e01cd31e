public import Foundation

/// A structured logger in the manner of swift-log: a value with a label, a level and metadata,
/// writing through a ``LogHandler``. Libraries take a `Logger`; only executables choose the handler.
///
/// Metadata keys are dotted (`call.id`, `apns.status`). Secrets (tokens, keys) must never be logged.
public struct Logger: Sendable {
    /// Severity, from most to least verbose.
    public enum Level: String, Sendable, Comparable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// A metadata value.
    public enum MetadataValue: Sendable, CustomStringConvertible, ExpressibleByStringLiteral,
        ExpressibleByStringInterpolation
    {
        case string(String)
        case array([MetadataValue])

        /// A string value from a literal.
        public init(stringLiteral value: String) { self = .string(value) }

        public var description: String {
            switch self {
            case .string(let text): text
            case .array(let values): "[" + values.map(\.description).joined(separator: ",") + "]"
            }
        }
    }

    /// Key-value context attached to messages.
    public typealias Metadata = [String: MetadataValue]

    /// What the logger is for, e.g. `ringer.server`.
    public let label: String
    /// Messages below this level are dropped before they are built.
    public var logLevel: Level
    /// Attached to every message of this logger.
    public var metadata: Metadata = [:]
    private let handler: any LogHandler

    /// Creates a logger writing to `handler`.
    public init(label: String, level: Level = .info, handler: any LogHandler = StreamLogHandler.standardError) {
        self.label = label
        self.logLevel = level
        self.handler = handler
    }

    /// A logger that drops everything (for tests and libraries used quietly).
    public static func silent(label: String = "silent") -> Logger {
        Logger(label: label, level: .critical, handler: NullLogHandler())
    }

    /// Reads or sets one metadata value.
    public subscript(metadataKey key: String) -> MetadataValue? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Logs a message at `level`; the message is only built when the level is enabled.
    public func log(
        _ level: Level, _ message: @autoclosure () -> String, _ extra: Metadata = [:],
        file: String = #fileID, line: UInt = #line
    ) {
        guard level >= logLevel else { return }
        handler.write(
            LogEvent(
                level: level, label: label, message: message(),
                metadata: metadata.merging(extra) { $1 }, file: file, line: line, date: Date()))
    }

    /// Logs at `debug`.
    public func debug(
        _ message: @autoclosure () -> String, _ extra: Metadata = [:], file: String = #fileID, line: UInt = #line
    ) {
        log(.debug, message(), extra, file: file, line: line)
    }

    /// Logs at `info`.
    public func info(
        _ message: @autoclosure () -> String, _ extra: Metadata = [:], file: String = #fileID, line: UInt = #line
    ) {
        log(.info, message(), extra, file: file, line: line)
    }

    /// Logs at `warning`.
    public func warning(
        _ message: @autoclosure () -> String, _ extra: Metadata = [:], file: String = #fileID, line: UInt = #line
    ) {
        log(.warning, message(), extra, file: file, line: line)
    }

    /// Logs at `error`.
    public func error(
        _ message: @autoclosure () -> String, _ extra: Metadata = [:], file: String = #fileID, line: UInt = #line
    ) {
        log(.error, message(), extra, file: file, line: line)
    }
}

/// One message with its context, handed to a ``LogHandler``.
public struct LogEvent: Sendable {
    /// Severity.
    public var level: Logger.Level
    /// The logger's label.
    public var label: String
    /// The message.
    public var message: String
    /// Logger and call-site metadata.
    public var metadata: Logger.Metadata
    /// Source file (`#fileID`).
    public var file: String
    /// Source line.
    public var line: UInt
    /// When it was logged.
    public var date: Date
}

/// Where log events go. Implementations must be thread-safe.
public protocol LogHandler: Sendable {
    /// Writes one event.
    func write(_ event: LogEvent)
}

/// Writes one line per event (`<time> <level> <label>: <message> key=value …`) to a file handle.
public struct StreamLogHandler: LogHandler {
    private let handle: FileHandle

    /// Writes to standard error.
    public static let standardError = StreamLogHandler(handle: .standardError)

    /// Writes to `handle`.
    public init(handle: FileHandle) { self.handle = handle }

    public func write(_ event: LogEvent) {
        let fields = event.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(event.date)
        let line =
            "\(time) \(event.level.rawValue) \(event.label): \(event.message)\(fields.isEmpty ? "" : " " + fields)\n"
        try? handle.write(contentsOf: Data(line.utf8))
    }
}

/// Drops every event.
public struct NullLogHandler: LogHandler {
    /// Creates the handler.
    public init() {}
    public func write(_ event: LogEvent) {}
}
