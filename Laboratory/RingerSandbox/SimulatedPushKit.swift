public import Foundation

/// PushKit's rule for VoIP pushes, as iOS enforces it (Apple: PushKit,
/// `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`: "you must report the call to CallKit
/// … before the completion handler is called, or the system terminates your app"; repeated
/// failures make iOS stop delivering VoIP pushes to the app).
public enum SimulatedPushKit {
    /// What iOS did with one VoIP push.
    public enum Verdict: Sendable, Equatable {
        /// The app reported a call in time.
        case reported
        /// The app returned without reporting: iOS kills it.
        case appKilled
    }

    /// Hands a VoIP push to the app's handler and judges it: the handler must have made at least one
    /// `reportNewIncomingCall` on `callKit` by the time it returns.
    /// - Parameters:
    ///   - payload: the push's JSON payload.
    ///   - callKit: the device's call UI, which counts reports.
    ///   - handler: the app's PushKit delegate method.
    /// - Returns: the verdict.
    public static func deliver(_ payload: Data, callKit: SimulatedCallKit, to handler: (Data) -> Void) -> Verdict {
        let before = callKit.reportCount
        handler(payload)
        return callKit.reportCount > before ? .reported : .appKilled
    }
}
