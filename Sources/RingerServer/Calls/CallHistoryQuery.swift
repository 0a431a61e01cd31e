import Foundation
import RingerWire

/// What `GET /v1/server/calls` asks for (docs/openapi.yaml `listServerCalls`), checked by the router.
struct CallHistoryQuery: Sendable {
    /// Only calls this user placed or was rung in, each as they read it; nil for every call as stored.
    var userID: String?
    /// Only calls in one of these states (as ``userID`` reads them); nil for any.
    var states: Set<CallState>?
    /// Only calls ``userID`` missed (``RingerCore/CallMachine/isMissed(by:)``); needs a user.
    var missed = false
    /// Only calls created at or after it.
    var since: Date?
    /// Only calls created before it.
    var until: Date?
    /// At most this many calls (1…100).
    var limit = 20
    /// The previous page's `next_cursor`.
    var cursor: String?
}
