import Foundation
import LibWebSockets
import RingerSupport

/// One phone in another process, connected to the FCM sandbox over a WebSocket on its HTTP/1.1 port: the
/// sandbox's side of the phone's connection to Google Play services (docs/fcm.md, "The FCM sandbox").
///
/// `GET /sandbox/connect?token=<registration token>[&reachability=online|dozing|offline]` (TLS, so `wss://`),
/// for a token registered before (`POST /sandbox/devices`); otherwise the upgrade is refused with 404. While
/// connected the device's messages go to this socket; a newer socket for the same token replaces it; when it
/// closes the phone counts as offline and FCM stores its messages again.
///
/// Frames are JSON text, one object each:
/// - sandbox → phone, one per message: `{"type": "message", "name", "project_id", "token", "data": {…},
///   "notification": {"title", "body"} (only when sent), "requested_priority": "HIGH"|"NORMAL",
///   "priority": "HIGH"|"NORMAL" (as delivered, after demotion), "ttl": seconds, "collapse_key" (only when
///   sent), "accepted_at": ms since 1970, "expires_at": ms since 1970}`.
/// - phone → sandbox, one per message: `{"type": "ack", "name": <the message's name>, "receipt":
///   "userVisible"|"silent"|"notDelivered", "reason": "…" (for notDelivered)}`. A message not acknowledged
///   within ``FCMSandbox/Configuration/acknowledgementTimeout`` counts as `notDelivered`.
/// - phone → sandbox, any time: `{"type": "reachability", "reachability": "online"|"dozing"|"offline"}`.
/// - sandbox → phone, for a frame it cannot use: `{"type": "error", "error": "…"}`.
final class FCMSandboxSocket: WebSocketDelegate {
    /// The upgrade path.
    static let path = "/sandbox/connect"

    private struct Pending {
        var continuation: CheckedContinuation<FCMSandboxReceipt, Never>
        var timer: Task<Void, Never>?
    }

    /// The registration token it carries messages for.
    let token: String
    /// The server side of the WebSocket.
    let connection: WebSocketConnection
    private let acknowledgementTimeout: TimeInterval
    private let onReachability: @Sendable (FCMSandboxSocket, FCMSandboxDevice.Reachability) -> Void
    private let onClose: @Sendable (FCMSandboxSocket) -> Void
    private let pending = LockedValue<[String: Pending]>([:])

    /// Creates the delegate of one accepted upgrade.
    /// - Parameters:
    ///   - token: the registration token of `?token=`.
    ///   - connection: the accepted connection.
    ///   - acknowledgementTimeout: seconds an `ack` may take.
    ///   - onReachability: the phone reported its reachability.
    ///   - onClose: the socket closed (called once, on the libwebsockets thread).
    init(
        token: String, connection: WebSocketConnection, acknowledgementTimeout: TimeInterval,
        onReachability: @escaping @Sendable (FCMSandboxSocket, FCMSandboxDevice.Reachability) -> Void,
        onClose: @escaping @Sendable (FCMSandboxSocket) -> Void
    ) {
        self.token = token
        self.connection = connection
        self.acknowledgementTimeout = acknowledgementTimeout
        self.onReachability = onReachability
        self.onClose = onClose
    }

    /// Sends one message frame and waits for the phone's acknowledgement.
    /// - Returns: the phone's receipt; `connectionLost` when the socket is closed or closes first (FCM delivers the
    ///   message again later); `notDelivered` when the phone does not answer in time.
    func deliver(_ message: FCMSandboxMessage) async -> FCMSandboxReceipt {
        guard connection.isOpen else { return .connectionLost }
        let name = message.name
        let receipt = await withCheckedContinuation { (continuation: CheckedContinuation<FCMSandboxReceipt, Never>) in
            let earlier = pending.withLock { pending in
                let earlier = pending[name]
                pending[name] = Pending(continuation: continuation)
                return earlier
            }
            earlier?.timer?.cancel()
            earlier?.continuation.resume(returning: .notDelivered("sent again before it was acknowledged"))
            let timeout = acknowledgementTimeout
            let timer = Task { [weak self] in
                try? await Task.sleep(for: .seconds(timeout))
                guard !Task.isCancelled else { return }
                self?.resolve(name, with: .notDelivered("no acknowledgement within \(timeout) s"))
            }
            let stillPending = pending.withLock { pending in
                pending[name]?.timer = timer
                return pending[name] != nil
            }
            if !stillPending { timer.cancel() }
            connection.send(text: Self.frame(for: message))
            if !connection.isOpen { resolve(name, with: .connectionLost) }
        }
        return receipt
    }

    // MARK: WebSocketDelegate (on the libwebsockets thread)

    func webSocket(_ connection: WebSocketConnection, didReceiveText text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let type = object["type"] as? String
        else {
            return refuse("expected a JSON object with \"type\"")
        }
        switch type {
        case "ack":
            guard let name = object["name"] as? String, let receiptName = object["receipt"] as? String else {
                return refuse("an ack needs \"name\" and \"receipt\"")
            }
            let receipt: FCMSandboxReceipt
            switch receiptName {
            case "userVisible": receipt = .userVisible
            case "silent": receipt = .silent
            case "notDelivered": receipt = .notDelivered(object["reason"] as? String ?? "")
            default: return refuse("receipt must be userVisible, silent or notDelivered")
            }
            if !resolve(name, with: receipt) { refuse("no message \(name.prefix(120)) awaits an acknowledgement") }
        case "reachability":
            guard let value = (object["reachability"] as? String).flatMap(FCMSandboxDevice.Reachability.init(rawValue:))
            else {
                return refuse("reachability must be online, dozing or offline")
            }
            onReachability(self, value)
        default:
            refuse("unknown frame type \(type.prefix(40))")
        }
    }

    func webSocketDidClose(_ connection: WebSocketConnection) {
        let waiting = pending.withLock { pending in
            defer { pending = [:] }
            return Array(pending.values)
        }
        for entry in waiting {
            entry.timer?.cancel()
            entry.continuation.resume(returning: .connectionLost)
        }
        onClose(self)
    }

    // MARK: Frames

    /// Resumes the delivery waiting for `name`.
    /// - Returns: false when none was waiting.
    @discardableResult
    private func resolve(_ name: String, with receipt: FCMSandboxReceipt) -> Bool {
        guard let entry = pending.withLock({ $0.removeValue(forKey: name) }) else { return false }
        entry.timer?.cancel()
        entry.continuation.resume(returning: receipt)
        return true
    }

    private func refuse(_ reason: String) {
        connection.send(text: Self.json(["type": "error", "error": reason]))
    }

    /// The `message` frame of one message.
    static func frame(for message: FCMSandboxMessage) -> String {
        var object: [String: Any] = [
            "type": "message", "name": message.name, "project_id": message.projectID, "token": message.token,
            "data": message.data, "requested_priority": message.requestedPriority.rawValue,
            "priority": message.priority.rawValue, "ttl": message.ttl,
            "accepted_at": Int64((message.acceptedAt.timeIntervalSince1970 * 1000).rounded()),
            "expires_at": Int64((message.expiresAt.timeIntervalSince1970 * 1000).rounded()),
        ]
        if let notification = message.notification {
            var block: [String: String] = [:]
            block["title"] = notification.title
            block["body"] = notification.body
            object["notification"] = block
        }
        if let key = message.collapseKey { object["collapse_key"] = key }
        return json(object)
    }

    private static func json(_ object: [String: Any]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
