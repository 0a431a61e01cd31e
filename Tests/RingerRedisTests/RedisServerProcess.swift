import Foundation
import RingerRedis
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throw-away `redis-server` on 127.0.0.1, without persistence (`--save "" --appendonly no`), killed on
/// deinit. ``kill()`` and ``restart()`` keep the port, for tests of connection loss.
final class RedisServerProcess {
    let port: Int
    private let extraArguments: [String]
    private let scratch: URL
    private var process: Process?

    /// Starts a server on a free port and waits until it answers.
    /// - Parameter extraArguments: more `redis-server` options, e.g. `["--requirepass", "pw"]`.
    /// - Throws: ``TestSetupError`` when `redis-server` is not installed or does not come up within 10 s.
    init(_ extraArguments: [String] = []) throws {
        self.extraArguments = extraArguments
        port = try LoopbackSocket.freePort()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try start()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A URL of this server with `password` and `database`.
    func url(user: String? = nil, password: String? = nil, database: Int = 0) -> RedisURL {
        RedisURL(host: "127.0.0.1", port: port, database: database, user: user, password: password)
    }

    /// SIGKILL: the kernel closes every client connection, as when Redis crashes or its machine restarts.
    func kill() {
        guard let process else { return }
        self.process = nil
        if process.isRunning { sendSignal(SIGKILL, to: process.processIdentifier) }
        process.waitUntilExit()
    }

    /// Starts a new server on the same port (after ``kill()``).
    func restart() throws {
        kill()
        try start()
    }

    private func start() throws {
        guard let executable = Self.executable() else {
            throw TestSetupError("redis-server is not installed (not found on PATH); the Redis tests start a "
                + "real server. Install it with `apt-get install -y redis-server` (Debian/Ubuntu) or "
                + "`brew install redis` (macOS)")
        }
        let log = scratch.appendingPathComponent("redis.log")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--daemonize", "no", "--dir", scratch.path, "--logfile", log.path] + extraArguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { break }
            if Self.answers(port: port) { return }
            usleep(20_000)
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        kill()
        throw TestSetupError("redis-server on port \(port) did not come up within 10 s; its log:\n\(output)")
    }

    /// Whether a server answers on `port`, even if only to say that it wants a password.
    private static func answers(port: Int) -> Bool {
        let probe = RedisConnection(url: RedisURL(port: port), connectTimeout: 0.5, commandTimeout: 0.5)
        do {
            _ = try probe.command(["PING"])
            return true
        } catch .server {
            return true
        } catch {
            return false
        }
    }

    private static func executable() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/usr/sbin"]
        return directories.lazy
            .map { URL(fileURLWithPath: $0).appendingPathComponent("redis-server") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

private func sendSignal(_ signal: Int32, to process: Int32) {
    _ = kill(process, signal)
}
