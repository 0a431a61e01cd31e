import Foundation
import RingerKit
import RingerWire

/// A ``WebSocketTransport`` whose sockets open at once and receive what the test sends.
final class FakeWebSockets: WebSocketTransport, @unchecked Sendable {
    // @unchecked: `receivers` is guarded by `lock`.
    private let lock = NSLock()
    private var receivers: [@Sendable (String) -> Void] = []
    private var opened: [URL] = []

    /// How many sockets were opened.
    var connections: Int { lock.withLock { receivers.count } }
    /// The URL of each socket opened, in order.
    var urls: [URL] { lock.withLock { opened } }

    func connect(
        url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable (WebSocketClose) -> Void
    ) async throws -> any WebSocketChannel {
        lock.withLock {
            receivers.append(onText)
            opened.append(url)
        }
        return Channel(onClose: onClose)
    }

    /// Sends an event to every socket opened so far.
    func deliver(_ event: CallEvent) throws {
        deliver(text: String(decoding: try RingerJSON.encode(event), as: UTF8.self))
    }

    /// Sends a text frame to every socket opened so far.
    func deliver(text: String) {
        lock.withLock { receivers }.forEach { $0(text) }
    }

    private struct Channel: WebSocketChannel {
        let onClose: @Sendable (WebSocketClose) -> Void
        func close() { onClose(.normal) }
    }
}

/// Collects values from any thread.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `values` is guarded by `lock`.
    private let lock = NSLock()
    private var values: [Value] = []

    var all: [Value] { lock.withLock { values } }
    func append(_ value: Value) { lock.withLock { values.append(value) } }
}
