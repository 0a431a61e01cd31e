import Foundation
import JWT
import Testing

@Suite("Sign and verify round trips")
struct JWTRoundTripTests {
    @Test("A token verifies with the matching key and yields the same claims", arguments: JWTAlgorithm.allCases)
    func roundTrip(algorithm: JWTAlgorithm) throws {
        let key = try TestSupport.signingKey(algorithm)
        #expect(key.algorithm == algorithm)
        let claims = UserClaims(sub: "bob", name: "Bob", iat: 1_700_000_000, exp: 1_700_003_600)
        let token = try JWT.sign(claims, keyID: "k1", with: key)
        let verificationKey = try TestSupport.verificationKey(for: key)
        let (header, decoded) = try JWT.verify(token, as: UserClaims.self, algorithms: [algorithm]) { header in
            #expect(header.kid == "k1")
            return verificationKey
        }
        #expect(decoded == claims)
        #expect(header == JWTHeader(alg: algorithm.rawValue, kid: "k1", typ: "JWT"))
    }

    @Test("An APNs provider token has the exact header, claims and a 64-byte r||s signature")
    func apnsProviderTokenShape() throws {
        let key = try JWTSigningKey.generateP256()
        let token = try JWT.sign(
            ProviderClaims(iss: "TEAMID1234", iat: 1_700_000_000), keyID: "ABC123DEFG", type: nil, with: key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!token.contains("="))
        #expect(TestSupport.base64URLDecode(parts[0]) == Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8))
        #expect(TestSupport.base64URLDecode(parts[1]) == Array(#"{"iat":1700000000,"iss":"TEAMID1234"}"#.utf8))
        #expect(TestSupport.base64URLDecode(parts[2])?.count == 64)
        let (_, claims) = try JWT.verify(token, as: ProviderClaims.self, algorithms: [.es256]) { _ in
            try key.publicKey()
        }
        #expect(claims.iss == "TEAMID1234")
    }

    @Test("Claims are encoded with sorted keys, unescaped slashes and whole-second dates")
    func claimsEncoding() throws {
        struct Grant: Codable {
            var scope: String
            var aud: String
            var exp: Date
        }
        let key = try TestSupport.signingKey(.hs256)
        let grant = Grant(
            scope: "https://www.googleapis.com/auth/firebase.messaging",
            aud: "https://oauth2.googleapis.com/token", exp: Date(timeIntervalSince1970: 1_700_000_000.75))
        let token = try JWT.sign(grant, with: key)
        let payload = try #require(TestSupport.base64URLDecode(token.split(separator: ".")[1]))
        let expected =
            #"{"aud":"https://oauth2.googleapis.com/token","exp":1700000000,"#
            + #""scope":"https://www.googleapis.com/auth/firebase.messaging"}"#
        #expect(String(decoding: payload, as: UTF8.self) == expected)
        let (_, decoded) = try JWT.verify(token, as: Grant.self, algorithms: [.hs256]) { _ in
            try TestSupport.verificationKey(for: key)
        }
        #expect(decoded.exp == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("An EC key survives a PKCS#8 PEM round trip, and its public PEM verifies its tokens")
    func ecPEMRoundTrip() throws {
        let original = try JWTSigningKey.generateP256()
        let p8 = try original.pkcs8PEM()
        #expect(p8.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(p8.hasSuffix("-----END PRIVATE KEY-----\n"))
        let reloaded = try JWTSigningKey(pem: p8)
        #expect(reloaded.algorithm == .es256)
        let publicPEM = try original.publicKeyPEM()
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(try reloaded.publicKeyPEM() == publicPEM)
        let verifier = try JWTVerificationKey(publicKeyPEM: publicPEM)
        #expect(try verifier.publicKeyPEM() == publicPEM)
        let token = try JWT.sign(ProviderClaims(iss: "T", iat: 1), keyID: "K", type: nil, with: reloaded)
        _ = try JWT.verify(token, as: ProviderClaims.self, algorithms: [.es256]) { _ in verifier }
    }

    @Test("An RSA key survives a PKCS#8 PEM round trip and signs 256-byte RS256 signatures")
    func rsaPEMRoundTrip() throws {
        let original = try TestSupport.rsaKey.get()
        let reloaded = try JWTSigningKey(pem: try original.pkcs8PEM())
        #expect(reloaded.algorithm == .rs256)
        let signature = try reloaded.signature(for: Array("message".utf8))
        #expect(signature.count == 256)
        // PKCS#1 v1.5 is deterministic: both copies of the key give the same bytes.
        #expect(try original.signature(for: Array("message".utf8)) == signature)
        let verifier = try JWTVerificationKey(publicKeyPEM: try original.publicKeyPEM())
        #expect(verifier.algorithm == .rs256)
        #expect(try verifier.isValidSignature(signature, for: Array("message".utf8)))
        #expect(try !verifier.isValidSignature(signature, for: Array("messagf".utf8)))
    }

    @Test("decodeUnverified reads header and claims without any key")
    func decodeUnverified() throws {
        let token = try JWT.sign(
            ProviderClaims(iss: "TEAM", iat: 5), keyID: "KID", type: nil, with: JWTSigningKey.generateP256())
        let (header, claims) = try JWT.decodeUnverified(token, as: ProviderClaims.self)
        #expect(header.alg == "ES256" && header.kid == "KID" && header.typ == nil)
        #expect(claims == ProviderClaims(iss: "TEAM", iat: 5))
    }

    @Test("One key signs and verifies from many tasks at once")
    func concurrentUse() async throws {
        let key = try JWTSigningKey.generateP256()
        let verifier = try key.publicKey()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let claims = ProviderClaims(iss: "T\(index)", iat: Int64(index))
                    let token = try JWT.sign(claims, keyID: "K", type: nil, with: key)
                    let (_, decoded) = try JWT.verify(token, as: ProviderClaims.self, algorithms: [.es256]) { _ in
                        verifier
                    }
                    #expect(decoded == claims)
                }
            }
            try await group.waitForAll()
        }
    }
}
