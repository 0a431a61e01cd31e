import Foundation
import HTTP2Client
import RingerTestSupport
import Testing

/// Successful exchanges against the independent hypercorn peer (Tests/Peers/h2_peer.py).
/// Serialized: each test starts its own peer, and a loaded 2-core machine should not run many at once.
@Suite(.serialized) struct HTTP2ClientExchangeTests {
    private static func client(_ certificates: TestCertificates) throws -> HTTP2Client {
        try HTTP2Client(configuration: .init(caFile: certificates.caFile, userAgent: "ringer-tests/1"))
    }

    @Test func postArrivesExactlyOverHTTP2() async throws {
        try await TestPeer.with { peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            let body = Array(0...255).map(UInt8.init) + Array(#"{"aps":{}}"#.utf8)
            let request = HTTP2Request(
                url: peer.url("/3/device/abc?x=1"),
                headers: [
                    .init("apns-topic", "com.example.app.voip"), .init("apns-push-type", "voip"),
                    .init("authorization", "bearer not-a-real-token"), .init("X-Mixed-Case", "Value  With Spaces"),
                    .init("x-empty", ""), .init("x-twice", "1"), .init("x-twice", "2"),
                ],
                body: body, timeout: 60)
            let response = try await client.send(request)

            #expect(response.status == 200)
            #expect(response.httpVersion == 2)
            #expect(response.header("Content-Type") == "application/json")
            let record = try JSONDecoder().decode(TestPeer.Record.self, from: Data(response.body))
            #expect(record.method == "POST")
            #expect(record.path == "/3/device/abc")
            #expect(record.query == "x=1")
            #expect(record.httpVersion == "2")
            #expect(record.bodyBytes == body)
            #expect(record.values(of: "apns-topic") == ["com.example.app.voip"])
            #expect(record.values(of: "apns-push-type") == ["voip"])
            #expect(record.values(of: "authorization") == ["bearer not-a-real-token"])
            #expect(record.values(of: "x-mixed-case") == ["Value  With Spaces"])
            #expect(record.values(of: "x-empty") == [""])
            #expect(record.values(of: "x-twice") == ["1", "2"])
            #expect(record.values(of: "content-length") == ["\(body.count)"])
            #expect(record.values(of: "content-type").isEmpty)  // no form-encoded default from libcurl
            #expect(record.values(of: "user-agent") == ["ringer-tests/1"])
        }
    }

    @Test func callersUserAgentReplacesTheDefaultAndNamesAreLowercased() async throws {
        try await TestPeer.with { peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            let response = try await client.send(
                HTTP2Request(
                    url: peer.url("/ua"), method: "GET",
                    headers: [.init("User-Agent", "App/2 (Custom)"), .init("X-ALL-CAPS-Z", "Z")], timeout: 60))
            let record = try JSONDecoder().decode(TestPeer.Record.self, from: Data(response.body))
            #expect(record.values(of: "user-agent") == ["App/2 (Custom)"])
            #expect(record.values(of: "x-all-caps-z") == ["Z"])
            #expect(record.values(of: "content-length").isEmpty)
        }
    }

    @Test(arguments: [("GET", [UInt8]()), ("PUT", Array("put body".utf8)), ("DELETE", [UInt8]())])
    func otherMethodsArrive(method: String, body: [UInt8]) async throws {
        try await TestPeer.with { peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            let response = try await client.send(
                HTTP2Request(url: peer.url("/m"), method: method, body: body, timeout: 60))
            let record = try JSONDecoder().decode(TestPeer.Record.self, from: Data(response.body))
            #expect(record.method == method)
            #expect(record.bodyBytes == body)
        }
    }

    @Test func fiftyConcurrentRequestsShareOneConnection() async throws {
        let count = 50
        // The peer answers none until all 50 are open at once: sequential requests would time out instead.
        try await TestPeer.with(routes: ["/barrier": .init(body: "released", barrier: count)]) { peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            let url = peer.url("/barrier")
            let responses = try await withThrowingTaskGroup(of: HTTP2Response.self) { group in
                for index in 0..<count {
                    group.addTask {
                        try await client.send(HTTP2Request(url: url, body: Array("\(index)".utf8), timeout: 90))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.count == count)
            #expect(
                responses.allSatisfy { $0.status == 200 && $0.body == Array("released".utf8) && $0.httpVersion == 2 })
            #expect(responses.map(\.newConnections).reduce(0, +) == 1)

            let records = try await peer.records().filter { $0.path == "/barrier" }
            #expect(records.count == count)
            #expect(Set(records.map(\.connection)).count == 1)
            #expect(records.allSatisfy { $0.httpVersion == "2" })
        }
    }

    @Test func requestsBeyondTheStreamLimitWaitTheirTurn() async throws {
        try await TestPeer.with(routes: ["/slow": .init(body: "ok", delayMs: 100)]) { peer, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile, maxConcurrentStreams: 4))
            defer { client.shutdown() }
            let url = peer.url("/slow")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.send(HTTP2Request(url: url, timeout: 90)).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            let records = try await peer.records().filter { $0.path == "/slow" }
            #expect(Set(records.map(\.connection)).count == 1)
            let peak = records.map(\.active).max() ?? 0
            #expect(peak > 1 && peak <= 4, "peer saw \(peak) streams at once")
        }
    }

