public import Foundation
public import RingerSupport
public import RingerWire

extension PushTokenRegistrar {
    /// Which platform token a callback delivered.
    public enum TokenKind: Sendable, Hashable, CaseIterable {
        /// PushKit VoIP token (`PKPushRegistry`, type `.voIP`), iOS.
        case voip
        /// Ordinary APNs device token (`didRegisterForRemoteNotificationsWithDeviceToken`), iOS.
        case apns
        /// Firebase Cloud Messaging registration token, Android.
        case fcm
    }

    /// The push tokens the platform currently holds for this install. Tokens are secrets of a kind
    /// (anyone holding one and the provider key can wake the phone), so `description` only says
    /// which are present.
    public struct Tokens: Sendable, Hashable, CustomStringConvertible {
        /// PushKit VoIP token, hex.
        public var voip: String?
        /// APNs device token, hex.
        public var apns: String?
        /// FCM registration token.
        public var fcm: String?

        /// Creates a token set.
        public init(voip: String? = nil, apns: String? = nil, fcm: String? = nil) {
            self.voip = voip
            self.apns = apns
            self.fcm = fcm
        }

        /// True when no token is held.
        public var isEmpty: Bool { voip == nil && apns == nil && fcm == nil }

        /// The token of one kind.
        public subscript(kind: TokenKind) -> String? {
            get {
                switch kind {
                case .voip: voip
                case .apns: apns
                case .fcm: fcm
                }
            }
            set {
                switch kind {
                case .voip: voip = newValue
                case .apns: apns = newValue
                case .fcm: fcm = newValue
                }
            }
        }

        public var description: String {
            let present = TokenKind.allCases.filter { self[$0] != nil }.map { "\($0)" }
            return "Tokens(\(present.isEmpty ? "none" : present.joined(separator: ", ")))"
        }
    }

    /// What the registrar knows, for the app's settings screen or diagnostics.
    public struct Status: Sendable, Equatable {
        /// True between ``PushTokenRegistrar/logIn(_:)`` and ``PushTokenRegistrar/logOut()``.
        public var isLoggedIn: Bool
        /// The newest tokens from the platform (kept across logout: they belong to the install).
        public var tokens: Tokens
        /// The registration the server last acknowledged for the current user; nil when none is
        /// known (not yet registered, unregistered, or logged out and the `DELETE` acknowledged).
        public var registeredDevice: Device?
        /// True while a request is in flight or waiting to be retried.
        public var isSyncing: Bool
    }

    /// An outcome, reported to the observer on any thread, outside the registrar's lock.
    public enum Observation: Sendable, Equatable {
        /// The server stored this registration (`PUT /v1/devices/{id}` answered 2xx). It holds the
        /// push tokens: do not log it as is.
        case registered(Device)
        /// The server removed the device for a user (`DELETE` answered 2xx): on logout, or when
        /// the platform invalidated the last token.
        case unregistered(deviceID: String)
        /// A transient failure (no answer, or 5xx); the request is tried again after `delay` seconds
        /// if the state it tries to reach is still wanted then.
        case retrying(attempt: Int, delay: TimeInterval, detail: String)
        /// The server refused the request (4xx): not retried until the wanted state changes.
        case failed(detail: String)
    }

    /// The retry policy: Ringer's one backoff (RingerSupport's `Backoff`, exponential with equal jitter).
    public typealias Backoff = RingerSupport.Backoff

    /// The default retry policy: 0.5…1 s before the first retry, doubling, at most 60 s.
    public static let defaultBackoff = Backoff(initialDelay: 1, maximumDelay: 60)
}
