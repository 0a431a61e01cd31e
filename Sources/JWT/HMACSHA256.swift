import COpenSSL
import OpenSSLSupport

/// HMAC-SHA-256 (RFC 2104, RFC 4231) for HS256 (RFC 7518 §3.2).
enum HMACSHA256 {
    /// Bytes in an HMAC-SHA-256 tag.
    static let tagLength = 32

    /// The 32-byte tag of `message` under `key`.
    static func authenticate(_ message: [UInt8], key: [UInt8]) throws(JWTError) -> [UInt8] {
        guard key.count < Int32.max else { throw JWTError.invalidKey("HMAC secret too large") }
        guard let tag = SHA256Digest.hmac(message, key: key) else { throw OpenSSLCall.failure("HMAC") }
        return tag
    }

    /// Whether `tag` is the tag of `message` under `key`, compared in constant time (`CRYPTO_memcmp`).
    static func isValid(_ tag: [UInt8], for message: [UInt8], key: [UInt8]) throws(JWTError) -> Bool {
        guard tag.count == tagLength else { return false }
        let expected = try authenticate(message, key: key)
        return CRYPTO_memcmp(expected, tag, tagLength) == 0
    }
}
