import DevCertificates
import Foundation
import RingerLogging
import RingerSandbox
import RingerServer

/// `ringer sandbox`: the APNs sandbox as its own process, until SIGINT or SIGTERM.
enum SandboxCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let log = Logger(label: "ringer.sandbox")
        do {
            let options = try CommandLineOptions(
                arguments: arguments, environment: [:],
                known: ["listen", "cert", "key", "client-ca", "key-id", "team-id", "key-file", "devices"])
            let (host, port) = try hostAndPort(options["listen"] ?? "127.0.0.1:2197")
            var certificate = options["cert"]
            var privateKey = options["key"]
            if certificate == nil || privateKey == nil {
                let directory = FileManager.default.temporaryDirectory
                    .appendingPathComponent("ringer-sandbox-\(ProcessInfo.processInfo.processIdentifier)")
                let paths = try DevCertificateAuthority.create().write(to: directory)
                certificate = paths.serverCertificate.path
                privateKey = paths.serverPrivateKey.path
                log.info("made a throw-away CA; trust it with --apns-ca-file", ["ca": .string(paths.caCertificate.path)])
            }
            let sandbox = APNsSandbox(configuration: .init(host: host, port: port, certificatePath: certificate!,
                                                           privateKeyPath: privateKey!,
                                                           clientCAPath: options["client-ca"]), logger: log)
            if let keyID = options["key-id"] {
                guard let teamID = options["team-id"], let file = options["key-file"] else {
                    throw ConfigurationError("--key-id needs --team-id and --key-file")
                }
                try sandbox.addProviderKey(keyID: keyID, teamID: teamID,
                                           publicKeyPEM: try String(contentsOfFile: file, encoding: .utf8))
            }
            for entry in (options["devices"] ?? "").split(separator: ",") {
                let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ConfigurationError("--devices wants TOKEN:BUNDLE entries") }
                sandbox.register(SandboxDevice(token: parts[0], bundleID: parts[1]))
            }
            let bound = try sandbox.start()
            try? FileHandle.standardOutput.write(contentsOf: Data("APNs sandbox listening on https://\(host):\(bound)\n".utf8))
            let signal = await Signals.wait(for: [SIGINT, SIGTERM])
            log.info("shutting down", ["signal": .string(String(signal))])
            sandbox.shutdown()
            return 0
        } catch {
            log.error("\(error)")
            return 2
        }
    }

    private static func hostAndPort(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            throw ConfigurationError("--listen must be host:port")
        }
        return (String(text[..<colon]), port)
    }
}
