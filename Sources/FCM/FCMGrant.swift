import Foundation
import HTTP2Client
import JWT

/// The OAuth2 JWT bearer grant of a service account (RFC 7523; Google: "Using OAuth 2.0 for Server to Server
/// Applications"): the signed assertion, the form-encoded request that carries it, and the reading of the
/// token endpoint's answer. Pure apart from signing; ``FCMAccessTokenSource`` sends it and caches the result.
struct FCMGrant {
    /// The assertion's claims. `exp` - `iat` is at most one hour: Google refuses longer ones
    /// ("Invalid JWT: Token must be a short-lived token (60 minutes)...").
    struct Claims: Codable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
    }

    /// Seconds from `iat` to `exp`: Google's maximum.
    static let assertionLifetime: Int64 = 3600

    let account: FCMServiceAccount

    /// The signed assertion: header `{"alg":"RS256","kid":<private_key_id>,"typ":"JWT"}`, claims `iss` =
    /// client e-mail, `scope` = ``FCM/messagingScope``, `aud` = token URI, `iat` = `issuedAt` in whole
    /// seconds, `exp` = `iat` + 3600.
    /// - Throws: ``FCMAccessTokenError/signing(_:)`` when OpenSSL cannot sign.
    func assertion(issuedAt: Date) throws(FCMAccessTokenError) -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = Claims(
            iss: account.clientEmail, scope: FCM.messagingScope, aud: account.tokenURI,
            iat: iat, exp: iat + Self.assertionLifetime)
        do {
            return try JWT.sign(claims, keyID: account.privateKeyID, type: "JWT", with: account.key)
        } catch {
            throw .signing(String(describing: error))
        }
    }

    /// `POST <token_uri>` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>`,
    /// form-encoded (RFC 6749 Appendix B).
    func request(assertion: String, timeout: TimeInterval) -> HTTP2Request {
        let body = Self.formEncoded([("grant_type", FCM.jwtBearerGrantType), ("assertion", assertion)])
        return HTTP2Request(
            url: account.tokenURI, method: "POST",
            headers: [
                HTTP2Request.Header("content-type", "application/x-www-form-urlencoded"),
                HTTP2Request.Header("accept", "application/json"),
            ],
            body: Array(body.utf8), timeout: timeout, connectionRetries: 1)
    }

    /// Reads the token endpoint's answer: 200 `{"access_token","expires_in","token_type":"Bearer"}`, or an
    /// error `{"error","error_description"}` (RFC 6749 §5.1, §5.2).
    /// - Returns: the token.
    /// - Throws: ``FCMAccessTokenError``: `unreachable` for 429 and 5xx (Google is overloaded or failing;
    ///   retryable), `refused` carrying `error` and `error_description` for any other status, `malformedAnswer`
    ///   for a 200 without a bearer token and a positive `expires_in`.
    func token(from response: HTTP2Response) throws(FCMAccessTokenError) -> FCMAccessToken {
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard response.status == 200 else {
            if response.status == 429 || (500...599).contains(response.status) {
                throw .unreachable("it answered HTTP \(response.status)", status: response.status)
            }
            throw .refused(
                status: response.status, error: Self.text(object?["error"]),
                description: Self.text(object?["error_description"]), account: account.clientEmail)
        }
        guard let object else { throw .malformedAnswer("the body is not a JSON object", status: 200) }
        guard let value = object["access_token"] as? String, !value.isEmpty,
            !value.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E })
        else {
            throw .malformedAnswer("no access_token (printable ASCII)", status: 200)
        }
        guard
            let lifetime = (object["expires_in"] as? NSNumber)?.doubleValue
                ?? (object["expires_in"] as? String).flatMap(Double.init),
            lifetime.isFinite, lifetime > 0
        else {
            throw .malformedAnswer("no positive expires_in", status: 200)
        }
        if let type = object["token_type"] as? String, type.lowercased() != "bearer" {
            throw .malformedAnswer("token_type is \(type.prefix(32)), not Bearer", status: 200)
        }
        return FCMAccessToken(value: value, lifetime: lifetime)
    }

    /// A short printable excerpt of one of Google's strings; nil when absent or not a string.
    private static func text(_ value: Any?) -> String? {
        guard let string = value as? String, !string.isEmpty else { return nil }
        return String(string.prefix(300))
    }

    /// `application/x-www-form-urlencoded` (WHATWG URL: only unreserved characters stay as they are).
    static func formEncoded(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
        return pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}
