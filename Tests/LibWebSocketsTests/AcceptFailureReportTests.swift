import Testing

@testable import LibWebSockets

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

/// Connections refused at the per-address cap share the once-per-interval report, under their own subject.
@Suite struct ConnectionCapReportTests {
    @Test func capRefusalsAreReportedOncePerIntervalUnderTheirOwnSubject() {
        var report = AcceptFailureReport(interval: 10, subject: "connection refused")
        var lines: [String] = []
        for second in 0..<11 {
            for _ in 0..<100 {
                if let line = report.refused(because: "203.0.113.9 already holds 1000 connections", at: second) {
                    lines.append(line)
                }
            }
        }
        #expect(lines.count == 2)
        #expect(
            lines[0].hasPrefix("connection refused: 203.0.113.9 already holds 1000 connections; 1 connection refused"))
        #expect(lines[1].contains("1000 connections refused in the last 10 s"))
    }
}
