/// Which part of the benchmark to run (`ringer-lab bench --only apns|fcm|ringing|fanout|group|cluster|calls`); each has its own sandbox
/// process and `RESULT` line.
public enum BenchmarkPart: String, Sendable, Hashable, CaseIterable {
    /// VoIP pushes to the APNs sandbox: Ringer's `APNsClient`, aioapns, h2load.
    case apns
    /// Ringing messages to the FCM sandbox: Ringer's `FCMClient`, firebase-admin, h2load.
    case fcm
    /// Calls placed on `ringer serve` while idle WebSockets are open (issue 11): calls/s, POST -> push and
    /// POST -> `call.incoming` latencies, RSS per idle socket, server CPU.
    case ringing
    /// One burst of calls, each to a user with ten devices (VoIP push, FCM, socket; issue 11): every device
    /// reached once, and how long each push waited from the server's decision to the provider's receipt.
    case fanout
    /// One burst of group calls, each ringing several callees with three devices each, then one answer per call
    /// (issue 30): every device reached once, none rung after its leg ended, and each push's wait.
    case group
    /// Calls on 1 node on SQLite, 1 on PostgreSQL, 2 and 3 on PostgreSQL + Redis (issue 15): calls/s, POST -> push
    /// p50/p99, CPU summed over the nodes and PostgreSQL's, and every call's push accounted for.
    case cluster
    /// What one call costs (issue 33): server CPU per call at 200 and 500 calls/s and closed-loop calls/s on SQLite,
    /// beside a minimal Python push gateway driven by the same load generator.
    case calls
}
