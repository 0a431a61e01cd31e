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
    /// Longest display name, in characters (grapheme clusters); longer names in foreign tokens are cut.
    public static let maximumNameLength = 64
    /// Longest display name in UTF-8 bytes. The name travels in every ringing push: escaped for JSON it is at
    /// most twice this (no control character is allowed), which with the rest of the `ringer` body stays far
    /// below the smallest provider limit, FCM's 4096 bytes of data (Google: "FCM messages", payload limits;
    /// APNs allows 5120 for VoIP). 64 characters of most scripts fit; 64 emoji sequences of 11 KB do not.
    public static let maximumNameBytes = 256

    /// Why `name` cannot be a display name, or nil when it can: 1…``maximumNameLength`` characters,
    /// at most ``maximumNameBytes`` bytes, no control character (U+0000–U+001F, U+007F–U+009F), which SQLite,
    /// logs and notification banners would each treat differently.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty || name.count > maximumNameLength {
            return "name must be 1 to \(maximumNameLength) characters"
        }
        if name.utf8.count > maximumNameBytes { return "name must be at most \(maximumNameBytes) bytes of UTF-8" }
        if name.unicodeScalars.contains(where: isControl) { return "name must not contain control characters" }
        return nil
    }

    /// A name from a token minted by the app's backend, made fit to ring with: control characters dropped,
    /// then cut to ``maximumNameLength`` characters and ``maximumNameBytes`` bytes at a character boundary, so
    /// a call from its user can always be pushed. Nil when nothing is left.
    public static func displayName(fromToken name: String?) -> String? {
        guard let name else { return nil }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: name.unicodeScalars.lazy.filter { !isControl($0) })
        var fitted = ""
        var bytes = 0
        for character in String(scalars).prefix(maximumNameLength) {
            bytes += character.utf8.count
            if bytes > maximumNameBytes { break }
            fitted.append(character)
        }
        return fitted.isEmpty ? nil : fitted
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    /// 1…128 characters of letters, digits and `._:@-`.
    public static func isValid(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == 46 || byte == 95 || byte == 58 || byte == 64 || byte == 45
        }
    }
}
