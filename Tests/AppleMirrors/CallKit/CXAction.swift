// Test-only mirror of CallKit's actions and transactions (`CXAction.h`, `CXCallAction.h`,
// `CXAnswerCallAction.h`, `CXEndCallAction.h`, `CXStartCallAction.h`, `CXTransaction.h`). Members named
// `mirror…` are not Apple API: they record what the app did with each action.

import Foundation

/// Mirror of `CXAction`. Records how the app completed it; completing twice, or after the action timed
/// out ("An action that has already timed out should not be fulfilled or failed"), is recorded too.
open class CXAction: NSObject {
    /// How the app completed an action (mirror only).
    public enum MirrorOutcome: Equatable, Sendable {
        case fulfilled
        case failed
    }

    private let lock = NSLock()
    private let identifier = UUID()
    private var outcome: MirrorOutcome?
    private var completions = 0
    private var timedOut = false
    private var completedLate = false

    public override init() { super.init() }

    /// The action's unique identifier.
    open var uuid: UUID { identifier }

    /// Whether the action was fulfilled or failed.
    open var isComplete: Bool { lock.withLock { outcome != nil } }

    /// When the system gives up on the action.
    open var timeoutDate: Date { Date().addingTimeInterval(10) }

    /// Reports that the action succeeded.
    open func fulfill() { complete(.fulfilled) }

    /// Reports that the action failed.
    open func fail() { complete(.failed) }

    private func complete(_ result: MirrorOutcome) {
        lock.withLock {
            completions += 1
            if timedOut { completedLate = true }
            if outcome == nil { outcome = result }
        }
    }

    // MARK: Mirror-only (not Apple API)

    /// The first completion, nil while pending.
    public var mirrorOutcome: MirrorOutcome? { lock.withLock { outcome } }
    /// How many times the app called `fulfill`/`fail` (CallKit expects exactly one).
    public var mirrorCompletionCount: Int { lock.withLock { completions } }
    /// True when the app completed the action after the system timed it out.
    public var mirrorCompletedAfterTimeout: Bool { lock.withLock { completedLate } }

    func mirrorMarkTimedOut() { lock.withLock { timedOut = true } }
}

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

/// Mirror of `CXTransaction`.
open class CXTransaction: NSObject {
    private let identifier = UUID()

    /// The actions, in order.
    open private(set) var actions: [CXAction]

    /// Apple: `init(action: CXAction)`.
    public init(action: CXAction) {
        actions = [action]
        super.init()
    }

    /// Apple: `init(actions: [CXAction])`.
    public init(actions: [CXAction]) {
        self.actions = actions
        super.init()
    }

    /// The transaction's unique identifier.
    open var uuid: UUID { identifier }
}
