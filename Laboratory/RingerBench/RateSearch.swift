/// How the ringing benchmark finds the sustainable calls per second at one level of idle sockets: a
/// closed-loop probe (``probeConcurrency`` calls in flight) estimates the capacity C; then open-loop steps at
/// fixed fractions of C, highest first (0.9 C, 0.75 C, …), until one is sustained (``RingingStep/isSustained``);
/// that rate is the answer. An open loop keeps placing calls whatever the answers, as callers do, so a
/// server that falls behind shows it as skipped arrivals, failures or a growing tail; the closed probe alone
/// would report whatever pace the server sets. Input in, next command out, no I/O.
struct RateSearch: Hashable, Sendable {
    /// The fractions of the probe's rate tried, highest first.
    static let fractions = [0.9, 0.75, 0.6, 0.45, 0.3]

    /// Calls in flight in the probe.
    let probeConcurrency: Int
    /// Seconds of every step.
    let stepSeconds: Double
    private var probed: Double?
    private var tried = 0
    /// The highest open-loop rate that was sustained, once found.
    private(set) var sustainedRate: Int?

    /// Creates a search.
    /// - Parameters:
    ///   - probeConcurrency: calls in flight in the closed-loop probe, at least 1.
    ///   - stepSeconds: seconds of each step, more than 0.
    init(probeConcurrency: Int, stepSeconds: Double) {
        self.probeConcurrency = max(1, probeConcurrency)
        self.stepSeconds = max(0.1, stepSeconds)
    }

    /// The probe's rate, calls/s, once it ran.
    var probeRate: Double? { probed }

    /// The first command: the probe.
    var first: RingingStep.Command { .closed(concurrency: probeConcurrency, seconds: stepSeconds) }

    /// Takes a step's outcome.
    /// - Parameter step: the step just run (the probe, then each open-loop step).
    /// - Returns: the next command, or nil when the search is over (a rate was sustained, or every
    ///   fraction failed, or the probe placed no call at all).
    mutating func next(after step: RingingStep) -> RingingStep.Command? {
        switch step.command {
        case .closed:
            probed = step.callsPerSecond
        case .open(let rate, _):
            if step.isSustained {
                sustainedRate = rate
                return nil
            }
        }
        guard let probed, probed > 0 else { return nil }
        while tried < Self.fractions.count {
            let rate = Int((probed * Self.fractions[tried]).rounded())
            tried += 1
            if rate >= 1 { return .open(rate: rate, seconds: stepSeconds) }
        }
        return nil
    }
}
