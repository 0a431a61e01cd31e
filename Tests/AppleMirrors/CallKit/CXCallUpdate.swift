// A test-only mirror of the CallKit declarations RingerKitApple uses, so the adapters type-check and run on
// Linux. Names, labels, optionality and `@Sendable` follow Apple's SDK (`CXProvider.h`, `CXCallUpdate.h`,
// `CXHandle.h`, `CXProviderConfiguration.h`, the Swift overlay; developer.apple.com/documentation/callkit).
// None of these is main-actor isolated in the SDK. Compiled in Swift 5 mode, as Apple's Objective-C
// frameworks are imported as pre-concurrency modules. This is not the real framework.

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

/// Mirror of `CXHandle`.
open class CXHandle: NSObject {
    /// Mirror of `CXHandle.HandleType` (`CXHandleType`, `NS_ENUM(NSInteger)`).
    public enum HandleType: Int, @unchecked Sendable {
        case generic = 1
        case phoneNumber = 2
        case emailAddress = 3
    }

    /// The kind of handle.
    open private(set) var type: HandleType
    /// The handle's value (a user id for `.generic`).
    open private(set) var value: String

    /// Apple: `init(type: CXHandle.HandleType, value: String)`.
    public init(type: HandleType, value: String) {
        self.type = type
        self.value = value
    }
}

/// Mirror of `CXCallUpdate`: what the native UI shows about a call.
open class CXCallUpdate: NSObject {
    /// The other party.
    open var remoteHandle: CXHandle?
    /// The name shown for the other party.
    open var localizedCallerName: String?
    /// Whether the call offers video.
    open var hasVideo = false
    /// Whether the call can be held.
    open var supportsHolding = false
    /// Whether the call can be grouped with others.
    open var supportsGrouping = false
    /// Whether the call can leave a group.
    open var supportsUngrouping = false
    /// Whether the call accepts DTMF tones.
    open var supportsDTMF = false

    public override init() { super.init() }
}

/// Mirror of `CXProviderConfiguration`.
open class CXProviderConfiguration: NSObject {
    /// Apple: `var localizedName: String? { get }` (deprecated; the app's name is used).
    open private(set) var localizedName: String?
    /// Resource name of the ringtone in the app bundle.
    open var ringtoneSound: String?
    /// Template image shown in the call UI.
    open var iconTemplateImageData: Data?
    /// Maximum number of call groups.
    open var maximumCallGroups = 2
    /// Maximum number of calls per group.
    open var maximumCallsPerCallGroup = 5
    /// Whether calls appear in Recents.
    open var includesCallsInRecents = true
    /// Whether the provider supports video.
    open var supportsVideo = false
    /// The overlay's `@nonobjc final var supportedHandleTypes: Set<CXHandle.HandleType>`.
    public final var supportedHandleTypes: Set<CXHandle.HandleType> = []

    /// Apple: `init()` (iOS 14+).
    public override init() { super.init() }
}
