import COpenSSL
import OpenSSLSupport

/// Converts ES256 signatures between OpenSSL's DER `ECDSA-Sig-Value` and JOSE's fixed-size r||s form.
///
/// RFC 7518 §3.4: the JWS signature is the 32-byte big-endian r followed by the 32-byte s, 64 bytes in all.
enum ECDSASignature {
    /// Bytes in each of r and s for P-256.
    static let componentLength = 32

    /// Turns a DER signature from `EVP_DigestSign` into the 64-byte r||s form.
    static func jose(fromDER der: [UInt8]) throws(JWTError) -> [UInt8] {
        let signature = try der.withUnsafeBufferPointer { (buffer) throws(JWTError) -> OpaquePointer in
            var cursor = buffer.baseAddress
            return try OpenSSLCall.check(d2i_ECDSA_SIG(nil, &cursor, buffer.count), "d2i_ECDSA_SIG")
        }
        defer { ECDSA_SIG_free(signature) }
        var jose = [UInt8](repeating: 0, count: 2 * componentLength)
        let written = jose.withUnsafeMutableBufferPointer { buffer in
            (
                BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, Int32(componentLength)),
                BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + componentLength, Int32(componentLength))
            )
        }
        guard written.0 == componentLength, written.1 == componentLength else {
            throw OpenSSLCall.failure("BN_bn2binpad")
        }
        return jose
    }

    /// Turns a 64-byte r||s signature into DER for `EVP_DigestVerify`.
    /// - Returns: `nil` when the signature is not exactly 64 bytes, which RFC 7518 §3.4 makes invalid.
    static func der(fromJOSE jose: [UInt8]) throws(JWTError) -> [UInt8]? {
        guard jose.count == 2 * componentLength else { return nil }
        let signature = try OpenSSLCall.check(ECDSA_SIG_new(), "ECDSA_SIG_new")
        defer { ECDSA_SIG_free(signature) }
        let r = jose.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(componentLength), nil) }
        let s = jose.withUnsafeBufferPointer {
            BN_bin2bn($0.baseAddress! + componentLength, Int32(componentLength), nil)
        }
        // ECDSA_SIG_set0 owns r and s only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw OpenSSLCall.failure("ECDSA_SIG_set0")
        }
        return try OpenSSLCall.encodingDER("i2d_ECDSA_SIG") { i2d_ECDSA_SIG(signature, $0) }
    }
}