    @Test func statusBodyAndResponseHeadersAreReturned() async throws {
        let reason = #"{"reason":"Unregistered","timestamp":1700000000000}"#
        let route = TestPeer.Route(
            status: 410, body: reason,
            headers: [
                "apns-id": "4DC1A4B5-0F5A-4E5A-9C3C-1B2B3C4D5E6F",
                "X-Custom": "Mixed Case",
            ])
        try await TestPeer.with(routes: ["/3/device/gone": route]) { peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            let response = try await client.send(HTTP2Request(url: peer.url("/3/device/gone"), timeout: 60))
            #expect(response.status == 410)
            #expect(response.body == Array(reason.utf8))
            #expect(response.headers["apns-id"] == "4DC1A4B5-0F5A-4E5A-9C3C-1B2B3C4D5E6F")
            #expect(response.headers["x-custom"] == "Mixed Case")
            #expect(response.header("APNS-ID") == response.headers["apns-id"])
            #expect(response.newConnections == 1)
            #expect(response.elapsed > 0)

            let again = try await client.send(HTTP2Request(url: peer.url("/3/device/gone"), timeout: 60))
            #expect(again.connectionReused)
        }
    }

    @Test func h2cPriorKnowledgeOnPlainHTTP() async throws {
        try await TestPeer.with(plain: true) { peer, _ in
            let client = try HTTP2Client(configuration: .init(http2PriorKnowledge: true))
            defer { client.shutdown() }
            let response = try await client.send(HTTP2Request(url: peer.url("/h2c"), body: [1, 2, 3], timeout: 60))
            let record = try JSONDecoder().decode(TestPeer.Record.self, from: Data(response.body))
            #expect(response.httpVersion == 2)
            #expect(record.httpVersion == "2")
            #expect(record.bodyBytes == [1, 2, 3])
        }
    }

    @Test func mutualTLSWithPEMAndPKCS12Identities() async throws {
        try await TestPeer.with(requireClientCertificate: true) { peer, certificates in
            let identities: [HTTP2Client.ClientCertificate] = [
                .init(certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey),
                .init(certificateFile: certificates.clientP12, format: .p12, password: certificates.p12Password),
            ]
            for identity in identities {
                let client = try HTTP2Client(
                    configuration: .init(caFile: certificates.caFile, clientCertificate: identity))
                defer { client.shutdown() }
                let response = try await client.send(HTTP2Request(url: peer.url("/mtls"), timeout: 60))
                #expect(response.status == 200, "\(identity)")
            }

            let anonymous = try Self.client(certificates)
            defer { anonymous.shutdown() }
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await anonymous.send(HTTP2Request(url: peer.url("/mtls"), timeout: 60))
            }
            #expect(error?.isTransport == true)
        }
    }

    @Test func responseBodyLimitIsEnforced() async throws {
        let routes: [String: TestPeer.Route] = ["/small": .init(bodyBytes: 1000), "/big": .init(bodyBytes: 5000)]
        try await TestPeer.with(routes: routes) { peer, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile, maxResponseBodyBytes: 1000))
            defer { client.shutdown() }
            let small = try await client.send(HTTP2Request(url: peer.url("/small"), timeout: 60))
            #expect(small.body.count == 1000)
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await client.send(HTTP2Request(url: peer.url("/big"), timeout: 60))
            }
            #expect(error?.isTransport == true)
        }
    }

    @Test func releasedClientDeinitializes() async throws {
        try await TestPeer.with { peer, certificates in
            weak var released: HTTP2Client?
            do {
                let client = try Self.client(certificates)
                released = client
                _ = try await client.send(HTTP2Request(url: peer.url("/once"), timeout: 60))
            }
            // deinit ran shutdown(), which joined the loop thread; nothing else held the client.
            #expect(released == nil)
        }
    }
}
