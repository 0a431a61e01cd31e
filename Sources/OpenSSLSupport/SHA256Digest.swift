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

    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        hash(bytes).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]], as: UTF8.self)
        }.joined()
    }
}
