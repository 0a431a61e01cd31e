public import Foundation

/// A small `sh` child that runs a clean-up command once the test process is gone, however it ended
/// (normal exit, crash, SIGKILL), for fixtures that outlive their parent by design: `pg_ctl` puts PostgreSQL
/// in its own session, so nothing else would stop it.
///
/// The child polls the test process with `kill -0` once a second and ignores SIGINT, SIGTERM and SIGHUP, so
/// a Ctrl-C sent to the whole process group does not end it before the clean-up has run. Its stdin, stdout
/// and stderr are `/dev/null`. Thread-safe: immutable after ``start(_:arguments:watching:)``.
public final class ExitWatcher: Sendable {
    private let process: ChildProcess

    private init(process: ChildProcess) {
        self.process = process
    }

    /// Starts watching a process, by default this one.
    /// - Parameters:
    ///   - script: `sh` commands run once this process has ended, with `arguments` as `$1`, `$2`, …; e.g.
    ///     `rm -rf "$1"`.
    ///   - arguments: The script's positional parameters (paths, commands), passed unquoted through `sh`.
    ///   - parent: The process whose end triggers the clean-up; tests of the watcher pass a child of theirs.
    /// - Returns: The watcher; ``cancel()`` it when the clean-up is no longer needed.
    /// - Throws: ``TestSupportError`` when `/bin/sh` cannot start.
    public static func start(
        _ script: String, arguments: [String], watching parent: pid_t = getpid()
    ) throws
        -> ExitWatcher
    {
        let watch = """
            trap '' INT TERM HUP
            parent=$1; shift
            while kill -0 "$parent" 2>/dev/null; do sleep 1; done
            \(script)
            """
        let nowhere = URL(fileURLWithPath: "/dev/null")
        let process = try ChildProcess(
            ["/bin/sh", "-c", watch, "sh", String(parent)] + arguments, standardOutput: nowhere,
            standardError: nowhere)
        return ExitWatcher(process: process)
    }

    /// Ends the watcher without running its clean-up (SIGKILL: it ignores the polite signals).
    public func cancel() {
        process.send(SIGKILL)
    }
}
