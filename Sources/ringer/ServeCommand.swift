import Foundation
import LibWebSockets
import RingerLogging
import RingerScenarios
import RingerServer

/// `ringer serve`: runs until SIGINT or SIGTERM, then shuts down cleanly.
enum ServeCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let log = Logger(label: "ringer.server")
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.parse(arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            log.error("\(error)")
            return 2
        }
        // libwebsockets' own lines and the wrapper's (the per-address cap's refusals, accept failures, each once per
        // 10 s) go to the server's log in its format; lws prints only errors to stderr otherwise. They are scrubbed
        // of credentials before they leave LibWebSockets.
        let http = Logger(label: "ringer.http")
        LibWebSocketsLog.route(levels: [.error, .warning]) { level, line in
            if level == .error { http.error(line) } else { http.warning(line) }
        }
        if let parent = configuration.testParentProcess, getppid() != parent {
            log.error("--test-parent-pid \(parent) is not this server's parent (process \(getppid()) is)")
            return 2
        }
        let server: RingerServer
        do {
            // Test-only: the servers of a cluster under test share one fast time (ScenarioClock's shared origin).
            let clock: any ServerClock = configuration.testTime.map { ScenarioClock(scale: $0.scale, origin: $0.origin) }
                ?? SystemServerClock()
            if let testTime = configuration.testTime {
                log.warning("test-only time: server time runs \(1 / testTime.scale) times faster than real time")
            }
            server = try RingerServer(configuration: configuration, clock: clock, logger: log)
            try await server.start()
        } catch {
            log.error("cannot start: \(error)")
            return 1
        }
        if configuration.apns == nil {
            log.warning("no APNs credentials configured (--apns-key-file or --apns-cert-file): iPhones ring only while their app holds the event WebSocket")
        }
        if configuration.fcm == nil {
            log.warning("no FCM service account configured (--fcm-service-account): Android phones ring only while their app holds the event WebSocket")
        }
        switch await Signals.wait(for: [SIGINT, SIGTERM], orParentGone: configuration.testParentProcess) {
        case .signal(let signal):
            log.info("shutting down", ["signal": .string(String(signal))])
        case .parentGone(let parent):
            log.warning("shutting down: process \(parent) (--test-parent-pid) is no longer this server's parent")
        }
        await server.shutdown()
        return 0
    }
}
