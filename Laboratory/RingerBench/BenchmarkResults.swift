/// What one `ringer-lab bench` run measured: any of the APNs, FCM, ringing, fan-out, group, cluster and calls parts.
public struct BenchmarkResults: Hashable, Sendable {
    /// The APNs figures, when that part ran.
    public var apns: BenchmarkReport?
    /// The FCM figures, when that part ran.
    public var fcm: FCMBenchmarkReport?
    /// The ringing figures, when that part ran.
    public var ringing: RingingReport?
    /// The fan-out figures, when that part ran.
    public var fanout: FanOutReport?
    /// The group-call figures, when that part ran.
    public var group: GroupReport?
    /// The cluster figures, when that part ran.
    public var cluster: ClusterReport?
    /// The calls figures, when that part ran.
    public var calls: CallsReport?

    /// Creates the results.
    /// - Parameters:
    ///   - apns: the APNs part's report, or nil.
    ///   - fcm: the FCM part's report, or nil.
    ///   - ringing: the ringing part's report, or nil.
    ///   - fanout: the fan-out part's report, or nil.
    ///   - group: the group part's report, or nil.
    ///   - cluster: the cluster part's report, or nil.
    ///   - calls: the calls part's report, or nil.
    public init(
        apns: BenchmarkReport?, fcm: FCMBenchmarkReport?, ringing: RingingReport? = nil, fanout: FanOutReport? = nil,
        group: GroupReport? = nil, cluster: ClusterReport? = nil, calls: CallsReport? = nil
    ) {
        self.apns = apns
        self.fcm = fcm
        self.ringing = ringing
        self.fanout = fanout
        self.group = group
        self.cluster = cluster
        self.calls = calls
    }

    /// Each part's report, APNs first, then FCM, ringing, fan-out, group, cluster and calls, a blank line between them; each
    /// ends with its `RESULT` line, so the APNs line is `RESULT pushes_per_s=…`, the FCM one
    /// `RESULT fcm messages_per_s=…`, the ringing one `RESULT ringing idle_sockets=…`, the fan-out one
    /// `RESULT fanout calls=…`, the group one `RESULT group calls=…` and the cluster one
    /// `RESULT cluster sqlite_1_calls_per_s=…` and the calls one `RESULT calls cpu_us_per_call_200=…`.
    public func render() -> String {
        [
            apns?.render(), fcm?.render(), ringing?.render(), fanout?.render(), group?.render(), cluster?.render(),
            calls?.render(),
        ]
        .compactMap { $0 }
        .joined(separator: "\n\n")
    }
}
