import Foundation

/// One event line of the phone host (docs/android-phone-host.md, "Events"): its name, phone and scenario time, and
/// whichever of the other fields that event has.
public struct AndroidHostEvent: Decodable, Sendable {
    /// The event's name: `ringing`, `call_ended`, ….
    public var event: String
    /// The phone's name in the host (the scenario's device id).
    public var phone: String
    /// Scenario time when it was written, Unix milliseconds.
    public var tMs: Double?
    /// The call id, for call events.
    public var callID: String?
    /// `ringing`: `in_app`, `full_screen` or `heads_up`.
    public var presentation: String?
    /// `call_ended`: the `DisconnectCause` constant's name.
    public var cause: String?
    /// `call_ended`: the cause's reason, or a refusal's reason.
    public var reason: String?
    /// The FCM message's name.
    public var message: String?
    /// `message_received`: `HIGH` or `NORMAL`.
    public var priority: String?
    /// `message_received`: `call`, `update` or `ignored`.
    public var outcome: String?
    /// `message_received` of a call: what became of it (`ringing`, `duplicate`, …).
    public var disposition: String?
    /// `event` and `message_received` updates: the event type (`call.accepted`, …).
    public var type: String?
    /// `event`: the event's sequence number.
    public var seq: Int64?
    /// `event`: the call's state after it.
    public var state: String?
    /// `stream_status`: `connected`, `lost`, ….
    public var status: String?
    /// `process_ended`: why.
    public var appState: String?
    /// Notifications: the title.
    public var title: String?
    /// Notifications: the text.
    public var body: String?
    /// Notifications: `system` or `app`.
    public var postedBy: String?
    /// `audio_started`, `foreground_service_started`: whether the microphone may be captured.
    public var microphone: Bool?
    /// `foreground_service_refused`: `start_not_allowed` or `security_exception`.
    public var error: String?
    /// `request_failed`: what failed (never a token).
    public var detail: String?
    /// `call_held`: whether the call is now held (true) or resumed.
    public var held: Bool?
    /// `sim_call_answered`: how the user answered the SIM call (`hold_and_accept`, `end_and_accept`, `decline`).
    public var answer: String?

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case event, phone, tMs, presentation, cause, reason, message, priority, outcome, disposition, type, seq, state,
            status, appState, title, body, postedBy, microphone, error, detail, held, answer
        case callID = "callId"
    }
}
