public import Foundation
import RingerSupport

/// A child process started with `posix_spawnp`, reaped with `wait4` so its own CPU time and peak RSS are
/// known (Foundation's `Process` reaps children itself and hides their `rusage`). The one way the laboratory
/// and the tests start a program: the benchmark's servers and load generators, throw-away PostgreSQL and Redis,
/// and the command-line tools tests run to completion (``run(_:in:timeout:)``).
///
/// stdin is `/dev/null` or a pipe the caller gives; stdout and stderr go to files, so a chatty child never blocks
/// on a full pipe. The child inherits no other descriptor of this process (a listening socket or a peer's stdin
/// pipe held open by a long-lived child would keep the port bound or the peer waiting for its end of input). It
/// inherits the environment (PATH finds `python3` and `h2load`) and the process group, so an interrupted
/// `make bench` stops it too. Thread-safe.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public struct Exit: Sendable {
        /// The exit status, or 128 + the signal number when a signal ended it (as a shell reports it).
        public var status: Int32
        /// Its CPU time and peak memory.
        public var usage: ProcessUsage
        /// True when ``finish(within:grace:)`` had to signal it.
        public var timedOut: Bool
    }

    private struct State {
        var exit: Exit?
        var waiters: [CheckedContinuation<Exit, Never>] = []
        var killedForTimeout = false
    }

    /// The child's process id.
    public let pid: pid_t
    /// The program as given (for messages).
    public let program: String
    /// The file that receives its stdout.
    public let standardOutput: URL
    /// The file that receives its stderr.
    public let standardError: URL
    private let state = LockedValue(State())

    /// Starts `arguments[0]` (searched in PATH unless it contains a slash) with the rest as arguments.
    /// - Parameters:
    ///   - arguments: program and arguments.
    ///   - standardOutput: file that receives stdout (created or truncated; `/dev/null` discards it).
    ///   - standardError: file that receives stderr (created or truncated).
    ///   - standardInput: a descriptor (a pipe's read end) to become the child's stdin; nil for `/dev/null`.
    ///     The caller still owns it and closes its own copy after the start.
    ///   - environment: variables added to (or replacing in) the inherited environment, e.g. secrets that
    ///     must not show in `ps` as flags would.
    /// - Throws: ``TestSupportError`` when there is no program or it cannot be started (`posix_spawnp`'s errno).
    public init(
        _ arguments: [String], standardOutput: URL, standardError: URL, standardInput: Int32? = nil,
        environment: [String: String] = [:]
    ) throws {
        guard let program = arguments.first else { throw TestSupportError.setup("no program to start") }
        self.program = program
        self.standardOutput = standardOutput
        self.standardError = standardError
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardError.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        Self.closeInheritedDescriptors(&actions)
        // An empty signal mask: posix_spawn passes on the calling thread's, and the threads Swift concurrency
        // runs on block signals, which left a child that handles SIGTERM itself (Python's asyncio) deaf to it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let code: Int32
        if environment.isEmpty {
            code = posix_spawnp(&child, program, &actions, &attributes, argv, environ)
        } else {
            var merged = ProcessInfo.processInfo.environment
            merged.merge(environment) { $1 }
            let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            code = posix_spawnp(&child, program, &actions, &attributes, argv, envp)
        }
        guard code == 0 else {
            throw TestSupportError.couldNotStart(
                arguments, "posix_spawnp errno \(code) (\(String(cString: strerror(code))))")
        }
        pid = child
        let watcher = Thread { [state, child] in Self.reap(child, into: state) }
        watcher.name = "child-wait-\(child)"
        watcher.start()
    }

    /// Sends `signal` unless the child has already been reaped (so a reused pid is never hit: until the
    /// reaper takes the lock, the exited child stays a zombie holding its pid).
    /// - Parameter signal: e.g. `SIGTERM`.
    public func send(_ signal: Int32) {
        state.withLock { state in
            if state.exit == nil { kill(pid, signal) }
        }
    }

    /// The exit, if the child has ended.
    public var exitIfEnded: Exit? { state.withLock { $0.exit } }

    /// Waits for the child to end, ending it if it runs past `limit`: SIGKILL at once, or, with a `grace`,
    /// SIGTERM first and SIGKILL when it still runs `grace` later.
    /// - Parameters:
    ///   - limit: longest wait before the child is signalled.
    ///   - grace: how long a child sent SIGTERM may take to exit before SIGKILL; nil sends SIGKILL at `limit`.
    /// - Returns: how it ended; `timedOut` tells whether it was signalled for running too long.
    public func finish(within limit: Duration, grace: Duration? = nil) async -> Exit {
        let killer = Task { [self] in
            try await Task.sleep(for: limit)
            guard signalForTimeout(grace == nil ? SIGKILL : SIGTERM), let grace else { return }
            try await Task.sleep(for: grace)
            _ = signalForTimeout(SIGKILL)
        }
        let exit = await withCheckedContinuation { (continuation: CheckedContinuation<Exit, Never>) in
            let done = state.withLock { state -> Exit? in
                if let exit = state.exit { return exit }
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
        killer.cancel()
        return exit
    }

    /// Blocks the calling thread until the child has been reaped, for synchronous callers (a fixture's `deinit`
    /// or `stop()`) that have just sent it SIGKILL; polls every millisecond.
    /// - Returns: how it ended.
    @discardableResult
    public func waitUntilExit() -> Exit {
        while true {
            if let exit = exitIfEnded { return exit }
            usleep(1000)
        }
    }

    /// The last `bytes` of what the child wrote to stderr, for error messages.
    /// - Parameter bytes: how much at most.
    /// - Returns: the text, trimmed; empty when there is none.
    public func standardErrorTail(bytes: Int = 2000) -> String {
        let data = (try? Data(contentsOf: standardError)) ?? Data()
        return String(decoding: data.suffix(bytes), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends `signal` for running too long, unless the child has ended.
    /// - Returns: false when it had already ended.
    private func signalForTimeout(_ signal: Int32) -> Bool {
        state.withLock { state in
            guard state.exit == nil else { return false }
            state.killedForTimeout = true
            kill(pid, signal)
            return true
        }
    }

    /// Adds a close action for every descriptor above 2: glibc's `posix_spawn_file_actions_addclosefrom_np`
    /// when it exists (2.34 and later; Swift's Glibc module does not declare it, so it is looked up), else one
    /// action per descriptor open now (`/proc/self/fd`; glibc ignores a close that finds one already closed).
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // A nil handle is glibc's RTLD_DEFAULT: every library loaded.
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, 3) == 0 { return }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// Runs on the watcher thread: blocks until the child exits, then reaps it under the lock.
    private static func reap(_ pid: pid_t, into state: LockedValue<State>) {
        // WNOWAIT leaves the child a zombie, so its pid cannot be reused before `send` sees `exit`.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        let (exit, waiters) = state.withLock { state -> (Exit, [CheckedContinuation<Exit, Never>]) in
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import; their glibc definitions:
            let signal = status & 0x7f
            let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            let exit = Exit(status: code, usage: ProcessUsage(usage), timedOut: state.killedForTimeout)
            state.exit = exit
            defer { state.waiters = [] }
            return (exit, state.waiters)
        }
        for waiter in waiters { waiter.resume(returning: exit) }
    }
}
