import Foundation
import HTTP2Server
import RingerHTTP
import RingerSupport

/// The connection faults in force; nil fields are off.
struct ConnectionFaults: Sendable {
    var maxConcurrentStreams: Int?
    var goAway: (afterStreams: Int, connections: Int?)?
    var close: (afterStreams: Int, connections: Int?)?
}

/// What the sandbox counted since it was created.
public struct APNsSandboxStatistics: Sendable, Hashable, Codable {
    /// TCP connections the sandbox accepted.
    public var connections: Int
    /// Streams refused unprocessed (RST_STREAM REFUSED_STREAM): beyond a just-lowered stream limit, or after
    /// a GOAWAY.
    public var refusedStreams: Int
    /// Push requests (`/3/device/…`) that reached the sandbox's handler, faulted ones included; streams
    /// refused by a GOAWAY or cut with their connection before being processed are not counted.
    public var pushRequests: Int
    /// Pushes accepted (answered 200 and recorded in ``APNsSandbox/acceptedPushes``).
    public var acceptedPushes: Int
}

/// Fault injection: per-push answers, delays and silence; GOAWAY, stream limits and cut connections.
extension APNsSandbox {
    /// The SETTINGS_MAX_CONCURRENT_STREAMS the sandbox advertises when no fault lowers it (nghttp2 servers
    /// and APNs commonly allow about this many).
    public static let defaultMaxConcurrentStreams = 1000

    /// Adds a request fault; it applies to pushes that arrive from now on.
    /// - Parameter fault: what to do to which pushes, how many times.
    /// Thread-safe.
    public func inject(_ fault: APNsSandboxFault) {
        state.withLock { $0.faults.append(fault) }
    }

    /// Applies a connection fault at once (or when the sandbox starts, if it has not yet).
    /// - Parameter fault: the misbehaviour; see ``APNsSandboxConnectionFault``.
    /// Thread-safe.
    public func inject(_ fault: APNsSandboxConnectionFault) {
        // Only the hook this fault sets is handed to the server: re-applying the others would re-arm a
        // GOAWAY or cut fault that already wore off with its full connection count.
        switch fault {
        case .goAway(let afterStreams, let connections):
            state.withLock { $0.connectionFaults.goAway = (max(afterStreams, 0), connections) }
            server.withLock { $0?.sendGoAway(afterStreams: max(afterStreams, 0), connections: connections) }
        case .maxConcurrentStreams(let limit):
            state.withLock { $0.connectionFaults.maxConcurrentStreams = max(limit, 0) }
            server.withLock { $0?.setMaxConcurrentStreams(max(limit, 0)) }
        case .close(let afterStreams, let connections):
            state.withLock { $0.connectionFaults.close = (max(afterStreams, 0), connections) }
            server.withLock { $0?.closeConnections(afterStreams: max(afterStreams, 0), connections: connections) }
        case .closeNow:
            server.withLock { $0?.closeAllConnections() }
        }
    }

    /// Removes every request fault and connection fault: answers become normal, the stream limit goes back
    /// to ``defaultMaxConcurrentStreams``. Streams already held by a fault stay held until they end.
    /// Thread-safe.
    public func clearFaults() {
        state.withLock { state in
            state.faults = []
            state.connectionFaults = ConnectionFaults()
        }
        applyConnectionFaults()
    }

    /// Request faults still in force (with what is left of their counts), oldest first.
    public var activeFaults: [APNsSandboxFault] {
        state.withLock { $0.faults }
    }

