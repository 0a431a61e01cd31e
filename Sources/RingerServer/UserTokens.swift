public import Foundation
import JWT
public import RingerWire

/// Mints and checks user tokens: HS256 JWTs with `sub`, `iat`, `exp` and optional `name` (API.md
/// "Authentication"). The app's backend may mint them itself with the same secret.
public struct UserTokens: Sendable {
    /// The claims of a user token.
    public struct Claims: Codable, Sendable {
        /// The user id.
        public var sub: String
        /// Issued at, seconds since 1970.
        public var iat: Int64
        /// Expires at, seconds since 1970.
        public var exp: Int64
        /// Display name.
        public var name: String?
    }

    private let key: JWTSigningKey
    private let verificationKey: JWTVerificationKey
    /// Allowed clock difference with the token's issuer, seconds.
    public let leeway: TimeInterval = 60

    /// Creates the token authority.
    /// - Parameter secret: the shared HS256 secret (at least 32 bytes).
    /// - Throws: `JWTError` when the secret is unusable.
    public init(secret: String) throws {
        key = try JWTSigningKey(hmacSecret: secret)
        verificationKey = try JWTVerificationKey(hmacSecret: Array(secret.utf8))
    }

    /// Mints a token.
    /// - Parameters:
    ///   - userID: the `sub`.
    ///   - name: optional display name.
    ///   - ttl: lifetime in seconds.
    ///   - now: the issue time.
    /// - Returns: the token and its expiry.
    /// - Throws: `JWTError` if signing fails.
    public func mint(userID: String, name: String?, ttl: Int, now: Date) throws -> TokenResponse {
        let iat = Int64(now.timeIntervalSince1970)
        let claims = Claims(sub: userID, iat: iat, exp: iat + Int64(ttl), name: name)
        let token = try JWT.sign(claims, keyID: nil, type: "JWT", with: key)
        return TokenResponse(token: token, expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
    }

    /// Checks a token's signature, algorithm and times.
    /// - Returns: the claims.
    /// - Throws: ``Problem`` 401 (`unauthorized`) for any invalid, expired or not-yet-valid token.
    public func verify(_ token: String, now: Date) throws -> Claims {
        let claims: Claims
        do {
            claims = try JWT.verify(token, as: Claims.self, algorithms: [.hs256]) { _ in verificationKey }.claims
        } catch {
            throw APIProblem.unauthorized("the user token is not valid")
        }
        let seconds = now.timeIntervalSince1970
        guard TimeInterval(claims.exp) + leeway > seconds else {
            throw APIProblem.unauthorized("the user token has expired")
        }
        guard TimeInterval(claims.iat) - leeway <= seconds else {
            throw APIProblem.unauthorized("the user token is not valid yet")
        }
        guard UserID.isValid(claims.sub) else { throw APIProblem.unauthorized("the user token has no valid sub") }
        return claims
    }
}

/// The rules for identifiers chosen by apps (user ids, device ids) and display names.
public enum UserID {
    /// Longest display name, in characters; longer names in foreign tokens are cut.
    public static let maximumNameLength = 64

    /// 1…128 characters of letters, digits and `._:@-`.
    public static func isValid(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == 46 || byte == 95 || byte == 58 || byte == 64 || byte == 45
        }
    }
}
