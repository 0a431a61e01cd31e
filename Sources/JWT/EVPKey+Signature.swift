import COpenSSL
import OpenSSLSupport

extension EVPKey {
    /// Signs `message` with SHA-256: PKCS#1 v1.5 for RSA, DER `ECDSA-Sig-Value` for EC.
    func digestSign(_ message: [UInt8]) throws(JWTError) -> [UInt8] {
        let context = try OpenSSLCall.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try OpenSSLCall.check(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer), "EVP_DigestSignInit")
        var length = 0
        try OpenSSLCall.check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign")
        var signature = [UInt8](repeating: 0, count: length)
        try OpenSSLCall.check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign")
        return Array(signature.prefix(length))
    }

    /// Verifies an RSA PKCS#1 v1.5 or DER ECDSA signature of `message` with SHA-256.
    /// - Returns: `false` for any signature that does not verify, malformed ones included.
    func digestVerify(signature: [UInt8], message: [UInt8]) throws(JWTError) -> Bool {
        let context = try OpenSSLCall.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try OpenSSLCall.check(EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer), "EVP_DigestVerifyInit")
        let result = EVP_DigestVerify(context, signature, signature.count, message, message.count)
        // 0 is a bad signature, negative a malformed one: both are a rejection, not a library failure.
        ERR_clear_error()
        return result == 1
    }
}