    /// Connection faults in force: stream limit, GOAWAY and cut hooks (``APNsSandboxConnectionFault/closeNow``
    /// acts at once and is never listed).
    /// A GOAWAY or cut fault limited to N connections is listed with the connections it may still affect, and
    /// not at all once it wore off.
    public var activeConnectionFaults: [APNsSandboxConnectionFault] {
        let faults = state.withLock { $0.connectionFaults }
        // Before start() the server has counted nothing, so the injected counts are what is left.
        let (goAwayLeft, closeLeft) = server.withLock { server in
            (
                server.map { $0.goAwayConnectionsLeft } ?? faults.goAway?.connections,
                server.map { $0.closeConnectionsLeft } ?? faults.close?.connections
            )
        }
        var list: [APNsSandboxConnectionFault] = []
        if let limit = faults.maxConcurrentStreams { list.append(.maxConcurrentStreams(limit)) }
        if let goAway = faults.goAway, goAway.connections == nil || (goAwayLeft ?? 0) > 0 {
            list.append(
                .goAway(afterStreams: goAway.afterStreams, connections: goAway.connections == nil ? nil : goAwayLeft))
        }
        if let close = faults.close, close.connections == nil || (closeLeft ?? 0) > 0 {
            list.append(
                .close(afterStreams: close.afterStreams, connections: close.connections == nil ? nil : closeLeft))
        }
        return list
    }

    /// Connections, push requests and accepted pushes so far.
    public var statistics: APNsSandboxStatistics {
        let counters = server.withLock { $0?.statistics } ?? HTTP2Server.Statistics()
        return state.withLock { state in
            APNsSandboxStatistics(
                connections: counters.connectionsAccepted, refusedStreams: counters.streamsRefused,
                pushRequests: state.pushRequests, acceptedPushes: state.accepted.count)
        }
    }

    /// Pushes accepted with this `apns-id` (lowercase UUID): 1 for a push delivered once, 0 for a lost one.
    public func acceptedCount(apnsID: String) -> Int {
        let id = apnsID.lowercased()
        return state.withLock { $0.accepted.reduce(0) { $0 + ($1.apnsID == id ? 1 : 0) } }
    }

    /// Hands the connection faults in force to the running server.
    func applyConnectionFaults() {
        let faults = state.withLock { $0.connectionFaults }
        server.withLock { server in
            guard let server else { return }
            server.setMaxConcurrentStreams(faults.maxConcurrentStreams ?? Self.defaultMaxConcurrentStreams)
            server.sendGoAway(afterStreams: faults.goAway?.afterStreams, connections: faults.goAway?.connections)
            server.closeConnections(afterStreams: faults.close?.afterStreams, connections: faults.close?.connections)
        }
    }

    /// Counts a push request and applies the oldest matching request fault, using up one of its count.
    /// - Returns: the answer to send instead of handling the push, or nil to handle it (no fault, or a
    ///   delay that has passed).
    func applyFault(to request: HTTPRequest) async -> HTTPResponse? {
        let token = request.path.hasPrefix("/3/device/") ? String(request.path.dropFirst(10)).lowercased() : ""
        let behavior = state.withLock { state -> APNsSandboxFault.Behavior? in
            state.pushRequests += 1
            guard let index = state.faults.firstIndex(where: { $0.matches(token: token) }) else { return nil }
            let fault = state.faults[index]
            if let count = fault.count {
                if count <= 1 {
                    state.faults.remove(at: index)
                } else {
                    state.faults[index].count = count - 1
                }
            }
            return fault.behavior
        }
        guard let behavior else { return nil }
        // The answer to a stream whose client or connection went away is dropped by the server anyway.
        let dropped = HTTPResponse(status: 503)
        switch behavior {
        case .answer(let status, let reason):
            let apnsID =
                request.headers["apns-id"].flatMap { UUID(uuidString: $0) != nil ? $0.lowercased() : nil }
                ?? UUID().uuidString.lowercased()
            var body: [UInt8] = []
            if let reason {
                body = Array((try? JSONSerialization.data(withJSONObject: ["reason": reason])) ?? Data())
            }
            return HTTPResponse(
                status: status, headers: [("apns-id", apnsID), ("content-type", "application/json")],
                body: body)
        case .delay(let seconds):
            do {
                try await Task.sleep(for: .seconds(seconds))
            } catch {
                return dropped
            }
            return nil
        case .neverAnswer:
            // Held until the server cancels the handler (stream reset, connection closed, shutdown).
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
            }
            return dropped
        }
    }
}
