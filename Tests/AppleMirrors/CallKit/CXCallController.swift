// Test-only mirror of `CXCallController` (`CXCallController.h`). Members named `mirror…` are not Apple API.

import Dispatch
import Foundation

/// Mirror of `CXCallController`. In iOS the system hands a requested transaction to the app's own
/// `CXProvider`; here the test names that provider with ``mirrorProvider``.
open class CXCallController: NSObject {
    private let lock = NSLock()
    private let queue: DispatchQueue
    private weak var provider: CXProvider?
    private var refusal: (any Error)?
    private var transactions: [CXTransaction] = []
    /// The completions ``mirrorHoldCompletions()`` holds; nil when they are called at once.
    private var heldCompletions: [() -> Void]?

    /// Apple: "Initialize call controller with a private, serial queue."
    public override convenience init() { self.init(queue: DispatchQueue(label: "mirror.CXCallController")) }

    /// Apple: the queue "is used for calling completion blocks".
    public init(queue: DispatchQueue) {
        self.queue = queue
        super.init()
    }

    /// Apple: "If the completion block is called with a nil error, then the transaction will be passed to
    /// the CXProvider's -provider:executeTransaction: delegate callback."
    open func request(_ transaction: CXTransaction, completion: @escaping @Sendable ((any Error)?) -> Void) {
        let (provider, refusal) = lock.withLock { () -> (CXProvider?, (any Error)?) in
            transactions.append(transaction)
            return (self.provider, self.refusal)
        }
        guard refusal == nil, let provider else {
            complete(completion, with: refusal ?? MirrorCallKitError(code: "unknownCallProvider"))
            return
        }
        // Apple, `CXErrorCodeRequestTransactionError.unknownCallUUID`: an action on a call the system does not have
        // (never reported, or ended) is refused; only a start action brings a new call.
        let active = provider.mirrorActiveCalls
        let unknown = transaction.actions.contains { action in
            guard let action = action as? CXCallAction, !(action is CXStartCallAction) else { return false }
            return !active.contains(action.callUUID)
        }
        guard !unknown else {
            complete(completion, with: MirrorCallKitError(code: "unknownCallUUID"))
            return
        }
        // A start the system accepted is a call it knows from then on, before the provider performs the action.
        for case let start as CXStartCallAction in transaction.actions { provider.mirrorBeginCall(start.callUUID) }
        complete(completion, with: nil)
        transaction.actions.forEach(provider.mirrorPerform)
    }

    private func complete(_ completion: @escaping @Sendable ((any Error)?) -> Void, with error: (any Error)?) {
        let call = { [queue] in queue.async { completion(error) } }
        let held = lock.withLock { () -> Bool in
            heldCompletions?.append(call)
            return heldCompletions != nil
        }
        if !held { call() }
    }

    // MARK: Mirror-only (not Apple API)

    /// The app's provider, which performs requested transactions (held weakly).
    public var mirrorProvider: CXProvider? {
        get { lock.withLock { provider } }
        set { lock.withLock { provider = newValue } }
    }

    /// Makes the system refuse every transaction with `error` (nil: accept them).
    public func mirrorRefuseTransactions(with error: (any Error)?) { lock.withLock { refusal = error } }

    /// Every transaction requested so far.
    public var mirrorTransactions: [CXTransaction] { lock.withLock { transactions } }

    /// Holds the completion of every transaction from now on until ``mirrorReleaseCompletions()``: the app waits
    /// for the system's verdict meanwhile, while the provider performs the actions as usual (what a busy system
    /// looks like to the app).
    public func mirrorHoldCompletions() { lock.withLock { heldCompletions = heldCompletions ?? [] } }

    /// Calls the held completions, in order, and stops holding.
    public func mirrorReleaseCompletions() {
        let held = lock.withLock { () -> [() -> Void] in
            defer { heldCompletions = nil }
            return heldCompletions ?? []
        }
        held.forEach { $0() }
    }
}
