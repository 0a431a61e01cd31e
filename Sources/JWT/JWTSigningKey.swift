import COpenSSL

/// A key that signs tokens: an EC P-256 private key (ES256), an RSA private key (RS256) or an HMAC
/// secret (HS256).
///
/// The OpenSSL key it owns is freed when the last reference goes. Thread-safe: one key may sign
/// from many tasks at once (calls are serialised on an internal lock).
///
/// ```swift
/// let key = try JWTSigningKey(pem: String(contentsOfFile: "AuthKey_ABC123DEFG.p8", encoding: .utf8))
/// let token = try JWT.sign(ProviderClaims(iss: teamID, iat: now), keyID: "ABC123DEFG", type: nil, with: key)
/// ```
public final class JWTSigningKey: Sendable {
    /// The algorithm this key signs with, fixed by its type.
    public var algorithm: JWTAlgorithm { sealed.algorithm }

    let sealed: SealedKey

    private init(sealed: SealedKey) {
        self.sealed = sealed
    }

    private convenience init(key: sending EVPKey) throws(JWTError) {
        let algorithm = try key.algorithm()
        self.init(sealed: SealedKey(algorithm: algorithm, material: .asymmetric(key)))
    }

    /// Reads a PEM private key: PKCS#8 `BEGIN PRIVATE KEY` (Apple `.p8`, Google service accounts),
    /// SEC1 `BEGIN EC PRIVATE KEY` or PKCS#1 `BEGIN RSA PRIVATE KEY`.
    /// - Parameter pem: The PEM text; only its first key is read.
    /// - Throws: ``JWTError/invalidKey`` when there is no unencrypted private key, or it is neither
    ///   EC P-256 nor RSA of 2048 bits or more.
    public convenience init(pem: String) throws {
        try self.init(key: EVPKey.privateKey(pem: pem))
    }

    /// Wraps a shared secret for HS256.
    /// - Parameter hmacSecret: The secret bytes. RFC 7518 §3.2 asks for 32 bytes or more; shorter
    ///   secrets are accepted for interoperability (e.g. LiveKit's development secret), so enforce
    ///   the length where secrets are configured.
    /// - Throws: ``JWTError/invalidKey`` when the secret is empty.
    public init(hmacSecret: [UInt8]) throws {
        guard !hmacSecret.isEmpty else { throw JWTError.invalidKey("empty HMAC secret") }
        sealed = SealedKey(algorithm: .hs256, material: .hmac(hmacSecret))
    }

    /// Wraps the UTF-8 bytes of `hmacSecret` as an HS256 secret.
    /// - Parameter hmacSecret: The secret text, used as its UTF-8 bytes (as LiveKit and PyJWT do).
    /// - Throws: ``JWTError/invalidKey`` when the secret is empty.
    public convenience init(hmacSecret: String) throws {
        try self.init(hmacSecret: Array(hmacSecret.utf8))
    }

    /// Generates a fresh EC P-256 key, the kind Apple issues as an APNs `.p8` key.
    /// - Returns: An ES256 signing key.
    /// - Throws: ``JWTError/crypto`` if OpenSSL cannot generate the key.
    public static func generateP256() throws -> JWTSigningKey {
        let key = try EVPKey.generate(
            type: "EC", configure: { EVP_PKEY_CTX_set_group_name($0, "P-256") },
            "EVP_PKEY_CTX_set_group_name")
        return try JWTSigningKey(key: key)
    }

    /// Generates a fresh RSA key, e.g. for a sandbox's fake Google service account.
    /// - Parameter bits: The modulus size in bits, at least 2048 (RFC 7518 §3.3).
    /// - Returns: An RS256 signing key.
    /// - Throws: ``JWTError/invalidKey`` for fewer than 2048 bits; ``JWTError/crypto`` if generation fails.
    public static func generateRSA(bits: Int = 2048) throws -> JWTSigningKey {
        guard (2048...16384).contains(bits) else { throw JWTError.invalidKey("RSA size must be 2048...16384 bits") }
        let key = try EVPKey.generate(
            type: "RSA", configure: { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) },
            "EVP_PKEY_CTX_set_rsa_keygen_bits")
        return try JWTSigningKey(key: key)
    }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), like Apple's `.p8`.
    /// - Returns: The PEM text. It is secret: store it with restrictive permissions and never log it.
    /// - Throws: ``JWTError/invalidKey`` for an HMAC secret; ``JWTError/crypto`` if encoding fails.
    public func pkcs8PEM() throws -> String {
        try sealed.withMaterial { (material) throws(JWTError) -> String in
            guard case .asymmetric(let key) = material else {
                throw JWTError.invalidKey("an HMAC secret has no PEM form")
            }
            return try key.pkcs8PEM()
        }
    }

    /// The key that verifies this key's signatures: the public half of an EC or RSA key.
    /// - Returns: A verification key holding no private material.
    /// - Throws: ``JWTError/invalidKey`` for an HMAC secret (make a ``JWTVerificationKey`` from the
    ///   secret instead); ``JWTError/crypto`` if OpenSSL fails.
    public func publicKey() throws -> JWTVerificationKey {
        JWTVerificationKey(sealed: try sealed.publicHalf())
    }

    /// The public half as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    /// - Returns: The PEM text, safe to share.
    /// - Throws: ``JWTError/invalidKey`` for an HMAC secret; ``JWTError/crypto`` if encoding fails.
    public func publicKeyPEM() throws -> String {
        try publicKey().publicKeyPEM()
    }

    /// Signs raw bytes, producing a JWS signature (RFC 7515 §5.1 step 5) for ``algorithm``.
    /// - Parameter message: The bytes to sign; for a JWS, the ASCII of `header.payload`.
    /// - Returns: The signature: 64-byte r||s for ES256 (RFC 7518 §3.4), modulus-sized for RS256,
    ///   the 32-byte tag for HS256.
    /// - Throws: ``JWTError/crypto`` if OpenSSL fails.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        let algorithm = self.algorithm
        return try sealed.withMaterial { (material) throws(JWTError) -> [UInt8] in
            switch material {
            case .hmac(let secret):
                return try HMACSHA256.authenticate(message, key: secret)
            case .asymmetric(let key):
                let signature = try key.digestSign(message)
                return algorithm == .es256 ? try ECDSASignature.jose(fromDER: signature) : signature
            }
        }
    }
}
