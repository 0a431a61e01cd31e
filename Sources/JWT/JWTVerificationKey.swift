/// A key that verifies tokens: an EC P-256 public key (ES256), an RSA public key (RS256) or an HMAC
/// secret (HS256).
///
/// A key verifies only its own algorithm, so an HS256 token can never be checked against an EC or
/// RSA public key used as a secret (RFC 8725 §2.1). Thread-safe; the OpenSSL key it owns is freed
/// when the last reference goes.
public final class JWTVerificationKey: Sendable {
    /// The only algorithm this key verifies.
    public var algorithm: JWTAlgorithm { sealed.algorithm }

    let sealed: SealedKey

    init(sealed: SealedKey) {
        self.sealed = sealed
    }

    /// Reads a SubjectPublicKeyInfo PEM public key (`-----BEGIN PUBLIC KEY-----`), EC P-256 or RSA.
    /// To verify against a private `.p8` file, use `JWTSigningKey(pem:).publicKey()`.
    /// - Parameter publicKeyPEM: The PEM text; only its first key is read.
    /// - Throws: ``JWTError/invalidKey`` when there is no public key, or it is neither EC P-256 nor
    ///   RSA of 2048 bits or more.
    public init(publicKeyPEM: String) throws {
        let key = try EVPKey.publicKey(pem: publicKeyPEM)
        sealed = SealedKey(algorithm: try key.algorithm(), material: .asymmetric(key))
    }

    /// Wraps a shared secret for HS256.
    /// - Parameter hmacSecret: The secret bytes; RFC 7518 §3.2 asks for 32 or more (see `JWTSigningKey`).
    /// - Throws: ``JWTError/invalidKey`` when the secret is empty.
    public init(hmacSecret: [UInt8]) throws {
        guard !hmacSecret.isEmpty else { throw JWTError.invalidKey("empty HMAC secret") }
        sealed = SealedKey(algorithm: .hs256, material: .hmac(hmacSecret))
    }

    /// Wraps the UTF-8 bytes of `hmacSecret` as an HS256 secret.
    /// - Parameter hmacSecret: The secret text.
    /// - Throws: ``JWTError/invalidKey`` when the secret is empty.
    public convenience init(hmacSecret: String) throws {
        try self.init(hmacSecret: Array(hmacSecret.utf8))
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    /// - Returns: The PEM text.
    /// - Throws: ``JWTError/invalidKey`` for an HMAC secret; ``JWTError/crypto`` if encoding fails.
    public func publicKeyPEM() throws -> String {
        try sealed.withMaterial { (material) throws(JWTError) -> String in
            guard case .asymmetric(let key) = material else {
                throw JWTError.invalidKey("an HMAC secret has no PEM form")
            }
            return try key.publicKeyPEM()
        }
    }

    /// Checks a raw JWS signature (RFC 7515 §5.2 step 8) for ``algorithm``.
    /// - Parameters:
    ///   - signature: The decoded signature; ES256 signatures must be exactly 64 bytes (RFC 7518 §3.4).
    ///   - message: The signed bytes; for a JWS, the ASCII of `header.payload`.
    /// - Returns: Whether the signature is valid. HMAC tags are compared in constant time.
    /// - Throws: ``JWTError/crypto`` only if OpenSSL itself fails; a bad signature returns `false`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) throws -> Bool {
        let algorithm = self.algorithm
        return try sealed.withMaterial { (material) throws(JWTError) -> Bool in
            switch material {
            case .hmac(let secret):
                return try HMACSHA256.isValid(signature, for: message, key: secret)
            case .asymmetric(let key):
                if algorithm == .es256 {
                    guard let der = try ECDSASignature.der(fromJOSE: signature) else { return false }
                    return try key.digestVerify(signature: der, message: message)
                }
                return try key.digestVerify(signature: signature, message: message)
            }
        }
    }
}
