import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport

/// Phones in other processes: the WebSocket of ``FCMSandboxSocket`` on the HTTP/1.1 port.
extension FCMSandbox {
    /// Decides an upgrade on `/sandbox/connect` (on the libwebsockets thread; no I/O): wires the token's
    /// device to the socket, sets its reachability and hands it what is due.
    func upgrade(_ request: HTTPRequest, _ connection: WebSocketConnection) -> WebSocketUpgrade {
        guard let token = request.query["token"], !token.isEmpty else {
            return .reject(.json(status: 400, #"{"error":"expected ?token=<registration token>"}"#))
        }
        var reachability = FCMSandboxDevice.Reachability.online
        if let text = request.query["reachability"] {
            guard let value = FCMSandboxDevice.Reachability(rawValue: text) else {
                return .reject(.json(status: 400, #"{"error":"reachability must be online, dozing or offline"}"#))
            }
            reachability = value
        }
        let socket = FCMSandboxSocket(
            token: token, connection: connection,
            acknowledgementTimeout: max(configuration.acknowledgementTimeout, 0.1),
            onReachability: { [weak self] socket, reachability in self?.socket(socket, reports: reachability) },
            onClose: { [weak self] socket in self?.socketClosed(socket) })
        let now = expiryNow()
        let known = state.withLock { state -> Bool in
            guard state.devices[token] != nil else { return false }
            let previous = state.sockets.updateValue(socket, forKey: token)
            previous?.connection.close()
            state.devices[token]?.deliver = { [weak socket] message in
                await socket?.deliver(message) ?? .connectionLost
            }
            state.devices[token]?.reachability = reachability
            let due = state.queue.release(token: token, reachability: reachability, now: now)
            hand(due, to: token, in: &state, now: now)
            return true
        }
        guard known else {
            return .reject(.json(status: 404, #"{"error":"unknown registration token: POST /sandbox/devices first"}"#))
        }
        log.info("FCM sandbox phone connected", ["fcm.reachability": .string(reachability.rawValue)])
        return .accept(socket)
    }

    private func socket(_ socket: FCMSandboxSocket, reports reachability: FCMSandboxDevice.Reachability) {
        guard state.withLock({ $0.sockets[socket.token] === socket }) else { return }
        setReachability(token: socket.token, reachability)
    }

    /// The phone went away: it is offline until it connects again, and FCM stores its messages meanwhile.
    private func socketClosed(_ socket: FCMSandboxSocket) {
        let current = state.withLock { state -> Bool in
            guard state.sockets[socket.token] === socket else { return false }
            state.sockets[socket.token] = nil
            state.devices[socket.token]?.reachability = .offline
            state.devices[socket.token]?.deliver = nil
            return true
        }
        if current { log.info("FCM sandbox phone disconnected") }
    }
}
