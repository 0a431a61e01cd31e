// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
import Foundation
import PushKit
import RingerKit

/// The `PKPushRegistryDelegate` behind ``PushKitAdapter``. Internal, so apps never call these methods
/// themselves. Thread-safe: it holds only Sendable references and PushKit calls it on one queue.
final class PushRegistryDelegate: NSObject, PKPushRegistryDelegate, Sendable {
    private let coordinator: CallCoordinator
    private let registrar: PushTokenRegistrar

    init(coordinator: CallCoordinator, registrar: PushTokenRegistrar) {
        self.coordinator = coordinator
        self.registrar = registrar
    }

    /// A new or rotated VoIP token (Apple: `pushRegistry(_:didUpdate:for:)`): the registrar registers it
    /// for the logged-in user, or keeps it until login.
    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType) {
        guard type == .voIP else { return }
        registrar.setToken(pushCredentials.token, for: .voip)
    }

    /// A VoIP push. The coordinator reports a call to CallKit before it returns, whatever the push holds,
    /// and only then is PushKit's completion called (Apple, `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`:
    /// from iOS 13 an app that does not report the call to CallKit is terminated).
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
        for type: PKPushType, completion: @escaping () -> Void
    ) {
        if type == .voIP { coordinator.handleVoIPPush(dictionary: payload.dictionaryPayload) }
        completion()
    }

    /// PushKit invalidated the VoIP token (Apple, `pushRegistry(_:didInvalidatePushTokenFor:)`: tell the
    /// server to stop pushing to it).
    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {
        guard type == .voIP else { return }
        registrar.invalidateToken(.voip)
    }
}
#endif
