public import Foundation
import RingerSupport

/// A hang-up (decline, cancel or end) the user made that the server has not acknowledged yet.
///
/// Kept in a ``PendingActionStore`` until the server answers, so a decline made on the lock screen of
/// a just-woken app still reaches the caller after the app is suspended or relaunched.
public struct PendingCallAction: Codable, Hashable, Sendable {
    /// What to tell the server.
    public enum Kind: String, Codable, Sendable {
        /// Decline an incoming call (or end it, if an answer reached the server first).
        case decline
        /// Cancel an outgoing call (or end it, if the callee answered meanwhile).
        case cancel
        /// End an answered call.
        case end
    }

    /// What to tell the server.
    public var kind: Kind
    /// The call.
    public var callID: String
    /// The device that acted.
    public var deviceID: String
    /// When the user acted.
    public var createdAt: Date

    /// Creates an action.
    public init(kind: Kind, callID: String, deviceID: String, createdAt: Date) {
        self.kind = kind
        self.callID = callID
        self.deviceID = deviceID
        self.createdAt = createdAt
    }

    /// The stored file's keys, kept as the SDK first wrote them so a store survives an update of the app.
    private enum CodingKeys: String, CodingKey {
        case kind, createdAt
        case callID = "callId"
        case deviceID = "deviceId"
    }
}

/// Where unacknowledged hang-ups survive suspension and relaunch. Implementations must be thread-safe.
public protocol PendingActionStore: Sendable {
    /// Every stored action, oldest first.
    func load() -> [PendingCallAction]
    /// Replaces the stored actions.
    func save(_ actions: [PendingCallAction])
}

/// Keeps actions in memory only (tests, or apps that accept losing them on relaunch).
public final class InMemoryPendingActionStore: PendingActionStore {
    private let actions = LockedValue<[PendingCallAction]>([])

    /// Creates an empty store.
    public init() {}
    public func load() -> [PendingCallAction] { actions.snapshot }
    public func save(_ actions: [PendingCallAction]) { self.actions.withLock { $0 = actions } }
}

/// Keeps actions in a JSON file (e.g. in Application Support), written atomically on every change.
public final class FilePendingActionStore: PendingActionStore {
    private let url: URL
    private let lock = LockedValue(())

    /// Creates the store; the file is created on the first save.
    /// - Parameter url: the JSON file.
    public init(url: URL) { self.url = url }

    public func load() -> [PendingCallAction] {
        lock.withLock { _ in
            guard let data = try? Data(contentsOf: url) else { return [] }
            return (try? JSONDecoder().decode([PendingCallAction].self, from: data)) ?? []
        }
    }

    public func save(_ actions: [PendingCallAction]) {
        lock.withLock { _ in
            guard let data = try? JSONEncoder().encode(actions) else { return }
            try? data.write(to: url, options: .atomic)
        }
    }
}
