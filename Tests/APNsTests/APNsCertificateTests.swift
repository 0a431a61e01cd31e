import APNs
import Foundation
import HTTP2Client
import RingerTestSupport
import Testing

/// Certificate authentication files are checked when the server starts: a wrong password, a key of
/// another certificate or an expired certificate fail at once, not as `BadCertificate` on the first call.
@Suite struct APNsCertificateTests {
    @Test func pkcs12WithItsPasswordLoads() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let loaded = try APNsCertificate.load(file: certificates.clientP12, password: certificates.p12Password)
        #expect(loaded.subject.contains("CN=test-client"))
        #expect(loaded.identity.format == .p12)
        #expect(loaded.identity.password == certificates.p12Password)
        #expect(loaded.notAfter > Date() && loaded.notAfter < Date().addingTimeInterval(3 * 86_400))
    }

    @Test func pkcs12WithAWrongPasswordFailsWithoutEchoingIt() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let error = try #require(throws: APNsCertificateError.self) {
            try APNsCertificate.load(file: certificates.clientP12, password: "not-the-password")
        }
        #expect(error.description.contains("PKCS12_parse"))
        #expect(!error.description.contains("not-the-password"))
    }

    @Test func encryptedBundleWithoutPasswordAndPEMWithoutKeyAreNamed() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        #expect(throws: APNsCertificateError.passwordNeeded) { try APNsCertificate.load(file: certificates.clientP12) }
        #expect(throws: APNsCertificateError.noPrivateKey) {
            try APNsCertificate.load(file: certificates.clientCertificate)
        }
    }

    @Test func pemCertificateWithItsKeyLoadsAndAnotherKeyIsRefused() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let loaded = try APNsCertificate.load(file: certificates.clientCertificate, keyFile: certificates.clientKey)
        #expect(loaded.identity.format == .pem)
        #expect(loaded.identity.keyFile == certificates.clientKey)
        #expect(throws: APNsCertificateError.keyMismatch) {
            try APNsCertificate.load(file: certificates.clientCertificate, keyFile: certificates.serverKey)
        }
    }

    @Test func expiredUnreadableAndNonCertificateFilesAreRefused() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let expired = try #require(throws: APNsCertificateError.self) {
            try APNsCertificate.load(
                file: certificates.clientCertificate, keyFile: certificates.clientKey,
                now: Date().addingTimeInterval(10 * 86_400))
        }
        #expect(expired.description.contains("expired"))
        #expect(throws: APNsCertificateError.self) { try APNsCertificate.load(file: "/nonexistent/cert.p12") }
        #expect(throws: APNsCertificateError.self) {
            try APNsCertificate.load(file: certificates.caKey)  // a key, not a certificate
        }
    }

    /// Apple's push certificates name the app in the subject's UID.
    @Test func bundleIDIsReadFromTheSubjectUID() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("voip.pem").path
        let key = directory.appendingPathComponent("voip.key").path
        _ = try await ChildProcess.check([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", certificate,
            "-days", "1", "-subj",
            "/UID=com.example.app/CN=VoIP Services: com.example.app",
        ])
        let loaded = try APNsCertificate.load(file: certificate, keyFile: key)
        #expect(loaded.bundleID == "com.example.app")
    }
}
