import Foundation
import JWT
import RingerWire
import Testing

@testable import RingerServer

/// User tokens signed by the app's backend with its own key (ES256 or RS256, matched by `kid`), and the time
/// rules every token meets: `nbf`, and a lifetime of at most 30 days (issue 12).
@Suite struct UserTokenKeysTests {
    /// A server trusting the public keys of `keys` (by kid), and a way to sign tokens.
    private func withServer(keys: [String: JWTSigningKey], _ body: (TestHTTP) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var files: [String] = []
        for (kid, key) in keys {
            let file = directory.appendingPathComponent("\(kid).pem")
            try Data(try key.publicKey().publicKeyPEM().utf8).write(to: file)
            files.append(file.path)
        }
        try await APITests.withServer(configure: { $0.userTokenPublicKeyFiles = files }, body)
    }

    private static func claims(
        _ user: String, iat: Date = Date(), lifetime: Int64 = 600, nbf: Int64? = nil
    ) -> UserTokens.Claims {
        let issued = Int64(iat.timeIntervalSince1970)
        return UserTokens.Claims(sub: user, iat: issued, exp: issued + lifetime, nbf: nbf, name: nil)
    }

    private static func status(_ http: TestHTTP, _ token: String) async throws -> Int {
        try await http.send("GET", "/v1/devices", token: token).status
    }

    @Test func backendSignedES256AndRS256TokensAreAcceptedByTheirKid() async throws {
        let current = try JWTSigningKey.generateP256()
        let previous = try JWTSigningKey.generateRSA()
        try await withServer(keys: ["2026-12": current, "2026-11": previous]) { http in
            let es256 = try JWT.sign(Self.claims("alice"), keyID: "2026-12", type: "JWT", with: current)
            let rs256 = try JWT.sign(Self.claims("bob"), keyID: "2026-11", type: "JWT", with: previous)
            #expect(try await Self.status(http, es256) == 200)
            #expect(try await Self.status(http, rs256) == 200)
            // Signed by one key but naming the other, naming none of them, or naming none with two configured.
            let crossed = try JWT.sign(Self.claims("alice"), keyID: "2026-11", type: "JWT", with: current)
            let unknown = try JWT.sign(Self.claims("alice"), keyID: "2025-01", type: "JWT", with: current)
            let unnamed = try JWT.sign(Self.claims("alice"), keyID: nil, type: "JWT", with: current)
            for token in [crossed, unknown, unnamed] { #expect(try await Self.status(http, token) == 401) }
            // Ringer's own HS256 tokens keep working beside them.
            let own = try await APITests.token(http, "carol")
            #expect(try await Self.status(http, own) == 200)
        }
    }

    @Test func oneConfiguredKeyAcceptsATokenWithoutKid() async throws {
        let key = try JWTSigningKey.generateP256()
        try await withServer(keys: ["backend": key]) { http in
            let token = try JWT.sign(Self.claims("alice"), keyID: nil, type: "JWT", with: key)
            #expect(try await Self.status(http, token) == 200)
        }
    }

    @Test func anHS256TokenIsNeverCheckedAgainstAPublicKey() async throws {
        let key = try JWTSigningKey.generateP256()
        try await withServer(keys: ["backend": key]) { http in
            // The classic confusion: the public key's PEM used as an HMAC secret (RFC 8725 §2.1).
            let forged = try JWT.sign(
                Self.claims("alice"), keyID: "backend", type: "JWT",
                with: JWTSigningKey(hmacSecret: Array(try key.publicKey().publicKeyPEM().utf8)))
            #expect(try await Self.status(http, forged) == 401)
        }
    }

    @Test func aTokenBeforeItsNbfIsRefused() async throws {
        try await APITests.withServer { http in
            let secret = try JWTSigningKey(hmacSecret: Array(String(repeating: "s", count: 32).utf8))
            let now = Int64(Date().timeIntervalSince1970)
            let early = try JWT.sign(Self.claims("alice", nbf: now + 300), keyID: nil, type: "JWT", with: secret)
            let due = try JWT.sign(Self.claims("alice", nbf: now - 10), keyID: nil, type: "JWT", with: secret)
            #expect(try await Self.status(http, early) == 401)
            #expect(try await Self.status(http, due) == 200)
        }
    }

    @Test func aTokenLivingLongerThanThirtyDaysIsRefused() async throws {
        try await APITests.withServer { http in
            let secret = try JWTSigningKey(hmacSecret: Array(String(repeating: "s", count: 32).utf8))
            let month = Int64(UserTokens.maximumLifetime)
            let tooLong = try JWT.sign(Self.claims("alice", lifetime: month + 1), keyID: nil, type: "JWT", with: secret)
            let longest = try JWT.sign(Self.claims("alice", lifetime: month), keyID: nil, type: "JWT", with: secret)
            let backwards = try JWT.sign(Self.claims("alice", lifetime: -1), keyID: nil, type: "JWT", with: secret)
            let response = try await http.send("GET", "/v1/devices", token: tooLong)
            #expect(response.status == 401)
            #expect((response.object["detail"] as? String)?.contains("longer than 2592000 s") == true)
            #expect(try await Self.status(http, longest) == 200)
            #expect(try await Self.status(http, backwards) == 401)
        }
    }

    /// Found by review: a token whose `exp` comes before its `iat` was refused as living "longer than 2592000 s",
    /// which sends whoever debugs the backend looking for a lifetime that is too long.
    @Test func aTokenThatExpiresBeforeItWasIssuedIsRefusedSayingSo() async throws {
        try await APITests.withServer { http in
            let secret = try JWTSigningKey(hmacSecret: Array(String(repeating: "s", count: 32).utf8))
            let backwards = try JWT.sign(Self.claims("alice", lifetime: -1), keyID: nil, type: "JWT", with: secret)
            let response = try await http.send("GET", "/v1/devices", token: backwards)
            #expect(response.status == 401)
            let detail = response.object["detail"] as? String ?? ""
            #expect(detail.contains("exp") && detail.contains("before") && !detail.contains("longer"), "\(detail)")
        }
    }

    @Test func aPublicKeyFileThatIsNotAKeyStopsTheServerNamingTheFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-key-\(UUID().uuidString).pem")
        try Data("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect { try UserTokens.publicKeys(files: [file.path]) } throws: { error in
            "\(error)".contains(file.path) && "\(error)".contains("not a PEM public key")
        }
        #expect(throws: ConfigurationError.self) { try UserTokens.publicKeys(files: ["/nonexistent/key.pem"]) }
    }
}
