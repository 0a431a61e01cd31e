import Foundation

/// The access tokens the sandbox's token endpoint issued: random opaque strings (shaped like Google's
/// `ya29.` tokens; clients must not look inside) bound to what the grant allowed, valid for ``lifetime``.
///
/// The same assertion presented again while its token lives gets that token back, its `expires_in`
/// counting down, as Google's endpoint answers a repeated grant. A value type; the sandbox keeps it locked.
struct FCMAccessTokens: Sendable {
    /// One issued token.
    struct Issued: Sendable, Equatable {
        /// What its grant allowed.
        var grant: FCMTokenGrantValidator.Grant
        /// When it stops working (real time).
        var expiresAt: Date
    }

    /// Seconds a token is valid (Google: one hour).
    var lifetime: TimeInterval = 3600
    /// Most tokens kept; beyond it expired ones are forgotten first, then all of them, so a client minting a
    /// grant per request cannot grow the table without bound.
    var limit = 10_000
    private var tokens: [String: Issued] = [:]
    private var byAssertion: [String: String] = [:]

    /// Tokens issued and not yet forgotten (expired ones included until pruned).
    var count: Int { tokens.count }

    /// Issues a token for an accepted grant, or returns the live one issued for the same assertion.
    /// - Parameters:
    ///   - grant: What the token may do.
    ///   - assertion: The JWT it was exchanged for.
    ///   - now: Real time.
    /// - Returns: The token and its `expires_in`: whole seconds left, less one (Google answers 3599 for a new token).
    mutating func issue(
        _ grant: FCMTokenGrantValidator.Grant, assertion: String, now: Date
    ) -> (token: String, expiresIn: Int) {
        if let known = byAssertion[assertion], let issued = tokens[known], issued.expiresAt > now, issued.grant == grant
        {
            return (known, Self.expiresIn(issued.expiresAt, now: now))
        }
        if tokens.count >= limit {
            tokens = tokens.filter { $0.value.expiresAt > now }
            byAssertion = byAssertion.filter { tokens[$0.value] != nil }
            if tokens.count >= limit {
                tokens = [:]
                byAssertion = [:]
            }
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let token =
            "ya29."
            + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let issued = Issued(grant: grant, expiresAt: now.addingTimeInterval(lifetime))
        tokens[token] = issued
        byAssertion[assertion] = token
        return (token, Self.expiresIn(issued.expiresAt, now: now))
    }

    /// The token's grant while it is valid.
    /// - Returns: nil for a token never issued, or expired at `now`.
    func lookup(_ token: String, now: Date) -> Issued? {
        guard let issued = tokens[token], issued.expiresAt > now else { return nil }
        return issued
    }

    /// Forgets every token: later sends with them get 401 `UNAUTHENTICATED` (as after a key was deleted).
    mutating func revokeAll() {
        tokens = [:]
        byAssertion = [:]
    }

    private static func expiresIn(_ expiresAt: Date, now: Date) -> Int {
        max(0, Int(expiresAt.timeIntervalSince(now).rounded(.up)) - 1)
    }
}
