import Foundation

/// A throw-away CA and a server certificate for `localhost` and `127.0.0.1`, made with the
/// `openssl` command line in a temporary directory.
struct TestCertificates: Sendable {
    let directory: URL
    var caPath: String { directory.appendingPathComponent("ca.pem").path }
    var certificatePath: String { directory.appendingPathComponent("server.pem").path }
    var privateKeyPath: String { directory.appendingPathComponent("server.key").path }

    /// Creates the files.
    static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lws-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: path("ext.cnf"), atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=LibWebSockets Test CA"],
            ["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"],
            ["openssl", "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
             "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("ext.cnf")],
        ]
        for step in steps {
            let result = try await runCommand(step)
            guard result.status == 0 else {
                certificates.remove()
                throw TestSetupError(message: result.stderr)
            }
        }
        return certificates
    }

    /// Deletes the directory.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A test could not set up its certificates or peers.
struct TestSetupError: Error {
    let message: String
}
