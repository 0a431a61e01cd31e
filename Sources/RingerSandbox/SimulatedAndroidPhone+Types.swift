import Foundation
public import RingerKit
public import RingerWire

extension SimulatedAndroidPhone {
    /// What the user does when the phone rings.
    public typealias Behaviour = CalleeBehaviour

    /// The app's state as Android sees it.
    public enum AppState: String, Sendable {
        /// On screen; the app holds its event stream.
        case foreground
        /// Its process runs (the user left it, or an FCM message started it) but it is cached and frozen: no
        /// socket, unless a call holds its foreground service.
        case background
        /// Removed from Recents: the process is gone (unless a call's foreground service keeps it), but an FCM
        /// message still starts it (Android: swiping an app away is not a force stop).
        case swipedAway
        /// Force-stopped in Settings (or by an OEM's task killer), or installed and never opened: Android's
        /// stopped state. Nothing is delivered, FCM included, until the user opens the app again.
        case forceStopped
    }

    /// Who the phone belongs to and its FCM registration.
    public struct Identity: Sendable {
        /// The user id.
        public var userID: String
        /// The app's device id.
        public var deviceID: String
        /// The app's package name.
        public var packageName: String
        /// The Firebase project the app's token belongs to.
        public var projectID: String
        /// The FCM registration token, as Firebase would give the app.
        public var fcmToken: String

        /// Creates an identity with a random registration token shaped like Firebase's
        /// (`<instance id>:APA91b<base64url>`, 163 characters of `[A-Za-z0-9_:-]`).
        public init(
            userID: String, deviceID: String, packageName: String = "dev.ringer.demo",
            projectID: String = "ringer-demo"
        ) {
            self.userID = userID
            self.deviceID = deviceID
            self.packageName = packageName
            self.projectID = projectID
            fcmToken = Self.randomBase64URL(22) + ":APA91b" + Self.randomBase64URL(134)
        }

        private static func randomBase64URL(_ count: Int) -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            return String((0..<count).map { _ in alphabet.randomElement()! })
        }
    }

    /// A notification on the phone's shade.
    public struct ShownNotification: Sendable, Hashable {
        /// Who posted it.
        public enum Poster: String, Sendable, Hashable {
            /// The system, from an FCM message's `notification` block while the app was not in the foreground
            /// (the app never ran for it).
            case system
            /// The app, from `onMessageReceived`.
            case app
        }

        /// The title.
        public var title: String
        /// The text.
        public var body: String
        /// Who posted it.
        public var postedBy: Poster

        /// Creates a notification record.
        public init(title: String, body: String, postedBy: Poster) {
            self.title = title
            self.body = body
            self.postedBy = postedBy
        }
    }

    /// Something that happened on the phone, for timelines and tests.
    public enum Observation: Sendable {
        /// An FCM message started the app's process (it was swiped away or killed).
        case startedByMessage(messageName: String)
        /// `onMessageReceived` handled a data message delivered at this priority.
        case messageReceived(
            messageName: String, priority: FCMSandboxMessage.Priority,
            outcome: CallCoordinator.DataMessageOutcome)
        /// A message did not reach the app (force-stopped, offline).
        case messageNotDelivered(messageName: String, reason: String)
        /// A notification was shown.
        case notificationShown(ShownNotification)
        /// A notification was not shown: `POST_NOTIFICATIONS` is not granted.
        case notificationBlocked(ShownNotification)
        /// An incoming call rings, shown this way.
        case ringing(callID: String, presentation: SimulatedConnection.Presentation)
        /// The ConnectionService did not show an incoming call.
        case incomingCallRefused(callID: String, error: ConnectionServiceError)
        /// The user tapped Answer.
        case userAnswered(callID: String)
        /// The user tapped Decline.
        case userDeclined(callID: String)
        /// The user hung up.
        case userHungUp(callID: String)
        /// The server confirmed the answer (or the callee answered this phone's call): the media session.
        case mediaReady(callID: String, media: MediaSession)
        /// The app started the call's audio (its foreground service holds `microphone`).
        case audioStarted(callID: String)
        /// `startForeground` threw; the call was ended cleanly.
        case foregroundServiceRefused(callID: String, error: ForegroundServiceError)
        /// A connection was disconnected and destroyed with this cause.
        case callEnded(callID: String, cause: DisconnectCause)
        /// The app's process died with the call: Telecom disconnected it.
        case endedBySystem(callID: String)
        /// An event arrived on the app's WebSocket.
        case event(CallEvent)
        /// The app's process ended (swiped away, force-stopped, uninstalled).
        case processEnded(AppState)
    }
}
