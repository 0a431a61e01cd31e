// Test-only mirror of CallKit's `CXCallUpdate.h`, for RingerKitApple's tests on Linux: names, labels and optionality
// as in Apple's SDK (developer.apple.com/documentation/callkit); not main-actor isolated there either.
// Compiled in Swift 5 mode, as Apple's Objective-C frameworks are imported as pre-concurrency modules.

import Foundation

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
