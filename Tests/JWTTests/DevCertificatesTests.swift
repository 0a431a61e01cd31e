import DevCertificates
import Foundation
import RingerTestSupport
import Testing

@Suite("Development certificates")
struct DevCertificatesTests {
    private static func openssl(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await ChildProcess.run(["openssl"] + arguments)
    }

    @Test("openssl verify accepts the chain for every SAN and the serverAuth purpose, and nothing else")
    func opensslVerify() async throws {
        try await TestSupport.withTemporaryDirectory { directory in
            let paths = try DevCertificateAuthority.create().write(to: directory)
            let base = ["verify", "-CAfile", paths.caCertificate.path, "-purpose", "sslserver", "-x509_strict"]
            for check in [["-verify_hostname", "localhost"], ["-verify_ip", "127.0.0.1"], ["-verify_ip", "::1"]] {
                let outcome = try await Self.openssl(base + check + [paths.serverCertificate.path])
                #expect(
                    outcome.status == 0, "openssl verify \(check): \(outcome.standardOutput) \(outcome.standardError)")
            }
            for check in [
                ["-verify_hostname", "example.com"], ["-verify_ip", "10.0.0.1"], ["-verify_hostname", "127.0.0.1"],
            ] {
                let outcome = try await Self.openssl(base + check + [paths.serverCertificate.path])
                #expect(outcome.status != 0, "openssl verify accepted \(check)")
            }
            // The CA is self-signed and a CA; the leaf must not verify against a different CA.
            let caCheck = try await Self.openssl([
                "verify", "-CAfile", paths.caCertificate.path, "-purpose", "sslserver",
                paths.caCertificate.path,
            ])
            #expect(caCheck.status == 0, "\(caCheck.standardError)")
            let other = directory.appendingPathComponent("other-ca.pem")
            try DevCertificateAuthority.create(commonName: "Other CA").certificatePEM.write(
                to: other, atomically: true, encoding: .utf8)
            let wrongCA = try await Self.openssl(["verify", "-CAfile", other.path, paths.serverCertificate.path])
            #expect(wrongCA.status != 0, "a leaf verified against an unrelated CA")
        }
    }

    @Test("A Python TLS client accepts the server for each host and rejects other names and CAs")
    func pythonTLSHandshake() async throws {
        try await TestSupport.withTemporaryDirectory { directory in
            let hosts = ["localhost", "ringer.test", "127.0.0.1", "::1"]
            let paths = try DevCertificateAuthority.create().write(to: directory, hosts: hosts)
            let other = directory.appendingPathComponent("other-ca.pem")
            try DevCertificateAuthority.create().certificatePEM.write(to: other, atomically: true, encoding: .utf8)
            let outcome = try await ChildProcess.run(
                [
                    "python3", PeerScripts.path("check_dev_tls.py"), paths.caCertificate.path,
                    paths.serverCertificate.path, paths.serverPrivateKey.path, other.path,
                ] + hosts)
            #expect(outcome.status == 0, "check_dev_tls.py: \(outcome.standardError)")
        }
    }

    @Test("write(to:) creates the directory, the three files, and a 0600 key")
    func writtenFiles() async throws {
        try await TestSupport.withTemporaryDirectory { directory in
            let nested = directory.appendingPathComponent("a/b")
            let authority = try DevCertificateAuthority.create(validDays: 2)
            let paths = try authority.write(to: nested)
            #expect(paths == DevCertificatePaths(directory: nested))
            #expect(try String(contentsOf: paths.caCertificate, encoding: .utf8) == authority.certificatePEM)
            #expect(
                try String(contentsOf: paths.serverCertificate, encoding: .utf8).hasPrefix(
                    "-----BEGIN CERTIFICATE-----"))
            #expect(
                try String(contentsOf: paths.serverPrivateKey, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----")
            )
            let attributes = try FileManager.default.attributesOfItem(atPath: paths.serverPrivateKey.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            // Writing again replaces the files and keeps the key private.
            _ = try authority.write(to: nested)
            let again = try FileManager.default.attributesOfItem(atPath: paths.serverPrivateKey.path)
            #expect((again[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test("A saved CA reloads and keeps issuing certificates; a mismatched key is refused")
    func reload() async throws {
        let authority = try DevCertificateAuthority.create()
        let reloaded = try DevCertificateAuthority(
            certificatePEM: authority.certificatePEM, privateKeyPEM: authority.privateKeyPEM)
        #expect(reloaded.certificatePEM == authority.certificatePEM)
        _ = try reloaded.issueServerCertificate()
        let stranger = try DevCertificateAuthority.create()
        #expect(throws: DevCertificateError.invalidPEM) {
            try DevCertificateAuthority(certificatePEM: authority.certificatePEM, privateKeyPEM: stranger.privateKeyPEM)
        }
        let leaf = try authority.issueServerCertificate()
        #expect(throws: DevCertificateError.invalidPEM) {
            try DevCertificateAuthority(certificatePEM: leaf.certificatePEM, privateKeyPEM: leaf.privateKeyPEM)
        }
        #expect(throws: DevCertificateError.invalidPEM) {
            try DevCertificateAuthority(certificatePEM: "junk", privateKeyPEM: "junk")
        }
    }

    @Test(
        "Hosts that are neither addresses nor DNS names are refused, so nothing reaches the SAN syntax",
        arguments: [
            "", "a,DNS:evil.example", "IP:1.2.3.4", "local host", "-bad.example", "a..b", "[::1]",
            "fe80::1%eth0", "x\u{0}y", String(repeating: "a", count: 64) + ".example",
        ])
    func invalidHosts(host: String) throws {
        let authority = try DevCertificateAuthority.create()
        #expect(throws: DevCertificateError.invalidHost) { try authority.issueServerCertificate(hosts: [host]) }
    }

    @Test("Out-of-range arguments are refused")
    func invalidArguments() throws {
        #expect(throws: DevCertificateError.invalidArgument) { try DevCertificateAuthority.create(validDays: 0) }
        #expect(throws: DevCertificateError.invalidArgument) { try DevCertificateAuthority.create(commonName: "") }
        let authority = try DevCertificateAuthority.create()
        #expect(throws: DevCertificateError.invalidArgument) { try authority.issueServerCertificate(hosts: []) }
        #expect(throws: DevCertificateError.invalidArgument) { try authority.issueServerCertificate(validDays: 5000) }
    }

    @Test("Two certificates never share a serial, and the description hides the key")
    func serialsAndRedaction() async throws {
        try await TestSupport.withTemporaryDirectory { directory in
            let authority = try DevCertificateAuthority.create()
            var serials: Set<String> = []
            for index in 0..<3 {
                let file = directory.appendingPathComponent("leaf\(index).pem")
                try authority.issueServerCertificate().certificatePEM.write(to: file, atomically: true, encoding: .utf8)
                let outcome = try await Self.openssl(["x509", "-noout", "-serial", "-in", file.path])
                #expect(outcome.status == 0)
                serials.insert(outcome.standardOutput)
            }
            #expect(serials.count == 3)
            #expect(!authority.description.contains("PRIVATE"))
            #expect(!"\(authority)".contains(authority.privateKeyPEM))
            var dumped = ""
            dump(authority, to: &dumped)
            #expect(!dumped.contains(authority.privateKeyPEM))
        }
    }
}
