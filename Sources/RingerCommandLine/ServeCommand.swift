import Foundation
import LibWebSockets
public import RingerSupport
public import RingerServer

/// `ringer serve`: parses the server's flags, runs the server until `SIGINT` or `SIGTERM`, then shuts it down
/// cleanly. The laboratory's `ringer-lab node` runs the same with its own clock and parent watch.
public enum ServeCommand {
    /// Runs the server.
    /// - Parameters:
    ///   - arguments: the flags after `serve` (docs/configuration.md).
    ///   - clock: the server's clock; the system's in production.
    ///   - parentProcess: a process id whose end (it is no longer this process's parent) shuts the server down as
    ///     `SIGTERM` does; nil: no such watch.
    ///   - log: where the server logs.
    /// - Returns: the exit status: 0 after a clean shutdown, 1 when the server could not start, 2 for a bad flag.
    public static func run(
        _ arguments: [String], clock: any ServerClock = SystemServerClock(), parentProcess: Int32? = nil,
        log: Logger = Logger(label: "ringer.server")
    ) async -> Int32 {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.parse(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            log.error("\(error)")
            return 2
        }
        return await run(configuration: configuration, clock: clock, parentProcess: parentProcess, log: log)
    }

    /// Runs the server with a configuration read already (``run(_:clock:parentProcess:log:)`` after the flags).
    /// - Returns: the exit status: 0 after a clean shutdown, 1 when the server could not start.
    public static func run(
        configuration: ServerConfiguration, clock: any ServerClock, parentProcess: Int32?, log: Logger
    ) async -> Int32 {
        // libwebsockets' own lines and the wrapper's (the per-address cap's refusals, accept failures, each once per
        // 10 s) go to the server's log in its format; lws prints only errors to stderr otherwise. They are scrubbed
        // of credentials before they leave LibWebSockets.
        let http = Logger(label: "ringer.http")
        LibWebSocketsLog.route(levels: [.error, .warning]) { level, line in
            if level == .error { http.error(line) } else { http.warning(line) }
        }
        let server: RingerServer
        do {
            server = try RingerServer(configuration: configuration, clock: clock, logger: log)
            try await server.start()
        } catch {
            log.error("cannot start: \(error)")
            return 1
        }
        if configuration.apns == nil {
            log.warning(
                "no APNs credentials configured (--apns-key-file or --apns-cert-file): iPhones ring only while their app holds the event WebSocket"
            )
        }
        if configuration.fcm == nil {
            log.warning(
                "no FCM service account configured (--fcm-service-account): Android phones ring only while their app holds the event WebSocket"
            )
        }
        switch await Signals.wait(for: [SIGINT, SIGTERM], orParentGone: parentProcess) {
        case .signal(let signal):
            log.info("shutting down", ["signal": .string(String(signal))])
        case .parentGone(let parent):
            log.warning("shutting down: process \(parent), which started this server, is gone")
        }
        await server.shutdown()
        return 0
    }
}
