// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
public import AVFAudio
public import CallKit
public import Dispatch
public import Foundation
public import RingerKit
import RingerSupport
public import RingerWire

/// Everything an iOS app needs to ring like a phone, wired together: CallKit (``CallKitAdapter``), the
/// PushKit VoIP registry (``PushKitAdapter``), the ``CallCoordinator`` that makes every decision, the
/// ``PushTokenRegistrar`` and the server's event stream.
///
/// Create it once at launch (a stored property of the app delegate), then tell it who is logged in:
/// ```swift
/// let phone = RingerPhone(server: serverURL, apnsEnvironment: .production)
/// phone.logIn(userToken: token)   // after the app's own login, and at launch with the stored token
/// phone.logOut()                  // at logout, and at launch when nobody is logged in
/// ```
/// Media starts on ``CallCoordinator/Observation/mediaCanStart(callID:media:)`` (see `observer`).
/// Thread-safe.
public final class RingerPhone: Sendable {
    /// The platform-neutral brain.
    public let coordinator: CallCoordinator
    /// Keeps this install's registration on the server in step with its tokens and its user.
    public let registrar: PushTokenRegistrar
    /// CallKit's provider and call controller.
    public let callKit: CallKitAdapter
    /// PushKit's VoIP registry.
    public let pushKit: PushKitAdapter
    /// The Ringer server.
    public let server: URL
    private let http: any HTTPTransport
    private let webSockets: any WebSocketTransport
    /// The `UserDefaults` suite of the resume points; nil for `.standard`. (A name, not the object:
    /// `UserDefaults` is thread-safe but not `Sendable` on every platform.)
    private let defaultsSuite: String?
    private let streamStatus: @Sendable (EventStream.Status) -> Void
    private let stream = LockedValue<EventStream?>(nil)

    /// Creates CallKit's provider, the coordinator and PushKit's registry, in that order, so a VoIP push
    /// that launched the app is reported as soon as it is delivered (Apple: PushKit, iOS 13+). Then reads the
    /// notification settings for the readiness pre-flight (``refreshReadiness()``).
    /// - Parameters:
    ///   - server: the Ringer server's base URL.
    ///   - deviceID: stable id of this app install; by default ``installationID(defaults:)``.
    ///   - bundleID: the app's bundle id, which the server needs for the VoIP topic `<bundle id>.voip`.
    ///   - apnsEnvironment: the APNs host the tokens belong to: `.sandbox` for development builds,
    ///     `.production` for TestFlight and the App Store.
    ///   - configuration: CallKit's configuration (ringtone, icon, video).
    ///   - pendingActions: where hang-ups wait for the server's acknowledgement; by default a file in
    ///     Application Support, so they survive a relaunch.
    ///   - callMemory: where the calls that ended and the answers not yet confirmed survive a relaunch; by
    ///     default a file in Application Support.
    ///   - http: how API requests are sent.
    ///   - webSockets: how the event stream connects.
    ///   - queue: the serial queue for PushKit's and CallKit's delegate callbacks.
    ///   - defaultsSuite: the `UserDefaults` suite where the event stream's resume point is kept per
    ///     user (nil: `.standard`), so events missed while the app was not running replay after a relaunch.
    ///   - streamStatus: the event stream's state (connected, lost, restored, closed, and the stops
    ///     replaced and unauthorized, see ``EventStream/Status``), for a "reconnecting…" banner; on any
    ///     thread. After `.unauthorized` (the server refused the token) call ``logIn(userToken:)`` with a
    ///     fresh token; after `.replaced` another connection with this device id took over, and
    ///     ``logIn(userToken:)`` takes the socket back.
    ///   - observer: told what the coordinator did, on any thread; start media on `.mediaCanStart`.
    ///   - groupCallerName: how a group call's caller is named on the call screen, from the caller's name and the
    ///     number of others rung ("Alice and 2 others" by default); give your own to localize it.
    ///   - audioSession: the session whose route the coordinator reports (`.audioRouteChanged`) and sets
    ///     (`coordinator.selectAudioOutput(id:)`).
    ///   - hasEarpiece: false on a device without a receiver (an iPad), so the earpiece is not offered.
    public init(
        server: URL, deviceID: String = RingerPhone.installationID(),
        bundleID: String? = Bundle.main.bundleIdentifier, apnsEnvironment: APNsEnvironment,
        configuration: CXProviderConfiguration = CallKitAdapter.defaultConfiguration(),
        pendingActions: any PendingActionStore = RingerPhone.defaultPendingActionStore(),
        callMemory: any CallMemoryStore = RingerPhone.defaultCallMemoryStore(),
        http: any HTTPTransport = URLSessionHTTPTransport(),
        webSockets: any WebSocketTransport = URLSessionWebSocketTransport(),
        queue: DispatchQueue = DispatchQueue(label: "dev.ringer.calls"),
        defaultsSuite: String? = nil,
        streamStatus: @escaping @Sendable (EventStream.Status) -> Void = { _ in },
        observer: @escaping @Sendable (CallCoordinator.Observation) -> Void = { _ in },
        groupCallerName: @escaping @Sendable (String, Int) -> String = IncomingCallReport.defaultGroupName,
        audioSession: AVAudioSession = .sharedInstance(),
        hasEarpiece: Bool = true
    ) {
        self.server = server
        self.http = http
        self.webSockets = webSockets
        self.defaultsSuite = defaultsSuite
        self.streamStatus = streamStatus
        callKit = CallKitAdapter(
            configuration: configuration, queue: queue, groupCallerName: groupCallerName, audioSession: audioSession,
            hasEarpiece: hasEarpiece)
        // The server-minus-phone clock offset survives relaunches, so a push that launches the app is judged on
        // the server's timeline.
        let clockOffsets = UserDefaultsClockOffsetStore(defaults: Self.defaults(defaultsSuite))
        coordinator = CallCoordinator(
            deviceID: deviceID, ui: callKit, pendingActions: pendingActions,
            clockOffsets: clockOffsets, callMemory: callMemory, observer: observer)
        callKit.attach(coordinator)
        registrar = PushTokenRegistrar(
            deviceID: deviceID, platform: .ios, bundleID: bundleID,
            apnsEnvironment: apnsEnvironment)
        pushKit = PushKitAdapter(coordinator: coordinator, registrar: registrar, queue: queue)
        refreshReadiness()
    }

