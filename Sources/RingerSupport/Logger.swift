public import Foundation
import RingerWire

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
///
/// Lines are gathered and written together: at most ``flushDelay`` after the first line of a batch, at once when the
/// batch reaches ``flushBytes`` or a line is a warning or worse, and when the process exits normally (`exit`, or the
/// end of `main`). A busy server wrote two lines a call, each its own `write(2)`, and formatted each time with a new
/// ISO 8601 formatter (issue 33). The time is the API's (``RingerJSON/formatTimestamp(_:)``). A crash may lose the last
/// ``flushDelay`` of info lines, never a warning or error.
public struct StreamLogHandler: LogHandler {
    private let output: BufferedOutput

    /// The longest an info line waits before it is written, seconds.
    public static let flushDelay = 0.05
    /// Bytes gathered at most before they are written.
    public static let flushBytes = 32 * 1024

    /// Writes to standard error; flushed when the process exits.
    public static let standardError: StreamLogHandler = {
        let handler = StreamLogHandler(handle: .standardError)
        atexit { StreamLogHandler.standardError.flush() }
        return handler
    }()

    /// Writes to `handle`, kept open as long as the handler or a flush it queued lives.
    public init(handle: FileHandle) { self.init(handle: handle, flushDelay: Self.flushDelay) }

    /// Writes to `handle`, an info line waiting at most `flushDelay` seconds (tests).
    init(handle: FileHandle, flushDelay: Double) {
        output = BufferedOutput(handle: handle, flushDelay: flushDelay)
    }

    public func write(_ event: LogEvent) {
        var line = RingerJSON.formatTimestamp(event.date)
        line += " \(event.level.rawValue) \(event.label): \(event.message)"
        for (key, value) in event.metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += "\n"
        output.append(line, now: event.level >= .warning)
    }

    /// Writes every line gathered so far.
    public func flush() { output.flush() }
}

/// Bytes gathered for one descriptor and written in batches (``StreamLogHandler``).
private final class BufferedOutput: @unchecked Sendable {
    // @unchecked: `pending` and `flushQueued` only under `lock`; writes happen under it too, so lines keep their order.
    /// Held, not only its descriptor: a handle freed (and its descriptor closed and reused) before a queued flush ran
    /// would have that flush write into whatever file took the number.
    private let handle: FileHandle
    private let flushDelay: Double
    private let lock = NSLock()
    private var pending: [UInt8] = []
    private var flushQueued = false

    init(handle: FileHandle, flushDelay: Double) {
        self.handle = handle
        self.flushDelay = flushDelay
    }

    deinit { writePending() }

    /// Adds `line`; writes everything gathered at once when `now` or when the batch is full, otherwise makes sure a
    /// flush comes within ``StreamLogHandler/flushDelay``.
    func append(_ line: String, now: Bool) {
        let queueFlush = lock.withLock { () -> Bool in
            pending.append(contentsOf: line.utf8)
            if now || pending.count >= StreamLogHandler.flushBytes {
                writePending()
                return false
            }
            guard !flushQueued else { return false }
            flushQueued = true
            return true
        }
        if queueFlush {
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + flushDelay) {
                self.flush()
            }
        }
    }

    func flush() {
        lock.withLock {
            flushQueued = false
            writePending()
        }
    }

    /// Under `lock`. A failed write (a closed descriptor, a full disk) drops the batch: logging must never stop the
    /// server.
    private func writePending() {
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(handle.fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        pending.removeAll(keepingCapacity: pending.count <= 2 * StreamLogHandler.flushBytes)
    }
}

/// Drops every event.
public struct NullLogHandler: LogHandler {
    /// Creates the handler.
    public init() {}
    public func write(_ event: LogEvent) {}
}
