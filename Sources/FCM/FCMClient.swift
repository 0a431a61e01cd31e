public import Foundation
public import HTTP2Client

/// Sends FCM HTTP v1 messages (`POST /v1/projects/{project}/messages:send`; Google: "Send a message using FCM
/// HTTP v1 API") over HTTP/2, for one or more Firebase projects.
///
/// Each project has a service account (``FCMServiceAccount``) and its own access-token cache
/// (``FCMAccessTokenSource``: one grant in flight, replaced before it expires, on real time); the first
/// account is the default for devices that name no project. Messages go over a small pool of long-lived
/// HTTP/2 connections to the FCM host (one ``HTTP2Client`` loop per connection, keep-alive PINGs), every
/// request with a deadline; grants go over one more client to the accounts' `token_uri`s. A message whose
/// connection fails is sent once more on another connection (FCM has no message id to deduplicate on, so
/// the app must tolerate a rare duplicate, as it must for FCM's own redeliveries; Ringer's payload carries
/// the call id). On 401 without an `FcmError` detail (a stale or revoked access token) the client drops the
/// token, makes one new grant and sends once more; a second 401 is returned as is. Nothing is logged here:
/// registration tokens and access tokens never leave this type except on the wire.
/// Thread-safe; call ``shutdown()`` before dropping the client.
public final class FCMClient: Sendable {
    /// Where and how to connect.
    public struct Configuration: Sendable {
        /// The service accounts, one per Firebase project; the first is the default project.
        public var serviceAccounts: [FCMServiceAccount]
        /// The FCM host, `https://fcm.googleapis.com` by default; a sandbox's `https://host:port`
        /// (`http://` only to a loopback host, spoken as h2c).
        public var baseURL: String
        /// Extra CA certificate (PEM path) to trust, for a local sandbox: used for the FCM host and for
        /// every account's `token_uri`.
        public var caFile: String?
        /// Deadline of one `messages:send` request, in seconds, from the call to the answer (the resend after
        /// a connection failure included), cut short by the caller's own deadline.
        public var requestTimeout: TimeInterval
        /// Seconds one grant at a token endpoint may take.
        public var grantTimeout: TimeInterval
        /// Connections to the FCM host (the pool size), each with its own loop thread.
        public var connections: Int
        /// Most streams the client opens on one connection; the server's SETTINGS_MAX_CONCURRENT_STREAMS
        /// caps it further.
        public var maxConcurrentStreams: Int
        /// Seconds an idle connection is kept for reuse before the client closes it.
        public var connectionIdleLifetime: TimeInterval
        /// Seconds of silence before a keep-alive HTTP/2 PING (and TCP keep-alive probes); nil for none.
        public var keepAliveInterval: TimeInterval?

        /// Creates a configuration with Google's host.
        /// - Parameters:
        ///   - serviceAccounts: one per project, the default first; at least one, no project twice.
        ///   - baseURL: the FCM host.
        ///   - caFile: extra CA (PEM path) to trust, for a local sandbox and its token endpoint.
        ///   - requestTimeout: deadline per message in seconds; default 5 (a ringing message without an answer
        ///     is better sent again on a fresh connection than waited for).
        ///   - grantTimeout: deadline per grant in seconds; default 10.
        ///   - connections: pool size; default 2.
        ///   - maxConcurrentStreams: client-side stream cap per connection; default 1000.
        ///   - connectionIdleLifetime: seconds an idle connection stays reusable; default 3600.
        ///   - keepAliveInterval: seconds of silence before a keep-alive PING; default 30.
        public init(
            serviceAccounts: [FCMServiceAccount], baseURL: String = FCM.defaultBaseURL, caFile: String? = nil,
            requestTimeout: TimeInterval = 5, grantTimeout: TimeInterval = 10, connections: Int = 2,
            maxConcurrentStreams: Int = 1000, connectionIdleLifetime: TimeInterval = 3600,
            keepAliveInterval: TimeInterval? = 30
        ) {
            self.serviceAccounts = serviceAccounts
            self.baseURL = baseURL
            self.caFile = caFile
            self.requestTimeout = requestTimeout
            self.grantTimeout = grantTimeout
            self.connections = connections
            self.maxConcurrentStreams = maxConcurrentStreams
            self.connectionIdleLifetime = connectionIdleLifetime
            self.keepAliveInterval = keepAliveInterval
        }

        /// The HTTP/2 settings of one connection to the FCM host.
        var messaging: HTTP2Client.Configuration {
            HTTP2Client.Configuration(
                caFile: caFile, maxConnectionsPerHost: 1, maxConcurrentStreams: maxConcurrentStreams,
                http2PriorKnowledge: true, userAgent: "Ringer-FCM/1",
                connectionIdleLifetime: connectionIdleLifetime, keepAliveInterval: keepAliveInterval)
        }

