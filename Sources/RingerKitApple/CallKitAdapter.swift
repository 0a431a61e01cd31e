// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
// CallKit's classes are not Sendable-annotated; Apple's samples share one CXProvider and call it from
// any queue, as this adapter does.
@preconcurrency public import AVFAudio
@preconcurrency public import CallKit
public import Dispatch
public import Foundation
public import RingerKit
public import RingerWire

/// CallKit as RingerKit's ``CallUI``: one `CXProvider` (Apple: "A VoIP app should create only one
/// instance of CXProvider and store it for use globally") and a `CXCallController` for outgoing calls.
///
/// It only translates. ``CallCoordinator`` decides when a call is reported, answered or ended; this
/// adapter turns those decisions into `CXProvider` reports and the user's `CXAction`s back into
/// coordinator calls (see docs/ios-integration.md for the table).
///
/// The coordinator needs its call UI when it is created, and the delegate needs the coordinator: create
/// the adapter, create the coordinator with it, then ``attach(_:)`` the coordinator. ``RingerPhone`` does
/// all three. Thread-safe.
public final class CallKitAdapter: CallUI, Sendable {
    /// The app's one provider. The app may use it for reports RingerKit does not make (e.g.
    /// `reportCall(with:updated:)`); it must not set its delegate.
    public let provider: CXProvider
    /// The controller that requests `CXStartCallAction`s for outgoing calls.
    public let callController: CXCallController
    private let delegate = CallKitProviderDelegate()
    private let routes: AudioSessionRoutes
    private let queue: DispatchQueue?
    /// How a group call's caller is named on the call screen (`localizedCallerName`): the caller's name and how
    /// many others were rung with this user.
    private let groupCallerName: @Sendable (String, Int) -> String

    /// A configuration for Ringer calls: user-id handles (`.generic`), two call groups of one call each (so a second
    /// call, cellular or VoIP, offers "Hold & Accept" and the user can swap; Apple documents no other rule for when
    /// it is offered, so every flag it depends on is set here), video allowed, calls listed in Recents. Set
    /// `ringtoneSound` or `iconTemplateImageData` on it as needed.
    /// - Returns: a new configuration (Apple: `CXProviderConfiguration.init()`, iOS 14+).
    public static func defaultConfiguration() -> CXProviderConfiguration {
        let configuration = CXProviderConfiguration()
        configuration.supportedHandleTypes = [.generic]
        configuration.maximumCallGroups = 2
        configuration.maximumCallsPerCallGroup = 1
        configuration.supportsVideo = true
        configuration.includesCallsInRecents = true
        return configuration
    }

    /// Creates the provider. No delegate is set until ``attach(_:)``, so no action can arrive before a
    /// coordinator is there to take it.
    /// - Parameters:
    ///   - configuration: the call UI's configuration.
    ///   - queue: the queue for delegate callbacks and report completions; nil is the main queue
    ///     (Apple: `CXProvider.setDelegate(_:queue:)`).
    ///   - groupCallerName: a group call's shown name from the caller's name and the number of others rung
    ///     ("Alice and 2 others" by default, ``IncomingCallReport/defaultGroupName(caller:others:)``); give your own
    ///     to localize it.
    ///   - audioSession: the session whose route the coordinator reports and sets (docs/ios-integration.md, "Audio
    ///     route").
    ///   - hasEarpiece: false on a device without a receiver (an iPad: `UIDevice.current.userInterfaceIdiom` is not
    ///     `.phone`), so the earpiece is not offered.
    public init(
        configuration: CXProviderConfiguration = CallKitAdapter.defaultConfiguration(),
        queue: DispatchQueue? = nil,
        groupCallerName: @escaping @Sendable (String, Int) -> String = IncomingCallReport.defaultGroupName,
        audioSession: AVAudioSession = .sharedInstance(),
        hasEarpiece: Bool = true
    ) {
        self.groupCallerName = groupCallerName
        routes = AudioSessionRoutes(session: audioSession, hasEarpiece: hasEarpiece)
        provider = CXProvider(configuration: configuration)
        callController = queue.map { CXCallController(queue: $0) } ?? CXCallController()
        self.queue = queue
    }

