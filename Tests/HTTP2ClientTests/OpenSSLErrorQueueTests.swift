import CTLS
import HTTP2Client
import RingerTestSupport
import Testing

/// Making a client loads trust and identity with OpenSSL on the caller's thread, often one of Swift's shared
/// pool: it must leave that thread's OpenSSL error queue empty, or the next TLS operation of any library on the
/// thread may read a stale reason as its own failure (OpenSSL: SSL_get_error needs an empty queue).
@Suite struct OpenSSLErrorQueueTests {
    @Test func makingAClientLeavesTheCallersOpenSSLErrorQueueEmpty() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let configurations: [HTTP2Client.Configuration] = [
            .init(),
            .init(caFile: certificates.caFile),
            .init(
                caFile: certificates.caFile,
                clientCertificate: .init(
                    certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey)),
            .init(
                clientCertificate: .init(
                    certificateFile: certificates.clientP12, format: .p12,
                    password: certificates.p12Password)),
        ]
        for configuration in configurations {
            ERR_clear_error()
            let client = try HTTP2Client(configuration: configuration)
            #expect(ERR_peek_error() == 0, "\(configuration)")
            client.shutdown()
        }
        // A refused identity fails, and leaves nothing behind either.
        ERR_clear_error()
        #expect(throws: HTTP2ClientError.self) {
            try HTTP2Client(
                configuration: .init(
                    clientCertificate: .init(
                        certificateFile: certificates.clientP12, format: .p12,
                        password: "wrong")))
        }
        #expect(ERR_peek_error() == 0)
    }
}