        /// The HTTP/2 settings of the token endpoints' client: a grant an hour per account needs no
        /// connection kept open in between.
        var grants: HTTP2Client.Configuration {
            HTTP2Client.Configuration(
                caFile: caFile, maxConnectionsPerHost: 1, http2PriorKnowledge: true,
                userAgent: "Ringer-FCM/1")
        }
    }

    private let configuration: Configuration
    private let baseURL: String
    private let pool: HTTP2ClientPool
    private let grantClient: HTTP2Client
    private let sources: [String: FCMAccessTokenSource]
    /// Every project with a service account, the default first.
    public let projectIDs: [String]

    /// Creates the client; connections open on the first message or grant.
    /// - Parameters:
    ///   - configuration: accounts, host and limits.
    ///   - clock: monotonic time that ages access tokens; tests only.
    ///   - wallClock: the source of the grants' `iat`; tests only.
    /// - Throws: ``FCMClientError/invalidConfiguration(_:)`` for no account, a project twice, a base URL that is
    ///   not `https://` (or loopback `http://`), a timeout or pool size out of range, an unreadable CA file.
    public init(
        configuration: Configuration,
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard !configuration.serviceAccounts.isEmpty else {
            throw FCMClientError.invalidConfiguration("no FCM service account")
        }
        var seen = Set<String>()
        for account in configuration.serviceAccounts where !seen.insert(account.projectID).inserted {
            throw FCMClientError.invalidConfiguration("two FCM service accounts for project \(account.projectID)")
        }
        var base = configuration.baseURL
        while base.hasSuffix("/") { base.removeLast() }
        if let problem = LoopbackHost.problem(withURL: base) {
            throw FCMClientError.invalidConfiguration("the FCM base URL \(base) \(problem)")
        }
        guard URL(string: base)?.path.isEmpty ?? false else {
            throw FCMClientError.invalidConfiguration(
                "the FCM base URL \(base) must be scheme://host[:port] without a path")
        }
        for (name, value) in [
            ("requestTimeout", configuration.requestTimeout), ("grantTimeout", configuration.grantTimeout),
        ]
        where !(value.isFinite && value > 0) {
            throw FCMClientError.invalidConfiguration("\(name) must be a positive number of seconds")
        }
        guard configuration.connections >= 1 else {
            throw FCMClientError.invalidConfiguration("connections must be at least 1")
        }
        do {
            pool = try HTTP2ClientPool(configuration: configuration.messaging, size: configuration.connections)
            grantClient = try HTTP2Client(configuration: configuration.grants)
        } catch {
            throw FCMClientError.invalidConfiguration(
                "cannot set up HTTP/2 (CA file \(configuration.caFile ?? "none")): \(error)")
        }
        self.configuration = configuration
        self.baseURL = base
        projectIDs = configuration.serviceAccounts.map(\.projectID)
        var sources: [String: FCMAccessTokenSource] = [:]
        for account in configuration.serviceAccounts {
            sources[account.projectID] = FCMAccessTokenSource(
                account: account, client: grantClient,
                grantTimeout: configuration.grantTimeout,
                clock: clock, wallClock: wallClock)
        }
        self.sources = sources
    }

    /// The project used when a device names none: the first service account's.
    public var defaultProjectID: String { projectIDs[0] }

    /// The access-token source of a project, for statistics and tests.
    /// - Parameter projectID: the project.
    /// - Returns: nil for a project without an account.
    public func accessTokenSource(for projectID: String) -> FCMAccessTokenSource? { sources[projectID] }

