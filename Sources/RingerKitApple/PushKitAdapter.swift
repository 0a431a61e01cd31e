// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
public import Dispatch
import Foundation
// PushKit's classes are not Sendable-annotated; the registry is configured once, here, and then only
// calls its delegate.
@preconcurrency public import PushKit
public import RingerKit

/// PushKit's VoIP registry, wired to RingerKit: incoming VoIP pushes go to ``CallCoordinator``, the VoIP
/// token to ``PushTokenRegistrar``. It only translates (see docs/ios-integration.md for the table).
///
/// Create it at launch, in `application(_:didFinishLaunchingWithOptions:)` or earlier, never lazily from
/// a UI: a push that woke the app is delivered as soon as the registry exists (Apple, `PKPushRegistry`:
/// make and configure the registry at every launch, foreground or background). Thread-safe.
public final class PushKitAdapter: Sendable {
    /// The VoIP registry, registered for `.voIP`.
    public let registry: PKPushRegistry
    /// Held here because the registry holds its delegate weakly.
    private let delegate: PushRegistryDelegate

    /// Creates the registry, sets its delegate, then registers for VoIP pushes, in that order (Apple,
    /// `PKPushRegistry.delegate`: the delegate must be set before `desiredPushTypes` is changed).
    /// - Parameters:
    ///   - coordinator: receives each VoIP push; it reports the call to CallKit before returning.
    ///   - registrar: receives the VoIP token (sent as lowercase hex) and its invalidation.
    ///   - queue: the queue for delegate callbacks; nil is the main queue (Apple, `init(queue:)`, advises a
    ///     serial queue).
    public init(coordinator: CallCoordinator, registrar: PushTokenRegistrar, queue: DispatchQueue? = nil) {
        delegate = PushRegistryDelegate(coordinator: coordinator, registrar: registrar)
        registry = PKPushRegistry(queue: queue)
        registry.delegate = delegate
        registry.desiredPushTypes = [.voIP]
    }
}
#endif
