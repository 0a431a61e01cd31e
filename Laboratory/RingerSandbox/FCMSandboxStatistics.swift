/// What the FCM sandbox counted since it was created (`GET /sandbox/stats`, snake_case keys).
public struct FCMSandboxStatistics: Sendable, Hashable, Codable {
    /// TCP connections the HTTP/2 port accepted.
    public var http2Connections = 0
    /// Requests to `POST /token` (faulted ones included).
    public var tokenRequests = 0
    /// Grants answered with an access token.
    public var accessTokensIssued = 0
    /// Requests to `messages:send` (faulted ones included).
    public var sendRequests = 0
    /// Requests a fault answered, delayed, held or cut.
    public var faultedRequests = 0
    /// Messages accepted for a registration token (not `validate_only`, not topics).
    public var acceptedMessages = 0
    /// Topic and condition messages accepted (delivered to no simulated phone).
    public var topicMessages = 0
    /// Accepted HIGH messages delivered as NORMAL because the app was demoted.
    public var demotedMessages = 0
    /// Messages held now for offline or dozing phones.
    public var storedMessages = 0
    /// Messages handed to a phone, receipt or not.
    public var deliveredMessages = 0
    /// Messages whose `ttl` ran out before delivery.
    public var expiredMessages = 0
    /// Stored messages replaced by a newer one with the same `collapse_key`.
    public var collapsedMessages = 0
    /// Stored messages discarded (too many stored, or the token deleted).
    public var discardedMessages = 0

    /// Creates zero counts.
    public init() {}

    /// Sets the delivery counts from the messages' states.
    mutating func count(_ states: some Sequence<FCMSandboxDeliveryState>) {
        (storedMessages, deliveredMessages, expiredMessages, collapsedMessages, discardedMessages) = (0, 0, 0, 0, 0)
        for state in states {
            switch state {
            case .stored: storedMessages += 1
            case .delivering, .delivered: deliveredMessages += 1
            case .expired: expiredMessages += 1
            case .collapsed: collapsedMessages += 1
            case .discarded: discardedMessages += 1
            }
        }
    }
}
