import Foundation

/// Why no access token could be had for a service account.
///
/// Three kinds matter to a server: the grant was **refused** (``isRefused``: the account, key or clock is
/// wrong; Google's `error` and `error_description` say which; sending again cannot help), the token endpoint
/// was **unreachable** (``isRetryable``: no answer, a transport failure, a 429 or 5xx; try again later), or
/// its answer was **malformed** (a 200 without a usable token: `token_uri` points at something that is not an
/// OAuth2 token endpoint; not retryable). Messages never contain the grant, the token or key material.
public struct FCMAccessTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case refused, unreachable, timedOut, malformedAnswer, signing
    }

    private let code: Code
    /// For operators: what happened, with Google's reason when there is one.
    public let detail: String
    /// The token endpoint's HTTP status; nil when it did not answer.
    public let status: Int?
    /// Google's `error` for a refused grant, e.g. `invalid_grant`, `invalid_scope`, `unsupported_grant_type`
    /// (RFC 6749 §5.2); nil otherwise or when the answer had none.
    public let oauthError: String?
    /// Google's `error_description`, e.g. `Invalid JWT Signature.`; nil when absent.
    public let oauthErrorDescription: String?

    private init(
        _ code: Code, _ detail: String, status: Int? = nil, oauthError: String? = nil,
        oauthErrorDescription: String? = nil
    ) {
        self.code = code
        self.detail = detail
        self.status = status
        self.oauthError = oauthError
        self.oauthErrorDescription = oauthErrorDescription
    }

    /// The token endpoint refused the grant (any answer but 200, 429 and 5xx).
    /// - Parameters:
    ///   - status: its HTTP status (400 or 401 at Google).
    ///   - error: its `error`, if any.
    ///   - description: its `error_description`, if any.
    ///   - account: the `client_email`, to say which account (not secret).
    static func refused(status: Int, error: String?, description: String?, account: String) -> FCMAccessTokenError {
        let reason = [error, description].compactMap { $0 }.joined(separator: ": ")
        return FCMAccessTokenError(
            .refused,
            "the token endpoint refused the grant of \(account) (HTTP \(status)"
                + (reason.isEmpty ? ")" : ", \(reason))"),
            status: status, oauthError: error, oauthErrorDescription: description)
    }

    /// The token endpoint could not be reached or answered 429/5xx.
    static func unreachable(_ detail: String, status: Int? = nil) -> FCMAccessTokenError {
        FCMAccessTokenError(.unreachable, "the token endpoint is unreachable: " + detail, status: status)
    }

    /// No token arrived within the caller's deadline; the grant goes on for later callers.
    static func timedOut(after seconds: Double) -> FCMAccessTokenError {
        FCMAccessTokenError(.timedOut, "no access token within \(String(format: "%.1f", seconds)) s")
    }

    /// The token endpoint answered 200 without a usable token.
    static func malformedAnswer(_ detail: String, status: Int) -> FCMAccessTokenError {
        FCMAccessTokenError(
            .malformedAnswer, "the token endpoint's answer is not an OAuth2 token: " + detail,
            status: status)
    }

    /// The grant could not be signed (an OpenSSL failure with a key that parsed).
    static func signing(_ detail: String) -> FCMAccessTokenError {
        FCMAccessTokenError(.signing, "the grant cannot be signed: " + detail)
    }

    /// A refused grant, whatever Google said: compare with `==` (`error == .refused`).
    public static let refused = FCMAccessTokenError(.refused, "the token endpoint refused the grant")
    /// An unreachable token endpoint, for comparisons.
    public static let unreachable = FCMAccessTokenError(.unreachable, "the token endpoint is unreachable")
    /// A malformed answer, for comparisons.
    public static let malformedAnswer = FCMAccessTokenError(
        .malformedAnswer, "the token endpoint's answer is not an OAuth2 token")
    /// No token within the caller's deadline, for comparisons.
    public static let timedOut = FCMAccessTokenError(.timedOut, "no access token in time")
    /// A signing failure, for comparisons.
    public static let signing = FCMAccessTokenError(.signing, "the grant cannot be signed")

    /// True when Google refused the grant: stop (at start-up) and show ``detail``; a retry cannot help.
    public var isRefused: Bool { code == .refused }

    /// True when asking again later may work: the endpoint was unreachable, overloaded, or too slow for
    /// this caller.
    public var isRetryable: Bool { code == .unreachable || code == .timedOut }

    /// Equal when the kinds are equal; detail, status and Google's texts are ignored.
    public static func == (lhs: FCMAccessTokenError, rhs: FCMAccessTokenError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// ``detail``: safe to log.
    public var description: String { detail }
}
