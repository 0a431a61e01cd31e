import JWT
import RingerSync

/// Provider tokens whose ES256 signature the sandbox already verified, so a token shared by thousands
/// of requests (as Apple asks: one token for up to an hour) costs one signature check, not one each.
///
/// Only the signature check is skipped: the key must still be the one that verified it, and the team
/// and `iat` age are checked on every request. Bounded: it forgets everything past ``capacity``
/// tokens. Thread-safe.
final class VerifiedProviderTokens: Sendable {
    /// What a verified token said.
    struct Entry: Sendable {
        /// The key that verified the signature (a replaced key invalidates the entry).
        var key: JWTVerificationKey
        var keyID: String
        var issuer: String
        var issuedAt: Int64
    }

    /// Most tokens remembered at once.
    let capacity: Int
    private let entries = LockedValue<[String: Entry]>([:])

    init(capacity: Int = 256) { self.capacity = capacity }

    /// The entry for `token`, if it was verified with `currentKey` for its key id.
    func entry(for token: String, currentKey: (String) -> JWTVerificationKey?) -> Entry? {
        guard let entry = entries.withLock({ $0[token] }), currentKey(entry.keyID) === entry.key else { return nil }
        return entry
    }

    /// Remembers a verified token.
    func remember(_ token: String, _ entry: Entry) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[token] = entry
        }
    }
}
