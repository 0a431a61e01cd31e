public import Foundation
public import RingerCore
public import RingerStore
public import RingerWire

/// Something the server did, for timelines, tests and operators' metrics. Never carries a token.
public enum ServerObservation: Sendable {
    /// A call was stored; it rings, or ended at once (busy, failed).
    case callCreated(Call)
    /// A call changed state or an event was published for it.
    case callEvent(EventType, Call)
    /// This server stored a call's change (`created`: the call itself) with the effects the call machine decided
    /// (metrics read its first ringing, its answer and its outcome from them).
    case callStored(Call, effects: [CallEffect], created: Bool)
    /// A push token the provider reported dead was removed.
    case deadTokenRemoved(PushProvider)
    /// A push provider answered a push (or no answer came: `status` nil): the record the store keeps and
    /// `GET /v1/calls/{id}` shows.
    case pushSent(PushAttempt)
    /// A ring timeout was scheduled or fired.
    case ringTimeoutFired(callID: String)
    /// A webhook delivery was attempted: how it ended, and how long the attempt took (seconds).
    case webhookAttempt(WebhookAttemptOutcome, seconds: TimeInterval)
}
