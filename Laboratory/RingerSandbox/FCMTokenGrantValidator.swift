import Foundation
import JWT

/// Google's OAuth 2.0 token endpoint rules for a service account's JWT grant, as the FCM sandbox applies them
/// to one `POST /token` (RFC 7523; Google: "Using OAuth 2.0 for Server to Server Applications").
///
/// Pure: the caller supplies the request, the trusted accounts, the audiences it answers to and the time.
struct FCMTokenGrantValidator: Sendable {
    /// The grant type of RFC 7523 §2.1.
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The audience Google's own client libraries put in every grant, wherever the file's `token_uri` points
    /// (google-auth's service-account credentials do so); Google accepts it.
    static let googleTokenURI = "https://oauth2.googleapis.com/token"
    /// The scopes that let an access token call `messages:send` (Google: FCM HTTP v1 "Authorization scopes").
    static let messagingScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging",
        "https://www.googleapis.com/auth/cloud-platform",
    ]

    /// What an accepted grant allows.
    struct Grant: Sendable, Equatable {
        /// The account's email (`iss`).
        var clientEmail: String
        /// The projects its access token may send to.
        var projectIDs: Set<String>
        /// The scopes granted (the grant's `scope`, split on spaces).
        var scopes: Set<String>
    }

    /// A refusal in Google's OAuth 2.0 error shape (RFC 6749 §5.2): `{"error", "error_description"}`.
    struct Rejection: Error, Equatable, Sendable {
        /// HTTP status (400, or 405 for a method other than POST).
        var status: Int = 400
        /// `invalid_grant`, `invalid_scope`, `unsupported_grant_type` or `invalid_request`.
        var error: String
        /// Google's `error_description`.
        var description: String

        /// The JSON body.
        var body: [UInt8] {
            Array(
                (try? JSONSerialization.data(
                    withJSONObject: ["error": error, "error_description": description],
                    options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
        }

        static let badSignature = Rejection(error: "invalid_grant", description: "Invalid JWT Signature.")
        static let accountNotFound = Rejection(error: "invalid_grant", description: "Invalid grant: account not found")
        static let badLifetime = Rejection(
            error: "invalid_grant",
            description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                + "Check your iat and exp values in the JWT claim.")
        static let badAudience = Rejection(error: "invalid_grant", description: "Invalid JWT: Failed audience check.")
        static let malformed = Rejection(error: "invalid_grant", description: "Bad Request")
        static let badScope = Rejection(
            error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided.")
    }

    /// The claims of a grant, each optional so that a wrong type is judged by the rules below rather than by
    /// the decoder.
    private struct Claims: Decodable {
        var iss: String?
        var aud: String?
        var scope: String?
        var iat: Int64?
        var exp: Int64?

        private enum CodingKeys: String, CodingKey { case iss, aud, scope, iat, exp }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func time(_ key: CodingKeys) -> Int64? {
                if let whole = try? container.decodeIfPresent(Int64.self, forKey: key) { return whole }
                return (try? container.decodeIfPresent(Double.self, forKey: key))?.flatMap {
                    $0.isFinite && abs($0) < 1e15 ? Int64($0) : nil
                }
            }
            iss = try? container.decodeIfPresent(String.self, forKey: .iss)
            aud = try? container.decodeIfPresent(String.self, forKey: .aud)
            scope = try? container.decodeIfPresent(String.self, forKey: .scope)
            iat = time(.iat)
            exp = time(.exp)
        }
    }

    /// Seconds an `iat` may lie in the future (the client's clock may run a little ahead).
    var clockSkew: Int64 = 60
    /// Longest lifetime a grant may ask for, `exp - iat`, in seconds (Google: 60 minutes).
    var maximumLifetime: Int64 = 3600

    /// Checks one token request in the order Google's endpoint reports problems: method, grant type,
    /// assertion, issuer, key and signature, audience, lifetime, scope.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - body: The `application/x-www-form-urlencoded` body.
    ///   - accounts: The trusted accounts (one entry per key; an account may have several).
    ///   - audiences: The `aud` values accepted for every account: the sandbox's token URLs.
    ///   - now: The time (real time; grants are about the client's clock, not a scenario's).
    /// - Returns: What the access token may do.
    /// - Throws: ``Rejection``.
    func validate(
        method: String, body: [UInt8], accounts: [FCMSandboxServiceAccount], audiences: Set<String>,
        now: Date
    ) throws(Rejection) -> Grant {
        guard method == "POST" else {
            throw Rejection(
                status: 405, error: "invalid_request", description: "The token endpoint takes POST requests.")
        }
        let form = Self.formFields(body)
        let grantType = form["grant_type"] ?? ""
        guard grantType == Self.grantType else {
            throw Rejection(
                error: "unsupported_grant_type", description: "Invalid grant_type: \(grantType.prefix(100))")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            throw Rejection(error: "invalid_request", description: "Missing required parameter: assertion")
        }
        let unverified: (header: JWTHeader, claims: Claims)
        do {
            unverified = try JWT.decodeUnverified(assertion, as: Claims.self)
        } catch {
            throw Rejection.malformed
        }
        guard let issuer = unverified.claims.iss, accounts.contains(where: { $0.clientEmail == issuer }) else {
            throw Rejection.accountNotFound
        }
        // The header's kid picks the key; Google signs nothing without one, and the sandbox insists on it.
        guard let kid = unverified.header.kid,
            let account = accounts.first(where: { $0.clientEmail == issuer && $0.keyID == kid })
        else {
            throw Rejection.badSignature
        }
        let claims: Claims
        do {
            claims = try JWT.verify(assertion, as: Claims.self, algorithms: [.rs256]) { _ in account.publicKey }.claims
        } catch {
            throw Rejection.badSignature
        }
        var accepted = audiences
        accepted.insert(Self.googleTokenURI)
        if let own = account.tokenURI { accepted.insert(own) }
        guard let audience = claims.aud, accepted.contains(audience) else { throw Rejection.badAudience }
        let current = Int64(now.timeIntervalSince1970.rounded(.down))
        guard let issuedAt = claims.iat, let expiresAt = claims.exp, issuedAt <= current + clockSkew,
            expiresAt > current, expiresAt > issuedAt, expiresAt - issuedAt <= maximumLifetime
        else {
            throw Rejection.badLifetime
        }
        let scopes = Set((claims.scope ?? "").split(separator: " ").map(String.init))
        guard !scopes.isEmpty, scopes.allSatisfy({ $0.hasPrefix("https://www.googleapis.com/auth/") }) else {
            throw Rejection.badScope
        }
        // Every key of the account carries the same projects; join them in case entries disagree.
        let projects = accounts.filter { $0.clientEmail == issuer }.reduce(into: Set<String>()) {
            $0.formUnion($1.projectIDs)
        }
        return Grant(clientEmail: issuer, projectIDs: projects, scopes: scopes)
    }

    /// The fields of an `application/x-www-form-urlencoded` body (`+` is a space, then percent-decoding;
    /// WHATWG URL "application/x-www-form-urlencoded parsing"). A field that does not decode is left out; a
    /// repeated name keeps its first value.
    static func formFields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String? {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : "") else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}
