import Foundation
import RingerSandbox

extension Demo {
    /// Bob's Android phone for `ringer-lab demo --android`: the real Kotlin SDK in the stack's ``AndroidPhoneHost``
    /// (docs/android-phone-host.md; `make -C android lab` builds it), its app swiped away (the process is gone; a
    /// high-priority FCM message starts it again), answering `answerAfter` seconds after it rings. Its timeline
    /// events, read from the host's events:
    ///
    /// | event | host event | when |
    /// | --- | --- | --- |
    /// | `app.started` | `started_by_message` | the FCM message started the app's process (`message` names it) |
    /// | `fcm.received` | `message_received` | `onMessageReceived` handled it (`priority` as FCM delivered it) |
    /// | `connection.ringing` | `ringing` | the ConnectionService's connection rings (`shown`: `inApp`, `fullScreen`, `headsUp`) |
    /// | `connection.answered` | `user_answered` | bob tapped Answer (`Connection.onAnswer`) |
    /// | `media.token` | `media_ready` | the server confirmed the answer: bob's media session |
    /// | `audio.started` | `audio_started` | the call is active; its foreground service holds `microphone` |
    /// | `call.ended` | `call_ended` | the connection ended (`cause`: the `DisconnectCause`, `REMOTE` for alice's hang-up) |
    /// | `message.not_delivered`, `service.refused` | `message_not_delivered`, `foreground_service_refused` | a fault: Android withheld the message, `startForeground` threw |
    ///
    /// - Throws: ``AndroidPhoneHost/HostError`` when the host is not built (`no_classpath`) or the phone does not
    ///   register; ``RingerAPIError`` when bob's token cannot be minted.
    static func androidCallee(on stack: LocalStack, timeline: Timeline, answerAfter: TimeInterval) async throws {
        let device = "bob-pixel"
        // Installed, logged in and registered in the foreground, then swiped away before `add_phone` answers.
        _ = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: device, behaviour: .answer(after: answerAfter), appState: .swipedAway,
            observe: { event in record(event, device: device, on: timeline) },
            onError: { problem in timeline.record("demo.failed", ["reason": problem]) })
    }

    /// Puts one of the host's events on the timeline under the demo's name for it (the table above), at the time the
    /// phone wrote it: its line reaches the demo after the server's reaction to it (the phone's connection rings, then
    /// it tells the server, whose `call.ringing` the demo may hear first). Events the demo does not show are left out.
    private static func record(_ event: AndroidHostEvent, device: String, on timeline: Timeline) {
        let call = event.callID ?? ""
        // The host's clock is the wall clock here: the demo runs unscaled.
        let at = event.tMs.map { Date(timeIntervalSince1970: $0 / 1000) }
        switch event.event {
        case "started_by_message":
            timeline.record("app.started", ["device": device, "message": event.message ?? ""], at: at)
        case "message_received":
            timeline.record(
                "fcm.received",
                ["device": device, "message": event.message ?? "", "priority": event.priority ?? ""], at: at)
        case "message_not_delivered":
            timeline.record(
                "message.not_delivered",
                ["device": device, "message": event.message ?? "", "reason": event.reason ?? ""], at: at)
        case "ringing":
            timeline.record(
                "connection.ringing", ["device": device, "call_id": call, "shown": shown(event.presentation)], at: at)
        case "user_answered":
            timeline.record("connection.answered", ["device": device, "call_id": call], at: at)
        case "media_ready":
            timeline.record("media.token", ["party": "bob", "call_id": call], at: at)
        case "audio_started":
            timeline.record("audio.started", ["device": device, "call_id": call], at: at)
        case "foreground_service_refused":
            timeline.record("service.refused", ["device": device, "call_id": call, "error": event.error ?? ""], at: at)
        case "call_ended":
            var fields = ["seen_by": "bob", "call_id": call, "cause": event.cause ?? ""]
            if let reason = event.reason { fields["reason"] = reason }
            timeline.record("call.ended", fields, at: at)
        default:
            break
        }
    }

    /// The host's `ringing` presentation (`in_app`, `full_screen`, `heads_up`) in the demo's words (`inApp`, …).
    private static func shown(_ presentation: String?) -> String {
        switch presentation {
        case "in_app": "inApp"
        case "full_screen": "fullScreen"
        case "heads_up": "headsUp"
        default: presentation ?? "unknown"
        }
    }
}
