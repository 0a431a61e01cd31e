// Test-only mirror of CallKit's `CXCallAction.h`, `CXAnswerCallAction.h`, `CXEndCallAction.h` and
// `CXStartCallAction.h`, for RingerKitApple's tests on Linux: names, labels and optionality as in Apple's
// SDK (developer.apple.com/documentation/callkit); not main-actor isolated there either. Compiled in
// Swift 5 mode, as Apple's Objective-C frameworks are imported as pre-concurrency modules.

import Foundation

/// Mirror of `CXCallAction`: an action on one call.
open class CXCallAction: CXAction {
    private let call: UUID

    /// Apple: `init(call callUUID: UUID)`.
    public init(call callUUID: UUID) {
        call = callUUID
        super.init()
    }

    /// The call the action is about.
    open var callUUID: UUID { call }
}

/// Mirror of `CXAnswerCallAction`.
open class CXAnswerCallAction: CXCallAction {
    /// Reports success with the time the call connected.
    open func fulfill(withDateConnected dateConnected: Date) { fulfill() }
}

/// Mirror of `CXEndCallAction`.
open class CXEndCallAction: CXCallAction {
    /// Reports success with the time the call ended.
    open func fulfill(withDateEnded dateEnded: Date) { fulfill() }
}

/// Mirror of `CXStartCallAction`.
open class CXStartCallAction: CXCallAction {
    /// The callee (`@NSCopying var handle: CXHandle`).
    open var handle: CXHandle
    /// The contact identifier of the callee.
    open var contactIdentifier: String?
    /// Whether the call starts with video.
    open var isVideo = false

    /// Apple: `init(call callUUID: UUID, handle: CXHandle)`.
    public init(call callUUID: UUID, handle: CXHandle) {
        self.handle = handle
        super.init(call: callUUID)
    }

    /// Reports success with the time the invitation was sent.
    open func fulfill(withDateStarted dateStarted: Date) { fulfill() }
}

/// Mirror of `CXSetHeldCallAction` (`CXSetHeldCallAction.h`).
open class CXSetHeldCallAction: CXCallAction {
    /// Whether the call is to be held (`true`) or resumed.
    open var isOnHold: Bool

    /// Apple: `init(call callUUID: UUID, onHold: Bool)`.
    public init(call callUUID: UUID, onHold: Bool) {
        isOnHold = onHold
        super.init(call: callUUID)
    }
}

/// Mirror of `CXSetMutedCallAction` (`CXSetMutedCallAction.h`).
open class CXSetMutedCallAction: CXCallAction {
    /// Whether the call is to be muted.
    open var isMuted: Bool

    /// Apple: `init(call callUUID: UUID, muted: Bool)`.
    public init(call callUUID: UUID, muted: Bool) {
        isMuted = muted
        super.init(call: callUUID)
    }
}

/// Mirror of `CXPlayDTMFCallAction` (`CXPlayDTMFCallAction.h`).
open class CXPlayDTMFCallAction: CXCallAction {
    /// Apple: `CXPlayDTMFCallActionType` (`NS_ENUM(NSInteger)`, values 1, 2, 3).
    public enum ActionType: Int, Sendable {
        /// The user tapped a key of the in-call keypad.
        case singleTone = 1
        /// Digits after a soft pause (`,`) of a dialing string.
        case softPause = 2
        /// Digits after a hard pause (`;`) of a dialing string, which waits for the user.
        case hardPause = 3
    }

    /// The digits to play.
    open var digits: String
    /// How to play them.
    open var type: ActionType

    /// Apple: `init(call callUUID: UUID, digits: String, type: CXPlayDTMFCallAction.ActionType)`.
    public init(call callUUID: UUID, digits: String, type: ActionType) {
        self.digits = digits
        self.type = type
        super.init(call: callUUID)
    }
}
