// Test-only mirror of CallKit's `CXHandle.h`, for RingerKitApple's tests on Linux: names, labels and optionality
// as in Apple's SDK (developer.apple.com/documentation/callkit); not main-actor isolated there either.
// Compiled in Swift 5 mode, as Apple's Objective-C frameworks are imported as pre-concurrency modules.

import Foundation

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
