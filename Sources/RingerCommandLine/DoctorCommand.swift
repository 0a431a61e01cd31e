import Foundation
public import RingerServer

/// `ringer doctor`: reads the same flags and environment as `ringer serve` and prints, as a checklist, whether what
/// the server needs works now (``ServerCheckup``): the database and Redis, each APNs environment and FCM project's
/// credentials, the certificates' expiry, the webhook secrets, the clock; each problem with what to fix.
public enum DoctorCommand {
    /// Runs the checklist.
    /// - Parameters:
    ///   - arguments: `ringer serve`'s flags.
    ///   - environment: the process environment (`RINGER_*`).
    ///   - write: where the checklist goes (standard output).
    /// - Returns: 0 when nothing failed (warnings allowed), 1 when something failed, 2 for flags that do not parse.
    public static func run(
        _ arguments: [String], environment: [String: String], write: (String) -> Void = { print($0) }
    ) async -> Int32 {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.parse(arguments: arguments, environment: environment)
        } catch {
            write("FAIL  configuration: \(error)")
            return 2
        }
        write(
            "ringer doctor: \(configuration.databaseDescription), listening on \(configuration.host):\(configuration.port)"
        )
        let items = await ServerCheckup(configuration: configuration).run()
        for item in items {
            let mark =
                switch item.status {
                case .ok: "ok   "
                case .warning: "warn "
                case .failed: "FAIL "
                }
            write("\(mark) \(item.subject): \(item.detail)")
            if let fix = item.fix { write("      fix: \(fix)") }
        }
        let failed = items.filter { $0.status == .failed }.count
        let warned = items.filter { $0.status == .warning }.count
        write(
            failed == 0
                ? "\(items.count) checks, \(warned) warnings, nothing failed"
                : "\(failed) of \(items.count) checks failed")
        return failed == 0 ? 0 : 1
    }
}
