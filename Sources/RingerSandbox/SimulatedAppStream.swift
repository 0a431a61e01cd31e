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
    /// - Returns: the stream.
    static func make(api: RingerAPIClient, deviceID: String, transport: any WebSocketTransport,
                     observe: @escaping @Sendable (CallEvent) -> Void,
                     coordinator: @escaping @Sendable () -> CallCoordinator?) -> EventStream {
        EventStream(api: api, deviceID: deviceID, transport: transport, onEvent: { event in
            observe(event)
            coordinator()?.handle(event)
        }, onStatus: { status in
            if status == .connected || status == .restored { coordinator()?.refreshCalls() }
            coordinator()?.eventStreamStatusChanged(status)
        })
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
