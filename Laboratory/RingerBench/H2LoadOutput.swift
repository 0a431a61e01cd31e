/// The figures in h2load's summary (nghttp2's load generator, Debian `nghttp2-client`):
///
/// ```
/// finished in 1.52s, 13157.89 req/s, 1.10MB/s
/// requests: 20000 total, 20000 started, 20000 done, 20000 succeeded, 0 failed, 0 errored, 0 timeout
/// status codes: 20000 2xx, 0 3xx, 0 4xx, 0 5xx
/// ```
struct H2LoadOutput: Hashable, Sendable {
    /// Wall-clock seconds h2load took, connection set-up included.
    var seconds: Double
    /// Requests per second, as h2load computed it (done requests over `seconds`).
    var requestsPerSecond: Double
    /// Requests h2load was asked to make.
    var total: Int
    /// Responses with a 2xx status.
    var status2xx: Int
    /// Responses with a 4xx status.
    var status4xx: Int
    /// Responses with a 5xx status.
    var status5xx: Int

    /// Parses h2load's stdout.
    /// - Parameter text: everything h2load printed.
    /// - Returns: the figures.
    /// - Throws: ``BenchmarkError/sender(_:_:)`` when a summary line is missing or malformed.
    static func parse(_ text: String) throws -> H2LoadOutput {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        func line(_ prefix: String) throws -> [Substring] {
            guard let found = lines.first(where: { $0.hasPrefix(prefix) }) else {
                throw BenchmarkError.sender("h2load", "no \"\(prefix)\" line in its output")
            }
            return found.dropFirst(prefix.count).split(whereSeparator: { $0 == " " || $0 == "," })
        }
        // "finished in 1.52s, 13157.89 req/s, …": the time carries its unit (us, ms, s).
        let finished = try line("finished in ")
        guard finished.count >= 3, finished[2] == "req/s", let seconds = Self.seconds(finished[0]),
            let rate = Double(finished[1])
        else {
            throw BenchmarkError.sender("h2load", "unreadable \"finished in\" line")
        }
        let requests = try line("requests: ")
        let statuses = try line("status codes: ")
        guard let total = Self.count(before: "total", in: requests), let ok = Self.count(before: "2xx", in: statuses),
            let client = Self.count(before: "4xx", in: statuses), let server = Self.count(before: "5xx", in: statuses)
        else {
            throw BenchmarkError.sender("h2load", "unreadable \"requests\" or \"status codes\" line")
        }
        return H2LoadOutput(
            seconds: seconds, requestsPerSecond: rate, total: total, status2xx: ok,
            status4xx: client, status5xx: server)
    }

    /// The figures as a sender's report: requests not answered 2xx count as refused.
    /// - Parameter sender: the report's sender name.
    /// - Returns: the report (no latency percentiles: h2load's summary has none).
    func report(sender: String) -> SenderReport {
        let refused = total - status2xx
        // "finished in" has two decimals; h2load's own rate is more precise.
        let elapsed = requestsPerSecond > 0 ? Double(total) / requestsPerSecond : seconds
        return SenderReport(
            sender: sender, pushes: total, accepted: status2xx,
            firstFailure: refused == 0 ? nil : "\(status4xx) 4xx, \(status5xx) 5xx",
            seconds: elapsed, latencies: [])
    }

    /// The number just before `word` in a list like `20000 total 20000 started`.
    private static func count(before word: String, in fields: [Substring]) -> Int? {
        guard let index = fields.firstIndex(where: { $0 == word }), index > 0 else { return nil }
        return Int(fields[index - 1])
    }

    /// `1.52s`, `812.33ms` or `950us` in seconds.
    private static func seconds(_ text: Substring) -> Double? {
        for (unit, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }
}

extension H2LoadOutput {
    /// The h2load command line every benchmark part runs: one connection, one thread, `workload.concurrency`
    /// streams in flight, the same body and headers on every request.
    /// - Parameters:
    ///   - program: the h2load executable.
    ///   - workload: counts.
    ///   - bodyFile: the request body's file.
    ///   - headers: `name: value` lines.
    ///   - url: the endpoint.
    /// - Returns: the arguments, program first.
    static func arguments(
        program: String, workload: PushWorkload, bodyFile: String, headers: [String],
        url: String
    ) -> [String] {
        [
            program, "-n", String(workload.pushes), "-c", "1", "-t", "1", "-m", String(workload.concurrency), "-d",
            bodyFile,
        ]
            + headers.flatMap { ["-H", $0] } + [url]
    }
}
