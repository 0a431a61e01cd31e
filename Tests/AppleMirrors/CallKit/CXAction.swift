// Test-only mirror of CallKit's `CXAction.h`, for RingerKitApple's tests on Linux: names, labels and
// optionality as in Apple's SDK (developer.apple.com/documentation/callkit); not main-actor isolated there
// either. Compiled in Swift 5 mode, as Apple's Objective-C frameworks are imported as pre-concurrency
// modules. Members named `mirror…` are not Apple API: they record what the app did with the action.

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
