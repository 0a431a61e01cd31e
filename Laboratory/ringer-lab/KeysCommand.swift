import DevCertificates
import Foundation
import JWT
import RingerSandbox

/// `ringer-lab keys --out DIR [--fcm-sandbox https://localhost:2199] [--fcm-project ringer-dev]`: a throw-away
/// APNs signing key, TLS files for a local sandbox, and a throw-away FCM service account whose `token_uri` is
/// the FCM sandbox's (its HTTP/1.1 port, `ringer-lab sandbox`'s default).
enum KeysCommand {
    static func run(_ arguments: [String]) -> Int32 {
        func value(_ flag: String) -> String? {
            arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        guard let out = value("--out") else {
            try? FileHandle.standardError.write(
                contentsOf: Data(
                    "usage: ringer-lab keys --out DIR [--fcm-sandbox https://localhost:2199] [--fcm-project ringer-dev]\n"
                        .utf8))
            return 2
        }
        let fcmSandbox = value("--fcm-sandbox") ?? "https://localhost:2199"
        let fcmProject = value("--fcm-project") ?? "ringer-dev"
        guard fcmSandbox.hasPrefix("https://"), !fcmProject.isEmpty else {
            try? FileHandle.standardError.write(
                contentsOf: Data("ringer-lab keys: --fcm-sandbox must be an https:// URL\n".utf8))
            return 2
        }
        let directory = URL(fileURLWithPath: out)
        let keyFile = directory.appendingPathComponent("AuthKey_RINGERDEV.p8")
        guard !FileManager.default.fileExists(atPath: keyFile.path) else {
            try? FileHandle.standardError.write(
                contentsOf: Data("ringer-lab keys: \(directory.path) already holds keys; not overwriting\n".utf8))
            return 1
        }
        do {
            let paths = try DevCertificateAuthority.create().write(to: directory)
            let key = try JWTSigningKey.generateP256()
            try Data(try key.pkcs8PEM().utf8).write(to: keyFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            let publicFile = directory.appendingPathComponent("AuthKey_RINGERDEV.pub.pem")
            try Data(try key.publicKeyPEM().utf8).write(to: publicFile)
            let serviceAccount = directory.appendingPathComponent("fcm-service-account.json")
            let tokenURI = (fcmSandbox.hasSuffix("/") ? String(fcmSandbox.dropLast()) : fcmSandbox) + "/token"
            // Created 0600 at once: it holds a private key.
            guard
                FileManager.default.createFile(
                    atPath: serviceAccount.path,
                    contents: try FCMSandboxServiceAccountFile.make(projectID: fcmProject, tokenURI: tokenURI),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: serviceAccount.path])
            }
            print(
                """
                CA certificate:     \(paths.caCertificate.path)
                server certificate: \(paths.serverCertificate.path)
                server key:         \(paths.serverPrivateKey.path)
                APNs key (.p8):     \(keyFile.path)   give the sandbox and the server the same 10-character key id and team id, e.g. RINGERDEV1 and DEVTEAM001
                APNs public key:    \(publicFile.path)
                FCM service account: \(serviceAccount.path)   project \(fcmProject), token_uri \(tokenURI); give it to the server and to `ringer-lab sandbox --fcm-service-account`
                """)
            return 0
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("ringer-lab keys: \(error)\n".utf8))
            return 1
        }
    }
}
