/// Decides when a failing `accept` (or a connection refused at accept) is worth a log line: the first failure at once, then at most one
/// line per interval carrying how many connections were refused meanwhile. A pure value, time given
/// in whole seconds by the caller.
///
/// Without it a server out of descriptors (EMFILE/ENFILE) logged every refused `accept`: about
/// 13,000 lines a second at 100% CPU.
struct AcceptFailureReport {
    /// Seconds between two lines.
    let interval: Int
    /// What each line starts with, e.g. `"accept failed"`.
    let subject: String
    private var lastLine: Int?
    private var refusedSinceLine = 0

    /// - Parameters:
    ///   - interval: Seconds between two lines (at least 1).
    ///   - subject: What each line starts with (default `"accept failed"`).
    init(interval: Int, subject: String = "accept failed") {
        self.interval = max(1, interval)
        self.subject = subject
    }

    /// Records one refused connection; returns the line to log now, if any.
    /// - Parameters:
    ///   - reason: What failed, e.g. `"EMFILE (Too many open files)"`.
    ///   - second: The current second of a monotonic clock.
    mutating func refused(because reason: String, at second: Int) -> String? {
        refusedSinceLine += 1
        if let lastLine, second - lastLine < interval { return nil }
        let count = refusedSinceLine
        let line =
            "\(subject): \(reason); \(count) connection\(count == 1 ? "" : "s") refused"
            + (lastLine == nil ? "" : " in the last \(second - lastLine!) s")
            + "; serving the open ones, next report in \(interval) s at most"
        lastLine = second
        refusedSinceLine = 0
        return line
    }
}
