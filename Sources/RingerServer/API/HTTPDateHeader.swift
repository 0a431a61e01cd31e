import Foundation
import RingerHTTP

/// The `date` header of the API's answers, read from the server's clock (``ServerClock``) rather than the socket
/// layer's wall clock: phones learn their offset from the server's timeline from it (RingerKit and the Kotlin SDK
/// read every answer's `Date`), so on a laboratory's scaled clock a wall-clock date would tell them a time seconds
/// away from the `server_time_ms` of `stream.ready` and the deadlines of the calls. On the system clock (production)
/// the value is the one the socket layer would have sent.
enum HTTPDateHeader {
    /// RFC 9110's IMF-fixdate of `date`, whole seconds (rounded down): `Sun, 06 Dec 2026 23:41:04 GMT`.
    static func value(_ date: Date) -> String {
        HTTPDate.imfFixdate(secondsSince1970: Int(date.timeIntervalSince1970.rounded(.down)))
    }

    /// `response` with a `date` header from `now`, unless it has one.
    static func adding(to response: HTTPResponse, now: Date) -> HTTPResponse {
        guard !response.headers.contains(where: { $0.name.lowercased() == "date" }) else { return response }
        var dated = response
        dated.headers.append((name: "date", value: value(now)))
        return dated
    }
}
