public import RingerWire

/// A tap on a Ringer call in the phone's own call history (iOS Recents, through `INStartCallIntent`; Android's call log
/// from API 36, through `TelecomManager.ACTION_CALL_BACK`): the user asks to call that person back. The SDK only reads
/// who; the app decides whether to call (`startCall`), since a tap in a list is not consent to ring someone at once and
/// the app may want to show its own screen first (docs/decisions/0008 §4).
public struct CallBackRequest: Hashable, Sendable {
    /// The other party of the call in the history: the caller of an incoming call, the callee of an outgoing one
    /// (the handle Ringer reported to the system is that user's id).
    public var userID: String
    /// True when the user asked for a video call back (iOS: `INCallCapability.videoCall`).
    public var hasVideo: Bool

    /// Reads a history entry's handle.
    /// - Parameters:
    ///   - handle: the entry's handle value, as the system gives it back.
    ///   - hasVideo: whether a video call was asked for.
    /// - Returns: nil when `handle` is no user id the server accepts (``Identifier/isValid(_:)``): an entry that is not
    ///   one of Ringer's calls (a phone number, an email address) is not called back as a user.
    public init?(handle: String, hasVideo: Bool) {
        guard Identifier.isValid(handle) else { return nil }
        userID = handle
        self.hasVideo = hasVideo
    }
}
