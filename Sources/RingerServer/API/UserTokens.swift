public import Foundation
import JWT
public import RingerWire
import RingerSupport

/// Mints and checks user tokens (docs/openapi.yaml `components/securitySchemes`): JWTs with `sub`, `iat`, `exp`, optional `nbf`
/// and `name`. Ringer mints HS256 with the shared secret; the app's backend may mint HS256 with the same
/// secret, or sign ES256/RS256 with a private key whose public key the server is given (`--user-token-public-key`,
/// several for rotation, matched by the token's `kid`), so the backend never holds Ringer's secret.
///
/// Every token is checked the same way: an allowed algorithm for its key (an HS256 token is never checked
/// against a public key, RFC 8725 §2.1), the signature, `exp`, `nbf` and `iat` with 60 s of leeway (RFC 7519
/// §4.1), a lifetime (`exp - iat`) of at most ``maximumLifetime``, and a valid `sub`.
public struct UserTokens: Sendable {
    /// The claims of a user token.
    public struct Claims: Codable, Sendable {
        /// The user id.
        public var sub: String
        /// Issued at, seconds since 1970.
        public var iat: Int64
        /// Expires at, seconds since 1970.
        public var exp: Int64
        /// Not before, seconds since 1970 (optional).
        public var nbf: Int64?
        /// Display name.
        public var name: String?
    }

    /// The longest a token may live, `exp - iat` in seconds: 30 days, the longest `POST /v1/tokens` mints, so a
    /// token minted elsewhere cannot outlive what Ringer itself would grant.
    public static let maximumLifetime = 30 * 24 * 3600

    private let key: JWTSigningKey
    private let verificationKey: JWTVerificationKey
    /// The app backend's public keys by `kid`.
    private let publicKeys: [String: JWTVerificationKey]
    /// Allowed clock difference with the token's issuer, seconds.
    public let leeway: TimeInterval = 60
    /// Tokens whose algorithm, key and signature passed, with their claims: an app sends its token with every
    /// request, and decoding the claims with `JSONDecoder` cost more than the HMAC (issue 33). Keyed by the whole
    /// token, so only the very bytes that were checked are taken from it; the times are checked again every time.
    private let verified = VerifiedTokens()

    /// The verified tokens kept at most; past that the cache starts again empty (a server with more active users
    /// than this decodes some tokens twice, nothing worse).
    static let verifiedTokensKept = 4096

    private final class VerifiedTokens: Sendable {
        private let claims = LockedValue<[String: Claims]>([:])

        func lookUp(_ token: String) -> Claims? { claims.withLock { $0[token] } }

        func keep(_ token: String, _ value: Claims) {
            claims.withLock { kept in
                if kept.count >= UserTokens.verifiedTokensKept { kept.removeAll(keepingCapacity: true) }
                kept[token] = value
            }
        }

        func forget(_ token: String) { _ = claims.withLock { $0.removeValue(forKey: token) } }
    }

    /// Creates the token authority that knows only the shared secret.
    /// - Parameter secret: the shared HS256 secret (at least 32 bytes).
    /// - Throws: `JWTError` when the secret is unusable.
    public init(secret: String) throws {
        try self.init(secret: secret, publicKeys: [:])
    }

    /// Creates the token authority.
    /// - Parameters:
    ///   - secret: the shared HS256 secret (at least 32 bytes).
    ///   - publicKeys: the app backend's ES256 or RS256 public keys by `kid`; empty for none.
    /// - Throws: `JWTError` when the secret is unusable.
    init(secret: String, publicKeys: [String: JWTVerificationKey]) throws {
        key = try JWTSigningKey(hmacSecret: secret)
        verificationKey = try JWTVerificationKey(hmacSecret: Array(secret.utf8))
        self.publicKeys = publicKeys
    }

    /// Reads the app backend's public keys, each `kid` its file's name without the extension
    /// (`keys/2026-12.pem` is `2026-12`).
    /// - Parameter files: SubjectPublicKeyInfo PEM files, EC P-256 or RSA of 2048 bits or more.
    /// - Returns: the keys by `kid`.
    /// - Throws: ``ConfigurationError`` naming a file that cannot be read, holds no such key, or repeats a `kid`.
    static func publicKeys(files: [String]) throws -> [String: JWTVerificationKey] {
        var keys: [String: JWTVerificationKey] = [:]
        for file in files {
            let kid = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ConfigurationError("--user-token-public-key \(file): cannot read the file")
            }
            guard let key = try? JWTVerificationKey(publicKeyPEM: pem) else {
                throw ConfigurationError(
                    "--user-token-public-key \(file): not a PEM public key (EC P-256, or RSA of 2048 bits or more)")
            }
            guard keys[kid] == nil else {
                throw ConfigurationError("--user-token-public-key \(file): another file already gives kid \(kid)")
            }
            keys[kid] = key
        }
        return keys
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

    /// Checks a token's algorithm, key, signature and times.
    /// - Returns: the claims.
    /// - Throws: ``Problem`` 401 (`unauthorized`) for any invalid, expired, not-yet-valid or too long-lived token.
    public func verify(_ token: String, now: Date) throws -> Claims {
        if let claims = verified.lookUp(token) {
            do {
                try checkTimes(claims, now: now)
            } catch {
                verified.forget(token)
                throw error
            }
            return claims
        }
        let claims: Claims
        let algorithms: Set<JWTAlgorithm> = publicKeys.isEmpty ? [.hs256] : [.hs256, .es256, .rs256]
        do {
            claims = try JWT.verify(token, as: Claims.self, algorithms: algorithms) { header in
                if header.alg == JWTAlgorithm.hs256.rawValue { return verificationKey }
                // A token without `kid` is only unambiguous while one public key is configured.
                guard
                    let key = header.kid.map({ publicKeys[$0] })
                        ?? (publicKeys.count == 1 ? publicKeys.first?.value : nil)
                else {
                    throw APIProblem.unauthorized("the user token's kid names no configured public key")
                }
                return key
            }.claims
        } catch let problem as Problem {
            throw problem
        } catch {
            throw APIProblem.unauthorized("the user token is not valid")
        }
        try checkTimes(claims, now: now)
        guard claims.exp >= claims.iat else { throw APIProblem.unauthorized("the user token's exp is before its iat") }
        let (lifetime, overflow) = claims.exp.subtractingReportingOverflow(claims.iat)
        guard !overflow, lifetime <= Int64(Self.maximumLifetime) else {
            throw APIProblem.unauthorized("the user token lives longer than \(Self.maximumLifetime) s (exp - iat)")
        }
        guard Identifier.isValid(claims.sub) else { throw APIProblem.unauthorized("the user token has no valid sub") }
        verified.keep(token, claims)
        return claims
    }

    /// `exp`, `nbf` and `iat` against `now`, with ``leeway``.
    /// - Throws: ``Problem`` 401 (`unauthorized`) for an expired or not yet valid token.
    private func checkTimes(_ claims: Claims, now: Date) throws {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let validator = JWTClaimsValidator(leeway: Int64(leeway), requiresExpiration: true, requiresIssuedAt: true)
        do {
            try validator.validate(expiresAt: claims.exp, notBefore: claims.nbf, issuedAt: claims.iat, now: seconds)
        } catch let error as JWTError where error == .expired {
            throw APIProblem.unauthorized("the user token has expired")
        } catch {
            throw APIProblem.unauthorized("the user token is not valid yet")
        }
    }
}
