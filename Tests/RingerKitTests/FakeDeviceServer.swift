import Foundation
import RingerKit
import RingerWire

/// An in-memory `/v1/devices` endpoint behind ``HTTPTransport``: records every request, keeps one
/// registration per (user, device) like the real store, can fail or hold requests on demand, and
/// counts how many requests are in flight at once. The user is the bearer token itself.
final class FakeDeviceServer: HTTPTransport, @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    struct Request: Sendable {
        var method: String
        var path: String
        var authorization: String?
        var registration: DeviceRegistration?
    }

    /// A scripted answer for the next request.
    enum Failure {
        case noAnswer
        case status(Int)
    }

    private let lock = NSLock()
    private var log: [Request] = []
    private var stored: [String: DeviceRegistration] = [:]
    private var failures: [Failure] = []
    private var holdNext = false
    private var held: CheckedContinuation<Void, Never>?
    private var inFlight = 0
    private var mostInFlight = 0

    var requests: [Request] { lock.withLock { log } }
    var maxInFlight: Int { lock.withLock { mostInFlight } }

    /// The registration stored for a user's device, as the server holds it now.
    func registration(user: String, device: String) -> DeviceRegistration? {
        lock.withLock { stored["\(user)|\(device)"] }
    }

    /// Makes the next requests fail, in order.
    func fail(_ next: Failure...) { lock.withLock { failures += next } }

    /// Makes the next request wait for ``releaseHeld()``.
    func holdNextRequest() { lock.withLock { holdNext = true } }

    /// Waits (up to 5 s) until a request is being held.
    func waitUntilHeld() async throws {
        for _ in 0..<5000 {
            if lock.withLock({ held != nil }) { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw CocoaError(.userCancelled)
    }

    func releaseHeld() {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { held = nil }
            return held
        }
        continuation?.resume()
    }

    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        let registration = body.flatMap { try? RingerJSON.decode(DeviceRegistration.self, from: $0) }
        let authorization = headers["Authorization"]
        let (hold, failure) = lock.withLock { () -> (Bool, Failure?) in
            log.append(
                Request(method: method, path: url.path, authorization: authorization, registration: registration))
            inFlight += 1
            mostInFlight = max(mostInFlight, inFlight)
            defer { holdNext = false }
            return (holdNext, failures.isEmpty ? nil : failures.removeFirst())
        }
        defer { lock.withLock { inFlight -= 1 } }
        if hold {
            await withCheckedContinuation { continuation in lock.withLock { held = continuation } }
        }
        switch failure {
        case .noAnswer: throw URLError(.timedOut)
        case .status(let status): return try problem(status)
        case nil: break
        }
        guard let user = authorization?.split(separator: " ").last.map(String.init), !user.isEmpty,
            authorization?.hasPrefix("Bearer ") == true
        else { return try problem(401) }
        let device = url.lastPathComponent
        switch method {
        case "PUT":
            guard let registration else { return try problem(400) }
            lock.withLock { stored["\(user)|\(device)"] = registration }
            let answer = Device(
                deviceID: device, userID: user, platform: registration.platform,
                voipToken: registration.voipToken, apnsToken: registration.apnsToken,
                apnsEnvironment: registration.apnsEnvironment, bundleID: registration.bundleID,
                fcmToken: registration.fcmToken, updatedAt: Date(timeIntervalSince1970: 0),
                readiness: registration.readiness.map {
                    DeviceReadiness(problems: $0.normalizedProblems, reportedAt: Date(timeIntervalSince1970: 0))
                })
            return (200, try RingerJSON.encode(answer))
        case "DELETE":
            _ = lock.withLock { stored.removeValue(forKey: "\(user)|\(device)") }
            return (204, Data())
        default:
            return try problem(405)
        }
    }

    private func problem(_ status: Int) throws -> (status: Int, body: Data) {
        (status, try RingerJSON.encode(Problem(type: "about:blank", title: "HTTP \(status)", status: status)))
    }
}
