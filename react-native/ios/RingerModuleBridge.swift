// Apple platforms only: `@objc` needs the Objective-C runtime, which the Linux type-check does not have. Each method
// forwards one call of RingerModule.mm to ``RingerReactNative``, where every decision is made.
#if canImport(ObjectiveC)
public import Foundation

/// The process's host (a `Sendable` global, so the promise tasks may use it).
private let host = RingerReactNative.shared

/// The Objective-C face of ``RingerReactNative`` for the TurboModule glue (`RingerModule.mm`): one forwarding line a
/// method, the promise blocks wrapped in a ``RingerPromise``. Also lets an Objective-C `AppDelegate` start the host.
@objc(RingerModuleBridge)
public final class RingerModuleBridge: NSObject {
    /// `RCTPromiseResolveBlock`.
    public typealias Resolve = (Any?) -> Void
    /// `RCTPromiseRejectBlock`.
    public typealias Reject = (String?, String?, (any Error)?) -> Void

    private static func promise(_ resolve: @escaping Resolve, _ reject: @escaping Reject) -> RingerPromise {
        RingerPromise(resolve: resolve, reject: { code, message, error in reject(code, message, error) })
    }

    /// ``RingerReactNative/start()``, for an Objective-C `AppDelegate`.
    @objc public static func start() { RingerReactNative.start() }

    /// ``RingerReactNative/setAPNsToken(_:)``, for an Objective-C `AppDelegate`.
    @objc public static func setAPNsToken(_ token: Data) { host.setAPNsToken(token) }

    /// ``RingerReactNative/handleNotification(_:)``, for an Objective-C `AppDelegate`.
    @objc public static func handleNotification(_ userInfo: [AnyHashable: Any]) -> Bool {
        host.handleNotification(userInfo)
    }

    /// `getInitialEvents()`: attaches this module's emitter and resolves with the replay.
    /// - Returns: the attachment to pass to ``detach(_:)`` when the module is invalidated.
    @objc public static func attach(emitter: @escaping ([String: Any]) -> Void, resolve: @escaping Resolve) -> Int {
        // React Native's event emitter callback may be called from any thread.
        nonisolated(unsafe) let emit = emitter
        let (attachment, replay) = host.attach { event in emit(event.foundationObject) }
        resolve(replay.map(\.foundationObject))
        return attachment
    }

    /// The module was invalidated.
    @objc public static func detach(_ attachment: Int) { host.detach(attachment: attachment) }

    @objc public static func configure(_ server: String?, resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try await host.configure(server: server) }
    }

    @objc public static func login(_ userToken: String, resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try await host.login(userToken: userToken) }
    }

    @objc public static func logout(resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try await host.logout() }
    }

    @objc public static func startCall(
        _ callee: String, video: Bool, callWaiting: String, resolve: @escaping Resolve, reject: @escaping Reject
    ) {
        promise(resolve, reject).settle {
            try await host.startCall(callee: callee, video: video, callWaiting: callWaiting)
        }
    }

    @objc public static func startGroupCall(
        _ callees: [String], video: Bool, answerPolicy: String, callWaiting: String, resolve: @escaping Resolve,
        reject: @escaping Reject
    ) {
        promise(resolve, reject).settle {
            try await host.startGroupCall(
                callees: callees, video: video, answerPolicy: answerPolicy, callWaiting: callWaiting)
        }
    }

    @objc public static func recentCalls(
        _ limit: Double, before: String?, resolve: @escaping Resolve, reject: @escaping Reject
    ) {
        promise(resolve, reject).settle { try await host.recentCalls(limit: limit, before: before) }
    }

    @objc public static func ringMore(
        _ callID: String, callees: [String], resolve: @escaping Resolve, reject: @escaping Reject
    ) {
        promise(resolve, reject).settle { try await host.ringMore(callID: callID, callees: callees) }
    }

    @objc public static func answer(_ callID: String, resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try await host.answer(callID: callID) }
    }

    @objc public static func decline(_ callID: String, resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try await host.decline(callID: callID) }
    }

    @objc public static func hangUp(_ callID: String, resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try await host.hangUp(callID: callID) }
    }

    @objc public static func setHeld(
        _ callID: String, held: Bool, resolve: @escaping Resolve, reject: @escaping Reject
    ) {
        promise(resolve, reject).settle { try host.setHeld(callID: callID, held: held) }
    }

    @objc public static func setMuted(
        _ callID: String, muted: Bool, resolve: @escaping Resolve, reject: @escaping Reject
    ) {
        promise(resolve, reject).settle { try host.setMuted(callID: callID, muted: muted) }
    }

    @objc public static func playDtmf(
        _ callID: String, digits: String, resolve: @escaping Resolve, reject: @escaping Reject
    ) {
        promise(resolve, reject).settle { try host.playDTMF(callID: callID, digits: digits) }
    }

    @objc public static func audioRoutes(resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try host.audioRoutes() }
    }

    @objc public static func setAudioRoute(_ outputID: String, resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try host.setAudioRoute(outputID: outputID) }
    }

    @objc public static func calls(resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try host.calls() }
    }

    @objc public static func readiness(resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try await host.readiness() }
    }

    @objc public static func openReadinessSettings(
        _ problem: String, resolve: @escaping Resolve, reject: @escaping Reject
    ) {
        promise(resolve, reject).settle { try await host.openReadinessSettings(problem: problem) }
    }

    @objc public static func callHistory(_ limit: Double, resolve: @escaping Resolve, reject: @escaping Reject) {
        promise(resolve, reject).settle { try host.callHistory(limit: limit) }
    }
}
#endif