    /// Sends one message to one registration token.
    ///
    /// The request gets ``Configuration/requestTimeout``, cut short by `deadline`; waiting for an access
    /// token counts against the same time. A connection that fails before the answer is retried once on
    /// another connection; requests the server refused unprocessed (REFUSED_STREAM, GOAWAY) are resent by
    /// ``HTTP2Client`` itself. A 401 without an `FcmError` detail drops the access token, makes one new grant
    /// and sends once more; every other answer is returned as is, for ``FCMResponseAction/forResponse(_:)``.
    /// - Parameters:
    ///   - message: the content.
    ///   - token: the registration token.
    ///   - projectID: the device's Firebase project; nil for ``defaultProjectID``.
    ///   - deadline: when the message stops mattering, on the wall clock (for the ringing message, the ring
    ///     deadline); nil for none.
    /// - Returns: FCM's answer, with the requests made (resends and the retry after a 401 included).
    /// - Throws: ``FCMClientError``: `invalidRegistrationToken`, `payloadTooLarge`, `reservedDataKey`,
    ///   `invalidTTL`, `unknownProject` (nothing sent); `deadlinePassed` (nothing sent); `accessToken` (no
    ///   token: refused, unreachable, malformed); `timedOut(after:)` (the message may have been accepted);
    ///   `transport` (the connection failed twice); `CancellationError` when the task is cancelled.
    public func send(
        _ message: FCMMessage, to token: String, projectID: String? = nil,
        deadline: Date? = nil
    ) async throws -> (response: FCMResponse, attempts: Int) {
        guard Self.isPlausibleRegistrationToken(token) else { throw FCMClientError.invalidRegistrationToken }
        let project = projectID ?? defaultProjectID
        guard let source = sources[project] else { throw FCMClientError.unknownProject(project) }
        let body = try message.requestBody(token: token)
        let url = baseURL + "/v1/projects/" + project + "/messages:send"
        var attempts = 0
        var refreshed = false
        while true {
            let ceiling = configuration.requestTimeout
            let until = min(Date().addingTimeInterval(ceiling), deadline ?? .distantFuture)
            guard until.timeIntervalSinceNow > 0 else { throw FCMClientError.deadlinePassed }
            let accessToken: FCMAccessToken
            do {
                accessToken = try await source.token(deadline: until)
            } catch let error as FCMAccessTokenError {
                throw FCMClientError.accessToken(error)
            }
            let timeout = until.timeIntervalSinceNow
            guard timeout > 0 else {
                // The token arrived just as the time ran out: nothing was sent.
                if let deadline, deadline.timeIntervalSinceNow <= 0 { throw FCMClientError.deadlinePassed }
                throw FCMClientError.accessToken(.timedOut(after: ceiling))
            }
            let request = HTTP2Request(
                url: url, method: "POST",
                headers: [
                    HTTP2Request.Header("authorization", accessToken.authorization),
                    HTTP2Request.Header("content-type", "application/json; charset=UTF-8"),
                ],
                body: body, timeout: timeout, connectionRetries: 1)
            let raw: HTTP2Response
            do {
                raw = try await pool.send(request)
            } catch let error as HTTP2ClientError {
                if error == .timedOut { throw FCMClientError.timedOut(after: timeout) }
                throw FCMClientError.transport(error.description)
            }
            attempts += raw.attempts
            let response = FCMResponse(status: raw.status, retryAfter: raw.header("retry-after"), body: raw.body)
            if response.status == 401, response.error?.fcmErrorCode == nil, !refreshed {
                // A stale or revoked access token (Google: "Authorize send requests"); one new grant, one retry.
                refreshed = true
                source.invalidate(accessToken.value)
                continue
            }
            return (response, attempts)
        }
    }

    /// Tries one grant per service account now, concurrently (the start-up check): a refused grant means
    /// the account, its key or the clock is wrong; an unreachable token endpoint may come back. Each new token
    /// is cached for the first messages.
    /// - Returns: one result per account, in ``projectIDs`` order.
    public func verifyCredentials() async -> [FCMCredentialCheck] {
        await withTaskGroup(of: (Int, FCMCredentialCheck).self) { group in
            for (index, project) in projectIDs.enumerated() {
                guard let source = sources[project] else { continue }
                let deadline = Date().addingTimeInterval(configuration.grantTimeout + 1)
                group.addTask {
                    let account = source.account
                    do {
                        let token = try await source.refresh(deadline: deadline)
                        return (
                            index,
                            FCMCredentialCheck(
                                projectID: project, clientEmail: account.clientEmail,
                                source: account.source, error: nil, lifetime: token.lifetime)
                        )
                    } catch {
                        let failure = error as? FCMAccessTokenError ?? .unreachable(String(describing: error))
                        return (
                            index,
                            FCMCredentialCheck(
                                projectID: project, clientEmail: account.clientEmail,
                                source: account.source, error: failure, lifetime: nil)
                        )
                    }
                }
            }
            var results: [(Int, FCMCredentialCheck)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Connections opened and recycled, requests resent and timed out so far, to the FCM host.
    public var statistics: HTTP2Client.Statistics { pool.statistics }

    /// Fails in-flight requests and grants and stops every HTTP/2 loop. Idempotent.
    public func shutdown() {
        pool.shutdown()
        grantClient.shutdown()
    }

    /// True for a registration token Ringer will send to: 1…4096 bytes of `A-Z a-z 0-9 - _ : .`. Google
    /// documents no format; its tokens are about 150–250 characters of base64url with a `:` (an instance id
    /// and `APA91b…`), so this bound only rejects what cannot be a token. The server applies the same rule at
    /// registration.
    public static func isPlausibleRegistrationToken(_ token: String) -> Bool {
        (1...4096).contains(token.utf8.count)
            && token.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"),
                    UInt8(ascii: "."):
                    true
                default:
                    false
                }
            }
    }
}
