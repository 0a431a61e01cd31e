/// `ringer serve` flags the laboratory and the tests start servers with.
public enum LaboratoryServeFlags {
    /// Switches every rate limit off (0 disables one, docs/security.md): a benchmark or a cluster test measures
    /// the server, not its limits, with thousands of calls from a few callers.
    public static let rateLimitsOff = [
        "rate-limit-calls-per-minute", "rate-limit-calls-to-one-callee-per-minute",
        "rate-limit-calls-per-callee-per-minute", "rate-limit-reads-per-minute",
        "rate-limit-event-stream-connects-per-minute",
        "rate-limit-device-changes-per-minute", "rate-limit-auth-failures-per-minute",
        "rate-limit-unknown-callees-per-minute",
    ].flatMap { ["--\($0)", "0"] }
}
