import Foundation
import JWT

/// Shared helpers for the JWT and DevCertificates tests.
enum TestSupport {
    /// Decodes base64url with Foundation (independent of the library's own decoder).
    static func base64URLDecode(_ text: some StringProtocol) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    /// Encodes base64url without padding with Foundation.
    static func base64URLEncode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Bytes from a hex string such as "0b0b0b".
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Runs `body` with a fresh directory that is removed afterwards.
    static func withTemporaryDirectory<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-jwt-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// One RSA key for the whole test run: generating 2048-bit keys is the slow part.
    static let rsaKey = Result { try JWTSigningKey.generateRSA() }

    /// A fresh signing key for `algorithm`.
    static func signingKey(_ algorithm: JWTAlgorithm) throws -> JWTSigningKey {
        switch algorithm {
        case .es256: try JWTSigningKey.generateP256()
        case .rs256: try rsaKey.get()
        case .hs256: try JWTSigningKey(hmacSecret: Array("a-32-byte-or-longer-test-secret!".utf8))
        }
    }

    /// The key that verifies `key`'s tokens.
    static func verificationKey(for key: JWTSigningKey) throws -> JWTVerificationKey {
        key.algorithm == .hs256
            ? try JWTVerificationKey(hmacSecret: Array("a-32-byte-or-longer-test-secret!".utf8))
            : try key.publicKey()
    }
}

/// The claims of a Ringer user token (docs/openapi.yaml `components/securitySchemes`: sub, iat, exp, optional name).
struct UserClaims: Codable, Equatable {
    var sub: String
    var name: String?
    var iat: Int64
    var exp: Int64
}

/// The claims of an APNs provider token (iss = team ID, iat).
struct ProviderClaims: Codable, Equatable {
    var iss: String
    var iat: Int64
}
