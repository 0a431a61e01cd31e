public import Foundation

/// `POST /v1/tokens` (admin): mint a user token for the app's backend.
public struct CreateTokenRequest: Codable, Sendable {
    /// The user id that becomes the token's `sub`.
    public var userID: String
    /// Optional display name, shown to callees as the caller's name.
    public var name: String?
    /// Lifetime in seconds; the server caps it (default 3600).
    public var ttlSeconds: Int?

    /// Creates the request body.
    public init(userID: String, name: String? = nil, ttlSeconds: Int? = nil) {
        self.userID = userID
        self.name = name
        self.ttlSeconds = ttlSeconds
    }

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case name, ttlSeconds
        case userID = "userId"
    }
}

/// The answer to `POST /v1/tokens`.
public struct TokenResponse: Codable, Sendable {
    /// The HS256 user token, for `Authorization: Bearer`.
    public var token: String
    /// When the token stops being accepted.
    public var expiresAt: Date

    /// Creates the response body.
    public init(token: String, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// `PUT /v1/devices/{device_id}`: the push tokens of one device of the logged-in user.
///
/// iOS sends `voip_token` (PushKit) and usually `apns_token` (ordinary alerts, for missed calls and
/// "answered elsewhere"); Android sends `fcm_token`. Tokens are hex (APNs) of any length, not assumed
/// to be 64 characters.
public struct DeviceRegistration: Codable, Sendable {
    /// `ios` or `android`.
    public var platform: Platform
    /// PushKit VoIP token, hex.
    public var voipToken: String?
    /// Ordinary APNs device token, hex.
    public var apnsToken: String?
    /// Which APNs host the tokens belong to; `production` when absent.
    public var apnsEnvironment: APNsEnvironment?
    /// The app's bundle id; the VoIP topic is `<bundle_id>.voip`.
    public var bundleID: String?
    /// Firebase Cloud Messaging registration token: 1…4096 of `A–Z a–z 0–9 - _ : .` (Google documents no
    /// format; real tokens are about 160 such characters).
    public var fcmToken: String?
    /// The Firebase project the FCM token belongs to, when the server sends through several; absent means
    /// the server's first (default) project.
    public var fcmProjectID: String?
    /// What the phone found would stop it ringing (its `reported_at` is ignored: the server stamps its own).
    /// A registration is a full replace, so leaving it out clears the device's last report.
    public var readiness: DeviceReadiness?

    /// Creates a registration body.
    public init(
        platform: Platform, voipToken: String? = nil, apnsToken: String? = nil,
        apnsEnvironment: APNsEnvironment? = nil, bundleID: String? = nil, fcmToken: String? = nil,
        fcmProjectID: String? = nil, readiness: DeviceReadiness? = nil
    ) {
        self.platform = platform
        self.voipToken = voipToken
        self.apnsToken = apnsToken
        self.apnsEnvironment = apnsEnvironment
        self.bundleID = bundleID
        self.fcmToken = fcmToken
        self.fcmProjectID = fcmProjectID
        self.readiness = readiness
    }

    private enum CodingKeys: String, CodingKey {
        case platform, voipToken, apnsToken, apnsEnvironment, fcmToken, readiness
        case bundleID = "bundleId"
        case fcmProjectID = "fcmProjectId"
    }

    /// Only `problems` is read from `readiness`: a `reported_at` an app copied from a stored device (in any
    /// shape) is the server's to set, so it cannot make the registration fail.
    private struct ReadinessReport: Decodable { var problems: [ReadinessProblem] }

    /// Reads a registration body (snake_case keys through ``RingerJSON/decoder()``).
    /// - Throws: `DecodingError` when `platform` or `readiness.problems` is missing, or a field has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        platform = try container.decode(Platform.self, forKey: .platform)
        voipToken = try container.decodeIfPresent(String.self, forKey: .voipToken)
        apnsToken = try container.decodeIfPresent(String.self, forKey: .apnsToken)
        apnsEnvironment = try container.decodeIfPresent(APNsEnvironment.self, forKey: .apnsEnvironment)
        bundleID = try container.decodeIfPresent(String.self, forKey: .bundleID)
        fcmToken = try container.decodeIfPresent(String.self, forKey: .fcmToken)
        fcmProjectID = try container.decodeIfPresent(String.self, forKey: .fcmProjectID)
        readiness = try container.decodeIfPresent(ReadinessReport.self, forKey: .readiness)
            .map { DeviceReadiness(problems: $0.problems) }
    }
}

/// A registered device as the API returns it.
public struct Device: Codable, Hashable, Sendable {
    /// The app-chosen device id (stable per install).
    public var deviceID: String
    /// The user the device is registered to.
    public var userID: String
    /// `ios` or `android`.
    public var platform: Platform
    /// PushKit VoIP token, hex.
    public var voipToken: String?
    /// Ordinary APNs device token, hex.
    public var apnsToken: String?
    /// The APNs environment of the tokens.
    public var apnsEnvironment: APNsEnvironment?
    /// The app's bundle id.
    public var bundleID: String?
    /// FCM registration token.
    public var fcmToken: String?
    /// The Firebase project of the FCM token; nil for the server's default project.
    public var fcmProjectID: String?
    /// When the registration last changed.
    public var updatedAt: Date
    /// Set when the push service refused a token in a way a new registration fixes (wrong environment
    /// or bundle id); cleared by the next registration.
    public var pushProblem: PushProblem?
    /// The phone's last readiness report, its problems de-duplicated and sorted and `reported_at` the server's
    /// time; nil when its last registration carried none.
    public var readiness: DeviceReadiness?

