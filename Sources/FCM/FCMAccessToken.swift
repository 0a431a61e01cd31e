public import Foundation

/// An OAuth2 access token for FCM, as the token endpoint issued it (`access_token`, `expires_in`,
/// `token_type`; RFC 6749 §5.1). Secret: its ``description`` hides ``value``.
public struct FCMAccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The token (`ya29.…` at Google), sent as `authorization: Bearer <value>`. Never log it.
    public let value: String
    /// Seconds it was valid for when issued (`expires_in`; 3599 at Google).
    public let lifetime: TimeInterval

    /// Creates a token.
    /// - Parameters:
    ///   - value: the `access_token`.
    ///   - lifetime: the `expires_in`, in seconds.
    public init(value: String, lifetime: TimeInterval) {
        self.value = value
        self.lifetime = lifetime
    }

    /// The `authorization` header value: `Bearer <value>` (RFC 6750 §2.1).
    public var authorization: String { "Bearer " + value }

    /// `FCMAccessToken(<redacted>, lifetime N s)`.
    public var description: String { "FCMAccessToken(<redacted>, lifetime \(Int(lifetime)) s)" }
}
