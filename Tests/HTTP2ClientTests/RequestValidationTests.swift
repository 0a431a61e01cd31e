import HTTP2Client
import Testing

/// Requests and configurations that must be refused before anything reaches the network.
@Suite struct RequestValidationTests {
    @Test(arguments: [
        HTTP2Request(url: "ftp://127.0.0.1/"),
        HTTP2Request(url: "https://127.0.0.1/a b"),
        HTTP2Request(url: "https://127.0.0.1/", method: "GE T"),
        HTTP2Request(url: "https://127.0.0.1/", method: ""),
        HTTP2Request(url: "https://127.0.0.1/", headers: [.init("bad name", "x")]),
        HTTP2Request(url: "https://127.0.0.1/", headers: [.init(":path", "/x")]),
        HTTP2Request(url: "https://127.0.0.1/", headers: [.init("x-injected", "a\r\nhost: evil")]),
        HTTP2Request(url: "https://127.0.0.1/", headers: [.init("Connection", "close")]),
        HTTP2Request(url: "https://127.0.0.1/", headers: [.init("content-length", "5")]),
        HTTP2Request(url: "https://127.0.0.1/", timeout: 0),
        HTTP2Request(url: "https://127.0.0.1/", timeout: .infinity),
        HTTP2Request(url: "https://127.0.0.1/", timeout: .nan),
    ])
    func invalidRequestIsRejected(_ request: HTTP2Request) async throws {
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let error = await #expect(throws: HTTP2ClientError.self) { try await client.send(request) }
        #expect(error?.isInvalidRequest == true)
    }

    @Test func invalidConfigurationIsRejected() {
        #expect(throws: HTTP2ClientError.self) {
            _ = try HTTP2Client(configuration: .init(maxConnectionsPerHost: -1))
        }
        #expect(throws: HTTP2ClientError.self) {
            _ = try HTTP2Client(configuration: .init(maxConcurrentStreams: 0))
        }
        #expect(throws: HTTP2ClientError.self) {
            _ = try HTTP2Client(configuration: .init(userAgent: "a\r\nx-evil: 1"))
        }
    }

    @Test func passwordsAreRedactedAndErrorsCompare() {
        let identity = HTTP2Client.ClientCertificate(certificateFile: "/c.p12", format: .p12, password: "hunter2")
        #expect(!identity.description.contains("hunter2"))
        #expect(!String(reflecting: identity).contains("hunter2"))
        #expect(!String(describing: HTTP2Client.Configuration(clientCertificate: identity)).contains("hunter2"))
        #expect(HTTP2ClientError.timedOut == .timedOut)
        #expect(HTTP2ClientError.timedOut != .shutDown)
        #expect(HTTP2ClientError.transport(function: "f", code: 7, message: "m").transportCode == 7)
    }
}
