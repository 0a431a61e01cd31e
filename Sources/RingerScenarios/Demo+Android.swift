import Foundation
import RingerSandbox
import RingerWire

extension Demo {
    /// Bob's Android phone for `ringer-lab demo --android`, its app swiped away (the process is gone; a
    /// high-priority FCM message starts it again). Its timeline events:
    ///
    /// | event | when |
    /// | --- | --- |
    /// | `app.started` | the FCM message started the app's process (`message` names it) |
    /// | `fcm.received` | `onMessageReceived` handled it (`priority` as FCM delivered it) |
    /// | `connection.ringing` | the ConnectionService's connection rings (`shown`: `inApp`, `fullScreen`, `headsUp`) |
    /// | `connection.answered` | bob tapped Answer (`Connection.onAnswer`) |
    /// | `media.token` | the server confirmed the answer: bob's media session |
    /// | `audio.started` | the call is active; its foreground service holds `microphone` |
    /// | `call.ended` | the connection ended (`cause`: the `DisconnectCause`, `REMOTE` for alice's hang-up) |
    /// | `message.not_delivered`, `service.refused` | a fault: Android withheld the message, `startForeground` threw |
    static func androidCallee(on stack: LocalStack, timeline: Timeline, answerAfter: TimeInterval) async throws {
        let device = "bob-pixel"
        let bob = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: device,
            behaviour: .answer(after: answerAfter)
        ) { observation in
            switch observation {
            case .startedByMessage(let name):
                timeline.record("app.started", ["device": device, "message": name])
            case .messageReceived(let name, let priority, _):
                timeline.record("fcm.received", ["device": device, "message": name, "priority": priority.rawValue])
            case .messageNotDelivered(let name, let reason):
                timeline.record("message.not_delivered", ["device": device, "message": name, "reason": reason])
            case .ringing(let callID, let presentation):
                timeline.record(
                    "connection.ringing", ["device": device, "call_id": callID, "shown": presentation.rawValue])
            case .userAnswered(let callID):
                timeline.record("connection.answered", ["device": device, "call_id": callID])
            case .mediaReady(let callID, let media):
                timeline.record("media.token", ["party": "bob", "call_id": callID, "url": media.url])
            case .audioStarted(let callID):
                timeline.record("audio.started", ["device": device, "call_id": callID])
            case .foregroundServiceRefused(let callID, let error):
                timeline.record("service.refused", ["device": device, "call_id": callID, "error": error.description])
            case .callEnded(let callID, let cause):
                timeline.record("call.ended", ["seen_by": "bob", "call_id": callID, "cause": cause.description])
            default:
                break
            }
        }
        bob.setAppState(.swipedAway)
    }
}
