import Foundation

/// FCM's delivery rules for accepted messages, as the sandbox applies them: when a message reaches the phone
/// given how the phone can be reached, what FCM stores meanwhile, when it gives up, and when it demotes an
/// app's high-priority messages (Google: "Optimize for Doze and App Standby", "Setting the priority of a
/// message", "Setting the lifespan of a message", "Non-collapsible and collapsible messages").
///
/// - online: every message is delivered at once.
/// - dozing: HIGH messages are delivered at once; NORMAL ones are stored until the next maintenance window
///   or until Doze ends.
/// - offline: every message is stored until the phone is back (a HIGH one as soon as it is back, even dozing).
/// - A stored message whose `ttl` ran out is dropped; `ttl` 0 means "now or never": such a message is never
///   stored. A newer message with the same `collapse_key` replaces a stored one; past
///   ``Rules/storedMessageLimit`` stored messages FCM discards all of them.
/// - Demotion (Google publishes no numbers): a HIGH message whose receipt is not `.userVisible` is a misuse;
///   ``Rules/demotionThreshold`` misuses within ``Rules/demotionWindow`` seconds demote the app (its project
///   and package): for the next `demotionWindow` seconds its HIGH messages are delivered as NORMAL, after
///   which the count starts afresh.
///
/// Pure: the caller passes in every reachability and time (the sandbox's expiry clock, scenario time), and
/// hands the returned messages to the phone. A value type.
struct FCMDeliveryQueue: Sendable {
    /// The numbers of the rules.
    struct Rules: Sendable, Equatable {
        /// Misuses that demote an app (default 5).
        var demotionThreshold = 5
        /// Seconds within which they must fall, and how long the demotion lasts (default 3600).
        var demotionWindow: TimeInterval = 3600
        /// Messages stored per device beyond which all of them are discarded (Google: 100).
        var storedMessageLimit = 100
    }

    /// An app as FCM tells them apart: its Firebase project and Android package.
    struct App: Hashable, Sendable {
        var projectID: String
        var packageName: String
    }

    var rules: Rules
    /// The state of every message accepted, by name.
    private(set) var states: [String: FCMSandboxDeliveryState] = [:]
    /// Messages held per token, oldest first.
    private var stored: [String: [FCMSandboxMessage]] = [:]
    private var misuses: [App: [Date]] = [:]
    private var demotedUntil: [App: Date] = [:]

    init(rules: Rules = Rules()) {
        self.rules = rules
    }

    /// The priority FCM delivers a new message with: the requested one, unless the app is demoted (then
    /// HIGH becomes NORMAL). Ends a demotion whose time is up.
    mutating func deliveryPriority(
        _ requested: FCMSandboxMessage.Priority, app: App, now: Date
    ) -> FCMSandboxMessage.Priority {
        guard let until = demotedUntil[app] else { return requested }
        guard now < until else {
            demotedUntil[app] = nil
            misuses[app] = nil
            return requested
        }
        return .normal
    }

    /// Whether the app's HIGH messages are delivered as NORMAL at `now`.
    func isDemoted(_ app: App, now: Date) -> Bool {
        demotedUntil[app].map { now < $0 } ?? false
    }

    /// Takes a newly accepted message (its `priority` already decided by ``deliveryPriority(_:app:now:)``).
    /// - Returns: the message when the phone takes it at once (it is then `delivering`), else nothing.
    mutating func accept(
        _ message: FCMSandboxMessage, reachability: FCMSandboxDevice.Reachability,
        now: Date
    ) -> [FCMSandboxMessage] {
        if Self.takesAtOnce(message, reachability) {
            states[message.name] = .delivering
            return [message]
        }
        guard message.ttl > 0 else {
            states[message.name] = .expired
            return []
        }
        var held = stored[message.token] ?? []
        if let key = message.collapseKey, let index = held.firstIndex(where: { $0.collapseKey == key }) {
            states[held[index].name] = .collapsed
            held.remove(at: index)
        }
        held.append(message)
        states[message.name] = .stored
        if held.count > rules.storedMessageLimit {
            for dropped in held { states[dropped.name] = .discarded }
            held = []
        }
        stored[message.token] = held
        return []
    }

