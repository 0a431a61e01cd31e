public import Foundation

/// The FCM sandbox's model of one registration token: its Firebase project, its app, how well the phone
/// can receive right now, and where accepted messages go.
public struct FCMSandboxDevice: Sendable {
    /// How the phone is reachable, as FCM sees it (Google: "Optimize for Doze and App Standby").
    public enum Reachability: String, Sendable, Codable, Hashable {
        /// Awake and connected: every message is delivered at once.
        case online
        /// In Doze: high-priority messages are delivered at once; normal-priority ones wait for the next
        /// maintenance window (or the end of Doze), unless their `ttl` runs out first.
        case dozing
        /// Off or without network: messages wait until it is back, unless their `ttl` runs out first.
        case offline
    }

    /// The registration token as the app got it from Firebase.
    public var token: String
    /// The Firebase project the token belongs to: a message sent through another project gets
    /// `SENDER_ID_MISMATCH`.
    public var projectID: String
    /// The app's package name (`android.restricted_package_name` must match it when given).
    public var packageName: String
    /// Set once the app was uninstalled or the token deleted: later sends get 404 `UNREGISTERED`.
    public var unregisteredAt: Date?
    /// How the phone is reachable now.
    public var reachability: Reachability
    /// Receives accepted messages when they are due; nil to only record them. Returns what became of
    /// the message on the phone.
    public var deliver: (@Sendable (FCMSandboxMessage) async -> FCMSandboxReceipt)?

    /// Creates a device entry.
    public init(
        token: String, projectID: String, packageName: String = "dev.ringer.demo",
        reachability: Reachability = .online,
        deliver: (@Sendable (FCMSandboxMessage) async -> FCMSandboxReceipt)? = nil
    ) {
        self.token = token
        self.projectID = projectID
        self.packageName = packageName
        self.reachability = reachability
        self.deliver = deliver
    }
}
