/// Signs and verifies compact JSON Web Tokens (RFC 7519) with ES256, RS256 or HS256 (RFC 7518).
///
/// Header and claims are encoded with sorted keys and unescaped slashes, so the same input gives
/// the same token. Time claims (`exp`, `iat`, `nbf`) are the caller's business, since APNs and user
/// tokens treat them differently; ``JWTClaimsValidator`` checks them. All functions are thread-safe.
///
/// ```swift
/// let key = try JWTVerificationKey(hmacSecret: secret)
/// let (_, claims) = try JWT.verify(token, as: UserClaims.self, algorithms: [.hs256]) { _ in key }
/// try JWTClaimsValidator(requiresExpiration: true).validate(expiresAt: claims.exp, issuedAt: claims.iat, now: now)
/// ```
public enum JWT {
    /// Makes a signed token `header.payload.signature` (RFC 7515 §7.1).
    /// - Parameters:
    ///   - claims: The claims; must encode as a JSON object. `Date` values become whole seconds.
    ///   - keyID: The `kid` header, or `nil` to omit it (APNs requires its 10-character key ID).
    ///   - type: The `typ` header, `"JWT"` by default; `nil` omits it (APNs provider tokens).
    ///   - key: The signing key; it fixes `alg`.
    /// - Returns: The compact token.
    /// - Throws: ``JWTError/encoding`` if the claims are not a JSON object; ``JWTError/crypto`` if signing fails.
    public static func sign<Claims: Encodable>(
        _ claims: Claims, keyID: String? = nil, type: String? = "JWT", with key: JWTSigningKey
    ) throws -> String {
        let header = JWTHeader(alg: key.algorithm.rawValue, kid: keyID, typ: type)
        let headerJSON = try JWTJSON.encodeObject(header, what: "header")
        let claimsJSON = try JWTJSON.encodeObject(claims, what: "claims")
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Verifies a token's signature, then decodes its claims.
    ///
    /// The steps follow RFC 7515 §5.2 and RFC 8725 §3.1: the header's `alg` must be one this library
    /// implements, be in `algorithms`, and equal the algorithm of the key `key` returns; only then is
    /// the signature checked, and only a valid token's claims are decoded.
    /// - Parameters:
    ///   - token: The compact token; at most 65,536 bytes.
    ///   - type: The claims type to decode.
    ///   - algorithms: The algorithms the caller accepts, e.g. `[.es256]` for APNs provider tokens.
    ///   - key: Picks the verification key from the (not yet trusted) header, e.g. by `kid`. Errors it
    ///     throws are rethrown unchanged.
    /// - Returns: The header and the decoded claims.
    /// - Throws: ``JWTError/malformed``, ``JWTError/unsupportedAlgorithm`` (`none` included),
    ///   ``JWTError/algorithmMismatch``, ``JWTError/invalidSignature``, or whatever `key` throws.
    public static func verify<Claims: Decodable>(
        _ token: String, as type: Claims.Type = Claims.self, algorithms: Set<JWTAlgorithm>,
        key: (JWTHeader) throws -> JWTVerificationKey
    ) throws -> (header: JWTHeader, claims: Claims) {
        let parsed = try CompactToken(token)
        guard let algorithm = JWTAlgorithm(rawValue: parsed.header.alg) else {
            throw JWTError.unsupportedAlgorithm("alg \"\(parsed.header.alg.prefix(16))\" is not ES256, RS256 or HS256")
        }
        guard algorithms.contains(algorithm) else {
            throw JWTError.algorithmMismatch("\(algorithm.rawValue) is not among the allowed algorithms")
        }
        let verificationKey = try key(parsed.header)
        guard verificationKey.algorithm == algorithm else {
            throw JWTError.algorithmMismatch(
                "token is \(algorithm.rawValue) but the key is for \(verificationKey.algorithm.rawValue)")
        }
        guard try verificationKey.isValidSignature(parsed.signature, for: parsed.signingInput) else {
            throw JWTError.invalidSignature
        }
        return (parsed.header, try JWTJSON.decode(type, from: parsed.payload, what: "claims"))
    }

    /// Decodes a token's header and claims WITHOUT checking its signature or algorithm.
    ///
    /// For diagnostics and for reading hints before verification; never trust the result.
    /// - Parameters:
    ///   - token: The compact token.
    ///   - type: The claims type to decode.
    /// - Returns: The header and claims, unverified.
    /// - Throws: ``JWTError/malformed`` if the token cannot be split or decoded.
    public static func decodeUnverified<Claims: Decodable>(
        _ token: String, as type: Claims.Type = Claims.self
    ) throws -> (header: JWTHeader, claims: Claims) {
        let parsed = try CompactToken(token)
        return (parsed.header, try JWTJSON.decode(type, from: parsed.payload, what: "claims"))
    }
}
