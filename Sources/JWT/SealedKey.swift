import Synchronization

/// The secret or OpenSSL key behind a ``JWTSigningKey`` or ``JWTVerificationKey``.
enum KeyMaterial {
    /// An EC P-256 or RSA key (private for signing keys, public for verification keys).
    case asymmetric(EVPKey)
    /// A shared HMAC secret.
    case hmac([UInt8])
}

/// Key material behind a lock, so the public key types are `Sendable` without `@unchecked`.
///
/// OpenSSL 3 allows concurrent use of one `EVP_PKEY`, but the lock makes that independent of the
/// library's internals; every operation is short (one signature), so contention is negligible.
final class SealedKey: Sendable {
    /// The algorithm the material serves; checked when the key was made.
    let algorithm: JWTAlgorithm
    private let material: Mutex<KeyMaterial>

    /// Seals `material`, which must already have been checked to fit `algorithm`.
    init(algorithm: JWTAlgorithm, material: consuming sending KeyMaterial) {
        self.algorithm = algorithm
        self.material = Mutex(material)
    }

    /// Runs `body` with the material while holding the lock; `body` must not let the material escape.
    func withMaterial<Result: Sendable>(
        _ body: (borrowing KeyMaterial) throws(JWTError) -> Result
    ) throws(JWTError) -> Result {
        try material.withLock { (material) throws(JWTError) -> Result in try body(material) }
    }

    /// A sealed key holding only the public half of this (asymmetric) key.
    func publicHalf() throws(JWTError) -> SealedKey {
        // Only Sendable bytes leave the lock; the new OpenSSL key is built outside it.
        let der = try withMaterial { (material) throws(JWTError) -> [UInt8] in
            guard case .asymmetric(let key) = material else {
                throw JWTError.invalidKey("an HMAC secret has no public key")
            }
            return try key.publicKeyDER()
        }
        return SealedKey(algorithm: algorithm, material: .asymmetric(try EVPKey.publicKey(der: der)))
    }
}
