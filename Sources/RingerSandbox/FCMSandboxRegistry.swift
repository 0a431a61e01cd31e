public import Foundation

/// What a simulated Android phone needs from the FCM sandbox: to register its token, to say how reachable
/// it is, and to have its token deleted (app uninstalled). The FCM sandbox conforms; tests may use a fake.
public protocol FCMSandboxRegistry: Sendable {
    /// Adds or replaces a registration token.
    func register(_ device: FCMSandboxDevice)
    /// Says how the phone can be reached now; a phone that wakes or comes online gets what is due.
    /// - Parameters:
    ///   - token: the registration token.
    ///   - reachability: online, dozing or offline.
    func setReachability(token: String, _ reachability: FCMSandboxDevice.Reachability)
    /// Marks a token deleted at `date` (app uninstalled, `FirebaseMessaging.deleteToken`): later sends get
    /// 404 `UNREGISTERED`.
    func unregister(token: String, at date: Date)
}
