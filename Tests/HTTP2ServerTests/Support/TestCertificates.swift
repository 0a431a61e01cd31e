import Foundation

/// A throw-away CA and a server certificate for `localhost` and `127.0.0.1` (P-256 keys), made with the
/// `openssl` command-line tool in a temporary directory. Call ``remove()`` when done.
struct TestCertificates {
    let directory: URL

    var caPath: String { file("ca.pem") }
    var certificatePath: String { file("server.pem") }
    var keyPath: String { file("server.key") }

    /// Creates the files.
    /// - Throws: When `openssl` fails.
    static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("h2server-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        do {
            try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".utf8)
                .write(to: directory.appendingPathComponent("server.ext"))
            let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
            try await Tool.check(["openssl", "req", "-x509"] + key + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=HTTP2Server Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: directory)
            try await Tool.check(["openssl", "req", "-new"] + key + [
                "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost",
            ], in: directory)
            try await Tool.check(["openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                                  "-set_serial", "7", "-days", "2", "-extfile", "server.ext", "-out", "server.pem"],
                                 in: directory)
        } catch {
            certificates.remove()
            throw error
        }
        return certificates
    }

    /// Deletes the directory.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func file(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }
}
