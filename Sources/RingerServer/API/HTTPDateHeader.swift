import Foundation
import RingerHTTP

/// The `date` header of the API's answers, read from the server's clock (``ServerClock``) rather than the socket
/// layer's wall clock: phones learn their offset from the server's timeline from it (RingerKit and the Kotlin SDK
/// read every answer's `Date`), so on a laboratory's scaled clock a wall-clock date would tell them a time seconds
/// away from the `server_time_ms` of `stream.ready` and the deadlines of the calls. On the system clock (production)
/// the value is the one the socket layer would have sent.
enum HTTPDateHeader {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// RFC 9110's IMF-fixdate of `date`, whole seconds (rounded down), UTC, English names whatever the locale:
    /// `Sun, 06 Dec 2026 23:41:04 GMT`.
    static func value(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// `response` with a `date` header from `now`, unless it has one.
    static func adding(to response: HTTPResponse, now: Date) -> HTTPResponse {
        guard !response.headers.contains(where: { $0.name.lowercased() == "date" }) else { return response }
        var dated = response
        dated.headers.append((name: "date", value: value(now)))
        return dated
    }
}
