import DevCertificates
import Foundation
import RingerTestKit

/// `ringer serve` as a separate process for the ringing, fan-out and cluster benchmarks: plain HTTP on an
/// ephemeral loopback port, a fresh SQLite file in the fixture folder (or, as a node of a cluster, the shared
/// PostgreSQL database and Redis, ``ClusterNode``), APNs (and, when asked, FCM) pointed at the benchmark's
/// `ringer-lab sandbox` (the fixture's signing key and service account, which the sandbox trusts, and its CA), and a ring timeout of 600 s (the longest the server
/// takes) so no call placed during the run expires and adds work to a later step. The admin key and the
/// user-token secret are random and passed in the environment (`RINGER_ADMIN_KEY`, …), not as flags that
/// `ps` shows; the admin key is also written, mode 0600, to ``adminKeyFile`` for the Python peers.
/// The nodes of one cluster share the secrets (``Secrets``). Rate limits are switched off. Its log (one line
/// per call) goes to `serve.log`, or `<node id>.log` for a cluster node.
struct RingerServeProcess: Sendable {
    let process: ChildProcess
    /// `http://127.0.0.1:<port>`.
    let url: String
    /// The admin key, in a file only the owner can read.
    let adminKeyFile: URL

    /// The secrets a server gets in its environment; the nodes of one cluster share them (a token minted on
    /// one node is checked on another).
    struct Secrets: Sendable {
        /// `RINGER_ADMIN_KEY`, 32 hex digits.
        var adminKey: String
        /// `RINGER_USER_TOKEN_SECRET`, 64 hex digits.
        var userTokenSecret: String

        /// Fresh random ones.
        static func random() -> Secrets {
            Secrets(adminKey: RingerServeProcess.randomHex(16), userTokenSecret: RingerServeProcess.randomHex(32))
        }
    }

    /// A node of a cluster: the shared PostgreSQL database and Redis, and its own name (docs/operations.md).
    struct ClusterNode: Sendable {
        /// `postgres://…` of the shared database.
        var databaseURL: String
        /// `redis://127.0.0.1:<port>`, nil for one server on PostgreSQL alone.
        var redisURL: String?
        /// `--node-id`, also the stem of its log files (`<nodeID>.log`).
        var nodeID: String
    }

    /// The product's `ringer` binary in the folder of `lab`, the `ringer-lab` binary.
    static func server(besideLab lab: String) -> String {
        URL(fileURLWithPath: lab).deletingLastPathComponent().appendingPathComponent("ringer").path
    }

    /// Starts the server and waits until it listens.
    /// - Parameters:
    ///   - executable: the `ringer-lab` binary; the server runs from the product's `ringer` binary beside it (one
    ///     build makes both), so the benchmark measures what ships.
    ///   - fixture: keys and certificates; the database and log go in its folder.
    ///   - apnsPort: the sandbox's APNs port on 127.0.0.1.
    ///   - fcm: the sandbox's FCM HTTP/2 port and a service account whose `token_uri` is on it, for a server
    ///     that also sends FCM messages; nil for none.
    /// - Throws: ``BenchmarkError`` when it cannot start or does not listen within 20 seconds.
    ///   - node: the shared database and Redis and this node's name; nil for a fresh SQLite file.
    ///   - secrets: the admin key and user-token secret; the nodes of one cluster pass the same.
    static func start(
        executable: String, fixture: BenchmarkFixture, apnsPort: Int,
        fcm: (port: Int, serviceAccount: URL)? = nil, node: ClusterNode? = nil,
        secrets: Secrets = .random()
    ) async throws -> RingerServeProcess {
        let directory = fixture.directory
        let adminKey = secrets.adminKey
        let adminKeyFile = directory.appendingPathComponent("admin-key")
        do {
            try Data(adminKey.utf8).write(to: adminKeyFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: adminKeyFile.path)
        } catch {
            throw BenchmarkError.setup("cannot write \(adminKeyFile.path): \(error)")
        }
        let stem = node?.nodeID ?? "serve"
        let log = directory.appendingPathComponent("\(stem).log")
        // A fresh SQLite file per start, so a later part never finds an earlier part's users and calls.
        let database =
            node?.databaseURL ?? directory.appendingPathComponent("ringer-\(UUID().uuidString.prefix(8)).sqlite").path
        let cluster =
            node.map { node in ["--node-id", node.nodeID] + (node.redisURL.map { ["--redis", $0] } ?? []) } ?? []
        let process = try ChildProcess(
            [
                Self.server(besideLab: executable), "serve", "--listen", "127.0.0.1:0",
                "--database", database,
                "--apns-key-file", fixture.keyFile.path, "--apns-key-id", BenchmarkFixture.keyID,
                "--apns-team-id", BenchmarkFixture.teamID, "--apns-host", "127.0.0.1:\(apnsPort)",
                "--apns-ca-file", fixture.certificates.caCertificate.path, "--ring-timeout", "600",
            ]
                + LaboratoryServeFlags.rateLimitsOff + cluster
                + (fcm.map {
                    [
                        "--fcm-service-account", $0.serviceAccount.path, "--fcm-host", "127.0.0.1:\($0.port)",
                        "--fcm-ca-file", fixture.certificates.caCertificate.path,
                    ]
                } ?? []),
            standardOutput: directory.appendingPathComponent("\(stem).out"), standardError: log,
            environment: ["RINGER_ADMIN_KEY": adminKey, "RINGER_USER_TOKEN_SECRET": secrets.userTokenSecret])
        do {
            let port = try await process.awaitOutput(
                in: log, within: .seconds(20), what: "listen", Self.listeningPort(inLog:))
            return RingerServeProcess(process: process, url: "http://127.0.0.1:\(port)", adminKeyFile: adminKeyFile)
        } catch {
            _ = await process.finish(within: .zero)
            throw error
        }
    }

    /// The port from the server's `listening http.address=<host>:<port>` log line.
    static func listeningPort(inLog text: String) -> Int? {
        guard let range = text.range(of: " listening http.address=") else { return nil }
        let address = text[range.upperBound...].prefix { !$0.isWhitespace }
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    /// - Throws: ``BenchmarkError/sender(_:_:)`` if the server has died.
    func checkRunning() throws {
        if let exit = process.exitIfEnded {
            throw BenchmarkError.sender(
                "ringer serve", "died with status \(exit.status): \(process.standardErrorTail())")
        }
    }

    /// Stops it with SIGTERM (SIGKILL after 10 seconds).
    /// - Returns: its CPU time and peak memory over the whole run.
    func stop() async -> ProcessUsage {
        process.send(SIGTERM)
        return await process.finish(within: .seconds(10)).usage
    }

    fileprivate static func randomHex(_ bytes: Int) -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
    }
}
