import FCM
import Foundation
import HTTP2Client
import JWT
import RingerTestSupport
import Testing

/// What ``FCMClient/init(configuration:clock:wallClock:)`` refuses at start-up, and a host that does not answer.
@Suite struct FCMClientConfigurationTests {
    static let key = try! JWTSigningKey.generateRSA()

    static func account(_ project: String) throws -> FCMServiceAccount {
        try FCMServiceAccount(
            projectID: project, privateKeyID: "kid-\(project)",
            clientEmail: "sender@\(project).iam.gserviceaccount.com",
            tokenURI: "https://oauth2.googleapis.com/token", key: key)
    }

    static func refuses(
        _ configuration: FCMClient.Configuration, saying text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: FCMClientError.invalidConfiguration, sourceLocation: sourceLocation) {
            let client = try FCMClient(configuration: configuration)
            client.shutdown()
        }
        #expect(
            error?.description.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func firstAccountIsTheDefaultProject() throws {
        let client = try FCMClient(
            configuration: .init(serviceAccounts: [Self.account("first"), Self.account("second")]))
        defer { client.shutdown() }
        #expect(client.projectIDs == ["first", "second"])
        #expect(client.defaultProjectID == "first")
        #expect(client.accessTokenSource(for: "second")?.account.projectID == "second")
        #expect(client.accessTokenSource(for: "third") == nil)
    }

    @Test func configurationWithoutAUsableAccountOrHostIsRefused() throws {
        Self.refuses(.init(serviceAccounts: []), saying: "no FCM service account")
        Self.refuses(
            .init(serviceAccounts: [try Self.account("p"), try Self.account("p")]), saying: "two FCM service accounts")
        Self.refuses(
            .init(serviceAccounts: [try Self.account("p")], baseURL: "http://fcm.googleapis.com"),
            saying: "not loopback")
        Self.refuses(
            .init(serviceAccounts: [try Self.account("p")], baseURL: "https://fcm.example/v1"),
            saying: "without a path")
        Self.refuses(
            .init(serviceAccounts: [try Self.account("p")], baseURL: "fcm.googleapis.com"), saying: "absolute URL")
        Self.refuses(.init(serviceAccounts: [try Self.account("p")], requestTimeout: 0), saying: "requestTimeout")
        Self.refuses(.init(serviceAccounts: [try Self.account("p")], grantTimeout: .infinity), saying: "grantTimeout")
        Self.refuses(.init(serviceAccounts: [try Self.account("p")], connections: 0), saying: "connections")
        Self.refuses(
            .init(serviceAccounts: [try Self.account("p")], caFile: "/nonexistent/ca.pem"),
            saying: "/nonexistent/ca.pem")
    }

    @Test func trailingSlashOfTheBaseURLIsIgnored() throws {
        let client = try FCMClient(
            configuration: .init(
                serviceAccounts: [Self.account("p")],
                baseURL: "https://fcm.googleapis.com/"))
        client.shutdown()
    }

    @Test func hostThatRefusesConnectionsIsARetryableTransportFailure() async throws {
        try await FCMPeer.with { peer in
            let closed = try ClosedPort()
            let client = try peer.client { $0.baseURL = "https://localhost:\(closed.port)" }
            defer { client.shutdown() }
            do {
                _ = try await client.send(
                    FCMMessage(data: ["k": "v"]), to: "ok-device", deadline: Date().addingTimeInterval(15))
                Issue.record("a send to a closed port succeeded")
            } catch let error as FCMClientError {
                #expect(error == .transport || error == .timedOut, "\(error)")
                #expect(error.isRetryable)
                #expect(FCMResponseAction.forFailure(error) == .retry(after: nil))
            }
            // The connection failure was charged to the message once more: it was resent on a new connection.
            #expect(client.statistics.requestsRetried >= 1)
            // The grant went to the token endpoint, which is up; no message reached it.
            #expect(try await peer.grants().count == 1)
            #expect(try await peer.sends().isEmpty)
        }
    }
}
