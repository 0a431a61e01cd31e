public import Foundation
import RingerSupport

/// The laboratory's Android phone host (docs/android-phone-host.md): one JVM child process running any number of
/// simulated Android phones, each the real Kotlin SDK over the Android mirror, driven over its standard input and
/// output with newline-delimited JSON. One host per ``LocalStack``, started with the stack's server, FCM sandbox and
/// clock; ``shutdown()`` ends it with the stack.
///
/// Requests are written in the order they are made and the host handles them in that order, so a request made
/// without waiting for its response (``send(_:_:onError:)``) still takes effect before any later one. Responses are
/// matched to their requests by id; events go to the handler registered for their phone. Thread-safe.
public final class AndroidPhoneHost: Sendable {
    /// The host refused a request or is gone.
    public struct HostError: Error, CustomStringConvertible, Sendable {
        /// The protocol's error code (`unknown_phone`, `registration_failed`, …), or `host_exited` when the host
        /// process ended, or `no_classpath` when it cannot be started.
        public var code: String
        /// What went wrong, in words.
        public var message: String

        /// - Parameters:
        ///   - code: the protocol's error code.
        ///   - message: what went wrong.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }

        /// `code: message`.
        public var description: String { "\(code): \(message)" }
    }

    /// What the host answered to a request, as far as the runner reads it.
    struct Result: Decodable, Sendable {
        /// `add_phone`: the phone's FCM registration token.
        var fcmToken: String?
    }

    private struct Response: Decodable {
        struct Failure: Decodable {
            var code: String
            var message: String
        }
        var id: Int?
        var ok: Bool
        var result: Result?
        var error: Failure?
    }

    private struct LineKind: Decodable {
        var event: String?
    }

    private struct State {
        var nextID = 1
        var pending: [Int: @Sendable (Swift.Result<Result, HostError>) -> Void] = [:]
        var handlers: [String: @Sendable (AndroidHostEvent) -> Void] = [:]
        var exited = false
    }

    private let process: Process
    private let input: FileHandle
    private let state = LockedValue(State())
    /// Serialises writes to the host's standard input, so lines never interleave.
    private let writeLock = LockedValue(())
    private let log: FileHandle?

