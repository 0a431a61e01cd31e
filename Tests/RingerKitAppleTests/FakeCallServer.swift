import Foundation
import RingerKit
import RingerWire

/// An in-memory Ringer API behind ``HTTPTransport`` for one callee device: keeps device registrations,
/// creates calls, answers ringing/accept/decline/cancel/end/media, and can hold or refuse accepts. Every
/// request is logged as "METHOD /path". The logged-in user is the bearer token itself.
final class FakeCallServer: HTTPTransport, @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.

    /// How the next accepts are answered.
    enum AcceptAnswer {
        /// 200 with a media session.
        case accept
        /// 409 `answered-elsewhere`: another device of the user was first.
        case answeredElsewhere
        /// Waits for ``releaseHeldAccepts()``, then 200.
        case hold
    }

    private let lock = NSLock()
    private var log: [String] = []
    private var registrations: [String: DeviceRegistration] = [:]
    private var acceptAnswer = AcceptAnswer.accept
    private var held: [CheckedContinuation<Void, Never>] = []
    private var created: [String] = []
    /// Group calls made here: their legs, by call id (a ring-more adds to them).
    private var groups: [String: [CallLeg]] = [:]
    private var unreadableCreates = false

    /// Every request so far, as "METHOD /path".
    var requests: [String] { lock.withLock { log } }

    /// How many times a request was made.
    func count(_ request: String) -> Int { requests.filter { $0 == request }.count }

    /// The registration stored for a device.
    func registration(device: String) -> DeviceRegistration? { lock.withLock { registrations[device] } }

    /// Call ids created by `POST /v1/calls`.
    var createdCallIDs: [String] { lock.withLock { created } }

    /// Makes `POST /v1/calls` answer 201 with a body that is no call from now on (a proxy or server gone wrong).
    func answerCreatesUnreadably() { lock.withLock { unreadableCreates = true } }

    /// Sets how accepts are answered from now on.
    func answerAccepts(_ answer: AcceptAnswer) { lock.withLock { acceptAnswer = answer } }

    /// How many accepts are waiting.
    var heldAccepts: Int { lock.withLock { held.count } }

    /// Lets held accepts go on (answered 200).
    func releaseHeldAccepts() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            defer { held.removeAll() }
            return held
        }
        waiting.forEach { $0.resume() }
    }

    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        let path = url.path
        let answer = lock.withLock { () -> AcceptAnswer in
            log.append("\(method) \(path)")
            return acceptAnswer
        }
        let user = headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        let parts = path.split(separator: "/").map(String.init)  // ["v1", "calls", id, action]
        switch (method, parts.dropFirst().first) {
        case ("PUT", "devices"?):
            guard let body, let registration = try? RingerJSON.decode(DeviceRegistration.self, from: body) else {
                return try problem(400, .malformedRequest)
            }
            let device = url.lastPathComponent
            lock.withLock { registrations[device] = registration }
            let stored = Device(
                deviceID: device, userID: user, platform: registration.platform,
                voipToken: registration.voipToken, apnsToken: registration.apnsToken,
                apnsEnvironment: registration.apnsEnvironment, bundleID: registration.bundleID,
                updatedAt: Date())
            return (200, try RingerJSON.encode(stored))
        case ("DELETE", "devices"?):
            _ = lock.withLock { registrations.removeValue(forKey: url.lastPathComponent) }
            return (204, Data())
        case ("POST", "calls"?) where parts.count == 2:
            if lock.withLock({ unreadableCreates }) { return (201, Data("<html>Created</html>".utf8)) }
            let request = try body.map { try RingerJSON.decode(CreateCallRequest.self, from: $0) }
            let id = UUID().uuidString.lowercased()
            lock.withLock { created.append(id) }
            var made = call(id, .ringing, caller: user, callee: request?.callee ?? request?.callees?.first ?? "")
            if let callees = request?.callees {
                let legs = callees.map {
                    CallLeg(user: Party(id: $0), state: .ringing, rungAt: made.createdAt, expiresAt: made.expiresAt)
                }
                lock.withLock { groups[id] = legs }
                made.legs = legs
                made.answerPolicy = request?.answerPolicy ?? .firstAnswer
            }
            return (201, try RingerJSON.encode(made))
        case ("POST", "calls"?) where parts.count == 4 && parts[3] == "ring":
            let request = try body.map { try RingerJSON.decode(RingRequest.self, from: $0) }
            var rung = call(parts[2], .ringing, caller: user, callee: "")
            let legs = lock.withLock { () -> [CallLeg] in
                let added = (request?.callees ?? []).map {
                    CallLeg(user: Party(id: $0), state: .ringing, rungAt: rung.createdAt, expiresAt: rung.expiresAt)
                }
                groups[parts[2], default: []] += added
                return groups[parts[2]] ?? []
            }
            rung.callee = legs.first?.user ?? Party(id: "")
            rung.legs = legs
            rung.answerPolicy = .firstAnswer
            return (200, try RingerJSON.encode(rung))
        case ("POST", "calls"?) where parts.count == 4 && parts[3] == "accept":
            switch answer {
            case .answeredElsewhere:
                return try problem(409, .answeredElsewhere, state: .accepted)
            case .hold:
                await withCheckedContinuation { continuation in lock.withLock { held.append(continuation) } }
            case .accept:
                break
            }
            let response = AcceptResponse(
                call: call(parts[2], .accepted, caller: "alice", callee: user), media: media(parts[2]))
            return (200, try RingerJSON.encode(response))
        case ("POST", "calls"?) where parts.count == 4:
            let state: CallState =
                switch parts[3] {
                case "decline": .declined
                case "cancel": .cancelled
                case "end": .ended
                default: .ringing
                }
            return (200, try RingerJSON.encode(call(parts[2], state, caller: "alice", callee: user)))
        case ("GET", "calls"?) where parts.count == 4 && parts[3] == "media":
            return (200, try RingerJSON.encode(media(parts[2])))
        case ("GET", "calls"?) where parts.count == 2:
            // The history: one missed call from alice, a waiting one; the page says where the next starts.
            var missed = call("6f1d1c3e-3c55-4b1f-9d0a-1f6a3b1f7a01", .unanswered, caller: "alice", callee: user)
            missed.endedAt = missed.expiresAt
            missed.waiting = true
            return (200, try RingerJSON.encode(CallList(calls: [missed], nextBefore: missed.callID)))
        default:
            return try problem(404, .notFound)
        }
    }

    func call(_ id: String, _ state: CallState, caller: String, callee: String) -> Call {
        let now = Date()
        return Call(
            callID: id, state: state, caller: Party(id: caller), callee: Party(id: callee), hasVideo: false,
            createdAt: now, expiresAt: now.addingTimeInterval(30))
    }

    func media(_ callID: String) -> MediaSession { MediaSession(url: "wss://media.test", token: "media-\(callID)") }

    private func problem(
        _ status: Int, _ type: ProblemType, state: CallState? = nil
    ) throws -> (status: Int, body: Data) {
        (
            status,
            try RingerJSON.encode(
                Problem(type: type.rawValue, title: "HTTP \(status)", status: status, callState: state))
        )
    }
}
