public import Foundation

/// A throw-away CA, a server certificate for `localhost` and `127.0.0.1` (serverAuth) and a client
/// identity (clientAuth, also as PKCS#12), all P-256, made with the `openssl` command-line tool, which is
/// independent of the code under test, in a fresh temporary directory. Call ``remove()`` when done.
/// Thread-safe: an immutable value; the files are only written by ``make()``.
public struct TestCertificates: Sendable {
    /// The temporary directory holding every file.
    public let directory: URL
    /// Password of ``clientP12``.
    public let p12Password = "p12-secret"

    /// The CA certificate (PEM): what clients and servers trust.
    public var caFile: String { path("ca.pem") }
    /// The CA's private key (PEM): also a key that does not match ``serverCertificate``.
    public var caKey: String { path("ca.key") }
    /// The server certificate (PEM) for DNS `localhost` and IP `127.0.0.1`, signed by the CA.
    public var serverCertificate: String { path("server.pem") }
    /// The server's private key (PEM, unencrypted).
    public var serverKey: String { path("server.key") }
    /// The client certificate (PEM), signed by the CA.
    public var clientCertificate: String { path("client.pem") }
    /// The client's private key (PEM, unencrypted).
    public var clientKey: String { path("client.key") }
    /// The client certificate and key as PKCS#12, protected by ``p12Password``.
    public var clientP12: String { path("client.p12") }

    /// Creates the CA, the server certificate and the client identity (PEM and PKCS#12).
    /// - Returns: The certificates; the caller owns the directory.
    /// - Throws: ``TestSupportError`` when `openssl` fails (the directory is removed then).
    public static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ringer-test-certificates-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        do {
            try await certificates.generate()
        } catch {
            certificates.remove()
            throw error
        }
        return certificates
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    private func generate() async throws {
        let ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try write(
            "server.cnf",
            """
            subjectAltName=DNS:localhost,IP:127.0.0.1
            extendedKeyUsage=serverAuth
            subjectKeyIdentifier=hash
            authorityKeyIdentifier=keyid
            """)
        try write(
            "client.cnf",
            """
            extendedKeyUsage=clientAuth
            subjectKeyIdentifier=hash
            authorityKeyIdentifier=keyid
            """)
        try await openssl(
            ["req", "-x509"] + ecKey + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=Ringer Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        for (name, subject, serial) in [("server", "/CN=localhost", "2"), ("client", "/CN=test-client", "3")] {
            try await openssl(
                ["req", "-new"] + ecKey + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            try await openssl([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-set_serial", serial, "-days", "2", "-extfile", "\(name).cnf", "-out", "\(name).pem",
            ])
        }
        try await openssl([
            "pkcs12", "-export", "-in", "client.pem", "-inkey", "client.key",
            "-out", "client.p12", "-passout", "pass:\(p12Password)",
        ])
    }

    private func openssl(_ arguments: [String]) async throws {
        try await ChildProcess.check(["openssl"] + arguments, in: directory)
    }

    private func write(_ name: String, _ text: String) throws {
        try Data((text + "\n").utf8).write(to: directory.appendingPathComponent(name))
    }
}
