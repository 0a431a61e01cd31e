import COpenSSL
import Foundation

/// Seals secrets kept in the database (webhook signing secrets, push providers' private keys) with AES-256-GCM
/// (NIST SP 800-38D) through OpenSSL's EVP interface, under keys the operator gives the server at start.
///
/// A sealed value is text: `v1.<key id>.<base64 of nonce ‖ ciphertext ‖ tag>`, where the key id is the first 8
/// hexadecimal digits of the key's SHA-256, so a value sealed under a key since rotated out names the key it needs.
/// The nonce is 12 random bytes (OpenSSL's `RAND_bytes`), the tag 16 bytes. `context` is bound as additional
/// authenticated data, so a value copied to another row (another endpoint's secret) does not open there.
public struct SecretBox: Sendable {
    /// The failures of ``seal(_:context:)`` and ``open(_:context:)``; never carrying key material or plaintext.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// A key that is not 32 bytes.
        case badKey
        /// The value is not one this box wrote (`v1.<key id>.<base64>`).
        case malformed
        /// No key of this box has the value's key id: the key it was sealed with was not given.
        case unknownKey(String)
        /// The value or its context was changed, or the key with its id is another key.
        case notAuthentic
        /// OpenSSL failed.
        case crypto(String)

        public var description: String {
            switch self {
            case .badKey: "a secrets key must be 32 bytes"
            case .malformed: "the sealed value is not one Ringer wrote"
            case .unknownKey(let id): "the sealed value needs the secrets key \(id), which the server was not given"
            case .notAuthentic: "the sealed value does not open: it was changed, or the key is another"
            case .crypto(let function): "OpenSSL failed in \(function)"
            }
        }
    }

    /// Bytes in a key.
    public static let keyLength = 32
    private static let nonceLength = 12
    private static let tagLength = 16

    /// The keys: the first seals, each opens what names its id.
    private let keys: [(id: String, bytes: [UInt8])]

    /// - Parameter keys: 32-byte keys, the sealing one first; those after it only open older values.
    /// - Throws: ``Failure/badKey`` for a key of another length, or when none is given.
    public init(keys: [[UInt8]]) throws(Failure) {
        guard !keys.isEmpty, keys.allSatisfy({ $0.count == Self.keyLength }) else { throw .badKey }
        self.keys = keys.map { (String(SHA256Digest.hex($0).prefix(8)), $0) }
    }

    /// The id of the key that seals (for diagnostics: never the key).
    public var sealingKeyID: String { keys[0].id }

    /// Seals `plaintext` under the first key, bound to `context`.
    /// - Throws: ``Failure/crypto(_:)``.
    public func seal(_ plaintext: [UInt8], context: String) throws(Failure) -> String {
        var nonce = [UInt8](repeating: 0, count: Self.nonceLength)
        guard RAND_bytes(&nonce, Int32(nonce.count)) == 1 else { throw .crypto("RAND_bytes") }
        let (ciphertext, tag) = try Self.crypt(
            encrypt: true, keys[0].bytes, nonce: nonce, input: plaintext, aad: Array(context.utf8), tag: nil)
        return "v1.\(keys[0].id).\(Data(nonce + ciphertext + tag).base64EncodedString())"
    }

    /// Opens a value ``seal(_:context:)`` wrote, with the key it names, checking it was sealed with `context`.
    /// - Throws: ``Failure``.
    public func open(_ sealed: String, context: String) throws(Failure) -> [UInt8] {
        let parts = sealed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", let data = Data(base64Encoded: String(parts[2])),
            data.count >= Self.nonceLength + Self.tagLength
        else { throw .malformed }
        guard let key = keys.first(where: { $0.id == parts[1] }) else { throw .unknownKey(String(parts[1])) }
        let bytes = Array(data)
        let nonce = Array(bytes.prefix(Self.nonceLength))
        let tag = Array(bytes.suffix(Self.tagLength))
        let ciphertext = Array(bytes[Self.nonceLength..<(bytes.count - Self.tagLength)])
        return try Self.crypt(
            encrypt: false, key.bytes, nonce: nonce, input: ciphertext, aad: Array(context.utf8), tag: tag
        ).output
    }

    /// One AES-256-GCM pass: encrypts (answering the tag) or decrypts (checking `tag`).
    private static func crypt(
        encrypt: Bool, _ key: [UInt8], nonce: [UInt8], input: [UInt8], aad: [UInt8], tag: [UInt8]?
    ) throws(Failure) -> (output: [UInt8], tag: [UInt8]) {
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let initialise = encrypt ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        guard initialise(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw .crypto(encrypt ? "EVP_EncryptInit_ex" : "EVP_DecryptInit_ex")
        }
        var length: Int32 = 0
        let update = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate
        if !aad.isEmpty {
            guard update(context, nil, &length, aad, Int32(aad.count)) == 1 else { throw .crypto("EVP_CipherUpdate") }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            guard update(context, &output, &written, input, Int32(input.count)) == 1 else {
                throw .crypto("EVP_CipherUpdate")
            }
        }
        if var tag, !encrypt {
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &tag) == 1 else {
                throw .crypto("EVP_CIPHER_CTX_ctrl")
            }
        }
        var final: Int32 = 0
        let finish = encrypt ? EVP_EncryptFinal_ex : EVP_DecryptFinal_ex
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            finish(context, buffer.baseAddress! + Int(written), &final)
        }
        // A failed final step of a decryption is the tag not matching: the value or its context was changed.
        guard finished == 1 else { throw encrypt ? .crypto("EVP_EncryptFinal_ex") : .notAuthentic }
        output = Array(output.prefix(Int(written + final)))
        guard encrypt else { return (output, []) }
        var produced = [UInt8](repeating: 0, count: tagLength)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &produced) == 1 else {
            throw .crypto("EVP_CIPHER_CTX_ctrl")
        }
        return (output, produced)
    }
}