    /// Connects the coordinator that owns this adapter and starts receiving CallKit's delegate callbacks.
    /// Call once, right after creating the coordinator, before PushKit can deliver.
    /// - Parameter coordinator: the coordinator created with this adapter as its `ui` (held weakly: it
    ///   holds the adapter).
    public func attach(_ coordinator: CallCoordinator) {
        delegate.attach(coordinator)
        provider.setDelegate(delegate, queue: queue)
        routes.start(reportingTo: coordinator)
    }

    // MARK: CallUI

    /// Apple: `CXProvider.reportNewIncomingCall(with:update:completion:)`. The handle is the caller's
    /// user id (Recents calls the caller back), the name theirs or, for a group call, "Alice and 2 others"
    /// (`groupCallerName`); holding and DTMF on (the coordinator takes `CXSetHeldCallAction` and
    /// `CXPlayDTMFCallAction`), grouping off (a Ringer call is one room, not a conference CallKit merges).
    public func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void)
    {
        let update = Self.callControls(CXCallUpdate())
        update.remoteHandle = CXHandle(type: .generic, value: report.handle)
        update.localizedCallerName = report.callerDisplayName(groupName: groupCallerName)
        update.hasVideo = report.hasVideo
        provider.reportNewIncomingCall(with: report.id, update: update, completion: completion)
    }

    /// What every Ringer call offers on CallKit's screen, incoming or outgoing: holding and the keypad, no grouping.
    /// - Parameter update: the update to set them on.
    /// - Returns: the same update.
    static func callControls(_ update: CXCallUpdate) -> CXCallUpdate {
        update.supportsHolding = true
        update.supportsGrouping = false
        update.supportsUngrouping = false
        update.supportsDTMF = true
        return update
    }

    /// Apple: `CXProvider.reportCall(with:endedAt:reason:)`, with the reason mapped by
    /// `CXCallEndedReason.init(_:)`.
    public func reportCallEnded(id: UUID, at date: Date, reason: CallEndReason) {
        provider.reportCall(with: id, endedAt: date, reason: CXCallEndedReason(reason))
    }

    /// Apple: `CXProvider.reportOutgoingCall(with:connectedAt:)`.
    public func reportOutgoingCallConnected(id: UUID, at date: Date) {
        provider.reportOutgoingCall(with: id, connectedAt: date)
    }

    /// The user answered. When that was on CallKit's own UI, its action is already in hand; when the app
    /// answered in its own screen (or a relaunch restored the answer), CallKit still shows the call ringing, so a
    /// `CXAnswerCallAction` is requested now, at the tap (Apple: `CXCallController.request(_:completion:)`). CallKit
    /// performs it on the delegate, where the coordinator holds it until the server confirms, as any answer.
    public func reportCallAnswering(id: UUID, at date: Date) {
        requestAnswerUnlessPerformed(id)
    }

    /// The server confirmed the answer: CallKit already shows it answered through the action requested at
    /// ``reportCallAnswering(id:at:)`` or performed by the user, now fulfilled; should that request have failed,
    /// it is made again, and the coordinator fulfils it at once. A refused request leaves the call as CallKit
    /// shows it; the server's call stays answered.
    public func reportCallAnswered(id: UUID, at date: Date) {
        requestAnswerUnlessPerformed(id)
    }

    /// Holds or resumes a call as the coordinator decided (the app asked, or another call takes the audio): requests
    /// a `CXSetHeldCallAction` (Apple: `CXCallController.request(_:completion:)`), which CallKit performs on the
    /// delegate, where the coordinator takes it. A refused request (the call is gone, holding is off) changes
    /// nothing: the coordinator follows what CallKit did.
    public func requestHeld(id: UUID, held: Bool) {
        callController.request(CXTransaction(action: CXSetHeldCallAction(call: id, onHold: held))) { _ in }
    }

    /// Mutes or unmutes a call at the app's request: requests a `CXSetMutedCallAction`, performed on the delegate,
    /// so CallKit's mute button and the app agree.
    public func requestMuted(id: UUID, muted: Bool) {
        callController.request(CXTransaction(action: CXSetMutedCallAction(call: id, muted: muted))) { _ in }
    }

    /// Sends the calls' audio to an output, as the coordinator decided: the speaker by `overrideOutputAudioPort`, any
    /// other by preferring its input port (``AudioSessionRoutes``); nil gives the route back to iOS after the calls.
    public func applyAudioOutput(_ output: AudioOutput?) {
        if let output { routes.apply(output) } else { routes.release() }
    }

    /// Plays keypad tones at the app's request: requests a `CXPlayDTMFCallAction` of type single tone, performed on
    /// the delegate, where the coordinator tells the app's media to send them.
    public func requestDTMF(id: UUID, digits: String) {
        let action = CXPlayDTMFCallAction(call: id, digits: digits, type: .singleTone)
        callController.request(CXTransaction(action: action)) { _ in }
    }

    private func requestAnswerUnlessPerformed(_ id: UUID) {
        guard !delegate.hasAnswerAction(for: id) else { return }
        callController.request(CXTransaction(action: CXAnswerCallAction(call: id))) { _ in }
    }

    // MARK: Outgoing calls

    /// Shows a call the server created (``CallCoordinator/startCall(to:hasVideo:callWaiting:)``) as an outgoing
    /// CallKit call: requests a `CXStartCallAction` whose UUID is the call id; the delegate fulfils it.
    /// Apple: `CXCallController.request(_:completion:)`.
    /// - Parameters:
    ///   - callID: the server's call id (the CallKit UUID).
    ///   - callee: the callee's user id, shown as a `.generic` handle.
    ///   - hasVideo: whether the call starts with video.
    /// - Throws: the system's error when it refused the transaction (e.g. a call is already in progress);
    ///   the caller should then hang up the server call.
    public func requestStart(callID: UUID, callee: String, hasVideo: Bool) async throws {
        let action = CXStartCallAction(call: callID, handle: CXHandle(type: .generic, value: callee))
        action.isVideo = hasVideo
        delegate.expectStart(of: callID)
        do {
            try await request(action)
        } catch {
            delegate.forgetStart(of: callID)
            throw error
        }
    }

    // MARK: The app's own call screen

    /// Answers a ringing call from the app's own screen as CallKit's UI would: requests a `CXAnswerCallAction`
    /// (Apple: `CXCallController.request(_:completion:)`), which CallKit performs on the delegate, where the
    /// coordinator answers and holds the action until the server confirms. CallKit stops ringing at once.
    /// - Parameter callID: the server's call id (the CallKit UUID).
    /// - Throws: the system's error when it refused the transaction (e.g. no such call on CallKit).
    public func requestAnswer(callID: UUID) async throws {
        try await request(CXAnswerCallAction(call: callID))
    }

    /// Declines, cancels or ends a call from the app's own screen as CallKit's UI would: requests a
    /// `CXEndCallAction`, which CallKit performs on the delegate, where the coordinator hangs up (durably) what
    /// the call's phase calls for.
    /// - Parameter callID: the server's call id (the CallKit UUID).
    /// - Throws: the system's error when it refused the transaction (e.g. no such call on CallKit).
    public func requestEnd(callID: UUID) async throws {
        try await request(CXEndCallAction(call: callID))
    }

    /// Requests a one-action transaction and waits for the system's verdict (Apple:
    /// `CXCallController.request(_:completion:)`; a nil error means CallKit hands the action to the provider's
    /// delegate).
    private func request(_ action: CXCallAction) async throws {
        let transaction = CXTransaction(action: action)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            callController.request(transaction) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}
#endif
