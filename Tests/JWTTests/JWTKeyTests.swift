import Foundation
import JWT
import RingerTestSupport
import Testing

@Suite("Key loading and key checks")
struct JWTKeyTests {
    /// Runs the openssl CLI and returns its standard output (a PEM key).
    private static func openssl(_ arguments: String...) async throws -> String {
        let outcome = try await ChildProcess.run(["openssl"] + arguments)
        try #require(outcome.status == 0, "openssl \(arguments.joined(separator: " ")): \(outcome.standardError)")
        return outcome.standardOutput
    }

    @Test("SEC1 EC and PKCS#1 RSA keys from the openssl CLI load with the right algorithm")
    func traditionalFormats() async throws {
        let sec1 = try await Self.openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout")
        #expect(sec1.contains("BEGIN EC PRIVATE KEY"))
        #expect(try JWTSigningKey(pem: sec1).algorithm == .es256)
        let pkcs1 = try await Self.openssl("genrsa", "-traditional", "2048")
        #expect(pkcs1.contains("BEGIN RSA PRIVATE KEY"))
        #expect(try JWTSigningKey(pem: pkcs1).algorithm == .rs256)
    }

    @Test("Keys unfit for ES256/RS256 are refused: P-384, RSA-1024, Ed25519")
    func unfitKeys() async throws {
        let p384 = try await Self.openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384")
        #expect(throws: JWTError.invalidKey) { try JWTSigningKey(pem: p384) }
        let rsa1024 = try await Self.openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024")
        #expect(throws: JWTError.invalidKey) { try JWTSigningKey(pem: rsa1024) }
        let ed25519 = try await Self.openssl("genpkey", "-algorithm", "ED25519")
        #expect(throws: JWTError.invalidKey) { try JWTSigningKey(pem: ed25519) }
        #expect(throws: JWTError.invalidKey) { try JWTSigningKey.generateRSA(bits: 1024) }
    }

    @Test("An encrypted key is refused without prompting for a passphrase")
    func encryptedKey() async throws {
        let encrypted = try await Self.openssl(
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-aes-256-cbc", "-pass", "pass:test-only")
        #expect(encrypted.contains("BEGIN ENCRYPTED PRIVATE KEY"))
        #expect(throws: JWTError.invalidKey) { try JWTSigningKey(pem: encrypted) }
    }

    @Test("Garbage, empty and mismatched PEM inputs throw invalidKey")
    func badPEM() throws {
        let publicPEM = try JWTSigningKey.generateP256().publicKeyPEM()
        let privatePEM = try JWTSigningKey.generateP256().pkcs8PEM()
        for text in ["", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", publicPEM] {
            #expect(throws: JWTError.invalidKey) { try JWTSigningKey(pem: text) }
        }
        for text in ["", "junk", privatePEM] {
            #expect(throws: JWTError.invalidKey) { try JWTVerificationKey(publicKeyPEM: text) }
        }
    }

    @Test("HMAC secrets: empty refused, no PEM and no public half")
    func hmacSecrets() throws {
        #expect(throws: JWTError.invalidKey) { try JWTSigningKey(hmacSecret: "") }
        #expect(throws: JWTError.invalidKey) { try JWTSigningKey(hmacSecret: [UInt8]()) }
        #expect(throws: JWTError.invalidKey) { try JWTVerificationKey(hmacSecret: "") }
        let key = try JWTSigningKey(hmacSecret: "secret")
        #expect(key.algorithm == .hs256)
        #expect(throws: JWTError.invalidKey) { try key.pkcs8PEM() }
        #expect(throws: JWTError.invalidKey) { try key.publicKey() }
        #expect(throws: JWTError.invalidKey) { try JWTVerificationKey(hmacSecret: "secret").publicKeyPEM() }
        // The String and byte forms are the same secret.
        let message = Array("m".utf8)
        #expect(
            try key.signature(for: message) == JWTSigningKey(hmacSecret: Array("secret".utf8)).signature(for: message))
    }

    @Test("Errors describe the failure without echoing key material")
    func errorDescriptions() {
        let secretText = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n"
        do {
            _ = try JWTSigningKey(pem: secretText)
            Issue.record("garbage PEM was accepted")
        } catch let error as JWTError {
            #expect(error == .invalidKey)
            #expect(error.description.hasPrefix("JWT: invalid key"))
            #expect(!error.description.contains("c2VjcmV0"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
