public import Foundation

/// The outcome of one grant tried at start-up (``FCMClient/verifyCredentials()``), for one service account.
///
/// A server stops on ``isRefused`` (showing ``description``: Google's reason, never key material), reports
/// ``isRetryable`` in health and tries again, and carries on when ``isGranted``.
public struct FCMCredentialCheck: Sendable, Hashable, CustomStringConvertible {
    /// The account's project.
    public let projectID: String
    /// The account's e-mail.
    public let clientEmail: String
    /// Where the account was read from, if known.
    public let source: String?
    /// Why the grant failed; nil when it succeeded.
    public let error: FCMAccessTokenError?
    /// The granted token's lifetime in seconds (`expires_in`); nil when the grant failed.
    public let lifetime: TimeInterval?

    /// Creates a check result.
    public init(
        projectID: String, clientEmail: String, source: String?, error: FCMAccessTokenError?,
        lifetime: TimeInterval?
    ) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.source = source
        self.error = error
        self.lifetime = lifetime
    }

    /// True when the grant succeeded (its token is cached for the first messages).
    public var isGranted: Bool { error == nil }
    /// True when Google refused the grant, its answer was malformed or the grant could not be signed: the
    /// account (or `token_uri`, or the clock) must be fixed; trying again cannot help.
    public var isRefused: Bool { error.map { !$0.isRetryable } ?? false }
    /// True when the token endpoint was unreachable: report it and try again later.
    public var isRetryable: Bool { error?.isRetryable ?? false }

    /// `project <id> (<email>): granted, token valid N s` or `...: <error>`.
    public var description: String {
        let who = "project \(projectID) (\(clientEmail))"
        if let error { return "\(who): \(error.detail)" }
        return "\(who): granted, token valid \(Int(lifetime ?? 0)) s"
    }
}
