public import Foundation

/// A throw-away CA with a server certificate for `localhost` / `127.0.0.1` and a client identity,
/// made with the `openssl` command-line tool in a temporary directory. Call ``remove()`` when done.
public struct TestCertificates {
    public let directory: URL
    /// Password of ``clientP12``.
    public let p12Password = "p12-secret"

    public var caFile: String { path("ca.pem") }
    public var serverCertificate: String { path("server.pem") }
    public var serverKey: String { path("server.key") }
    public var clientCertificate: String { path("client.pem") }
    public var clientKey: String { path("client.key") }
    public var clientP12: String { path("client.p12") }

    /// Creates the CA, the server certificate and the client identity (PEM and PKCS#12).
    /// - Throws: When `openssl` fails.
    public static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("h2client-tests-\(UUID().uuidString)", isDirectory: true)
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
        try write("server.cnf", """
            subjectAltName=DNS:localhost,IP:127.0.0.1
            extendedKeyUsage=serverAuth
            subjectKeyIdentifier=hash
            authorityKeyIdentifier=keyid
            """)
        try write("client.cnf", """
            extendedKeyUsage=clientAuth
            subjectKeyIdentifier=hash
            authorityKeyIdentifier=keyid
            """)
        try await openssl(["req", "-x509"] + ecKey + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                                                     "-subj", "/CN=HTTP2Client Test CA",
                                                     "-addext", "basicConstraints=critical,CA:TRUE",
                                                     "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        for (name, subject) in [("server", "/CN=localhost"), ("client", "/CN=test-client")] {
            try await openssl(["req", "-new"] + ecKey + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            try await openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                               "-set_serial", name == "server" ? "2" : "3", "-days", "2",
                               "-extfile", "\(name).cnf", "-out", "\(name).pem"])
        }
        try await openssl(["pkcs12", "-export", "-in", "client.pem", "-inkey", "client.key",
                           "-out", "client.p12", "-passout", "pass:\(p12Password)"])
    }

    private func openssl(_ arguments: [String]) async throws {
        try await ChildProcess.run(["openssl"] + arguments, in: directory)
    }

    private func write(_ name: String, _ text: String) throws {
        try Data((text + "\n").utf8).write(to: directory.appendingPathComponent(name))
    }
}
