import Foundation
import RingerKit
import RingerSupport
import Testing

/// What can be checked of ``URLSessionWebSocketTransport`` everywhere. On Linux no connection ever opens
/// (Debian's libcurl has no WebSocket support), so these pin down the failure paths: connect throws, and
/// does so promptly, and `onClose` is never called for a socket that did not open.
@Suite struct URLSessionWebSocketTransportTests {
    @Test func connectionThatCannotOpenThrowsPromptlyWithoutClosing() async throws {
        let closes = LockedValue(0)
        // A refused connection fails by itself, long before the open timeout (bounds leave room for a busy CI).
        let transport = URLSessionWebSocketTransport(openTimeout: 60)
        let started = ContinuousClock.now
        await #expect(throws: URLSessionWebSocketError.self) {
            _ = try await transport.connect(
                url: URL(string: "ws://127.0.0.1:9/v1/events")!, headers: ["Authorization": "Bearer t"],
                onText: { _ in }, onClose: { _ in closes.withLock { $0 += 1 } })
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        try await Task.sleep(for: .milliseconds(200))
        #expect(closes.snapshot == 0)
    }

    @Test func cancellingAConnectThrowsAtOnce() async throws {
        let closes = LockedValue(0)
        let transport = URLSessionWebSocketTransport(openTimeout: 120)
        let attempt = Task {
            try await transport.connect(
                url: URL(string: "ws://127.0.0.1:9/v1/events")!, headers: [:],
                onText: { _ in }, onClose: { _ in closes.withLock { $0 += 1 } })
        }
        attempt.cancel()
        let started = ContinuousClock.now
        await #expect(throws: URLSessionWebSocketError.self) { _ = try await attempt.value }
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(closes.snapshot == 0)
    }

    @Test func manyFailedConnectsEachThrowOnce() async throws {
        let closes = LockedValue(0)
        let transport = URLSessionWebSocketTransport(openTimeout: 5)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do {
                        _ = try await transport.connect(
                            url: URL(string: "ws://127.0.0.1:9/")!, headers: [:],
                            onText: { _ in }, onClose: { _ in closes.withLock { $0 += 1 } })
                        return false
                    } catch is URLSessionWebSocketError {
                        return true
                    }
                }
            }
            for try await threw in group { #expect(threw) }
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(closes.snapshot == 0)
    }
}
