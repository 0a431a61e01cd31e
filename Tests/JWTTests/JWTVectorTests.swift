import Foundation
import JWT
import Testing

@Suite("Published test vectors")
struct JWTVectorTests {
    /// RFC 7515 A.1 and A.3 share this claims set, serialized with CRLFs and spaces.
    private struct ExampleClaims: Decodable, Equatable {
        var iss: String
        var exp: Int64
        var isRoot: Bool

        enum CodingKeys: String, CodingKey {
            case iss, exp
            case isRoot = "http://example.com/is_root"
        }
    }

    private static let examplePayload =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    @Test("RFC 7515 Appendix A.1: the HS256 example verifies, and fails with a changed key")
    func rfc7515HS256() throws {
        let token =
            "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9." + Self.examplePayload
            + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        // The JWK "k" value of A.1.1.
        var secret = try #require(
            TestSupport.base64URLDecode(
                "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"))
        let (header, claims) = try JWT.verify(token, as: ExampleClaims.self, algorithms: [.hs256]) { _ in
            try JWTVerificationKey(hmacSecret: secret)
        }
        #expect(header == JWTHeader(alg: "HS256", typ: "JWT"))
        #expect(claims == ExampleClaims(iss: "joe", exp: 1_300_819_380, isRoot: true))
        secret[0] ^= 1
        #expect(throws: JWTError.invalidSignature) {
            _ = try JWT.verify(token, as: ExampleClaims.self, algorithms: [.hs256]) { _ in
                try JWTVerificationKey(hmacSecret: secret)
            }
        }
    }

    @Test("RFC 7515 Appendix A.3: the ES256 example verifies with its P-256 public key")
    func rfc7515ES256() throws {
        // SubjectPublicKeyInfo of the A.3.1 JWK (x = f83OJ3D2…, y = x_FEzRu9…).
        let publicKeyPEM = """
            -----BEGIN PUBLIC KEY-----
            MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEf83OJ3D2xF1Bg8vub9tLe1gHMzV7
            6e8Tus9uPHvRVEXH8UTNG72bfocs3+257rn0s2ldbqkLJK2KRiMohYjlrQ==
            -----END PUBLIC KEY-----
            """
        let key = try JWTVerificationKey(publicKeyPEM: publicKeyPEM)
        #expect(key.algorithm == .es256)
        let token =
            "eyJhbGciOiJFUzI1NiJ9." + Self.examplePayload
            + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        let (_, claims) = try JWT.verify(token, as: ExampleClaims.self, algorithms: [.es256]) { _ in key }
        #expect(claims == ExampleClaims(iss: "joe", exp: 1_300_819_380, isRoot: true))
        let changed = token.replacingOccurrences(of: ".DtEh", with: ".DtEi")
        #expect(throws: JWTError.invalidSignature) {
            _ = try JWT.verify(changed, as: ExampleClaims.self, algorithms: [.es256]) { _ in key }
        }
    }

    @Test(
        "RFC 4231 HMAC-SHA-256 test cases 1, 2 and 6",
        arguments: [
            (
                "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                "4a656665", Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                String(repeating: "aa", count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ])
    func rfc4231(keyHex: String, message: [UInt8], tagHex: String) throws {
        let secret = TestSupport.hex(keyHex)
        let tag = TestSupport.hex(tagHex)
        #expect(try JWTSigningKey(hmacSecret: secret).signature(for: message) == tag)
        let verifier = try JWTVerificationKey(hmacSecret: secret)
        #expect(try verifier.isValidSignature(tag, for: message))
        var wrong = tag
        wrong[31] ^= 0x80
        #expect(try !verifier.isValidSignature(wrong, for: message))
        #expect(try !verifier.isValidSignature(Array(tag.prefix(16)), for: message))
    }
}
