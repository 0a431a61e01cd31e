import Foundation
import JWT
import Testing

@Suite("Tokens that must be rejected")
struct JWTRejectionTests {
    private struct AnyClaims: Codable {
        var sub: String?
    }

    /// Joins base64url segments made from raw JSON text.
    private static func token(header: String, payload: String, signature: [UInt8]) -> String {
        [
            TestSupport.base64URLEncode(Array(header.utf8)), TestSupport.base64URLEncode(Array(payload.utf8)),
            TestSupport.base64URLEncode(signature),
        ].joined(separator: ".")
    }

    /// A token whose parts are signed correctly by `key`, whatever the header and payload say.
    private static func signedToken(header: String, payload: String, key: JWTSigningKey) throws -> String {
        let input =
            TestSupport.base64URLEncode(Array(header.utf8)) + "." + TestSupport.base64URLEncode(Array(payload.utf8))
        return input + "." + TestSupport.base64URLEncode(try key.signature(for: Array(input.utf8)))
    }

    private static func verify(
        _ token: String, _ algorithms: Set<JWTAlgorithm> = Set(JWTAlgorithm.allCases), key: JWTVerificationKey
    ) throws {
        _ = try JWT.verify(token, as: AnyClaims.self, algorithms: algorithms) { _ in key }
    }