    /// Creates a device record.
    public init(
        deviceID: String, userID: String, platform: Platform, voipToken: String? = nil,
        apnsToken: String? = nil, apnsEnvironment: APNsEnvironment? = nil, bundleID: String? = nil,
        fcmToken: String? = nil, fcmProjectID: String? = nil, updatedAt: Date, pushProblem: PushProblem? = nil,
        readiness: DeviceReadiness? = nil
    ) {
        self.deviceID = deviceID
        self.userID = userID
        self.platform = platform
        self.voipToken = voipToken
        self.apnsToken = apnsToken
        self.apnsEnvironment = apnsEnvironment
        self.bundleID = bundleID
        self.fcmToken = fcmToken
        self.fcmProjectID = fcmProjectID
        self.updatedAt = updatedAt
        self.pushProblem = pushProblem
        self.readiness = readiness
    }

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case platform, voipToken, apnsToken, apnsEnvironment, fcmToken, updatedAt, pushProblem, readiness
        case deviceID = "deviceId"
        case userID = "userId"
        case bundleID = "bundleId"
        case fcmProjectID = "fcmProjectId"
    }
}

/// `POST /v1/calls`: call another user (`callee`), or ring several people in one call (`callees`, decision 0007).
/// Exactly one of the two is given.
public struct CreateCallRequest: Codable, Sendable {
    /// The callee's user id: a 1:1 call.
    public var callee: String?
    /// The callees' user ids, in the order rung: a group call (even of one), each callee with a leg of their own.
    public var callees: [String]?
    /// What an answer does in a group call; `first_answer` when absent. Only with `callees`.
    public var answerPolicy: AnswerPolicy?
    /// Whether to ask for video; false when absent.
    public var hasVideo: Bool?
    /// Whether a callee already in an answered call is rung anyway, as a waiting call (true), or the call is `busy`
    /// for them (false); the server's `--call-waiting` when absent (docs/decisions/0008 §3).
    public var callWaiting: Bool?

    /// Creates the body of a 1:1 call.
    public init(callee: String, hasVideo: Bool? = nil, callWaiting: Bool? = nil) {
        self.callee = callee
        self.hasVideo = hasVideo
        self.callWaiting = callWaiting
    }

