/// Checks a token's time claims against a clock; all times are whole seconds since 1970 (NumericDate,
/// RFC 7519 §2).
///
/// Each token kind sets its own policy, e.g. APNs provider tokens: `requiresIssuedAt: true,
/// maximumAge: 3600` (Apple rejects tokens issued more than an hour ago); user tokens:
/// `requiresExpiration: true`. A value type; safe to share.
public struct JWTClaimsValidator: Sendable, Equatable {
    /// Clock skew tolerated in every comparison, in seconds.
    public var leeway: Int64
    /// How long after `iat` a token is accepted, in seconds; `nil` for no limit.
    public var maximumAge: Int64?
    /// Whether a token without `exp` is rejected.
    public var requiresExpiration: Bool
    /// Whether a token without `iat` is rejected.
    public var requiresIssuedAt: Bool

    /// Creates a policy.
    /// - Parameters:
    ///   - leeway: Clock skew tolerated, in seconds (60 by default).
    ///   - maximumAge: Maximum age after `iat`, in seconds, or `nil`.
    ///   - requiresExpiration: Whether `exp` must be present.
    ///   - requiresIssuedAt: Whether `iat` must be present.
    public init(
        leeway: Int64 = 60, maximumAge: Int64? = nil, requiresExpiration: Bool = false, requiresIssuedAt: Bool = false
    ) {
        self.leeway = leeway
        self.maximumAge = maximumAge
        self.requiresExpiration = requiresExpiration
        self.requiresIssuedAt = requiresIssuedAt
    }

    /// Checks the claims at time `now`.
    /// - Parameters:
    ///   - expiresAt: `exp`, seconds since 1970; valid while `now < exp + leeway` (RFC 7519 §4.1.4).
    ///   - notBefore: `nbf`, seconds since 1970; valid once `now + leeway >= nbf` (RFC 7519 §4.1.5).
    ///   - issuedAt: `iat`, seconds since 1970; must not be more than `leeway` in the future, nor more
    ///     than ``maximumAge`` + `leeway` in the past (RFC 7519 §4.1.6).
    ///   - now: The current time, seconds since 1970.
    /// - Throws: ``JWTError/missingClaim``, ``JWTError/expired``, ``JWTError/notYetValid`` or
    ///   ``JWTError/issuedTooLongAgo``.
    public func validate(expiresAt: Int64?, notBefore: Int64? = nil, issuedAt: Int64?, now: Int64) throws {
        if requiresExpiration, expiresAt == nil { throw JWTError.missingClaim("exp") }
        if requiresIssuedAt, issuedAt == nil { throw JWTError.missingClaim("iat") }
        if let expiresAt, now >= expiresAt.addingClamped(leeway) {
            throw JWTError.expired("expired \(now.subtractingClamped(expiresAt)) s ago")
        }
        if let notBefore, now.addingClamped(leeway) < notBefore {
            throw JWTError.notYetValid("valid in \(notBefore.subtractingClamped(now)) s")
        }
        if let issuedAt {
            if issuedAt > now.addingClamped(leeway) {
                throw JWTError.notYetValid("issued \(issuedAt.subtractingClamped(now)) s in the future")
            }
            if let maximumAge, now > issuedAt.addingClamped(maximumAge).addingClamped(leeway) {
                throw JWTError.issuedTooLongAgo(
                    "issued \(now.subtractingClamped(issuedAt)) s ago, limit \(maximumAge) s")
            }
        }
    }
}

extension Int64 {
    /// Adds without trapping: claims come from untrusted tokens and may be near `Int64.max`.
    fileprivate func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// Subtracts without trapping, for the numbers in error details.
    fileprivate func subtractingClamped(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
