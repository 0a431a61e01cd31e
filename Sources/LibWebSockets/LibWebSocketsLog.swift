import CLWS
import RingerSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Controls libwebsockets' own log output, which is process-wide.
///
/// By default only lws errors are printed (to stderr), applied when the first server or client
/// context is created. Route lines to your logger with ``route(levels:to:)``.
/// Lines are scrubbed of `authorization` values and `access_token` parameters before they leave.
///
/// Thread-safety: all members may be called from any thread.
public enum LibWebSocketsLog {
    /// lws log levels (the `LLL_*` bits of `lws-logs.h`).
    public struct Levels: OptionSet, Sendable, Hashable {
        /// The raw `LLL_*` bit mask.
        public let rawValue: Int32
        /// Creates levels from an `LLL_*` mask.
        /// - Parameter rawValue: The mask.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `LLL_ERR`.
        public static let error = Levels(rawValue: Int32(LLL_ERR))
        /// `LLL_WARN`.
        public static let warning = Levels(rawValue: Int32(LLL_WARN))
        /// `LLL_NOTICE`.
        public static let notice = Levels(rawValue: Int32(LLL_NOTICE))
        /// `LLL_INFO` (only emitted by debug builds of lws).
        public static let info = Levels(rawValue: Int32(LLL_INFO))
        /// `LLL_DEBUG` (only emitted by debug builds of lws).
        public static let debug = Levels(rawValue: Int32(LLL_DEBUG))
        /// `LLL_USER`.
        public static let user = Levels(rawValue: Int32(LLL_USER))
    }

    /// Receives one log line: its level bit and the text without the trailing newline.
    public typealias Handler = @Sendable (_ level: Levels, _ line: String) -> Void

    /// Sends lws log lines of `levels` to `handler`, or back to stderr when `handler` is nil.
    /// - Parameters:
    ///   - levels: Which levels lws should emit.
    ///   - handler: The destination; `nil` restores lws' stderr output.
    public static func route(levels: Levels, to handler: Handler?) {
        logState.withLock { state in
            state.handler = handler
            state.levels = levels
            state.configured = true
            if handler == nil {
                lws_set_log_level(levels.rawValue, lwsl_emit_stderr)
            } else {
                lws_set_log_level(levels.rawValue, clwsEmitLogLine)
            }
        }
    }

    /// Applies the quiet default (errors only, stderr) unless ``route(levels:to:)`` ran first.
    static func applyDefaultIfNeeded() {
        logState.withLock { state in
            guard !state.configured else { return }
            state.configured = true
            lws_set_log_level(Int32(LLL_ERR), lwsl_emit_stderr)
        }
    }

    /// Hands one line to the routed handler, if any.
    static func emit(level: Int32, line: String) {
        let handler = logState.withLock { $0.handler }
        var text = line
        while text.last == "\n" { text.removeLast() }
        handler?(Levels(rawValue: level), redacted(text))
    }

    /// Reports a line of the wrapper's own (not lws') where lws' lines go: to the routed handler, or to
    /// stderr, when `level` is among the levels routed (errors by default).
    static func report(_ level: Levels, _ line: String) {
        let (handler, levels) = logState.withLock { ($0.handler, $0.levels) }
        guard levels.contains(level) else { return }
        if let handler {
            handler(level, line)
        } else {
            let text = Array("[lws wrapper] \(line)\n".utf8)
            _ = text.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
    }

    /// Hides secrets that lws may print when its header or info logging is on: the line is cut
    /// right after the first `authorization` or `access_token` marker (compared ASCII-case-insensitively).
    static func redacted(_ line: String) -> String {
        let bytes = Array(line.utf8)
        let lowered = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        let cuts = ["authorization", "access_token"].compactMap { lowered.firstRange(of: Array($0.utf8))?.upperBound }
        guard let cut = cuts.min() else { return line }
        return String(decoding: bytes[..<cut], as: UTF8.self) + " <redacted>"
    }
}

/// Process-wide log routing state.
private struct LogState {
    var handler: LibWebSocketsLog.Handler?
    var levels = LibWebSocketsLog.Levels.error
    var configured = false
}

private let logState = LockedValue(LogState())
