import Foundation
import RingerTestSupport

/// Provider client certificates for certificate-based APNs authentication, made with the `openssl`
/// command-line tool (independent of the code under test) in a directory the caller owns: a client CA
/// the sandbox trusts, an app certificate it signed whose subject carries the bundle id in its UID as
/// Apple's do, and the same subject signed by a CA the sandbox does not trust. All EC P-256, valid 2 days.
struct ProviderCertificates: Sendable {
    let directory: URL
    let bundleID: String

    /// The CA the sandbox trusts for client certificates (PEM).
    var clientCA: String { path("client-ca.pem") }
    /// The app's certificate (PEM), signed by ``clientCA``, and its key.
    var app: (certificate: String, key: String) { (path("app.pem"), path("app.key")) }
    /// A certificate for the same app signed by another CA, and its key.
    var rogue: (certificate: String, key: String) { (path("rogue.pem"), path("rogue.key")) }

    /// Writes every file into `directory` (which must exist).
    /// - Throws: `TestSupportError` when `openssl` fails.
    static func make(in directory: URL, bundleID: String) async throws -> ProviderCertificates {
        let certificates = ProviderCertificates(directory: directory, bundleID: bundleID)
        try Data("extendedKeyUsage=clientAuth\n".utf8).write(to: directory.appendingPathComponent("client.cnf"))
        let ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        for (ca, name) in [("client-ca", "Sandbox Provider CA"), ("rogue-ca", "Untrusted Provider CA")] {
            try await certificates.openssl(
                ["req", "-x509"] + ecKey + [
                    "-keyout", "\(ca).key", "-out", "\(ca).pem",
                    "-days", "2", "-subj", "/CN=\(name)",
                    "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ])
        }
        for (leaf, ca, serial) in [("app", "client-ca", "10"), ("rogue", "rogue-ca", "11")] {
            try await certificates.openssl(
                ["req", "-new"] + ecKey + [
                    "-keyout", "\(leaf).key", "-out", "\(leaf).csr",
                    "-subj", "/UID=\(bundleID)/CN=Apple Push Services: \(bundleID)",
                ])
            try await certificates.openssl([
                "x509", "-req", "-in", "\(leaf).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key",
                "-set_serial", serial, "-days", "2", "-extfile", "client.cnf",
                "-out", "\(leaf).pem",
            ])
        }
        return certificates
    }

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    private func openssl(_ arguments: [String]) async throws {
        try await ChildProcess.check(["openssl"] + arguments, in: directory)
    }
}
