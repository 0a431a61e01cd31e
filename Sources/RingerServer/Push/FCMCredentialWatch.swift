import FCM
import Foundation
import RingerSupport
import RingerWire

/// The start-up check of the FCM credentials (issue: a refused grant stops the server, an unreachable token
/// endpoint does not), and the retries after it.
///
/// At start one grant is tried per service account: Google refusing it (`invalid_grant`: a revoked key, a
/// deleted account, a clock far off) means no Android phone of that project can ever ring, so the server
/// refuses to start with Google's reason. A token endpoint that cannot be reached may come back: the project
/// is shown by `GET /healthz` (reason `TokenEndpointUnreachable`) and the grant is tried again with a
/// backoff (5 s doubling to 5 min) until it succeeds, which clears it. Grants run on real time.
final class FCMCredentialWatch: Sendable {
    /// The `/healthz` reason for a project whose token endpoint did not answer.
    static let unreachableReason = "TokenEndpointUnreachable"

    private let client: FCMClient
    private let health: PushSetupHealth
    /// The server's clock, for the `/healthz` timestamps only (grants run on real time).
    private let clock: any ServerClock
    private let log: Logger
    /// The grants being retried, cancelled by ``shutdown()``.
    private let retries = LockedValue<[Task<Void, Never>]>([])

    /// Creates the watch; nothing is checked before ``checkAtStart()``.
    init(client: FCMClient, health: PushSetupHealth, clock: any ServerClock, log: Logger) {
        self.client = client
        self.health = health
        self.clock = clock
        self.log = log
    }

    /// Tries one grant per account.
    /// - Throws: ``ConfigurationError`` with Google's reason when any grant is refused.
    func checkAtStart() async throws {
        let checks = await client.verifyCredentials()
        if let refused = checks.first(where: \.isRefused) {
            throw ConfigurationError(
                "--fcm-service-account \(refused.source ?? refused.projectID): Google refused the grant: \(refused.description)"
            )
        }
        for check in checks {
            if check.isGranted {
                log.info("FCM credentials granted", ["fcm.project": .string(check.projectID)])
            } else {
                report(check)
                keepTrying(check.projectID)
            }
        }
    }

    /// Stops retrying. Idempotent.
    func shutdown() {
        for task in retries.withLock({ tasks in
            defer { tasks = [] }
            return tasks
        }) { task.cancel() }
    }

    private func report(_ check: FCMCredentialCheck) {
        let scope = PushScope(provider: .fcm, project: check.projectID)
        // An outage, but not aged out by the outage rule: this watch keeps asking, and its grant clears it.
        if health.record(scope, reason: Self.unreachableReason, kind: .outage, at: clock.now()) {
            log.error(
                "the FCM token endpoint cannot be reached; Android phones of this project ring only while their app is open",
                ["fcm.project": .string(check.projectID), "error": .string(check.description)])
        }
    }

    /// How long the watch waits between grants while the token endpoint cannot be reached: 2.5-5 s at first,
    /// doubling to 150-300 s, jittered so the nodes of a fleet do not ask Google in step (real time: access
    /// tokens age on it).
    static let retryBackoff = Backoff(initialDelay: 5, maximumDelay: 300)

    private func keepTrying(_ projectID: String) {
        guard let source = client.accessTokenSource(for: projectID) else { return }
        let scope = PushScope(provider: .fcm, project: projectID)
        let task = Task { [health, clock, log] in
            var retry = 1
            while true {
                let delay = Self.retryBackoff.delay(beforeRetry: retry, random: .random(in: 0...1))
                do { try await Task.sleep(for: .seconds(delay)) } catch { return }
                do {
                    _ = try await source.refresh(deadline: Date().addingTimeInterval(15))
                    if health.recordSuccess(scope, at: clock.now()) != nil {
                        log.log(
                            .notice, "FCM credentials granted after the token endpoint came back",
                            ["fcm.project": .string(projectID)])
                    }
                    return
                } catch let error as FCMAccessTokenError where !error.isRetryable {
                    _ = health.record(scope, reason: "GrantRefused", at: clock.now())
                    log.error(
                        "Google refused the FCM grant; Android phones of this project cannot ring until it is fixed",
                        ["fcm.project": .string(projectID), "error": .string(error.detail)])
                    return
                } catch {
                    retry += 1
                }
            }
        }
        retries.withLock { $0.append(task) }
    }
}
