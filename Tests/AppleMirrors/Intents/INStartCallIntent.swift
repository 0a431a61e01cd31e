// A test-only mirror of the Intents declarations RingerKitApple uses to call back from Recents, so they type-check and
// run on Linux. Names, labels and raw values follow Apple's SDK (`INStartCallIntent.h`, `INPerson.h`,
// `INPersonHandle.h`, `INCallCapability.h`, `INInteraction.h`, `NSUserActivity+IntentsAdditions.h`); this is not the
// real framework. Initializers marked mirror-only are shorter than Apple's, which tests need not spell out.
//
// `NSUserActivity` is Foundation's on Apple platforms; swift-corelibs-foundation has none, so the mirror declares it
// here, with the `interaction` Intents adds to it.

import Foundation

/// Mirror of `NSUserActivity` (Foundation on Apple platforms) with Intents' `interaction`.
open class NSUserActivity: NSObject {
    /// Apple: `var activityType: String { get }` (`"INStartCallIntent"` for a tap in Recents).
    public let activityType: String
    /// Apple (Intents): `var interaction: INInteraction? { get }`; settable here for tests.
    open var interaction: INInteraction?

    /// Apple: `init(activityType: String)`.
    public init(activityType: String) {
        self.activityType = activityType
    }
}

/// Mirror of `INInteraction`: an intent and its response.
open class INInteraction: NSObject {
    /// Apple: `var intent: INIntent { get }`.
    open var intent: INIntent

    /// Apple: `init(intent: INIntent, response: INIntentResponse?)`; the response is left out here.
    public init(intent: INIntent) {
        self.intent = intent
    }
}

/// Mirror of `INIntent`.
open class INIntent: NSObject {}

/// Mirror of `INCallCapability` (`NS_ENUM(NSInteger)`).
public enum INCallCapability: Int, Sendable {
    case unknown = 0
    case audioCall = 1
    case videoCall = 2
}

/// Mirror of `INPersonHandleType` (`NS_ENUM(NSInteger)`).
public enum INPersonHandleType: Int, Sendable {
    case unknown = 0
    case emailAddress = 1
    case phoneNumber = 2
}

/// Mirror of `INPersonHandle`.
open class INPersonHandle: NSObject {
    /// Apple: `var value: String? { get }`.
    open var value: String?
    /// Apple: `var type: INPersonHandleType { get }`.
    open var type: INPersonHandleType

    /// Apple: `init(value: String?, type: INPersonHandleType)`.
    public init(value: String?, type: INPersonHandleType) {
        self.value = value
        self.type = type
    }
}

/// Mirror of `INPerson`.
open class INPerson: NSObject {
    /// Apple: `var personHandle: INPersonHandle? { get }`.
    open var personHandle: INPersonHandle?

    /// Mirror-only: Apple's initializer also takes name components, a display name, an image and identifiers.
    public init(personHandle: INPersonHandle?) {
        self.personHandle = personHandle
    }
}

/// Mirror of `INStartCallIntent` (iOS 13): what iOS hands the app when the user taps one of its calls in Recents.
open class INStartCallIntent: INIntent {
    /// Apple: `var contacts: [INPerson]? { get }`.
    open var contacts: [INPerson]?
    /// Apple: `var callCapability: INCallCapability { get }`.
    open var callCapability: INCallCapability

    /// Mirror-only: Apple's initializer also takes a call record filter, the record to call back, an audio route and
    /// a destination type.
    public init(contacts: [INPerson]?, callCapability: INCallCapability) {
        self.contacts = contacts
        self.callCapability = callCapability
    }
}
