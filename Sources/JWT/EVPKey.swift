import COpenSSL
import OpenSSLSupport

/// Owns one OpenSSL `EVP_PKEY` (EC P-256 or RSA, private or public) and frees it on deinit.
///
/// Not thread-safe and not `Sendable`: the public key types keep it inside a ``SealedKey`` lock.
final class EVPKey {
    /// The owned key; valid for this object's lifetime.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`; it is freed with `EVP_PKEY_free` on deinit.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Reads the first private key in `pem`: PKCS#8 (`BEGIN PRIVATE KEY`, Apple's `.p8`), SEC1
    /// (`BEGIN EC PRIVATE KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`). Encrypted keys are refused.
    static func privateKey(pem: String) throws(JWTError) -> EVPKey {
        try OpenSSLCall.reading(pem) { (bio) throws(JWTError) -> EVPKey in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, openSSLRefusePassphrase, nil) else {
                throw JWTError.invalidKey("no readable unencrypted PEM private key (\(OpenSSLCall.drainErrors()))")
            }
            return EVPKey(taking: key)
        }
    }

    /// Reads the first SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`) in `pem`.
    static func publicKey(pem: String) throws(JWTError) -> EVPKey {
        try OpenSSLCall.reading(pem) { (bio) throws(JWTError) -> EVPKey in
            guard let key = PEM_read_bio_PUBKEY(bio, nil, openSSLRefusePassphrase, nil) else {
                throw JWTError.invalidKey("no readable PEM public key (\(OpenSSLCall.drainErrors()))")
            }
            return EVPKey(taking: key)
        }
    }

    /// Generates a key of OpenSSL type `type` ("EC" or "RSA"); `configure` sets its parameters on the context.
    static func generate(
        type: String, configure: (OpaquePointer) -> Int32, _ configureName: String
    ) throws(JWTError) -> EVPKey {
        let context = try OpenSSLCall.check(EVP_PKEY_CTX_new_from_name(nil, type, nil), "EVP_PKEY_CTX_new_from_name")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        guard configure(context) > 0 else { throw OpenSSLCall.failure(configureName) }
        var key: OpaquePointer?
        try OpenSSLCall.check(EVP_PKEY_generate(context, &key), "EVP_PKEY_generate")
        return EVPKey(taking: try OpenSSLCall.check(key, "EVP_PKEY_generate"))
    }

    /// The JWS algorithm this key serves, after checking RFC 7518's constraints on it.
    /// - Throws: ``JWTError/invalidKey`` for EC curves other than P-256 (§3.4), RSA below 2048 bits
    ///   (§3.3) and every other key type.
    func algorithm() throws(JWTError) -> JWTAlgorithm {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
                throw JWTError.invalidKey("EC key without a named curve")
            }
            let curve = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            guard curve == SN_X9_62_prime256v1 else {
                throw JWTError.invalidKey("EC key on \(curve); ES256 needs P-256 (RFC 7518 §3.4)")
            }
            return .es256
        case EVP_PKEY_RSA:
            let bits = EVP_PKEY_get_bits(pointer)
            guard bits >= 2048 else {
                throw JWTError.invalidKey("RSA key of \(bits) bits; RS256 needs 2048 or more (RFC 7518 §3.3)")
            }
            return .rs256
        default:
            throw JWTError.invalidKey("key type is neither EC nor RSA")
        }
    }

    /// This key's public half as DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7).
    func publicKeyDER() throws(JWTError) -> [UInt8] {
        try OpenSSLCall.encodingDER("i2d_PUBKEY") { i2d_PUBKEY(pointer, $0) }
    }

    /// Reads a DER SubjectPublicKeyInfo into a public-only key.
    static func publicKey(der: [UInt8]) throws(JWTError) -> EVPKey {
        let key = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        return EVPKey(taking: try OpenSSLCall.check(key, "d2i_PUBKEY"))
    }

    /// The private key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), the form of Apple's `.p8` files.
    func pkcs8PEM() throws(JWTError) -> String {
        try OpenSSLCall.writing("PEM_write_bio_PKCS8PrivateKey") { bio in
            PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    func publicKeyPEM() throws(JWTError) -> String {
        try OpenSSLCall.writing("PEM_write_bio_PUBKEY") { bio in
            PEM_write_bio_PUBKEY(bio, pointer)
        }
    }
}
