/// Which provider's benchmark to run (`ringer bench --only apns|fcm`); each has its own sandbox process,
/// senders and `RESULT` line.
public enum BenchmarkPart: String, Sendable, Hashable, CaseIterable {
    /// VoIP pushes to the APNs sandbox: Ringer's `APNsClient`, aioapns, h2load.
    case apns
    /// Ringing messages to the FCM sandbox: Ringer's `FCMClient`, firebase-admin, h2load.
    case fcm
}
