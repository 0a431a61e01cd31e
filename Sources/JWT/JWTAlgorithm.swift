/// The JWS algorithms Ringer signs and verifies (RFC 7518 §3.1).
///
/// `none` is deliberately absent: an unsecured token is never accepted.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// ECDSA on P-256 with SHA-256, 64-byte r||s signature (RFC 7518 §3.4). APNs provider tokens.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256, keys of 2048 bits or more (RFC 7518 §3.3). Google OAuth2 grants.
    case rs256 = "RS256"
    /// HMAC with SHA-256 over a shared secret (RFC 7518 §3.2). User and media tokens.
    case hs256 = "HS256"
}
