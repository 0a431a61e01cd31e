// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
public import CallKit
public import RingerWire

extension CXCallEndedReason {
    /// The CallKit reason for a call the local user did not end (Apple: `CXCallEndedReason`, passed to
    /// `CXProvider.reportCall(with:endedAt:reason:)`).
    ///
    /// Every reason Ringer defines has its own CallKit case but `answerNotDelivered`, which CallKit shows as
    /// `.failed` ("Call Failed"); a reason added by a newer server maps to
    /// `.remoteEnded` (ended by the other party), so the call still closes.
    /// - Parameter reason: why the call ended, as `CallCoordinator` reports it.
    public init(_ reason: CallEndReason) {
        switch reason {
        // CallKit has no "not delivered" reason: the call failed on this device; the app tells the user why.
        case .failed, .answerNotDelivered: self = .failed
        case .remoteEnded: self = .remoteEnded
        case .unanswered: self = .unanswered
        case .answeredElsewhere: self = .answeredElsewhere
        case .declinedElsewhere: self = .declinedElsewhere
        default: self = .remoteEnded
        }
    }
}
#endif
