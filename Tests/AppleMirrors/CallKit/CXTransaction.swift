// Test-only mirror of CallKit's `CXTransaction.h`, for RingerKitApple's tests on Linux: names, labels and optionality
// as in Apple's SDK (developer.apple.com/documentation/callkit); not main-actor isolated there either.
// Compiled in Swift 5 mode, as Apple's Objective-C frameworks are imported as pre-concurrency modules.

import Foundation

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
