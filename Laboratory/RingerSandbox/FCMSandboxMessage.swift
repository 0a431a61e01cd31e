public import Foundation

/// An FCM message the sandbox accepted for one registration token, as Google Play services on the phone
/// receives it (FCM HTTP v1 `projects.messages`; Google: "About FCM messages").
///
/// Only what a phone can see is kept: the data map (every value a string), the optional `notification`
/// block the system shows by itself, and the Android delivery options that decide when it arrives.
public struct FCMSandboxMessage: Sendable, Codable, Hashable {
    /// `android.priority` (Google: "Setting the priority of a message").
    public enum Priority: String, Sendable, Codable, Hashable {
        /// Delivered at once, waking a dozing phone; the app may start a foreground service.
        case high = "HIGH"
        /// Delivered when the phone is awake; a dozing phone gets it in its next maintenance window.
        case normal = "NORMAL"
    }

    /// The system-displayed part of a message (`notification.title`, `notification.body`).
    public struct Notification: Sendable, Codable, Hashable {
        /// The title, if any.
        public var title: String?
        /// The body text, if any.
        public var body: String?

        /// Creates a notification block.
        public init(title: String?, body: String?) {
            self.title = title
            self.body = body
        }
    }

    /// The message's resource name, `projects/<project>/messages/<id>`, as `messages:send` answered it.
    public var name: String
    /// The Firebase project id of the request path.
    public var projectID: String
    /// The registration token it was sent to.
    public var token: String
    /// `data`: keys and values exactly as sent.
    public var data: [String: String]
    /// `notification`, or nil for a data-only message.
    public var notification: Notification?
    /// The priority the sender asked for (`android.priority`; when absent Google's default: HIGH for a message
    /// with a notification, NORMAL for data only).
    public var requestedPriority: Priority
    /// The priority FCM delivers it with: `requestedPriority`, unless FCM demoted a high-priority message
    /// because the app's earlier ones led to nothing the user could see.
    public var priority: Priority
    /// `android.ttl` in seconds: how long FCM keeps it for a phone that cannot take it now (offline,
    /// dozing for a normal-priority message). 0 means "now or never". FCM's default is 4 weeks.
    public var ttl: TimeInterval
    /// `android.collapse_key`, if any: a newer message with the same key replaces a stored one.
    public var collapseKey: String?
    /// When the sandbox accepted it, on the sandbox's expiry clock (scenario time).
    public var acceptedAt: Date

    /// Creates a message record (the sandbox builds these; tests may too).
    public init(
        name: String, projectID: String, token: String, data: [String: String],
        notification: Notification? = nil, requestedPriority: Priority, priority: Priority,
        ttl: TimeInterval, collapseKey: String? = nil, acceptedAt: Date
    ) {
        self.name = name
        self.projectID = projectID
        self.token = token
        self.data = data
        self.notification = notification
        self.requestedPriority = requestedPriority
        self.priority = priority
        self.ttl = ttl
        self.collapseKey = collapseKey
        self.acceptedAt = acceptedAt
    }

    /// The instant after which FCM no longer delivers it (`acceptedAt` + `ttl`).
    public var expiresAt: Date { acceptedAt.addingTimeInterval(ttl) }
}

/// What became of a message a phone was handed, as the phone reports it back to the sandbox.
///
/// FCM learns whether high-priority messages lead to something the user sees and demotes an app's
/// high-priority messages after repeated misuse (Google: "Setting the priority of a message": "If FCM
/// detects a pattern in which high priority messages do not result in notifications, your messages may be
/// deprioritized"), so the sandbox counts these.
public enum FCMSandboxReceipt: Sendable, Hashable, Codable {
    /// The message led to something the user can see: a notification or a ringing call.
    case userVisible
    /// The app received it and showed nothing.
    case silent
    /// The phone did not hand it to the app (the app is force-stopped, say); the reason in words.
    case notDelivered(String)
    /// The phone's connection ended before it acknowledged the message (switched off or out of coverage mid-delivery):
    /// FCM keeps such a message and delivers it again once the phone is back, within its `ttl`. The sandbox
    /// stores it again; it is never a message's final receipt.
    case connectionLost
}
