/// What one `ringer bench` run measured: the APNs part, the FCM part, or both.
public struct BenchmarkResults: Hashable, Sendable {
    /// The APNs figures, when that part ran.
    public var apns: BenchmarkReport?
    /// The FCM figures, when that part ran.
    public var fcm: FCMBenchmarkReport?

    /// Creates the results.
    /// - Parameters:
    ///   - apns: the APNs part's report, or nil.
    ///   - fcm: the FCM part's report, or nil.
    public init(apns: BenchmarkReport?, fcm: FCMBenchmarkReport?) {
        self.apns = apns
        self.fcm = fcm
    }

    /// Each part's report, APNs first, a blank line between them; each ends with its `RESULT` line, so the
    /// APNs line is `RESULT pushes_per_s=…` and the FCM one `RESULT fcm messages_per_s=…`.
    public func render() -> String {
        [apns?.render(), fcm?.render()].compactMap { $0 }.joined(separator: "\n\n")
    }
}