    /// The file holding the host's class path, written by `make -C android lab`: `RINGER_ANDROID_LAB_CLASSPATH` if set,
    /// else `android/build/lab-classpath.txt` in the current folder or one above it, or above the running executable
    /// (`.build/debug/ringer-lab` of a checkout).
    /// - Throws: ``HostError`` (`no_classpath`) naming `make -C android lab` when there is none.
    public static func classpathFile() throws -> URL {
        let relative = "android/build/lab-classpath.txt"
        if let path = ProcessInfo.processInfo.environment["RINGER_ANDROID_LAB_CLASSPATH"], !path.isEmpty {
            guard FileManager.default.fileExists(atPath: path) else {
                throw HostError(
                    code: "no_classpath",
                    message: "RINGER_ANDROID_LAB_CLASSPATH names \(path), which does not exist: run "
                        + "`make -C android lab` to write \(relative)")
            }
            return URL(fileURLWithPath: path)
        }
        var starts = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for start in starts {
            var folder = start.standardizedFileURL
            for _ in 0..<6 {
                let candidate = folder.appendingPathComponent(relative)
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        throw HostError(
            code: "no_classpath",
            message: "no \(relative) (the Android phone host is not built): run `make -C android lab` in the "
                + "repository, or set RINGER_ANDROID_LAB_CLASSPATH to that file")
    }

    /// Starts `java -cp <class path> dev.ringer.lab.PhoneHostKt` and its `start` request.
    /// - Parameters:
    ///   - serverURL: the Ringer server the phones use (`http://127.0.0.1:<port>`).
    ///   - fcmSandboxURL: the FCM sandbox's HTTP/1.1 `https://` base, where the phones' socket is.
    ///   - caFile: the sandbox's CA certificate, PEM.
    ///   - projectID: the Firebase project of the phones' tokens.
    ///   - timeScale: real seconds per scenario second, in (0, 1].
    ///   - timeOrigin: the instant at which scenario and real time agree (whole milliseconds are sent).
    ///   - logFile: where the host's standard error (its log) goes; nil discards it.
    /// - Throws: ``HostError`` when the class path file is missing (`no_classpath`), Java cannot be started, or the
    ///   host refuses `start`.
    public static func launch(
        serverURL: URL, fcmSandboxURL: URL, caFile: URL, projectID: String, timeScale: Double, timeOrigin: Date,
        logFile: URL?
    ) async throws -> AndroidPhoneHost {
        let classpathFile = try classpathFile()
        let classpath = try String(contentsOf: classpathFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let host = try AndroidPhoneHost(classpath: classpath, logFile: logFile)
        do {
            _ = try await host.request(
                "start",
                [
                    "server_url": serverURL.absoluteString, "fcm_sandbox_url": fcmSandboxURL.absoluteString,
                    "fcm_ca_file": caFile.path, "fcm_project_id": projectID, "time_scale": timeScale,
                    "time_origin_ms": Int64((timeOrigin.timeIntervalSince1970 * 1000).rounded()),
                ])
        } catch {
            await host.shutdown()
            throw error
        }
        return host
    }

    private init(classpath: String, logFile: URL?) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["java", "-cp", classpath, "dev.ringer.lab.PhoneHostKt"]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        var log: FileHandle?
        if let logFile {
            FileManager.default.createFile(atPath: logFile.path, contents: nil)
            log = try? FileHandle(forWritingTo: logFile)
        }
        process.standardError = log ?? FileHandle.nullDevice
        self.process = process
        self.log = log
        input = stdin.fileHandleForWriting
        let output = stdout.fileHandleForReading
        let state = state
        do {
            try process.run()
        } catch {
            throw HostError(code: "failed", message: "cannot start java for the phone host: \(error)")
        }
        // A thread of its own: the reads block until the host writes, and the host lives as long as the stack.
        let reader = Thread { AndroidPhoneHost.read(output, state: state) }
        reader.name = "android-phone-host-reader"
        reader.start()
    }

    /// Reads the host's lines until its standard output ends, then fails what is still waiting.
    private static func read(_ output: FileHandle, state: LockedValue<State>) {
        var buffer = Data()
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        while true {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                guard !line.isEmpty else { continue }
                dispatch(Data(line), decoder: decoder, state: state)
            }
        }
        let pending = state.withLock { state in
            state.exited = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for reply in pending { reply(.failure(HostError(code: "host_exited", message: "the phone host ended"))) }
    }

    private static func dispatch(_ line: Data, decoder: JSONDecoder, state: LockedValue<State>) {
        guard let kind = try? decoder.decode(LineKind.self, from: line) else { return }
        if kind.event != nil {
            guard let event = try? decoder.decode(AndroidHostEvent.self, from: line) else { return }
            let handler = state.withLock { $0.handlers[event.phone] }
            handler?(event)
            return
        }
        guard let response = try? decoder.decode(Response.self, from: line), let id = response.id,
            let reply = state.withLock({ $0.pending.removeValue(forKey: id) })
        else { return }
        if response.ok {
            reply(.success(response.result ?? Result()))
        } else {
            let failure = response.error ?? .init(code: "failed", message: "no error given")
            reply(.failure(HostError(code: failure.code, message: failure.message)))
        }
    }

    /// Sends a request and waits for its response.
    /// - Parameters:
    ///   - command: the protocol's command.
    ///   - fields: its fields: strings, numbers, booleans, `NSNull`, and dictionaries of those.
    /// - Returns: the response's result.
    /// - Throws: ``HostError`` with the host's code when it refuses, `host_exited` when it is gone.
    func request(_ command: String, _ fields: [String: Any] = [:]) async throws -> Result {
        let box = ReplyBox()
        return try await withCheckedThrowingContinuation { continuation in
            box.continuation = continuation
            send(command, fields) { result in box.resume(result) }
        }
    }

    /// Sends a request without waiting: `onReply` is called (on the host's reader thread) with its result.
    /// - Parameters:
    ///   - command: the protocol's command.
    ///   - fields: its fields.
    ///   - onReply: the response, or the host's end.
    func send(
        _ command: String, _ fields: [String: Any],
        onReply: @escaping @Sendable (Swift.Result<Result, HostError>) -> Void
    ) {
        var object = fields
        object["command"] = command
        let id: Int? = state.withLock { state in
            guard !state.exited else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.pending[id] = onReply
            return id
        }
        guard let id else {
            onReply(.failure(HostError(code: "host_exited", message: "the phone host ended")))
            return
        }
        object["id"] = id
        do {
            var line = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            line.append(UInt8(ascii: "\n"))
            try writeLock.withLock { _ in try input.write(contentsOf: line) }
        } catch {
            if let reply = state.withLock({ $0.pending.removeValue(forKey: id) }) {
                reply(.failure(HostError(code: "host_exited", message: "cannot write to the phone host: \(error)")))
            }
        }
    }

    /// Sends a request whose response only matters when it is a refusal: `onError` hears of that.
    /// - Parameters:
    ///   - command: the protocol's command.
    ///   - fields: its fields.
    ///   - onError: told of a refusal (on the host's reader thread).
    func send(
        _ command: String, _ fields: [String: Any], onError: @escaping @Sendable (HostError) -> Void
    ) {
        send(command, fields) { result in
            if case .failure(let error) = result { onError(error) }
        }
    }

    /// Routes a phone's events to `handler` (on the host's reader thread, in the order the host wrote them).
    /// - Parameters:
    ///   - phone: the phone's name in the host.
    ///   - handler: told of each event.
    func observe(_ phone: String, _ handler: @escaping @Sendable (AndroidHostEvent) -> Void) {
        state.withLock { $0.handlers[phone] = handler }
    }

    /// Sends `shutdown` (every phone closes), waits up to 10 s (real) for the host to exit, then kills it.
    public func shutdown() async {
        if process.isRunning {
            _ = try? await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await self.request("shutdown") }
                group.addTask { try await Task.sleep(for: .seconds(10)) }
                try await group.next()
                group.cancelAll()
            }
        }
        try? input.close()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? log?.close()
    }
}

/// Holds a request's continuation until its response arrives.
private final class ReplyBox: @unchecked Sendable {
    // Set before the request is sent, read once when the reply comes: the send happens-after the store.
    var continuation: CheckedContinuation<AndroidPhoneHost.Result, any Error>?

    func resume(_ result: Result<AndroidPhoneHost.Result, AndroidPhoneHost.HostError>) {
        continuation?.resume(with: result.mapError { $0 as any Error })
        continuation = nil
    }
}