    /// Creates the body of a group call.
    public init(
        callees: [String], answerPolicy: AnswerPolicy? = nil, hasVideo: Bool? = nil, callWaiting: Bool? = nil
    ) {
        self.callees = callees
        self.answerPolicy = answerPolicy
        self.hasVideo = hasVideo
        self.callWaiting = callWaiting
    }
}

/// `POST /v1/calls/{call_id}/ring`: ring more people into a call that is ringing or up.
public struct RingRequest: Codable, Sendable {
    /// The user ids to ring, in order; one already ringing or in the call is left alone.
    public var callees: [String]

    /// Creates the request body.
    public init(callees: [String]) { self.callees = callees }
}

/// Body of the per-device call actions: `ringing`, `accept`, `decline`.
public struct DeviceActionRequest: Codable, Sendable {
    /// The acting device; it must be registered to the acting user.
    public var deviceID: String

    /// Creates the request body.
    public init(deviceID: String) { self.deviceID = deviceID }

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId"
    }
}

/// Where and how to join the call's media room (a LiveKit-compatible server).
public struct MediaSession: Codable, Hashable, Sendable {
    /// The media server's URL (for example `wss://media.example.com`).
    public var url: String
    /// A LiveKit-compatible access token (HS256 JWT) for the room named after the call id.
    public var token: String

    /// Creates the media session.
    public init(url: String, token: String) {
        self.url = url
        self.token = token
    }
}

/// The answer to `POST /v1/calls/{call_id}/accept`.
public struct AcceptResponse: Codable, Sendable {
    /// The call, now `accepted`.
    public var call: Call
    /// The answering user's media session.
    public var media: MediaSession

    /// Creates the response body.
    public init(call: Call, media: MediaSession) {
        self.call = call
        self.media = media
    }
}

/// The answer to `GET /v1/calls`.
public struct CallList: Codable, Sendable {
    /// The user's calls, newest first.
    public var calls: [Call]
    /// When the page is full, the id of its last call: pass it as `before` for the next, older page. Absent on
    /// the last page.
    public var nextBefore: String?

    /// Creates the response body.
    public init(calls: [Call], nextBefore: String? = nil) {
        self.calls = calls
        self.nextBefore = nextBefore
    }
}

/// An error answer, `application/problem+json` (RFC 9457).
///
/// `type` is stable (`https://ringer.dev/problems/<slug>`): apps branch on it, never on `title` or `detail`.
public struct Problem: Codable, Hashable, Sendable, Error {
    /// Stable URI naming the kind of problem.
    public var type: String
    /// Short human summary of the kind of problem.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// What went wrong with this request, in words.
    public var detail: String?
    /// The call's current state, for conflicts such as "accept after cancel".
    public var callState: CallState?
    /// The user ids the problem is about, for a group call's callee list (`duplicate-callee`, `user-not-found`,
    /// `callee-already-rung`).
    public var callees: [String]?
    /// The acting callee's leg state, on conflicts a callee of a group call meets (a keepalive or a media request
    /// after leaving): the call may go on without them.
    public var legState: LegState?

    /// Creates a problem.
    public init(
        type: String, title: String, status: Int, detail: String? = nil, callState: CallState? = nil,
        callees: [String]? = nil, legState: LegState? = nil
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.callState = callState
        self.callees = callees
        self.legState = legState
    }
}

/// One event on the WebSocket (docs/openapi.yaml `CallEvent`, under `GET /v1/events`): `{"seq":12,"type":"call.incoming","call":{…}}`.
public struct CallEvent: Codable, Hashable, Sendable {
    /// Per-user, strictly increasing; reconnect with `?since=<seq>` to replay what was missed.
    public var seq: Int64
    /// What happened.
    public var type: EventType
    /// The call after the change.
    public var call: Call

    /// Creates an event.
    public init(seq: Int64, type: EventType, call: Call) {
        self.seq = seq
        self.type = type
        self.call = call
    }
}
