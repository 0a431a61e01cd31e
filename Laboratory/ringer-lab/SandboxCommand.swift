import DevCertificates
import Foundation
import RingerCommandLine
import RingerSupport
import RingerSandbox
import RingerServer

/// `ringer-lab sandbox`: the APNs sandbox and the FCM sandbox in one process, until SIGINT or SIGTERM.
enum SandboxCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let log = Logger(label: "ringer.sandbox")
        do {
            let options = try CommandLineOptions(
                arguments: arguments, environment: [:],
                known: [
                    "listen", "cert", "key", "client-ca", "key-id", "team-id", "key-file", "devices",
                    "fcm-listen", "fcm-http1-listen", "fcm-devices", "fcm-service-account",
                    "fcm-demotion-threshold", "fcm-demotion-window",
                ])
            // `--fcm-service-account` may be repeated; the other flags take one value each.
            let serviceAccounts = options.all("fcm-service-account")
            let listen = try HostPort(options["listen"] ?? "127.0.0.1:2197", flag: "--listen")
            // FCM's ports default to 2198 (HTTP/2) and 2199 (HTTP/1.1), or to ephemeral ones when APNs' is
            // (`--listen host:0`, as `ringer-lab bench` runs it), so that throw-away runs never collide.
            let ephemeral = listen.port == 0
            let fcmListen =
                try options["fcm-listen"].map { try HostPort($0, flag: "--fcm-listen") }
                ?? HostPort(host: listen.host, port: ephemeral ? 0 : 2198)
            let fcmHTTP1Listen =
                try options["fcm-http1-listen"].map { try HostPort($0, flag: "--fcm-http1-listen") }
                ?? HostPort(host: fcmListen.host, port: ephemeral ? 0 : 2199)
            guard fcmHTTP1Listen.host == fcmListen.host else {
                throw ConfigurationError("--fcm-listen and --fcm-http1-listen must name the same host")
            }
            var certificate = options["cert"]
            var privateKey = options["key"]
            // The throw-away CA's folder, removed at shutdown: it is only good while this sandbox runs.
            var throwAway: URL?
            defer { if let throwAway { try? FileManager.default.removeItem(at: throwAway) } }
            if certificate == nil || privateKey == nil {
                let directory = FileManager.default.temporaryDirectory
                    .appendingPathComponent("ringer-sandbox-\(ProcessInfo.processInfo.processIdentifier)")
                throwAway = directory
                let paths = try DevCertificateAuthority.create().write(to: directory)
                certificate = paths.serverCertificate.path
                privateKey = paths.serverPrivateKey.path
                log.info(
                    "made a throw-away CA; trust it with --apns-ca-file and --fcm-ca-file",
                    ["ca": .string(paths.caCertificate.path)])
            }
            let sandbox = APNsSandbox(
                configuration: .init(
                    host: listen.host, port: listen.port, certificatePath: certificate!,
                    privateKeyPath: privateKey!,
                    clientCAPath: options["client-ca"]), logger: log)
            if let keyID = options["key-id"] {
                guard let teamID = options["team-id"], let file = options["key-file"] else {
                    throw ConfigurationError("--key-id needs --team-id and --key-file")
                }
                try sandbox.addProviderKey(
                    keyID: keyID, teamID: teamID,
                    publicKeyPEM: try String(contentsOfFile: file, encoding: .utf8))
            }
            for entry in (options["devices"] ?? "").split(separator: ",") {
                let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ConfigurationError("--devices wants TOKEN:BUNDLE entries") }
                sandbox.register(SandboxDevice(token: parts[0], bundleID: parts[1]))
            }
            var fcmConfiguration = FCMSandbox.Configuration(
                host: fcmListen.host, port: fcmListen.port,
                http1Port: fcmHTTP1Listen.port,
                certificatePath: certificate!, privateKeyPath: privateKey!)
            if let text = options["fcm-demotion-threshold"] {
                guard let count = Int(text), count >= 1 else {
                    throw ConfigurationError("--fcm-demotion-threshold must be a whole number of messages, at least 1")
                }
                fcmConfiguration.demotionThreshold = count
            }
            if let text = options["fcm-demotion-window"] {
                guard let seconds = TimeInterval(text), seconds > 0, seconds.isFinite else {
                    throw ConfigurationError("--fcm-demotion-window must be seconds, more than 0")
                }
                fcmConfiguration.demotionWindow = seconds
            }
            let fcm = FCMSandbox(configuration: fcmConfiguration, logger: log)
            for file in serviceAccounts {
                guard let json = FileManager.default.contents(atPath: file) else {
                    throw ConfigurationError("--fcm-service-account \(file): cannot read the file")
                }
                do {
                    try fcm.addServiceAccount(json: json)
                } catch {
                    throw ConfigurationError("--fcm-service-account \(file): \(error)")
                }
            }
            for entry in (options["fcm-devices"] ?? "").split(separator: ",") {
                // PROJECT:TOKEN, split at the first colon: project ids have none, FCM's tokens often do.
                let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ConfigurationError("--fcm-devices wants PROJECT:TOKEN entries") }
                fcm.register(FCMSandboxDevice(token: parts[1], projectID: parts[0]))
            }
            let bound = try sandbox.start()
            let fcmPorts: FCMSandbox.Ports
            do {
                fcmPorts = try fcm.start()
            } catch {
                sandbox.shutdown()
                throw error
            }
            try? FileHandle.standardOutput.write(
                contentsOf: Data("APNs sandbox listening on https://\(HostPort(host: listen.host, port: bound))\n".utf8)
            )
            let http1 =
                fcmPorts.http1.map {
                    " and https://\(HostPort(host: fcmListen.host, port: $0)) (HTTP/1.1, token URI \(fcm.tokenURI ?? ""))"
                } ?? ""
            try? FileHandle.standardOutput.write(
                contentsOf: Data(
                    "FCM sandbox listening on https://\(HostPort(host: fcmListen.host, port: fcmPorts.http2)) (HTTP/2)\(http1)\n"
                        .utf8))
            let signal = await Signals.wait(for: [SIGINT, SIGTERM])
            log.info("shutting down", ["signal": .string(String(signal))])
            sandbox.shutdown()
            fcm.shutdown()
            return 0
        } catch {
            log.error("\(error)")
            return 2
        }
    }
}
