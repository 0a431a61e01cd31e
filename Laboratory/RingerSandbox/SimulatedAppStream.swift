import Foundation
import RingerKit
import RingerSupport
import RingerWire

/// A simulated iPhone's state as its app's event stream sees it.
protocol AppStreamState {
    /// Whether the app's process runs.
    var isAppRunning: Bool { get }
    /// The running app's event stream, nil when it has none (setting it on a stopped app does nothing).
    var appStream: EventStream? { get set }
    /// The last event `seq` the app saw (the app would persist it).
    var lastSeq: Int64? { get set }
}

/// What a simulated iPhone's app does with its event stream: every event is
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
    static func make(
        api: RingerAPIClient, deviceID: String, transport: any WebSocketTransport,
        observe: @escaping @Sendable (CallEvent) -> Void,
        coordinator: @escaping @Sendable () -> CallCoordinator?,
        now: @escaping @Sendable () -> Date,
        sleepUntil: (@Sendable (Date) async throws -> Void)?
    ) -> EventStream {
        let sleep: @Sendable (TimeInterval) async throws -> Void =
            if let sleepUntil {
                { seconds in try await sleepUntil(now().addingTimeInterval(seconds)) }
            } else {
                { seconds in try await Task.sleep(for: .seconds(seconds)) }
            }
        return EventStream(
            api: api, deviceID: deviceID, transport: transport,
            onEvent: { event in
                observe(event)
                coordinator()?.handle(event)
            },
            onStatus: { status in
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

    /// Stops the app's event stream and keeps its resume point, as an app persists it: it may be ahead of the
    /// last event the app saw.
    /// - Parameters:
    ///   - stream: the stream to stop.
    ///   - state: the phone's state, whose ``AppStreamState/lastSeq`` is updated.
    static func stop<State: AppStreamState>(_ stream: EventStream, keepingResumePointIn state: LockedValue<State>) {
        stream.stop()
        state.withLock { $0.lastSeq = resumePoint(keeping: $0.lastSeq, after: stream) }
    }

    /// Starts `stream` as the running app's stream, resuming after the last `seq` the app saw, unless the app is
    /// not running or already has one (then `stream` is never started).
    /// - Parameters:
    ///   - stream: a stream from ``make(api:deviceID:transport:observe:coordinator:now:sleepUntil:)``.
    ///   - state: the phone's state.
    static func start<State: AppStreamState>(_ stream: EventStream, in state: LockedValue<State>) {
        let since = state.withLock { state -> Int64?? in
            guard state.isAppRunning, state.appStream == nil else { return .none }
            state.appStream = stream
            return .some(state.lastSeq)
        }
        if let since { stream.start(since: since) }
    }
}
