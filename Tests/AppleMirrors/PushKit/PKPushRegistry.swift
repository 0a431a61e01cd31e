// A test-only mirror of the PushKit declarations RingerKitApple uses, so the adapters type-check and run on
// Linux. Names, labels, optionality and `@Sendable` follow Apple's SDK (`PKPushRegistry.h`, `PKDefines.h`,
// `PKPushCredentials.h`, `PKPushPayload.h`; developer.apple.com/documentation/pushkit). None of these is
// main-actor isolated in the SDK. Compiled in Swift 5 mode, as Apple's Objective-C frameworks are imported
// as pre-concurrency modules. Members named `mirror…` are not Apple API: they play the system's part.

import Dispatch
import Foundation

/// Mirror of `PKPushType` (`NS_TYPED_EXTENSIBLE_ENUM` over `NSString`).
public struct PKPushType: Hashable, Equatable, RawRepresentable, @unchecked Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `PKPushTypeVoIP`: VoIP call invitations, which must be reported to CallKit.
    public static let voIP = PKPushType(rawValue: "PKPushTypeVoIP")
    /// `PKPushTypeFileProvider`.
    public static let fileProvider = PKPushType(rawValue: "PKPushTypeFileProvider")
}

/// Mirror of `PKPushCredentials`: "Don't create PKPushCredentials objects yourself".
open class PKPushCredentials: NSObject {
    /// The push type the token belongs to.
    open private(set) var type: PKPushType
    /// The device token.
    open private(set) var token: Data

    init(type: PKPushType, token: Data) {
        self.type = type
        self.token = token
    }
}

/// Mirror of `PKPushPayload`.
open class PKPushPayload: NSObject {
    /// The push type.
    open private(set) var type: PKPushType
    /// The push's JSON payload as a dictionary.
    open private(set) var dictionaryPayload: [AnyHashable: Any]

    init(type: PKPushType, dictionaryPayload: [AnyHashable: Any]) {
        self.type = type
        self.dictionaryPayload = dictionaryPayload
    }
}

/// Mirror of `PKPushRegistryDelegate`. Apple's `@optional` methods have do-nothing defaults here, which is
/// what an unimplemented optional method amounts to: a misspelt witness is never called, and tests notice.
public protocol PKPushRegistryDelegate: NSObjectProtocol {
    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType)
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
        for type: PKPushType, completion: @escaping () -> Void)
    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType)
}

extension PKPushRegistryDelegate {
    public func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
        for type: PKPushType, completion: @escaping () -> Void
    ) {}
    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {}
}

/// Mirror of `PKPushRegistry`.
open class PKPushRegistry: NSObject {
    private let lock = NSLock()
    private let queue: DispatchQueue
    private weak var _delegate: (any PKPushRegistryDelegate)?
    private var _desiredPushTypes: Set<PKPushType>?
    private var registeredWithoutDelegate = false

    /// Apple: "The dispatch queue on which to execute the delegate methods … Specify nil to execute the
    /// delegate methods on the app's main queue."
    public init(queue: DispatchQueue?) {
        self.queue = queue ?? .main
        super.init()
    }

    /// Stored weakly, as in the SDK (`weak var delegate: (any PKPushRegistryDelegate)?`).
    open var delegate: (any PKPushRegistryDelegate)? {
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
    }

    /// Apple: "You must assign a valid object to [delegate] before modifying the desiredPushTypes property."
    open var desiredPushTypes: Set<PKPushType>? {
        get { lock.withLock { _desiredPushTypes } }
        set {
            lock.withLock {
                if _delegate == nil { registeredWithoutDelegate = true }
                _desiredPushTypes = newValue
            }
        }
    }

    /// The locally cached token; the mirror keeps none.
    open func pushToken(for type: PKPushType) -> Data? { nil }

    // MARK: Mirror-only: the system's side (not Apple API)

    /// True when `desiredPushTypes` was set while no delegate was assigned (a violation of Apple's rule).
    public var mirrorRegisteredWithoutDelegate: Bool { lock.withLock { registeredWithoutDelegate } }

    /// Delivers an incoming push to the delegate on the registry's queue, as PushKit does.
    /// - Parameters:
    ///   - dictionaryPayload: the push's JSON as a dictionary.
    ///   - type: the push type; must be in `desiredPushTypes` to be delivered.
    ///   - completion: the completion handler handed to the delegate.
    /// - Returns: false when the type was not registered or no delegate is set (nothing is delivered).
    @discardableResult
    public func mirrorDeliverIncomingPush(
        _ dictionaryPayload: [AnyHashable: Any], type: PKPushType = .voIP,
        completion: @escaping @Sendable () -> Void
    ) -> Bool {
        guard let delegate, desiredPushTypes?.contains(type) == true else { return false }
        let payload = PKPushPayload(type: type, dictionaryPayload: dictionaryPayload)
        queue.async {
            delegate.pushRegistry(self, didReceiveIncomingPushWith: payload, for: type, completion: completion)
        }
        return true
    }

    /// PushKit issued or rotated the token of a registered type.
    public func mirrorUpdateCredentials(token: Data, type: PKPushType = .voIP) {
        guard let delegate, desiredPushTypes?.contains(type) == true else { return }
        let credentials = PKPushCredentials(type: type, token: token)
        queue.async { delegate.pushRegistry(self, didUpdate: credentials, for: type) }
    }

    /// PushKit invalidated the token of a registered type.
    public func mirrorInvalidateToken(type: PKPushType = .voIP) {
        guard let delegate, desiredPushTypes?.contains(type) == true else { return }
        queue.async { delegate.pushRegistry(self, didInvalidatePushTokenFor: type) }
    }
}
