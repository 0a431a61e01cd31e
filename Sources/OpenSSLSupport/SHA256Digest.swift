import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL's one-shot `EVP_Digest`.
public enum SHA256Digest {
    /// Bytes in a SHA-256 digest.
    public static let length = 32

    /// The 32-byte digest of `bytes`.
    ///
    /// `EVP_Digest` with SHA-256 fails only when OpenSSL cannot allocate a context; that is treated as the
    /// process being out of memory, as Swift treats a failed allocation.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var size: UInt32 = 0
        let status = EVP_Digest(bytes, bytes.count, &digest, &size, EVP_sha256(), nil)
        precondition(status == 1 && size == length, "EVP_Digest(SHA-256) failed: out of memory")
        return Array(digest.prefix(length))
    }

    /// The 32-byte HMAC-SHA-256 tag (RFC 2104, RFC 4231) of `message` under `key`; nil when OpenSSL fails (no memory,
    /// or a key of 2 GiB or more). HS256 (`JWT`) and Standard Webhooks signatures.
    public static func hmac(_ message: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard key.count < Int32.max else { return nil }
        var tag = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var size: UInt32 = 0
        guard HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &tag, &size) != nil, size == length
        else { return nil }
        return Array(tag.prefix(length))
    }

    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        hash(bytes).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]], as: UTF8.self)
        }.joined()
    }
}
