// A test-only mirror of the one AVFAudio declaration RingerKitApple uses, so its CallKit adapter type-checks
// and runs on Linux. Declared as in Apple's SDK (`AVAudioSession.h`); this is not the real framework.
// It is compiled in Swift 5 mode, as Apple's Objective-C frameworks are imported as pre-concurrency modules.

import Foundation

/// Mirror of `AVAudioSession` (Apple: AVFAudio). Only the shared instance exists; CallKit hands it to
/// `CXProviderDelegate.provider(_:didActivate:)` and `provider(_:didDeactivate:)`.
open class AVAudioSession: NSObject {
    private static let shared = AVAudioSession()

    override private init() { super.init() }

    /// The shared audio session (Apple: `class func sharedInstance() -> AVAudioSession`).
    open class func sharedInstance() -> AVAudioSession { shared }
}
