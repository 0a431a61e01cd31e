import Foundation
import RingerHTTP
import RingerTestSupport
import Testing

@testable import LibWebSockets

/// Every response carries the server's clock (RFC 9110 §6.6.1), which RingerKit reads to judge a ringing
/// push's deadline on the server's timeline; checked with curl, an independent client.
@Suite struct DateHeaderTests {
    @Test func imfFixdateIsRFC9110sExample() {
        #expect(HTTPDate.imfFixdate(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.imfFixdate(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.imfFixdate(secondsSince1970: 1_798_761_599) == "Thu, 31 Dec 2026 23:59:59 GMT")
    }

    @Test func everyResponseCarriesTheServersDate() async throws {
        let server = WebServer(configuration: .init()) { request in
            request.path == "/own"
                ? .json(#"{}"#, headers: [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")])
                : .json(status: request.path == "/missing" ? 404 : 200, #"{}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }

        for path in ["/", "/missing"] {
            let result = try await ChildProcess.run(["curl", "-sS", "-i", "http://127.0.0.1:\(port)\(path)"])
            let line = try #require(result.standardOutput.split(separator: "\r\n").first { $0.hasPrefix("date: ") })
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let date = try #require(formatter.date(from: String(line.dropFirst("date: ".count))))
            #expect(abs(date.timeIntervalSinceNow) < 5)
        }
        let own = try await ChildProcess.run(["curl", "-sS", "-i", "http://127.0.0.1:\(port)/own"])
        #expect(own.standardOutput.components(separatedBy: "\r\ndate: ").count == 2)
        #expect(own.standardOutput.contains("date: Sun, 06 Nov 1994 08:49:37 GMT"))
    }
}
