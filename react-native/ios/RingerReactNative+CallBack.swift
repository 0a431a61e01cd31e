// `NSUserActivity` is Foundation's on Apple platforms; Intents is imported for it on Linux, where the test-only
// Intents mirror declares it (swift-corelibs-foundation has none), and costs nothing on iOS, where RingerKitApple
// links Intents already.
public import Foundation
public import Intents
internal import RingerKit
internal import RingerKitApple

extension RingerReactNative {
    /// A user activity iOS handed the app (`application(_:continue:restorationHandler:)`): a tap on one of the app's
    /// calls in the phone's Recents list becomes a `callBackRequested` event naming the other party (RingerKitApple's
    /// `RingerPhone.callBackRequest(from:)` reads it). The event waits in the relay until JavaScript attaches, so a
    /// tap that launched the app is not lost; JavaScript decides whether to call. Expo apps get this from
    /// `RingerAppDelegateSubscriber`; a bare app's AppDelegate returns it from that method (or'ed with its own
    /// handlers, such as `RCTLinkingManager`'s).
    /// - Parameter userActivity: the activity.
    /// - Returns: true when it was a call back request for a Ringer user, so the app need not handle it further.
    public func handle(userActivity: NSUserActivity) -> Bool {
        guard let request = RingerPhone.callBackRequest(from: userActivity) else { return false }
        observe(.callBackRequested(request))
        return true
    }
}
