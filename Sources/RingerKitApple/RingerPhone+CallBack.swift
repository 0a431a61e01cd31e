// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio) && canImport(Intents)
public import Foundation
public import Intents
public import RingerKit

extension RingerPhone {
    /// Who to call back when the user tapped one of the app's calls in the phone's Recents list: iOS launches or
    /// foregrounds the app with an `INStartCallIntent` user activity whose first contact's handle is the handle the
    /// app reported to CallKit, which for a Ringer call is the other party's user id (``CallKitAdapter`` reports
    /// `.generic` handles). Call it from `application(_:continue:restorationHandler:)`, `scene(_:continue:)` or
    /// SwiftUI's `onContinueUserActivity("INStartCallIntent")`, then decide whether to call (`startCall(to:)`): a tap
    /// in a list is not consent to ring someone at once (docs/ios-integration.md, "Calling back from Recents").
    /// - Parameter userActivity: the activity iOS handed the app.
    /// - Returns: the person and whether a video call was asked for; nil for any other activity, an intent without a
    ///   contact, or a handle that is no Ringer user id (a phone number of another app's call).
    public static func callBackRequest(from userActivity: NSUserActivity) -> CallBackRequest? {
        // Ringer reports `.generic` handles, which come back typed `.unknown`; a phone number or an email address is
        // another app's call (or a Siri request naming a contact), not a Ringer user to ring.
        guard let intent = userActivity.interaction?.intent as? INStartCallIntent,
            let person = intent.contacts?.first?.personHandle, person.type == .unknown, let handle = person.value
        else { return nil }
        return CallBackRequest(handle: handle, hasVideo: intent.callCapability == .videoCall)
    }
}
#endif
