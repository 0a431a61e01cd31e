import Foundation
import RingerKit
import RingerWire

/// What a simulated phone's app does with its event stream, the same on iOS and Android: every event is
/// observed and handed to the coordinator, and once the socket is up the app refreshes its calls (a call that
/// ended before the socket came up is replayed by nothing when the app has no resume point).
enum SimulatedAppStream {
    /// Makes the app's event stream (not started).
    /// - Parameters:
    ///   - api: the app's REST client.
    ///   - deviceID: the app's device id.
    ///   - transport: how it opens WebSockets.
    ///   - observe: told of every event.
    ///   - coordinator: the app's coordinator, if its process still runs.
    ///   - now: the phone's clock.
    ///   - sleepUntil: suspends until a time on `now`'s clock, for the reconnect waits; nil: real time.
    /// - Returns: the stream; the server's clock it reads in `stream.ready` goes to the coordinator.
    static func make(api: RingerAPIClient, deviceID: String, transport: any WebSocketTransport,
                     observe: @escaping @Sendable (CallEvent) -> Void,
                     coordinator: @escaping @Sendable () -> CallCoordinator?,
                     now: @escaping @Sendable () -> Date,
                     sleepUntil: (@Sendable (Date) async throws -> Void)?) -> EventStream {
        let sleep: @Sendable (TimeInterval) async throws -> Void = if let sleepUntil {
            { seconds in try await sleepUntil(now().addingTimeInterval(seconds)) }
        } else {
            { seconds in try await Task.sleep(for: .seconds(seconds)) }
        }
        return EventStream(api: api, deviceID: deviceID, transport: transport, onEvent: { event in
            observe(event)
            coordinator()?.handle(event)
        }, onStatus: { status in
            if status == .connected || status == .restored { coordinator()?.refreshCalls() }
            coordinator()?.eventStreamStatusChanged(status)
        }, onServerTime: { coordinator()?.serverTimeObserved($0) }, sleep: sleep)
    }

    /// The resume point to keep once a stream stopped, as an app persists it: the newer of the one kept so far
    /// and the stream's last `seq` (nil when neither exists).
    /// - Parameters:
    ///   - kept: the resume point kept so far.
    ///   - stream: the stopped stream.
    /// - Returns: the resume point to keep.
    static func resumePoint(keeping kept: Int64?, after stream: EventStream) -> Int64? {
        guard let seq = stream.lastSeq else { return kept }
        return max(kept ?? seq, seq)
    }
}
