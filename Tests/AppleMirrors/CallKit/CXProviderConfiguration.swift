// Test-only mirror of CallKit's `CXProviderConfiguration.h`, for RingerKitApple's tests on Linux: names,
// labels and optionality as in Apple's SDK and the Swift overlay (developer.apple.com/documentation/callkit);
// not main-actor isolated there either. Compiled in Swift 5 mode, as Apple's Objective-C frameworks are
// imported as pre-concurrency modules.

import Foundation

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
