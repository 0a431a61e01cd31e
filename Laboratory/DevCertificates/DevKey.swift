import COpenSSL
import OpenSSLSupport

/// Owns one OpenSSL EC P-256 `EVP_PKEY` and frees it on deinit. Not thread-safe; used within one call.
final class DevKey {
    /// The owned key.
    let pointer: OpaquePointer

    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Generates a fresh EC P-256 key.
    static func generateP256() throws(DevCertificateError) -> DevKey {
        let context = try OpenSSLCall.check(EVP_PKEY_CTX_new_from_name(nil, "EC", nil), "EVP_PKEY_CTX_new_from_name")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        try OpenSSLCall.check(EVP_PKEY_CTX_set_group_name(context, "P-256"), "EVP_PKEY_CTX_set_group_name")
        var key: OpaquePointer?
        try OpenSSLCall.check(EVP_PKEY_generate(context, &key), "EVP_PKEY_generate")
        return DevKey(taking: try OpenSSLCall.check(key, "EVP_PKEY_generate"))
    }

    /// Reads the first unencrypted PEM private key in `pem`.
    static func read(pem: String) throws(DevCertificateError) -> DevKey {
        try OpenSSLCall.reading(pem) { (bio) throws(DevCertificateError) -> DevKey in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, openSSLRefusePassphrase, nil) else {
                throw DevCertificateError.invalidPEM("no unencrypted private key (\(OpenSSLCall.drainErrors()))")
            }
            return DevKey(taking: key)
        }
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    func pkcs8PEM() throws(DevCertificateError) -> String {
        try OpenSSLCall.writing("PEM_write_bio_PKCS8PrivateKey") { bio in
            PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
    }
}