    /// A message handed to the phone whose connection ended before it acknowledged it: stored again, in the order
    /// it was accepted, for delivery once the phone is back, unless its `ttl` ran out (then `expired`) or a newer
    /// stored message with its `collapse_key` replaced it (then `collapsed`).
    mutating func storeAgain(_ message: FCMSandboxMessage, now: Date) {
        guard message.expiresAt >= now, message.ttl > 0 else {
            states[message.name] = .expired
            return
        }
        var held = stored[message.token] ?? []
        if let key = message.collapseKey, held.contains(where: { $0.collapseKey == key }) {
            states[message.name] = .collapsed
            return
        }
        let index = held.firstIndex { $0.acceptedAt > message.acceptedAt } ?? held.endIndex
        held.insert(message, at: index)
        states[message.name] = .stored
        stored[message.token] = held
    }

    /// The phone's reachability changed (or a maintenance window opened, for ``maintenanceWindow(token:now:)``).
    /// - Returns: the stored messages it takes now, oldest first (they become `delivering`); expired ones
    ///   become `expired`.
    mutating func release(token: String, reachability: FCMSandboxDevice.Reachability, now: Date) -> [FCMSandboxMessage]
    {
        guard let held = stored[token], !held.isEmpty else { return [] }
        var due: [FCMSandboxMessage] = []
        var kept: [FCMSandboxMessage] = []
        for message in held {
            if message.expiresAt < now {
                states[message.name] = .expired
            } else if Self.takesAtOnce(message, reachability) {
                states[message.name] = .delivering
                due.append(message)
            } else {
                kept.append(message)
            }
        }
        stored[token] = kept.isEmpty ? nil : kept
        return due
    }

    /// A Doze maintenance window of a dozing phone: it takes everything stored that has not expired.
    /// - Returns: the messages, oldest first.
    mutating func maintenanceWindow(token: String, now: Date) -> [FCMSandboxMessage] {
        release(token: token, reachability: .online, now: now)
    }

    /// Marks every stored message whose `ttl` ran out as `expired` (so listings are current).
    mutating func expire(now: Date) {
        for token in Array(stored.keys) {
            let held = stored[token] ?? []
            let (gone, kept) = (held.filter { $0.expiresAt < now }, held.filter { $0.expiresAt >= now })
            for message in gone { states[message.name] = .expired }
            stored[token] = kept.isEmpty ? nil : kept
        }
    }

    /// The token was deleted: what FCM stored for it is never delivered.
    mutating func discard(token: String) {
        for message in stored.removeValue(forKey: token) ?? [] { states[message.name] = .discarded }
    }

    /// Messages stored for a token, oldest first.
    func storedMessages(token: String) -> [FCMSandboxMessage] {
        stored[token] ?? []
    }

    /// Every token with stored messages.
    var tokensWithStoredMessages: [String] { Array(stored.keys) }

    /// Records what the phone made of a message; a HIGH one that showed the user nothing counts towards
    /// demotion.
    /// - Parameters:
    ///   - receipt: the phone's receipt; nil for a device without a receiver (never a misuse).
    ///   - message: the message as delivered.
    ///   - app: the app of its token.
    ///   - now: the expiry clock.
    mutating func record(_ receipt: FCMSandboxReceipt?, for message: FCMSandboxMessage, app: App, now: Date) {
        states[message.name] = .delivered(receipt)
        guard message.priority == .high, let receipt, receipt != .userVisible else { return }
        var recent = (misuses[app] ?? []).filter { now.timeIntervalSince($0) < rules.demotionWindow }
        recent.append(now)
        if recent.count >= rules.demotionThreshold {
            demotedUntil[app] = now.addingTimeInterval(rules.demotionWindow)
            recent = []
        }
        misuses[app] = recent
    }

    private static func takesAtOnce(_ message: FCMSandboxMessage, _ reachability: FCMSandboxDevice.Reachability) -> Bool
    {
        switch reachability {
        case .online: true
        case .dozing: message.priority == .high
        case .offline: false
        }
    }
}
