public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `Date` header value of a response (RFC 9110 §6.6.1: an origin server with a clock must send one in
/// its 2xx, 3xx and 4xx responses), in the IMF-fixdate form RFC 9110 §5.6.7 requires:
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Clients read it to learn the server's clock (RingerKit judges a ringing
/// push's deadline on the server's timeline).
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The value for `seconds` since 1970 (UTC); names are English whatever the process locale.
    public static func imfFixdate(secondsSince1970 seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The value for now, on the wall clock.
    public static func now() -> String {
        imfFixdate(secondsSince1970: Int(time(nil)))
    }

    /// The date an HTTP-date names: IMF-fixdate, or the obsolete RFC 850 and asctime forms RFC 9110 §5.6.7 asks
    /// recipients to accept (`Retry-After`, a provider's `Date`); nil for anything else.
    public static func parse(_ text: String) -> Date? {
        for format in formats {
            if let date = formatter(format).date(from: text.trimmingCharacters(in: .whitespaces)) { return date }
        }
        return nil
    }

    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss 'GMT'",  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",  // RFC 850:     Sunday, 06-Nov-94 08:49:37 GMT
        "EEE MMM d HH:mm:ss yyyy",  // asctime:     Sun Nov  6 08:49:37 1994
    ]

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
