public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throw-away `redis-server` on 127.0.0.1 without persistence (`--save "" --appendonly no`: Ringer keeps
/// nothing in Redis worth keeping, docs/operations.md), for the cluster tests and `ringer-lab bench`:
/// ``stop()`` and ``start()`` keep the port (Redis restarted mid-call), and an ``ExitWatcher`` kills it when
/// the process that started it ends, however it ends. It runs as a ``ChildProcess`` in a temporary folder of
/// its own, which holds its log (`redis.log`) until the object goes away.
public final class RedisServer: @unchecked Sendable {
    // @unchecked: `process` is only touched under `lock`.
    /// The port it listens on.
    public let port: Int
    /// Its log (`--logfile`), quoted when it does not start.
    public let logFile: URL
    private let folder: URL
    private let lock = NSLock()
    private var process: ChildProcess?
    private let watcher: ExitWatcher

    /// `redis://127.0.0.1:<port>`.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// More `redis-server` options, e.g. `["--requirepass", "pw"]`.
    private let arguments: [String]

    /// Starts a server on a free port and waits until it answers `PING` (with `+PONG`, or, behind a password,
    /// by asking for it).
    /// - Parameter arguments: more `redis-server` options, e.g. `["--requirepass", "pw"]`.
    /// - Throws: ``TestSupportError`` saying what to install when `redis-server` is missing, or with its log
    ///   when it does not answer within 10 s.
    public init(_ arguments: [String] = []) throws {
        self.arguments = arguments
        port = try FixturePort.free()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-redis-\(UUID().uuidString)")
        logFile = folder.appendingPathComponent("redis.log")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        watcher = try ExitWatcher.start(
            #"redis-cli -p "$1" shutdown nosave >/dev/null 2>&1; rm -rf "$2""#,
            arguments: [String(port), folder.path])
        try start()
    }

    deinit {
        stop()
        watcher.cancel()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The running server's process id (for CPU samples from `/proc`); nil while it is stopped.
    public var pid: pid_t? { lock.withLock { process?.pid } }

    /// Whether the server started and has neither been stopped nor died since.
    public var isRunning: Bool { lock.withLock { process.map { $0.exitIfEnded == nil } ?? false } }

    /// Starts it again on the same port after ``stop()``; does nothing while it runs.
    /// - Throws: as ``init(_:)``.
    public func start() throws {
        guard lock.withLock({ self.process == nil }) else { return }
        guard
            let executable = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw TestSupportError.setup(
                "redis-server is not installed: run `make deps` (or `apt-get install -y redis-server`)")
        }
        let process = try ChildProcess(
            [
                executable, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--dir", folder.path, "--logfile", logFile.path,
            ] + arguments,
            standardOutput: folder.appendingPathComponent("redis.out"),
            standardError: folder.appendingPathComponent("redis.err"))
        lock.withLock { self.process = process }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, process.exitIfEnded == nil {
            if Self.answersPing(port: port) { return }
            usleep(20_000)
        }
        let output = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        stop()
        throw TestSupportError.setup(
            "redis-server on 127.0.0.1:\(port) did not answer within 10 s; its log:\n\(output)")
    }

    /// ``stop()`` then ``start()``: a Redis that crashed and came back on its port, empty.
    /// - Throws: as ``init(_:)``.
    public func restart() throws {
        stop()
        try start()
    }

    /// SIGKILL, as when Redis crashes: every client connection is cut at once. Idempotent.
    public func stop() {
        guard
            let process = lock.withLock({ () -> ChildProcess? in
                defer { self.process = nil }
                return self.process
            })
        else { return }
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    /// Whether something on the port answers a RESP `PING` with `+PONG`.
    private static func answersPing(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return false }
        let ping = Array("PING\r\n".utf8)
        guard write(descriptor, ping, ping.count) == ping.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = read(descriptor, &buffer, buffer.count)
        let answer = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        return answer.hasPrefix("+PONG") || answer.hasPrefix("-NOAUTH")
    }
}
