import DevCertificates
import Foundation
import JWT

/// `ringer keys --out DIR`: a throw-away APNs signing key and TLS files for a local sandbox.
enum KeysCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard let index = arguments.firstIndex(of: "--out"), index + 1 < arguments.count else {
            try? FileHandle.standardError.write(contentsOf: Data("usage: ringer keys --out DIR\n".utf8))
            return 2
        }
        let directory = URL(fileURLWithPath: arguments[index + 1])
        let keyFile = directory.appendingPathComponent("AuthKey_RINGERDEV.p8")
        guard !FileManager.default.fileExists(atPath: keyFile.path) else {
            try? FileHandle.standardError.write(contentsOf: Data("ringer keys: \(directory.path) already holds keys; not overwriting\n".utf8))
            return 1
        }
        do {
            let paths = try DevCertificateAuthority.create().write(to: directory)
            let key = try JWTSigningKey.generateP256()
            try Data(try key.pkcs8PEM().utf8).write(to: keyFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            let publicFile = directory.appendingPathComponent("AuthKey_RINGERDEV.pub.pem")
            try Data(try key.publicKeyPEM().utf8).write(to: publicFile)
            print("""
            CA certificate:     \(paths.caCertificate.path)
            server certificate: \(paths.serverCertificate.path)
            server key:         \(paths.serverPrivateKey.path)
            APNs key (.p8):     \(keyFile.path)   give the sandbox and the server the same 10-character key id and team id, e.g. RINGERDEV1 and DEVTEAM001
            APNs public key:    \(publicFile.path)
            """)
            return 0
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("ringer keys: \(error)\n".utf8))
            return 1
        }
    }
}
