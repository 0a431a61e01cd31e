@testable import LibWebSockets
import Testing

/// A server out of descriptors logs one line per interval, not one per refused connection.
@Suite struct AcceptFailureReportTests {
    @Test func firstFailureIsReportedAtOnceThenOneLinePerIntervalWithTheCount() {
        var report = AcceptFailureReport(interval: 10)
        var lines: [String] = []
        // 13,000 refusals a second for 25 s, as the unthrottled server logged them.
        for second in 0..<25 {
            for _ in 0..<13_000 {
                if let line = report.refused(because: "EMFILE (Too many open files)", at: second) { lines.append(line) }
            }
        }
        #expect(lines.count == 3)
        #expect(lines[0].contains("EMFILE") && lines[0].contains("1 connection refused"))
        #expect(lines[1].contains("130000 connections refused in the last 10 s"))
    }
}
