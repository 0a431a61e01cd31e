// Test-only mirror of CallKit's `CXProvider.h` (`CXCallEndedReason`, `CXProviderDelegate`, `CXProvider`), for
// RingerKitApple's tests on Linux: names, labels, optionality and `@Sendable` as in Apple's SDK
// (developer.apple.com/documentation/callkit); none of it is main-actor isolated there. Compiled in Swift 5
// mode, as Apple's Objective-C frameworks are imported as pre-concurrency modules. Members named `mirror…`
// are not Apple API: they record what the app reported and play the system's part (the user's taps, audio
// activation, a reset), always on the delegate queue as CallKit does.

import AVFAudio
import Dispatch
import Foundation

/// Mirror of `CXCallEndedReason` (`NS_ENUM(NSInteger)`, values as in `CXProvider.h`).
public enum CXCallEndedReason: Int, @unchecked Sendable {
    /// An error occurred while trying to service the call.
    case failed = 1
    /// The remote party explicitly ended the call.
    case remoteEnded = 2
    /// The call never started connecting and was never explicitly ended (e.g. outgoing/incoming call timeout).
    case unanswered = 3
    /// The call was answered on another device.
    case answeredElsewhere = 4
    /// The call was declined on another device.
    case declinedElsewhere = 5
}

/// Mirror of `CXProviderDelegate`. `providerDidReset(_:)` is required as in the SDK; Apple's `@optional`
/// methods have do-nothing defaults here, which is what an unimplemented optional method amounts to (a
/// misspelt witness is never called, and the tests notice).
public protocol CXProviderDelegate: NSObjectProtocol {
    func providerDidReset(_ provider: CXProvider)
    func providerDidBegin(_ provider: CXProvider)
    func provider(_ provider: CXProvider, execute transaction: CXTransaction) -> Bool
    func provider(_ provider: CXProvider, perform action: CXStartCallAction)
    func provider(_ provider: CXProvider, perform action: CXAnswerCallAction)
    func provider(_ provider: CXProvider, perform action: CXEndCallAction)
    func provider(_ provider: CXProvider, perform action: CXSetHeldCallAction)
    func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction)
    func provider(_ provider: CXProvider, perform action: CXPlayDTMFCallAction)
    func provider(_ provider: CXProvider, timedOutPerforming action: CXAction)
    func provider(_ provider: CXProvider, didActivate audioSession: AVAudioSession)
    func provider(_ provider: CXProvider, didDeactivate audioSession: AVAudioSession)
}

extension CXProviderDelegate {
    public func providerDidBegin(_ provider: CXProvider) {}
    public func provider(_ provider: CXProvider, execute transaction: CXTransaction) -> Bool { false }
    public func provider(_ provider: CXProvider, perform action: CXStartCallAction) {}
    public func provider(_ provider: CXProvider, perform action: CXAnswerCallAction) {}
    public func provider(_ provider: CXProvider, perform action: CXEndCallAction) {}
    public func provider(_ provider: CXProvider, perform action: CXSetHeldCallAction) {}
    public func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction) {}
    public func provider(_ provider: CXProvider, perform action: CXPlayDTMFCallAction) {}
    public func provider(_ provider: CXProvider, timedOutPerforming action: CXAction) {}
    public func provider(_ provider: CXProvider, didActivate audioSession: AVAudioSession) {}
    public func provider(_ provider: CXProvider, didDeactivate audioSession: AVAudioSession) {}
}

/// The error the mirrored system refuses a report or a transaction with (stands for CallKit's
/// `CXErrorCodeIncomingCallError` and `CXErrorCodeRequestTransactionError`).
public struct MirrorCallKitError: Error, Equatable, Sendable {
    /// The CallKit error code's case name, e.g. "callUUIDAlreadyExists".
    public let code: String

    public init(code: String) { self.code = code }
}

/// Mirror of `CXProvider`.
open class CXProvider: NSObject {
    /// What the app reported, in order (mirror only).
    public enum MirrorReport: Equatable, Sendable {
        case incoming(UUID, accepted: Bool)
        case ended(UUID, CXCallEndedReason)
        case outgoingStartedConnecting(UUID)
        case outgoingConnected(UUID)
    }

    private let lock = NSLock()
    private let privateQueue = DispatchQueue(label: "mirror.CXProvider")
    private weak var delegate: (any CXProviderDelegate)?
    private var delegateQueue: DispatchQueue?
    private var reports: [MirrorReport] = []
    private var updates: [UUID: CXCallUpdate] = [:]
    private var active: Set<UUID> = []
    private var refusing = false
    private var invalidated = false

    /// The configuration (`@NSCopying`).
    open var configuration: CXProviderConfiguration

    /// Apple: `init(configuration: CXProviderConfiguration)`.
    public init(configuration: CXProviderConfiguration) {
        self.configuration = configuration
        super.init()
    }

    /// Apple: "A nil queue implies that delegate callbacks should happen on the main queue. The delegate
    /// is stored weakly".
    open func setDelegate(_ delegate: (any CXProviderDelegate)?, queue: DispatchQueue?) {
        lock.withLock {
            self.delegate = delegate
            delegateQueue = queue
        }
    }

