import DevCertificates
import FCM
import Foundation

/// One of the programs that send the FCM workload to the sandbox, each as its own process, with the same
/// ringing message, counts and concurrency.
enum FCMBenchmarkSender: Sendable {
    /// How firebase-admin sends (Tests/Peers/bench_firebase_admin.py `--mode`).
    enum FirebaseAdminMode: String, Sendable {
        /// `messaging.send_each_async`: httpx over HTTP/2, to the sandbox's HTTP/2 port.
        case async
        /// `messaging.send_each`: requests over HTTP/1.1 from a thread per message, to the HTTP/1.1 port.
        case sync
    }

    /// Ringer's `FCMClient`, run as `ringer-lab bench --send-fcm …`.
    case ringer(executable: String, connections: Int)
    /// firebase-admin (PyPI) through Tests/Peers/bench_firebase_admin.py.
    case firebaseAdmin(python: String, script: String, mode: FirebaseAdminMode)
    /// h2load (nghttp2): Ringer's request body and headers with a fixed access token, the ceiling.
    case h2load(program: String)

    /// Short name for progress lines and the report.
    var name: String {
        switch self {
        case .ringer(_, let connections):
            connections == 1 ? "Ringer FCM, 1 connection" : "Ringer FCM, pool of \(connections)"
        case .firebaseAdmin(_, _, let mode): "firebase-admin \(mode == .async ? "send_each_async" : "send_each")"
        case .h2load: "h2load FCM"
        }
    }

    /// What a sender needs besides the fixture, known once the sandbox runs.
    struct Context: Sendable {
        /// The sandbox's FCM ports on 127.0.0.1.
        var ports: SandboxProcess.FCMPorts
        /// The service account with `token_uri` on the HTTP/2 port (Ringer's client grants over HTTP/2).
        var http2ServiceAccount: URL
        /// The service account with `token_uri` on the HTTP/1.1 port (google-auth grants with requests).
        var http1ServiceAccount: URL
        /// Ringer's `messages:send` body for the ringing message (`FCMMessage.requestBody`), for h2load.
        var h2loadBody: URL
        /// An access token from the sandbox's token endpoint, for h2load: a secret of a throw-away account.
        var accessToken: String

        /// Makes the material that needs the sandbox's ports: service-account copies whose `token_uri` is the
        /// sandbox's token endpoint (HTTP/2 port for Ringer's client, HTTP/1.1 for google-auth), Ringer's
        /// request body for h2load, and an access token the sandbox grants, for h2load.
        /// - Parameters:
        ///   - fixture: keys, token, ringer data.
        ///   - ports: the running sandbox's FCM ports.
        /// - Returns: the context.
        /// - Throws: ``BenchmarkError/setup(_:)`` when a file cannot be written or the grant fails.
        static func prepare(fixture: BenchmarkFixture, ports: SandboxProcess.FCMPorts) async throws -> Context {
            let http2 = try fixture.fcmServiceAccount(tokenURI: "https://127.0.0.1:\(ports.http2)/token", name: "http2")
            let http1 = try fixture.fcmServiceAccount(tokenURI: "https://localhost:\(ports.http1)/token", name: "http1")
            let body = fixture.directory.appendingPathComponent("fcm-body.json")
            let accessToken: String
            do {
                let message = FCMMessage(
                    data: ["ringer": fixture.fcmRinger], priority: .high,
                    ttl: FCMMessage.ttl(forSecondsLeft: 45), collapseKey: fixture.fcmCollapseKey)
                try Data(try message.requestBody(token: fixture.fcmToken)).write(to: body)
                let account = try FCMServiceAccount(contentsOfFile: http2.path)
                let client = try FCMClient(
                    configuration: .init(
                        serviceAccounts: [account],
                        baseURL: "https://127.0.0.1:\(ports.http2)",
                        caFile: fixture.certificates.caCertificate.path))
                defer { client.shutdown() }
                guard let source = client.accessTokenSource(for: account.projectID) else {
                    throw BenchmarkError.setup("no access-token source for \(account.projectID)")
                }
                accessToken = try await source.token(deadline: Date().addingTimeInterval(15)).value
            } catch let error as BenchmarkError {
                throw error
            } catch {
                throw BenchmarkError.setup("cannot prepare h2load's FCM request (body, access token): \(error)")
            }
            return Context(
                ports: ports, http2ServiceAccount: http2, http1ServiceAccount: http1, h2loadBody: body,
                accessToken: accessToken)
        }
    }

    /// The command line that sends `workload` to the sandbox.
    /// - Parameters:
    ///   - fixture: keys, token, ringer data.
    ///   - context: ports, per-sender service accounts, h2load's body and token.
    ///   - workload: counts.
    /// - Returns: program and arguments. For h2load they include the access token: a secret of a throw-away
    ///   account, visible to local users in the process list for the run's few seconds.
    func arguments(fixture: BenchmarkFixture, context: Context, workload: PushWorkload) -> [String] {
        let counts = ["--pushes", String(workload.pushes), "--concurrency", String(workload.concurrency)]
        switch self {
        case .ringer(let executable, let connections):
            return [
                executable, "bench", "--send-fcm", "https://127.0.0.1:\(context.ports.http2)",
                "--ca-file", fixture.certificates.caCertificate.path,
                "--service-account", context.http2ServiceAccount.path, "--fcm-token", fixture.fcmToken,
                "--ringer-file", fixture.fcmRingerFile.path, "--collapse-key", fixture.fcmCollapseKey,
                "--connections", String(connections),
            ] + counts
        case .firebaseAdmin(let python, let script, let mode):
            let port = mode == .async ? context.ports.http2 : context.ports.http1
            return [
                python, script, "--mode", mode.rawValue, "--port", String(port),
                "--ca", fixture.certificates.caCertificate.path,
                "--service-account", context.http1ServiceAccount.path,
                // `=`: a registration token may begin with `-`, which argparse would take for a flag.
                "--token=" + fixture.fcmToken,
                "--ringer-file", fixture.fcmRingerFile.path, "--collapse-key", fixture.fcmCollapseKey,
            ] + counts
        case .h2load(let program):
            // The headers Ringer's FCMClient sends; the same access token for every request.
            let headers = [
                "content-type: application/json; charset=UTF-8", "authorization: Bearer \(context.accessToken)",
            ]
            return H2LoadOutput.arguments(
                program: program, workload: workload, bodyFile: context.h2loadBody.path, headers: headers,
                url:
                    "https://127.0.0.1:\(context.ports.http2)/v1/projects/\(BenchmarkFixture.fcmProjectID)/messages:send"
            )
        }
    }

    /// Reads the sender's figures from what it printed.
    /// - Parameter output: its stdout.
    /// - Returns: the report.
    /// - Throws: ``BenchmarkError/sender(_:_:)`` when the output holds no result.
    func report(from output: String) throws -> SenderReport {
        switch self {
        case .ringer, .firebaseAdmin:
            return try SenderReport.result(in: output, of: name)
        case .h2load:
            return try H2LoadOutput.parse(output).report(sender: "h2load")
        }
    }
}