    /// Flips one bit in the decoded bytes of segment `index`.
    private static func tamper(_ token: String, segment index: Int) throws -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var bytes = try #require(TestSupport.base64URLDecode(parts[index]))
        bytes[bytes.count / 2] ^= 0x01
        parts[index] = TestSupport.base64URLEncode(bytes)
        return parts.joined(separator: ".")
    }

    @Test("A changed header, payload or signature fails", arguments: JWTAlgorithm.allCases)
    func tampering(algorithm: JWTAlgorithm) throws {
        let key = try TestSupport.signingKey(algorithm)
        let verifier = try TestSupport.verificationKey(for: key)
        let token = try JWT.sign(UserClaims(sub: "bob", iat: 1, exp: 2), keyID: "kid-1", with: key)
        try Self.verify(token, key: verifier)
        for segment in 0..<3 {
            #expect(throws: JWTError.self) { try Self.verify(try Self.tamper(token, segment: segment), key: verifier) }
        }
        // A re-encoded payload with a valid shape is a signature failure, not a parse failure.
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = TestSupport.base64URLEncode(Array(#"{"exp":2,"iat":1,"sub":"eve"}"#.utf8))
        #expect(throws: JWTError.invalidSignature) { try Self.verify(parts.joined(separator: "."), key: verifier) }
        #expect(throws: JWTError.invalidSignature) {
            try Self.verify(try Self.tamper(token, segment: 2), key: verifier)
        }
    }

    @Test("Another key of the same type fails", arguments: [JWTAlgorithm.es256, .hs256])
    func wrongKey(algorithm: JWTAlgorithm) throws {
        let token = try JWT.sign(UserClaims(sub: "bob", iat: 1, exp: 2), with: TestSupport.signingKey(algorithm))
        let other =
            algorithm == .es256
            ? try JWTSigningKey.generateP256().publicKey()
            : try JWTVerificationKey(hmacSecret: "a-different-32-byte-test-secret!")
        #expect(throws: JWTError.invalidSignature) { try Self.verify(token, key: other) }
    }

    @Test("alg none is never accepted, signed or not")
    func algNone() throws {
        let verifier = try JWTVerificationKey(hmacSecret: "secret")
        for alg in ["none", "None", "NONE", ""] {
            let unsigned = Self.token(
                header: #"{"alg":"\#(alg)","typ":"JWT"}"#, payload: #"{"sub":"eve"}"#, signature: [])
            #expect(throws: JWTError.unsupportedAlgorithm) { try Self.verify(unsigned, key: verifier) }
        }
        #expect(throws: JWTError.unsupportedAlgorithm) {
            try Self.verify(Self.token(header: #"{"alg":"HS512"}"#, payload: "{}", signature: [1]), key: verifier)
        }
    }

    @Test("An HS256 token made with a public key as the secret is refused (alg confusion)")
    func algorithmConfusion() throws {
        let ecKey = try JWTSigningKey.generateP256()
        let rsaKey = try TestSupport.rsaKey.get()
        for victim in [ecKey, rsaKey] {
            let publicKey = try victim.publicKey()
            let forged = try JWT.sign(AnyClaims(sub: "eve"), with: JWTSigningKey(hmacSecret: try victim.publicKeyPEM()))
            #expect(throws: JWTError.algorithmMismatch) { try Self.verify(forged, [victim.algorithm], key: publicKey) }
            #expect(throws: JWTError.algorithmMismatch) {
                try Self.verify(forged, Set(JWTAlgorithm.allCases), key: publicKey)
            }
        }
        // The other direction: an ES256 token checked against an RSA key, and vice versa.
        let esToken = try JWT.sign(AnyClaims(sub: "eve"), with: ecKey)
        #expect(throws: JWTError.algorithmMismatch) { try Self.verify(esToken, key: try rsaKey.publicKey()) }
        let rsToken = try JWT.sign(AnyClaims(sub: "eve"), with: rsaKey)
        #expect(throws: JWTError.algorithmMismatch) { try Self.verify(rsToken, key: try ecKey.publicKey()) }
    }

    @Test("An algorithm outside the allowed set is refused before the key is asked for")
    func algorithmNotAllowed() throws {
        let key = try JWTSigningKey.generateP256()
        let token = try JWT.sign(AnyClaims(sub: "bob"), with: key)
        #expect(throws: JWTError.algorithmMismatch) {
            _ = try JWT.verify(token, as: AnyClaims.self, algorithms: [.hs256, .rs256]) { _ in
                Issue.record("the key closure must not run")
                return try key.publicKey()
            }
        }
        #expect(throws: JWTError.algorithmMismatch) { try Self.verify(token, [], key: key.publicKey()) }
    }

    @Test("ES256 signatures that are not exactly 64 bytes r||s fail (RFC 7518 §3.4)")
    func es256SignatureLength() throws {
        let key = try JWTSigningKey.generateP256()
        let verifier = try key.publicKey()
        let header = #"{"alg":"ES256"}"#
        let payload = #"{"sub":"bob"}"#
        let input =
            TestSupport.base64URLEncode(Array(header.utf8)) + "." + TestSupport.base64URLEncode(Array(payload.utf8))
        let jose = try key.signature(for: Array(input.utf8))
        #expect(jose.count == 64)
        #expect(try verifier.isValidSignature(jose, for: Array(input.utf8)))
        // DER wrapping of the same r and s: a valid signature in the wrong form.
        let der = Self.der(r: Array(jose[..<32]), s: Array(jose[32...]))
        for signature in [
            der, Array(jose.dropLast()), jose + [0], [], [UInt8](repeating: 0, count: 64),
            [UInt8](repeating: 0xFF, count: 64),
        ] {
            #expect(throws: JWTError.invalidSignature) {
                try Self.verify(Self.token(header: header, payload: payload, signature: signature), key: verifier)
            }
        }
    }

    /// DER ECDSA-Sig-Value for r and s (test-side encoder, short lengths only).
    private static func der(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ bytes: [UInt8]) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.first.map({ $0 & 0x80 != 0 }) ?? true { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }

    @Test(
        "Malformed tokens throw malformed and never crash",
        arguments: [
            "", ".", "..", "...", "a.b", "a.b.c.d", "eyJhbGciOiJIUzI1NiJ9.e30", "!!!.e30.AAAA",
            "eyJhbGciOiJIUzI1NiJ9=.e30.AAAA", "eyJhbGciOiJIUzI1NiJ9.e30=.AAAA", "eyJhbGciOiJIUzI1NiJ9.e30.AA+A",
            "eyJhbGciOiJIUzI1NiJ9.e30.A", "eyJhbGciOiJIUzI1NiJ9.e31.AAAA", "eyJhbGciOiJIUzI1NiJ9 .e30.AAAA",
            "bm90IGpzb24.e30.AAAA", "W10.e30.AAAA", "e30.e30.AAAA", "eyJhbGciOjF9.e30.AAAA",
            "eyJhbGciOm51bGx9.e30.AAAA",
        ])
    func malformed(token: String) throws {
        let verifier = try JWTVerificationKey(hmacSecret: "secret")
        #expect(throws: JWTError.malformed) { try Self.verify(token, key: verifier) }
        #expect(throws: JWTError.malformed) { _ = try JWT.decodeUnverified(token, as: AnyClaims.self) }
    }

    @Test("A validly signed payload that is not a JSON object is malformed")
    func signedGarbagePayload() throws {
        let key = try TestSupport.signingKey(.hs256)
        let verifier = try TestSupport.verificationKey(for: key)
        for payload in ["not json", "[]", "42", #""text""#, #"{"sub":7}"#, "{\"sub\":\"\u{FFFD}\""] {
            let token = try Self.signedToken(header: #"{"alg":"HS256"}"#, payload: payload, key: key)
            #expect(throws: JWTError.malformed) { try Self.verify(token, key: verifier) }
        }
    }

    /// Issue 26: a token with two `sub` claims acted as the first while PyJWT reads the last. RFC 7519 §4 lets a
    /// parser reject such a token; a signed one is refused, in the claims and in the header alike.
    @Test("A validly signed token naming a claim or header member twice is refused")
    func duplicateNames() throws {
        let key = try TestSupport.signingKey(.hs256)
        let verifier = try TestSupport.verificationKey(for: key)
        let cases = [
            (#"{"alg":"HS256"}"#, #"{"sub":"alice","sub":"mallory"}"#),
            (#"{"alg":"HS256"}"#, #"{"sub":"alice","n":{"a":1,"a":2}}"#),
            (#"{"alg":"HS256"}"#, #"{"sub":"alice","\u0073ub":"mallory"}"#),
            (#"{"alg":"HS256","alg":"none"}"#, #"{"sub":"alice"}"#),
            // Found by review: a number Jansson stops at hid the repetition from the first check.
            (#"{"alg":"HS256"}"#, #"{"x":1e400,"sub":"alice","sub":"mallory"}"#),
        ]
        for (header, payload) in cases {
            let token = try Self.signedToken(header: header, payload: payload, key: key)
            #expect(throws: JWTError.malformed) { try Self.verify(token, key: verifier) }
        }
        // The same name in two different objects is no repetition.
        let fine = try Self.signedToken(
            header: #"{"alg":"HS256"}"#, payload: #"{"sub":"alice","a":{"sub":1}}"#, key: key)
        try Self.verify(fine, key: verifier)
    }

    @Test("A header marking extensions critical is refused (RFC 7515 §4.1.11)")
    func criticalHeader() throws {
        let key = try TestSupport.signingKey(.hs256)
        let token = try Self.signedToken(
            header: #"{"alg":"HS256","b64":false,"crit":["b64"]}"#, payload: "{}", key: key)
        #expect(throws: JWTError.malformed) { try Self.verify(token, key: TestSupport.verificationKey(for: key)) }
    }

    @Test("Oversized tokens are refused before parsing")
    func oversized() throws {
        let token = "eyJhbGciOiJIUzI1NiJ9." + String(repeating: "A", count: 70_000) + ".AAAA"
        #expect(throws: JWTError.malformed) { try Self.verify(token, key: JWTVerificationKey(hmacSecret: "s")) }
    }

    @Test("Errors from the key lookup reach the caller unchanged")
    func keyLookupError() throws {
        struct UnknownKeyID: Error {}
        let token = try JWT.sign(AnyClaims(sub: "bob"), keyID: "missing", with: TestSupport.signingKey(.hs256))
        #expect(throws: UnknownKeyID.self) {
            _ = try JWT.verify(token, as: AnyClaims.self, algorithms: [.hs256]) { _ in throw UnknownKeyID() }
        }
    }

    @Test("Random input always throws a JWTError")
    func randomInput() throws {
        var generator = SystemRandomNumberGenerator()
        let verifier = try JWTVerificationKey(hmacSecret: "secret")
        let alphabet = Array("AZaz09-_.=+/!{}\" ")
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<80, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(throws: JWTError.self) { try Self.verify(text, key: verifier) }
        }
    }
}