    /// Apple: a non-nil error means "the incoming call has been disallowed by the system and will not be
    /// displayed"; the completion runs "on delegate queue, if specified, otherwise on a private serial queue".
    open func reportNewIncomingCall(
        with callUUID: UUID, update: CXCallUpdate,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let (error, queue) = lock.withLock { () -> (MirrorCallKitError?, DispatchQueue) in
            var error: MirrorCallKitError?
            if invalidated || refusing {
                error = MirrorCallKitError(code: "filteredByDoNotDisturb")
            } else if active.contains(callUUID) {
                error = MirrorCallKitError(code: "callUUIDAlreadyExists")
            } else {
                active.insert(callUUID)
                updates[callUUID] = update
            }
            reports.append(.incoming(callUUID, accepted: error == nil))
            return (error, delegateQueue ?? privateQueue)
        }
        queue.async { completion(error) }
    }

    /// Apple: `reportCall(with:updated:)`: new details of a call the system knows; the mirror keeps the latest update.
    open func reportCall(with callUUID: UUID, updated update: CXCallUpdate) {
        lock.withLock { updates[callUUID] = update }
    }

    /// Apple: "A nil value for dateEnded results in the ended date being set to now."
    open func reportCall(with callUUID: UUID, endedAt dateEnded: Date?, reason endedReason: CXCallEndedReason) {
        lock.withLock {
            active.remove(callUUID)
            reports.append(.ended(callUUID, endedReason))
        }
    }

    /// An outgoing call started connecting.
    open func reportOutgoingCall(with callUUID: UUID, startedConnectingAt dateStartedConnecting: Date?) {
        lock.withLock { reports.append(.outgoingStartedConnecting(callUUID)) }
    }

    /// An outgoing call connected.
    open func reportOutgoingCall(with callUUID: UUID, connectedAt dateConnected: Date?) {
        lock.withLock { reports.append(.outgoingConnected(callUUID)) }
    }

    /// Apple: "All existing calls will be marked as ended in failure."
    open func invalidate() {
        lock.withLock {
            invalidated = true
            active.removeAll()
        }
    }

    // MARK: Mirror-only: the system's side (not Apple API)

    /// Everything reported so far, in order.
    public var mirrorReports: [MirrorReport] { lock.withLock { reports } }
    /// The number of `reportNewIncomingCall` calls so far (PushKit's rule counts these).
    public var mirrorIncomingReportCount: Int {
        lock.withLock { reports.filter { if case .incoming = $0 { true } else { false } }.count }
    }
    /// The update the app gave for a call it reported.
    public func mirrorUpdate(for callUUID: UUID) -> CXCallUpdate? { lock.withLock { updates[callUUID] } }
    /// Calls on screen.
    public var mirrorActiveCalls: Set<UUID> { lock.withLock { active } }
    /// Makes the system refuse new incoming calls (Do Not Disturb), or accept them again.
    public func mirrorRefuseIncomingCalls(_ refuse: Bool) { lock.withLock { refusing = refuse } }

    /// The user acted on the native UI: performs `action` on the delegate queue (the start of an outgoing
    /// call also arrives this way, from `CXCallController`).
    public func mirrorPerform(_ action: CXAction) {
        onDelegateQueue { provider, delegate in
            switch action {
            case let answer as CXAnswerCallAction: delegate.provider(provider, perform: answer)
            case let end as CXEndCallAction:
                provider.lock.withLock { _ = provider.active.remove(end.callUUID) }
                delegate.provider(provider, perform: end)
            case let start as CXStartCallAction:
                provider.lock.withLock { _ = provider.active.insert(start.callUUID) }
                delegate.provider(provider, perform: start)
            case let hold as CXSetHeldCallAction: delegate.provider(provider, perform: hold)
            case let mute as CXSetMutedCallAction: delegate.provider(provider, perform: mute)
            case let dtmf as CXPlayDTMFCallAction: delegate.provider(provider, perform: dtmf)
            default: break
            }
        }
    }

    /// The system accepted a transaction starting a call: it knows the call from now on.
    func mirrorBeginCall(_ callUUID: UUID) {
        lock.withLock { _ = active.insert(callUUID) }
    }

    /// The system gave up waiting for `action`.
    public func mirrorTimeOut(_ action: CXAction) {
        action.mirrorMarkTimedOut()
        onDelegateQueue { provider, delegate in delegate.provider(provider, timedOutPerforming: action) }
    }

    /// The system activated the call's audio session.
    public func mirrorActivateAudioSession() {
        onDelegateQueue { provider, delegate in delegate.provider(provider, didActivate: .sharedInstance()) }
    }

    /// The system deactivated the call's audio session.
    public func mirrorDeactivateAudioSession() {
        onDelegateQueue { provider, delegate in delegate.provider(provider, didDeactivate: .sharedInstance()) }
    }

    /// The system reset the provider (e.g. the call server crashed): every call is gone.
    public func mirrorReset() {
        lock.withLock { active.removeAll() }
        onDelegateQueue { provider, delegate in delegate.providerDidReset(provider) }
    }

    private func onDelegateQueue(_ body: @escaping (CXProvider, any CXProviderDelegate) -> Void) {
        let (delegate, queue) = lock.withLock { () -> ((any CXProviderDelegate)?, DispatchQueue) in
            (self.delegate, delegateQueue ?? DispatchQueue.main)
        }
        guard let delegate else { return }
        queue.async { body(self, delegate) }
    }
}
