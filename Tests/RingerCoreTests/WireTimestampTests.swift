import Foundation
import RingerWire
import Testing

/// The API's timestamps, formatted from the C library's calendar: UTC to the nearest millisecond, and the same text
/// after a read back.
struct WireTimestampTests {
    @Test func timestampsAreUTCToTheNearestMillisecond() {
        for (milliseconds, text): (Int64, String) in [
            (0, "1970-01-01T00:00:00.000Z"), (59_999, "1970-01-01T00:00:59.999Z"),
            (951_782_400_500, "2000-02-29T00:00:00.500Z"), (1_796_659_503_042, "2026-12-07T16:05:03.042Z"),
            (4_102_444_799_250, "2099-12-31T23:59:59.250Z"), (-1, "1969-12-31T23:59:59.999Z"),
            (-86_400_001, "1969-12-30T23:59:59.999Z"),
        ] {
            #expect(RingerJSON.formatTimestamp(Date(unixMilliseconds: milliseconds)) == text, "\(milliseconds)")
        }
        // The whole seconds are the ISO 8601 formatter's.
        let now = Date(unixMilliseconds: Date().unixMilliseconds / 1000 * 1000)
        #expect(RingerJSON.formatTimestamp(now) == Date.ISO8601FormatStyle().format(now).dropLast() + ".000Z")
        // Rounded, not cut: 0.9996 s is the next second.
        #expect(RingerJSON.formatTimestamp(Date(timeIntervalSince1970: 0.9996)) == "1970-01-01T00:00:01.000Z")
    }

    @Test func aTimestampReadBackIsWrittenTheSame() throws {
        for text in ["2026-12-07T17:05:03.123Z", "2000-02-29T00:00:00.000Z", "1969-12-31T23:59:59.999Z"] {
            let date = try #require(RingerJSON.parseTimestamp(text))
            #expect(RingerJSON.formatTimestamp(date) == text)
        }
    }
}
