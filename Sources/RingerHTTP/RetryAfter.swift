public import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): delta-seconds, or an HTTP-date (IMF-fixdate, and the
/// obsolete RFC 850 and asctime forms RFC 9110 §5.6.7 asks recipients to accept), as FCM and webhook receivers
/// send it.
public enum RetryAfter {
    /// Seconds to wait; nil for an absent or unreadable value. A date in the past gives 0.
    /// - Parameters:
    ///   - value: the header's value.
    ///   - now: the time a date is measured from.
    public static func seconds(_ value: String?, now: Date) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ (48...57).contains($0) }) {
            // Absurd values (beyond a day) are clamped rather than overflowing; no retry waits that long anyway.
            return text.utf8.count > 9 ? 86_400 : min(TimeInterval(text) ?? 86_400, 86_400)
        }
        return HTTPDate.parse(text).map { max(0, $0.timeIntervalSince(now)) }
    }
}
