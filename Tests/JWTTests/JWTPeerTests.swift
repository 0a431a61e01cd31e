import Foundation
import JWT
import RingerTestSupport
import Testing

/// Interoperability with an independent implementation: PyJWT + cryptography (Tests/Peers/verify_jwt.py).
@Suite("Interoperability with PyJWT")
struct JWTPeerTests {
    private static let script = PeerScripts.path("verify_jwt.py")
    private static let secret = "a-32-byte-or-longer-test-secret!"

    // Must match verify_jwt.py's expected claims.
    private struct GrantClaims: Codable, Equatable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
    }

    private static func peer(_ arguments: String...) async throws -> String {
        let outcome = try await ChildProcess.run(["python3", script] + arguments)
        try #require(outcome.status == 0, "verify_jwt.py \(arguments[0]) failed: \(outcome.standardError)")
        return outcome.standardOutput
    }

    private static func read(_ directory: URL, _ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("PyJWT verifies ES256, RS256 and HS256 tokens signed here")
    func swiftSignsPythonVerifies() async throws {
        try await TestSupport.withTemporaryDirectory { directory in
            _ = try await Self.peer("keys", directory.path)
            let now = Int64(Date().timeIntervalSince1970)

            // ES256 with a key made here, written the way Apple ships .p8 files.
            let apnsKey = try JWTSigningKey.generateP256()
            try apnsKey.pkcs8PEM().write(
                to: directory.appendingPathComponent("swift_es256.p8"), atomically: true, encoding: .utf8)
            try apnsKey.publicKeyPEM().write(
                to: directory.appendingPathComponent("swift_es256_public.pem"),
                atomically: true, encoding: .utf8)
            let es256 = try JWT.sign(
                ProviderClaims(iss: "TEAMID1234", iat: now), keyID: "KEYID12345", type: nil, with: apnsKey)

            // RS256 with the PKCS#1 key the peer generated.
            let googleKey = try JWTSigningKey(pem: try Self.read(directory, "rsa_pkcs1.pem"))
            let grant = GrantClaims(
                iss: "ringer-test@example.iam.gserviceaccount.com",
                scope: "https://www.googleapis.com/auth/firebase.messaging",
                aud: "https://oauth2.googleapis.com/token", iat: now, exp: now + 3600)
            let rs256 = try JWT.sign(grant, with: googleKey)

            let hs256 = try JWT.sign(
                UserClaims(sub: "bob", name: "Bob", iat: now, exp: now + 3600),
                with: JWTSigningKey(hmacSecret: Self.secret))

            let tokens: [String: String] = ["es256": es256, "rs256": rs256, "hs256": hs256]
            var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(tokens)) as! [String: Any]
            json["now"] = now
            try JSONSerialization.data(withJSONObject: json).write(
                to: directory.appendingPathComponent("swift_tokens.json"))
            _ = try await Self.peer("verify", directory.path, Self.secret)
        }
    }

    @Test("Tokens PyJWT signs verify here, with keys in formats made by `cryptography`")
    func pythonSignsSwiftVerifies() async throws {
        try await TestSupport.withTemporaryDirectory { directory in
            _ = try await Self.peer("keys", directory.path)
            let output = try await Self.peer("sign", directory.path, Self.secret)
            let tokens = try JSONDecoder().decode([String: TokenOrTime].self, from: Data(output.utf8))
            let now = try #require(tokens["now"]?.time)

            // ES256: with the peer's public PEM, and with public halves of its SEC1 and PKCS#8 private keys.
            let es256 = try #require(tokens["es256"]?.token)
            let ecKeys = [
                try JWTVerificationKey(publicKeyPEM: try Self.read(directory, "ec_public.pem")),
                try JWTSigningKey(pem: try Self.read(directory, "ec_sec1.pem")).publicKey(),
                try JWTSigningKey(pem: try Self.read(directory, "ec_pkcs8.pem")).publicKey(),
            ]
            for key in ecKeys {
                let (header, claims) = try JWT.verify(es256, as: ProviderClaims.self, algorithms: [.es256]) { _ in key }
                #expect(header.kid == "KEYID12345")
                #expect(claims == ProviderClaims(iss: "TEAMID1234", iat: now))
            }

            let rs256 = try #require(tokens["rs256"]?.token)
            let rsaKey = try JWTVerificationKey(publicKeyPEM: try Self.read(directory, "rsa_public.pem"))
            let (_, grant) = try JWT.verify(rs256, as: GrantClaims.self, algorithms: [.rs256]) { _ in rsaKey }
            #expect(grant.aud == "https://oauth2.googleapis.com/token" && grant.exp == now + 3600)
            #expect(throws: JWTError.algorithmMismatch) {
                _ = try JWT.verify(rs256, as: GrantClaims.self, algorithms: [.rs256]) { _ in ecKeys[0] }
            }

            let hs256 = try #require(tokens["hs256"]?.token)
            let (_, user) = try JWT.verify(hs256, as: UserClaims.self, algorithms: [.hs256]) { _ in
                try JWTVerificationKey(hmacSecret: Self.secret)
            }
            #expect(user == UserClaims(sub: "bob", name: "Bob", iat: now, exp: now + 3600))
            #expect(throws: JWTError.invalidSignature) {
                _ = try JWT.verify(hs256, as: UserClaims.self, algorithms: [.hs256]) { _ in
                    try JWTVerificationKey(hmacSecret: "wrong")
                }
            }
        }
    }

    /// One value of the peer's `sign` output: a token string or the issue time.
    private enum TokenOrTime: Decodable {
        case token(String)
        case time(Int64)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let time = try? container.decode(Int64.self) {
                self = .time(time)
            } else {
                self = .token(try container.decode(String.self))
            }
        }

        var token: String? { if case .token(let token) = self { token } else { nil } }
        var time: Int64? { if case .time(let time) = self { time } else { nil } }
    }
}
