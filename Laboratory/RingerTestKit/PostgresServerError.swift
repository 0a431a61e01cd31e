import Foundation

/// Why ``PostgresServer`` could not give a test its database: the server is not installed, could not be
/// set up or started, or a client tool failed.
///
/// ``description`` is one paragraph: what failed, how to fix it when the fix is known (e.g. `make deps`), and
/// the last lines of the server's log or the tool's output. The fixture uses trust authentication, so no
/// password can reach the message. Thread-safe: an immutable value.
public struct PostgresServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, for tests that check the fixture's own error paths.
    public enum Reason: Sendable, Equatable {
        /// `initdb`, `pg_ctl` or `postgres` is missing from the bin directory.
        case notInstalled
        /// Running as root, but there is no `postgres` user or no `runuser`/`setpriv` to become it.
        case cannotDropRoot
        /// The temporary folder could not be made or handed to the `postgres` user.
        case folder
        /// `initdb` failed.
        case initdbFailed
        /// Another process holds the port on 127.0.0.1.
        case portTaken
        /// `pg_ctl start` failed or did not see the server ready in time.
        case startFailed
        /// `pg_ctl stop` failed or timed out.
        case stopFailed
        /// `createdb` or `psql` failed.
        case clientFailed
        /// The server's processes could not be found or signalled (``PostgresServer/freeze()``).
        case freezeFailed
    }

    /// What kind of failure.
    public let reason: Reason
    /// What failed, how to fix it, and the end of the relevant log or output.
    public let description: String

    /// - Parameters:
    ///   - reason: What kind of failure.
    ///   - what: What failed, with its context (paths, port).
    ///   - fix: How to fix it, or nil when there is no known fix.
    ///   - log: Log or output lines to quote (only the last 20 lines are kept), or nil.
    init(_ reason: Reason, _ what: String, fix: String? = nil, log: String? = nil) {
        self.reason = reason
        var text = "throw-away PostgreSQL server: " + what
        if let fix { text += ". Fix: " + fix }
        if let log, case let tail = Self.tail(log), !tail.isEmpty {
            text += "\n--- last lines ---\n" + tail
        }
        description = text
    }

    /// The last `count` non-blank lines of `text`.
    static func tail(_ text: String, lines count: Int = 20) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .filter { !$0.allSatisfy(\.isWhitespace) }
            .suffix(count)
            .joined(separator: "\n")
    }
}