    /// Starts a login session: registers this device's tokens for the user, lets waiting call requests
    /// go out, and opens the event stream. Calling it again (a refreshed token) replaces the session.
    /// - Parameter userToken: the user token the app's backend minted (kept in memory only).
    public func logIn(userToken: String) {
        let api = RingerAPIClient(baseURL: server, userToken: userToken, transport: http)
        registrar.logIn(api)
        coordinator.connect(api: api)
        let (coordinator, suite) = (coordinator, defaultsSuite)
        let key = api.userID.map(Self.resumePointKey(userID:))
        let events = EventStream(
            api: api, deviceID: coordinator.deviceID, transport: webSockets,
            onEvent: { event in coordinator.handle(event) },
            onStatus: { [streamStatus] status in
                // Calls that ended while the socket was down and nothing replays
                // (no resume point yet) are re-read from the server.
                if status == .connected || status == .restored { coordinator.refreshCalls() }
                // Answered calls send keepalives while the socket is down.
                coordinator.eventStreamStatusChanged(status)
                streamStatus(status)
            },
            onResumePoint: { seq in
                if let key { Self.defaults(suite).set(NSNumber(value: seq), forKey: key) }
            },
            onServerTime: { coordinator.serverTimeObserved($0) })
        let previous = stream.withLock { stream in
            defer { stream = events }
            return stream
        }
        previous?.stop()
        events.start(since: key.flatMap { (Self.defaults(suite).object(forKey: $0) as? NSNumber)?.int64Value })
    }

    /// Ends the login session: closes the event stream, unregisters the device with the user's own
    /// credentials (retried until acknowledged), and makes VoIP pushes end at once. Also call it at
    /// launch when nobody is logged in.
    public func logOut() {
        stream.withLock { stream in
            defer { stream = nil }
            return stream
        }?.stop()
        registrar.logOut()
        coordinator.connect(api: nil)
    }

    /// The APNs device token from `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`,
    /// used for missed-call alerts and "answered elsewhere" background pushes.
    /// - Parameter token: the token bytes.
    public func setAPNsToken(_ token: Data) {
        registrar.setToken(token, for: .apns)
    }

    /// An ordinary (non-VoIP) remote notification, from
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: a background push that the call was
    /// answered or declined elsewhere or cancelled closes it on CallKit.
    /// - Parameter userInfo: the notification's payload.
    /// - Returns: true when it was a Ringer alert or background push.
    @discardableResult
    public func handleNotification(_ userInfo: [AnyHashable: Any]) -> Bool {
        guard JSONSerialization.isValidJSONObject(userInfo),
            let data = try? JSONSerialization.data(withJSONObject: userInfo)
        else { return false }
        return coordinator.handleNotificationPush(data) != nil
    }

    /// Calls a user: the server creates the call and rings the callee's devices, then CallKit shows it
    /// as an outgoing call. The answer arrives as `.outgoingAnswered` and media as `.mediaCanStart`.
    /// - Parameters:
    ///   - callee: the user id to call.
    ///   - hasVideo: whether to offer video.
    ///   - callWaiting: true to ring a callee who is in another call as a waiting call, false to get `busy`; nil: the
    ///     server's `--call-waiting`.
    /// - Returns: the call; when its state is not `ringing` (busy, failed), nothing is shown.
    /// - Throws: ``RingerAPIError`` when the server refused; the system's error when CallKit refused
    ///   the call, which is then hung up on the server.
    public func startCall(to callee: String, hasVideo: Bool = false, callWaiting: Bool? = nil) async throws -> Call {
        let call = try await coordinator.startCall(to: callee, hasVideo: hasVideo, callWaiting: callWaiting)
        guard call.state == .ringing, let uuid = UUID(uuidString: call.callID) else { return call }
        do {
            try await callKit.requestStart(callID: uuid, callee: callee, hasVideo: hasVideo)
        } catch {
            coordinator.end(callID: uuid) { _ in }
            throw error
        }
        return call
    }

    /// Rings several people in one call (``CallCoordinator/startGroupCall(to:answerPolicy:hasVideo:callWaiting:)``) and, when it
    /// rings, shows it as an outgoing CallKit call whose handle is the first callee (the call is one call on screen).
    /// - Returns: the call with its legs; when its state is not `ringing` (busy, failed) nothing rings.
    /// - Throws: `RingerAPIError` (the server refused or did not answer); CallKit's error when it refused the call,
    ///   which is then cancelled on the server.
    public func startGroupCall(
        to callees: [String], answerPolicy: AnswerPolicy = .firstAnswer, hasVideo: Bool = false,
        callWaiting: Bool? = nil
    ) async throws -> Call {
        let call = try await coordinator.startGroupCall(
            to: callees, answerPolicy: answerPolicy, hasVideo: hasVideo, callWaiting: callWaiting)
        guard call.state == .ringing, let uuid = UUID(uuidString: call.callID) else { return call }
        do {
            try await callKit.requestStart(callID: uuid, callee: call.callee.id, hasVideo: hasVideo)
        } catch {
            coordinator.end(callID: uuid) { _ in }
            throw error
        }
        return call
    }
}
#endif
