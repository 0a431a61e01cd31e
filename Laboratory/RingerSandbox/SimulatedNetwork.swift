public import Foundation
public import RingerKit
import RingerSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A simulated phone's data connection, which the scenario can take down and bring back: while it is down every
/// API request fails at once as URLSession's do without a network (`URLError.notConnectedToInternet`), every
/// open WebSocket drops without a close frame, and no new one connects. Requests already on their way finish.
/// Thread-safe.
public final class SimulatedNetwork: Sendable {
    private struct State {
        var up = true
        var channels: [UUID: any WebSocketChannel] = [:]
    }

    private let state = LockedValue(State())

    /// Creates a network that is up.
    public init() {}

    /// True while the phone has a data connection.
    public var isUp: Bool { state.withLock { $0.up } }

    /// Takes the connection down (open sockets drop) or brings it back.
    public func set(up: Bool) {
        let dropped = state.withLock { state -> [any WebSocketChannel] in
            state.up = up
            guard !up else { return [] }
            defer { state.channels.removeAll() }
            return Array(state.channels.values)
        }
        for channel in dropped { channel.close() }
    }

    /// `inner`, failing while the network is down.
    public func http(_ inner: any HTTPTransport = URLSessionHTTPTransport()) -> any HTTPTransport {
        HTTP(network: self, inner: inner)
    }

    /// `inner`, refusing to connect while the network is down and dropping its sockets when it goes down.
    public func webSockets(_ inner: any WebSocketTransport) -> any WebSocketTransport {
        WebSockets(network: self, inner: inner)
    }

    private struct HTTP: HTTPTransport {
        let network: SimulatedNetwork
        let inner: any HTTPTransport

        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            guard network.isUp else { throw URLError(.notConnectedToInternet) }
            return try await inner.send(method: method, url: url, headers: headers, body: body)
        }

        func sendReadingDate(
            method: String, url: URL, headers: [String: String],
            body: Data?
        ) async throws -> (status: Int, body: Data, date: String?) {
            guard network.isUp else { throw URLError(.notConnectedToInternet) }
            return try await inner.sendReadingDate(method: method, url: url, headers: headers, body: body)
        }
    }

    private struct WebSockets: WebSocketTransport {
        let network: SimulatedNetwork
        let inner: any WebSocketTransport

        func connect(
            url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
            onClose: @escaping @Sendable (WebSocketClose) -> Void
        ) async throws -> any WebSocketChannel {
            guard network.isUp else { throw URLError(.notConnectedToInternet) }
            let id = UUID()
            let channel = try await inner.connect(url: url, headers: headers, onText: onText) { [network] close in
                _ = network.state.withLock { $0.channels.removeValue(forKey: id) }
                onClose(close)
            }
            // Went down while connecting: this socket drops too.
            let kept = network.state.withLock { state -> Bool in
                guard state.up else { return false }
                state.channels[id] = channel
                return true
            }
            if !kept { channel.close() }
            return channel
        }
    }
}
