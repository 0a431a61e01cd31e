import Foundation
import LibWebSockets
import RingerCore
import RingerHTTP
import RingerSupport
import RingerStore
import RingerWire
import StrictJSON

/// Maps HTTP requests to the services and answers JSON or `application/problem+json`.
///
/// Errors are converted to responses here and only here. A request either completes or changes
/// nothing stored (each service call is one transaction).
struct APIRouter: Sendable {
    let service: CallService
    let devices: DeviceRegistry
    let store: any RingerStore
    let tokens: UserTokens
    let adminKey: String
    let maxUserTokenTTL: Int
    let clock: any ServerClock
    let log: Logger
    /// Push configuration errors and provider outages, shown by `GET /healthz`.
    let pushHealth: PushSetupHealth
    /// ``ServerConfiguration/MediaSettings/usesDevelopmentKey``.
    var mediaUsesDevelopmentKey = false
    /// The rate limits (docs/security.md): checked here and in ``CallService/createCall``.
    let limits: RateLimits
    /// `GET /v1/events` upgraded.
    let events: EventStreamEndpoint
    /// The app's backend's webhook endpoints (decision 0009 §3).
    let webhooks: WebhookEndpoints
    /// The operator's push providers (decision 0009 §4).
    let pushProviders: PushProviderAdmin
    /// What `GET /metrics` serves.
    let metrics: ServerMetrics
    /// `--metrics-token`.
    let metricsToken: String?
    /// The open event sockets here, for `GET /metrics`.
    let openSockets: @Sendable () -> Int
    /// The app's backend's keys (decision 0009 §1).
    var apiKeys: APIKeys { APIKeys(store: store, clock: clock, log: log, touched: apiKeyUses) }
    /// When this server last wrote each API key's `last_used_at` (``APIKeys/used(_:)``).
    let apiKeyUses = LockedValue<[String: Date]>([:])
    /// Lets shutdown finish the requests in progress.
    let inFlight = InFlightWork()

    /// `GET /healthz`: `degraded` when pushes fail for the server's own set-up or a provider's outage, or Redis is lost.
    private struct HealthReport: Encodable {
        var status: String
        var pushProblems: [PushSetupHealth.Problem]?
        /// Set-up that works but should not reach production (`media-development-key`).
        var warnings: [String]?
        /// This server in its cluster, with `--redis`.
        var cluster: ClusterHealth?
    }

    /// The `/healthz` warning while media tokens are signed with LiveKit's published development key.
    static let mediaDevelopmentKeyWarning = "media-development-key"

    /// Largest request body accepted, bytes.
    static let maxBodyBytes = 64 * 1024

    /// Answers one request: finds its route in ``routes``, checks the method (405 with `Allow`), then the
    /// credentials the route needs, then runs its handler. Every failure becomes problem+json here.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        HTTPDateHeader.adding(to: await answer(request), now: clock.now())
    }

    /// ``handle(_:)``'s answer before its `date` header.
    private func answer(_ request: HTTPRequest) async -> HTTPResponse {
        guard inFlight.enter() else { return APIProblem.response(APIProblem.shuttingDown()) }
        defer { inFlight.leave() }
        do {
            return try await dispatch(request)
        } catch let problem as Problem {
            return APIProblem.response(problem)
        } catch let refused as CallServiceError {
            return APIProblem.response(APIProblem.from(refused))
        } catch let refused as InsufficientScope {
            return refused.response
        } catch let limited as RateLimitExceeded {
            metrics.refused(by: limited.limit)
            log.debug(
                "rate limited", ["http.path": .string(request.path), "detail": .string(limited.problem.detail ?? "")])
            return limited.response
        } catch let error as StoreError {
            log.error("store failure", ["error": .string(error.description), "http.path": .string(request.path)])
            if error.isBusy { return APIProblem.response(APIProblem.storeBusy()) }
            // Nothing was changed (or, when PostgreSQL stopped answering a commit, nothing is known), and nothing
            // will be until the database is back: a 503 the client may retry later.
            if error.isUnavailable {
                return APIProblem.response(APIProblem.storeUnavailable(outcomeUnknown: error.isOutcomeUnknown))
            }
            return APIProblem.response(APIProblem.internalError())
        } catch {
            log.error("request failed", ["error": .string("\(error)"), "http.path": .string(request.path)])
            return APIProblem.response(APIProblem.internalError())
        }
    }

    /// Every operation of the API (docs/openapi.yaml lists the same ones: `RouteTableTests`). A template's
    /// routes are listed together, in the order `Allow` names their methods.
    static let routes: [Route] = [
        Route("GET", "/healthz", .open { router, _ in try await router.health() }),
        Route(
            "GET", "/metrics",
            .metrics { router, _ in
                let now = router.clock.now()
                // The outbox's age is the cluster's; a database that does not answer leaves it out of this scrape.
                let oldest: Date??
                do { oldest = .some(try await router.store.oldestPendingWebhookEvent()) } catch { oldest = .none }
                let text = router.metrics.render(sockets: router.openSockets(), oldestPendingWebhook: oldest, now: now)
                return HTTPResponse(
                    status: 200, headers: [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: Array(text.utf8))
            }),
        Route(
            "POST", "/v1/tokens",
            .backend(.tokensWrite) { router, input, _ in try await router.mintToken(input.request) }),
        Route("GET", "/v1/api-keys", .admin { router, _ in try await router.listAPIKeys() }),
        Route("POST", "/v1/api-keys", .admin { router, input in try await router.createAPIKey(input.request) }),
        Route(
            "DELETE", "/v1/api-keys/{key_id}",
            .admin { router, input in try await router.deleteAPIKey(input[parameter: "key_id"]) }),
        Route(
            "GET", "/v1/devices",
            .user { router, _, user in
                try json(["devices": await router.store.devices(ofUser: user.id)])
            }),
        Route(
            "PUT", "/v1/devices/{device_id}",
            .user { router, input, user in
                try await router.registerDevice(input[parameter: "device_id"], input.request, user: user)
            }),
        Route(
            "DELETE", "/v1/devices/{device_id}",
            .user { router, input, user in
                try await router.unregisterDevice(input[parameter: "device_id"], user: user)
            }),
        Route(
            "GET", "/v1/calls", .user { router, input, user in try await router.listCalls(input.request, user: user) }),
        Route(
            "POST", "/v1/calls", .user { router, input, user in try await router.createCall(input.request, user: user) }
        ),
        Route(
            "GET", "/v1/calls/{call_id}",
            .user { router, input, user in
                try await router.showCall(input[parameter: "call_id"], user: user)
            }),
        Route(
            "GET", "/v1/calls/{call_id}/media",
            .user { router, input, user in
                let id = try await router.visibleCall(input, user: user)
                return try json(await router.service.mediaSession(callID: id, user: user))
            }),
        Route(
            "GET", "/v1/calls/{call_id}/pushes",
            .user { router, input, user in
                let id = try await router.visibleCall(input, user: user)
                return try json(["pushes": await router.service.pushAttempts(callID: id, user: user.id)])
            }),
        Route("POST", "/v1/calls/{call_id}/ringing", deviceAction { .ringing(deviceID: $0) }),
        Route(
            "POST", "/v1/calls/{call_id}/accept",
            .user { router, input, user in
                let id = try await router.visibleCall(input, user: user)
                let device = try router.decode(DeviceActionRequest.self, input.request).deviceID
                return try json(await router.service.accept(callID: id, user: user, deviceID: device))
            }),
        Route("POST", "/v1/calls/{call_id}/decline", deviceAction { .decline(deviceID: $0) }),
        Route("POST", "/v1/calls/{call_id}/cancel", partyAction(.cancel)),
        Route("POST", "/v1/calls/{call_id}/end", partyAction(.end)),
        Route(
            "POST", "/v1/calls/{call_id}/ring",
            .user { router, input, user in
                let id = try await router.visibleCall(input, user: user)
                let body = try router.decode(RingRequest.self, input.request)
                return try json(
                    await router.service.ringMore(
                        callID: id, user: user, callees: body.callees,
                        address: router.limits.addressKey(of: input.request)))
            }),
        Route(
            "POST", "/v1/calls/{call_id}/keepalive",
            .user { router, input, user in
                let id = try await router.visibleCall(input, user: user)
                try await router.service.keepalive(callID: id, user: user.id)
                return HTTPResponse(status: 204)
            }),
        // The app's backend (decision 0009 §2): any call, with an API key.
        Route(
            "GET", "/v1/server/calls",
            .backend(.callsRead) { router, input, _ in
                try json(await router.service.history(try router.historyQuery(input.request)))
            }),
        Route(
            "POST", "/v1/server/calls",
            .backend(.callsWrite) { router, input, credential in
                try await router.createServerCall(input.request, credential: credential)
            }),
        Route(
            "GET", "/v1/server/calls/{call_id}",
            .backend(.callsRead) { router, input, _ in
                try json(await router.service.fullCall(id: try router.callID(input[parameter: "call_id"])))
            }),
        Route("POST", "/v1/server/calls/{call_id}/cancel", backendAction(.cancel)),
        Route("POST", "/v1/server/calls/{call_id}/end", backendAction(.end)),
        // Push providers per app (decision 0009 §4): the operator's, with the admin key.
        Route(
            "GET", "/v1/push-providers",
            .admin { router, _ in
                try json(PushProviderList(providers: try await router.store.pushProviders().map(\.info)))
            }),
        Route(
            "POST", "/v1/push-providers",
            .admin { router, input in
                try json(
                    await router.pushProviders.create(try router.decode(PushProviderRequest.self, input.request)),
                    status: 201)
            }),
        Route(
            "GET", "/v1/push-providers/{provider_id}",
            .admin { router, input in
                try json(await router.pushProviders.stored(input[parameter: "provider_id"]).info)
            }),
        Route(
            "PUT", "/v1/push-providers/{provider_id}",
            .admin { router, input in
                let id = input[parameter: "provider_id"]
                _ = try await router.pushProviders.stored(id)
                let body = try router.decode(PushProviderRequest.self, input.request)
                return try json(await router.pushProviders.replace(id, with: body))
            }),
        Route(
            "DELETE", "/v1/push-providers/{provider_id}",
            .admin { router, input in
                let id = input[parameter: "provider_id"]
                guard PushProviderAdmin.isProviderID(id), try await router.store.deletePushProvider(id: id) else {
                    throw APIProblem.pushProviderNotFound(id)
                }
                router.log.info("push provider removed", ["push.provider_id": .string(id)])
                await router.pushProviders.changed()
                return HTTPResponse(status: 204)
            }),
        // Webhooks (decision 0009 §3).
        Route(
            "GET", "/v1/webhooks",
            .backend(.webhooksWrite) { router, _, _ in
                try json(WebhookEndpointList(endpoints: try await router.store.webhookEndpoints().map(\.info)))
            }),
        Route(
            "POST", "/v1/webhooks",
            .backend(.webhooksWrite) { router, input, _ in
                try json(
                    await router.webhooks.create(try router.decode(WebhookEndpointRequest.self, input.request)),
                    status: 201)
            }),
        Route(
            "GET", "/v1/webhooks/{endpoint_id}",
            .backend(.webhooksWrite) { router, input, _ in
                try json(await router.webhooks.stored(input[parameter: "endpoint_id"]).info)
            }),
        Route(
            "PUT", "/v1/webhooks/{endpoint_id}",
            .backend(.webhooksWrite) { router, input, _ in
                let id = input[parameter: "endpoint_id"]
                _ = try await router.webhooks.stored(id)
                let body = try router.decode(WebhookEndpointRequest.self, input.request)
                return try json(await router.webhooks.replace(id, with: body))
            }),
        Route(
            "DELETE", "/v1/webhooks/{endpoint_id}",
            .backend(.webhooksWrite) { router, input, _ in
                let id = input[parameter: "endpoint_id"]
                guard WebhookEndpoints.isEndpointID(id), try await router.store.deleteWebhookEndpoint(id: id) else {
                    throw APIProblem.webhookEndpointNotFound(id)
                }
                router.log.info("webhook endpoint removed", ["webhook.endpoint": .string(id)])
                return HTTPResponse(status: 204)
            }),
        Route(
            "POST", "/v1/webhooks/{endpoint_id}/rotate-secret",
            .backend(.webhooksWrite) { router, input, _ in
                let id = input[parameter: "endpoint_id"]
                _ = try await router.webhooks.stored(id)
                // The body is optional: none keeps the default lifetime of the old secret.
                let body =
                    input.request.body.isEmpty
                    ? RotateWebhookSecretRequest() : try router.decode(RotateWebhookSecretRequest.self, input.request)
                return try json(await router.webhooks.rotate(id, body))
            }),
        Route(
            "GET", "/v1/webhooks/{endpoint_id}/deliveries",
            .backend(.webhooksWrite) { router, input, _ in
                try await router.listDeliveries(input[parameter: "endpoint_id"], input.request)
            }),
        Route(
            "POST", "/v1/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver",
            .backend(.webhooksWrite) { router, input, _ in
                let id = input[parameter: "endpoint_id"]
                // A disabled endpoint is sent nothing: enable it first.
                guard try await router.webhooks.stored(id).info.enabled else {
                    throw APIProblem.webhookEndpointDisabled(id)
                }
                let delivery = input[parameter: "delivery_id"]
                guard let number = Int64(delivery), number > 0,
                    let queued = try await router.store.redeliverWebhook(
                        deliveryID: number, endpointID: id, at: router.clock.now())
                else { throw APIProblem.webhookDeliveryNotFound(delivery) }
                router.log.info(
                    "webhook delivery queued again",
                    ["webhook.endpoint": .string(id), "webhook.delivery": .string(delivery)])
                return try json(queued)
            }),
        // A WebSocket upgrade never reaches the router: RingerServer checks its token and accepts it. A plain
        // GET is refused whoever sends it.
        Route(
            "GET", "/v1/events",
            .userWebSocket { router, input, user, connection in
                try router.events.upgrade(input.request, user: user, connection: connection)
            }),
    ]

    /// The paths whose upgrades libwebsockets hands to ``upgrade(_:_:)``: those of the WebSocket routes.
    static let webSocketPaths: Set<String> = Set(
        routes.compactMap { route in
            guard case .userWebSocket = route.handler else { return nil }
            return route.path.description
        })

    /// Decides a WebSocket upgrade (on the libwebsockets thread; no I/O): the path's WebSocket route, the user
    /// token (`Authorization: Bearer`, else `?access_token=`), then the route's handler. Every refusal is
    /// problem+json, as for any other request: 404 for a path without a WebSocket route, 401, 429, 400.
    func upgrade(_ request: HTTPRequest, _ connection: WebSocketConnection) -> WebSocketUpgrade {
        guard let match = RouteMatch.find(request.path, in: Self.routes),
            let route = match.route(for: "GET"), case .userWebSocket(let decide) = route.handler
        else {
            return .reject(APIProblem.response(Self.noWebSocket))
        }
        do {
            let user = try authenticate(request, token: request.bearerToken)
            return try decide(self, Route.Input(request: request, parameters: match.parameters), user, connection)
        } catch let problem as Problem {
            return .reject(APIProblem.response(problem))
        } catch let limited as RateLimitExceeded {
            metrics.refused(by: limited.limit)
            return .reject(limited.response)
        } catch {
            return .reject(APIProblem.response(APIProblem.unauthorized("the user token is not valid")))
        }
    }

    /// The answer to an upgrade on a path without a WebSocket route.
    static let noWebSocket = APIProblem.notFound("no WebSocket here; the event stream is GET /v1/events")

    /// A call action of the callee's device named in the body (`ringing`, `decline`), decided by the call machine.
    private static func deviceAction(_ action: @escaping @Sendable (_ deviceID: String) -> CallInput) -> Route.Handler {
        .user { router, input, user in
            let id = try await router.visibleCall(input, user: user)
            let device = try router.decode(DeviceActionRequest.self, input.request).deviceID
            return try json(await router.service.act(action(device), callID: id, user: user.id))
        }
    }

    /// A call action of a party that needs no body (`cancel`, `end`), decided by the call machine.
    private static func partyAction(_ action: CallInput) -> Route.Handler {
        .user { router, input, user in
            let id = try await router.visibleCall(input, user: user)
            return try json(await router.service.act(action, callID: id, user: user.id))
        }
    }

    /// A call action of the app's backend (`cancel`, `end`), decided by the call machine; logged with the key.
    private static func backendAction(_ action: CallInput) -> Route.Handler {
        .backend(.callsWrite) { router, input, credential in
            let id = try router.callID(input[parameter: "call_id"])
            let call = try await router.service.actAsBackend(action, callID: id)
            router.log.info(
                "call \(action == .cancel ? "cancelled" : "ended") by the app's backend",
                ["call.id": .string(id), "call.state": .string(call.state.rawValue)].merging(
                    credential.metadata, uniquingKeysWith: { $1 }))
            return try json(call)
        }
    }

    private func dispatch(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let match = RouteMatch.find(request.path, in: Self.routes) else {
            throw APIProblem.notFound("no route \(request.path)")
        }
        // The method is checked before credentials, so that a 405 (with Allow) never depends on the token.
        guard let route = match.route(for: request.method) else {
            return Self.methodNotAllowed(request.method, allowed: match.allowedMethods)
        }
        let input = Route.Input(request: request, parameters: match.parameters)
        switch route.handler {
        case .open(let handle):
            return try await handle(self, input)
        case .admin(let handle):
            try requireAdmin(request)
            return try await handle(self, input)
        case .metrics(let handle):
            try requireMetricsCredential(request)
            return try await handle(self, input)
        case .backend(let scope, let handle):
            let credential = try await authenticateBackend(request, scope: scope)
            return try await handle(self, input, credential)
        case .user(let handle):
            let user = try authenticate(request)
            if request.method == "GET" || request.method == "HEAD" { try limits.admitRead(user: user.id) }
            return try await handle(self, input, user)
        case .userWebSocket:
            return APIProblem.response(APIProblem.upgradeRequired(), headers: [("upgrade", "websocket")])
        }
    }

    /// A method the route does not take, with those it does (for `Allow`).
    /// RFC 9110 §15.5.6: a 405 lists the methods the resource does support.
    private static func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPResponse {
        APIProblem.response(APIProblem.methodNotAllowed(method), headers: [("allow", allowed.joined(separator: ", "))])
    }

    /// The registered methods (RFC 9110 §9, RFC 5789 PATCH, the IETF's QUERY) that libwebsockets leaves to the raw
    /// fallback (TRACE, CONNECT, QUERY): known, so a routed path answers them 405 with `Allow`; any other unknown
    /// method is 501.
    static let standardMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE",
        "PATCH", "QUERY",
    ]

    /// The answer to a method libwebsockets does not parse, from the request line: 405 with `Allow` on a
    /// routed path for a standard method, 404 on any other path, 501 for a method Ringer does not know.
    static func unknownMethodResponse(method: String, path: String) -> HTTPResponse {
        guard standardMethods.contains(method) else { return APIProblem.response(APIProblem.methodNotImplemented()) }
        guard let match = RouteMatch.find(path, in: routes) else {
            return APIProblem.response(APIProblem.notFound("no route \(path)"))
        }
        return methodNotAllowed(method, allowed: match.allowedMethods)
    }

    // MARK: Handlers

    /// `GET /healthz`.
    private func health() async throws -> HTTPResponse {
        // A write, not a read: a full disk, a read-only or deleted database still answers reads.
        do {
            try await store.checkWritable(at: clock.now())
        } catch {
            log.error("health check: the database cannot be written", ["error": .string("\(error)")])
            return APIProblem.response(APIProblem.storeUnavailable())
        }
        // Pushes refused for the server's own set-up, or a provider failing every send: the API works, but calls
        // to those devices will not ring. Still 200: a provider outage is every node's, and a balancer that took
        // nodes out for it would take the API (and the event sockets that still ring foreground apps) down too.
        let problems = pushHealth.current(at: clock.now())
        // Redis lost: calls still ring by push, and events reach other servers' sockets only from the store.
        let cluster = service.cluster.snapshot?.health
        let degraded = !problems.isEmpty || (cluster.map { $0.redis != "connected" } ?? false)
        return try Self.json(
            HealthReport(
                status: degraded ? "degraded" : "ok",
                pushProblems: problems.isEmpty ? nil : problems,
                warnings: mediaUsesDevelopmentKey ? [Self.mediaDevelopmentKeyWarning] : nil,
                cluster: cluster))
    }

    /// `POST /v1/tokens`.
    private func mintToken(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try decode(CreateTokenRequest.self, request)
        guard Identifier.isValid(body.userID) else { throw APIProblem.invalidField("user_id is not a valid user id") }
        if let name = body.name, let problem = DisplayName.problem(name) { throw APIProblem.invalidField(problem) }
        let ttl = body.ttlSeconds ?? 3600
        guard (60...maxUserTokenTTL).contains(ttl) else {
            throw APIProblem.invalidField("ttl_seconds must be between 60 and \(maxUserTokenTTL)")
        }
        let now = clock.now()
        try await store.upsertUser(id: body.userID, name: body.name, at: now)
        return try Self.json(tokens.mint(userID: body.userID, name: body.name, ttl: ttl, now: now), status: 201)
    }

    /// `GET /v1/api-keys`: every key, oldest first, without secrets.
    private func listAPIKeys() async throws -> HTTPResponse {
        try Self.json(APIKeyList(apiKeys: try await store.apiKeys().map(\.info)))
    }

    /// `POST /v1/api-keys`: a new key, shown this once. The scopes are stored in ``APIKeyScope/known``'s order.
    private func createAPIKey(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try decode(CreateAPIKeyRequest.self, request)
        if let problem = DisplayName.problem(body.name) { throw APIProblem.invalidField(problem) }
        guard !body.scopes.isEmpty else { throw APIProblem.invalidField("scopes must name at least one scope") }
        if let unknown = body.scopes.first(where: { !APIKeyScope.known.contains($0) }) {
            throw APIProblem.invalidField(
                "scopes holds \"\(unknown.rawValue.prefix(64))\", which is not one of "
                    + APIKeyScope.known.map(\.rawValue).joined(separator: ", "))
        }
        guard Set(body.scopes).count == body.scopes.count else {
            throw APIProblem.invalidField("scopes names a scope twice")
        }
        guard try await store.apiKeys().count < APIKeys.maximumKeys else {
            throw APIProblem.invalidField("there are \(APIKeys.maximumKeys) API keys already: revoke some first")
        }
        let scopes = APIKeyScope.known.filter(body.scopes.contains)
        let (key, stored) = APIKeys.generate(name: body.name, scopes: scopes, now: clock.now())
        try await store.insertAPIKey(stored)
        log.info(
            "API key created",
            [
                "api_key.id": .string(stored.info.keyID),
                "api_key.scopes": .string(scopes.map(\.rawValue).joined(separator: " ")),
            ])
        return try Self.json(CreatedAPIKey(key: key, info: stored.info), status: 201)
    }

    /// `DELETE /v1/api-keys/{key_id}`: revoked on every server from the next request; 404 when there is no such key.
    private func deleteAPIKey(_ id: String) async throws -> HTTPResponse {
        guard APIKeys.isKeyID(id), try await store.deleteAPIKey(id: id) else { throw APIProblem.apiKeyNotFound(id) }
        log.info("API key revoked", ["api_key.id": .string(id)])
        return HTTPResponse(status: 204)
    }

    /// `PUT /v1/devices/{device_id}`.
    private func registerDevice(_ deviceID: String, _ request: HTTPRequest, user: Party) async throws -> HTTPResponse {
        try limits.admitDeviceChange(user: user.id)
        let body = try decode(DeviceRegistration.self, request)
        return try Self.json(await devices.register(deviceID: deviceID, user: user, body: body, now: clock.now()))
    }

    /// `DELETE /v1/devices/{device_id}`: idempotent, so a retried logout succeeds; another user's device is
    /// never touched.
    private func unregisterDevice(_ deviceID: String, user: Party) async throws -> HTTPResponse {
        try limits.admitDeviceChange(user: user.id)
        // An id no registration can have is the client's mistake, not "already gone".
        guard Identifier.isValid(deviceID) else { throw APIProblem.invalidDeviceID() }
        _ = try await store.deleteDevice(id: deviceID, userID: user.id)
        return HTTPResponse(status: 204)
    }

    /// `GET /v1/calls?limit=&before=`: a page of the user's calls, newest first (keyset pagination: `before` is the
    /// last call of the previous page, whose id the previous answer gave as `next_before`).
    private func listCalls(_ request: HTTPRequest, user: Party) async throws -> HTTPResponse {
        let limit = try Self.pageLimit(request)
        let before = try request.query["before"].map { text -> String in
            guard let id = try? callID(text) else { throw Self.badCursor }
            return id
        }
        let calls = try await service.calls(of: user.id, limit: limit, before: before)
        // An empty page after an id that is no call of the user's: 404, as `GET /v1/calls/{id}` answers it, the same
        // for a stranger's call and for none, so ids cannot be probed.
        if let before, calls.isEmpty { _ = try await service.call(id: before, user: user.id) }
        return try Self.json(CallList(calls: calls, nextBefore: calls.count == limit ? calls.last?.callID : nil))
    }

    /// A list's `?limit=`: 1 to 100, 20 when left out (docs/openapi.yaml `components/parameters/Limit`).
    /// - Throws: 422 ``Problem`` for any other value.
    private static func pageLimit(_ request: HTTPRequest) throws -> Int {
        guard let text = request.query["limit"] else { return 20 }
        guard let value = Int(text), (1...100).contains(value) else {
            throw APIProblem.invalidField("limit must be a number from 1 to 100")
        }
        return value
    }

    private static let badCursor = APIProblem.invalidField(
        "before must be a call id (next_before of the previous page)")

    /// `POST /v1/calls`.
    private func createCall(_ request: HTTPRequest, user: Party) async throws -> HTTPResponse {
        let body = try decode(CreateCallRequest.self, request)
        let key = request.headers["idempotency-key"]
        if let key, !(1...255).contains(key.utf8.count) {
            throw APIProblem.invalidField("Idempotency-Key must be 1 to 255 characters")
        }
        let caller = try await service.recordUser(user)
        return try Self.json(
            await service.createCall(
                caller: caller, request: body, idempotencyKey: key,
                address: limits.addressKey(of: request)), status: 201)
    }

    /// `POST /v1/server/calls`: a call placed by the app's backend for `caller_id`, with the user's own rules and
    /// per-user limits (not the per-address ones: every call of a backend comes from its address).
    private func createServerCall(_ request: HTTPRequest, credential: BackendCredential) async throws -> HTTPResponse {
        let body = try decode(ServerCallRequest.self, request)
        guard Identifier.isValid(body.callerID) else {
            throw APIProblem.invalidField("caller_id is not a valid user id (\(Identifier.rule))")
        }
        if let name = body.callerName, let problem = DisplayName.problem(name) {
            throw APIProblem.invalidField("caller_name: \(problem)")
        }
        let key = request.headers["idempotency-key"]
        if let key, !(1...255).contains(key.utf8.count) {
            throw APIProblem.invalidField("Idempotency-Key must be 1 to 255 characters")
        }
        // The backend's keys are its own: the same text from the caller's app names another call.
        let call = try await service.createCall(
            caller: Party(id: body.callerID, name: body.callerName), request: body.callRequest,
            idempotencyKey: key.map { "server:" + $0 }, address: nil, resolvingCallerName: true)
        // Recorded once the call was taken, so a refused request leaves no user behind; callable from now on.
        _ = try await service.recordUser(Party(id: body.callerID, name: body.callerName))
        log.info(
            "call placed by the app's backend",
            ["call.id": .string(call.callID)].merging(credential.metadata, uniquingKeysWith: { $1 }))
        return try Self.json(call, status: 201)
    }

    /// The query of `GET /v1/server/calls`, checked: each bad value is 422 `invalid-field` naming it.
    private func historyQuery(_ request: HTTPRequest) throws -> CallHistoryQuery {
        var query = CallHistoryQuery()
        if let user = request.query["user_id"] {
            guard Identifier.isValid(user) else { throw APIProblem.invalidField("user_id is not a valid user id") }
            query.userID = user
        }
        if let text = request.query["state"] {
            let states = text.split(separator: ",", omittingEmptySubsequences: false).map {
                CallState(rawValue: String($0))
            }
            guard !states.isEmpty, states.allSatisfy(CallState.known.contains) else {
                throw APIProblem.invalidField(
                    "state must be one or more of \(CallState.known.map(\.rawValue).joined(separator: ", ")), comma-separated"
                )
            }
            query.states = Set(states)
        }
        if let text = request.query["missed"] {
            guard text == "true" || text == "false" else {
                throw APIProblem.invalidField("missed must be true or false")
            }
            query.missed = text == "true"
            guard !query.missed || query.userID != nil else {
                throw APIProblem.invalidField("missed=true needs user_id: a call is missed by one of its callees")
            }
        }
        query.since = try request.query["since"].map { try Self.timestamp($0, "since") }
        query.until = try request.query["until"].map { try Self.timestamp($0, "until") }
        query.limit = try Self.pageLimit(request)
        if let text = request.query["cursor"] {
            guard let id = try? callID(text) else {
                throw APIProblem.invalidField("cursor must be the next_cursor of the previous page")
            }
            query.cursor = id
        }
        return query
    }

    /// An RFC 3339 timestamp of a query (`2026-12-07T12:00:00Z`, fractional seconds allowed).
    /// - Throws: 422 ``Problem`` naming `name`.
    private static func timestamp(_ text: String, _ name: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        throw APIProblem.invalidField("\(name) must be an RFC 3339 time, e.g. 2026-12-07T12:00:00Z")
    }

    /// `GET /v1/webhooks/{endpoint_id}/deliveries?state=&limit=&cursor=`: newest first.
    private func listDeliveries(_ id: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try await webhooks.stored(id)
        var state: WebhookDeliveryState?
        if let text = request.query["state"] {
            guard WebhookDeliveryState.known.contains(WebhookDeliveryState(rawValue: text)) else {
                throw APIProblem.invalidField("state must be pending, delivered or failed")
            }
            state = WebhookDeliveryState(rawValue: text)
        }
        let limit = try Self.pageLimit(request)
        let before = try request.query["cursor"].map { text -> Int64 in
            guard let value = Int64(text), value > 0 else {
                throw APIProblem.invalidField("cursor must be the next_cursor of the previous page")
            }
            return value
        }
        let page = try await store.webhookDeliveries(endpointID: id, state: state, before: before, limit: limit)
        let next = page.count == limit ? page.last.map { String($0.deliveryID) } : nil
        return try Self.json(WebhookDeliveryList(deliveries: page, nextCursor: next))
    }

    /// `GET /v1/calls/{call_id}`.
    private func showCall(_ text: String, user: Party) async throws -> HTTPResponse {
        // The push outcomes describe the callee's devices: only the callee sees them.
        try Self.json(await service.show(id: try callID(text), user: user.id))
    }

    /// The id of the call a `/v1/calls/{call_id}/…` route acts on, once the user is known to see it: a
    /// stranger gets the same 404 whatever the body holds, since the body is read only after this.
    private func visibleCall(_ input: Route.Input, user: Party) async throws -> String {
        let id = try callID(input[parameter: "call_id"])
        _ = try await service.call(id: id, user: user.id)
        return id
    }

    // MARK: Helpers

    /// The user behind `Authorization: Bearer <user token>` (the only place an API route reads credentials
    /// from; the token is parsed by `HTTPRequest.authorizationBearerToken`).
    /// - Throws: 401 ``Problem``; ``RateLimitExceeded``.
    func authenticate(_ request: HTTPRequest) throws -> Party {
        try authenticate(request, token: request.authorizationBearerToken)
    }

    /// The user a user token names. Credentials that fail count against the client address
    /// (`--rate-limit-auth-failures-per-minute`); an address past that limit is refused unchecked.
    /// - Parameters:
    ///   - request: the request, for its client address.
    ///   - token: the bearer token it carries; nil when it has none.
    /// - Throws: 401 ``Problem``; ``RateLimitExceeded``.
    func authenticate(_ request: HTTPRequest, token: String?) throws -> Party {
        guard let token else { throw APIProblem.unauthorized("send Authorization: Bearer <user token>") }
        let claims = try checkingCredentials(of: request) { try tokens.verify(token, now: clock.now()) }
        // A name from a token minted elsewhere is made fit to travel in every ringing push.
        return Party(id: claims.sub, name: DisplayName.fromToken(claims.name))
    }

    /// The credential of a backend route: the admin key, or an API key holding `scope`. Like a bad token, a bad key
    /// counts against its address's failed-authentication limit; a good key without the scope does not.
    /// - Throws: 401 ``Problem``; ``InsufficientScope``; ``RateLimitExceeded``; ``StoreError``.
    private func authenticateBackend(_ request: HTTPRequest, scope: APIKeyScope) async throws -> BackendCredential {
        guard let bearer = request.authorizationBearerToken else {
            throw APIProblem.unauthorized("send Authorization: Bearer <API key>")
        }
        let address = limits.addressKey(of: request)
        try limits.admitCredentials(from: address)
        if Self.constantTimeEquals(bearer, adminKey) { return .adminKey }
        let key: StoredAPIKey
        do {
            key = try await apiKeys.verify(bearer)
        } catch let problem as Problem {
            limits.credentialsFailed(from: address)
            throw problem
        }
        apiKeys.used(key.info.keyID)
        guard key.info.scopes.contains(scope) else { throw InsufficientScope(scope: scope) }
        return .apiKey(id: key.info.keyID, name: key.info.name)
    }

    /// The metrics token or the admin key.
    private func requireMetricsCredential(_ request: HTTPRequest) throws {
        guard let key = request.authorizationBearerToken else {
            throw APIProblem.unauthorized("send Authorization: Bearer <metrics token>")
        }
        try refuseAPIKey(key, "the metrics token or the admin key")
        try checkingCredentials(of: request) {
            let token = metricsToken.map { Self.constantTimeEquals(key, $0) } ?? false
            guard token || Self.constantTimeEquals(key, adminKey) else {
                throw APIProblem.unauthorized("the metrics token is not valid")
            }
        }
    }

    private func requireAdmin(_ request: HTTPRequest) throws {
        guard let key = request.authorizationBearerToken else {
            throw APIProblem.unauthorized("send Authorization: Bearer <admin key>")
        }
        try refuseAPIKey(key, "the admin key")
        try checkingCredentials(of: request) {
            guard Self.constantTimeEquals(key, adminKey) else {
                throw APIProblem.unauthorized("the admin key is not valid")
            }
        }
    }

    /// Refuses an API key on a route of the operator's: 403, and not a failed authentication (a backend calling an admin
    /// route by mistake must not lock its address out of every route, the admin key's included).
    /// - Throws: 403 ``Problem`` when `bearer` is shaped like an API key.
    private func refuseAPIKey(_ bearer: String, _ needed: String) throws {
        guard APIKeys.keyID(of: bearer) != nil else { return }
        throw APIProblem.forbidden("an API key cannot use this route: it takes \(needed)")
    }

    /// Runs a credential check for `request` under the failed-authentication limit of its client address.
    private func checkingCredentials<T>(of request: HTTPRequest, _ check: () throws -> T) throws -> T {
        let address = limits.addressKey(of: request)
        try limits.admitCredentials(from: address)
        do {
            return try check()
        } catch {
            limits.credentialsFailed(from: address)
            throw error
        }
    }

    /// Compares secrets without an early exit, so timing does not reveal how much matched.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    func callID(_ text: String) throws -> String {
        guard let uuid = UUID(uuidString: text), uuid.uuidString.lowercased() == text.lowercased() else {
            throw APIProblem.callNotFound()
        }
        return text.lowercased()
    }

    private func decode<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
        guard !request.body.isEmpty else { throw APIProblem.malformed("the request needs a JSON body") }
        let value: T
        do {
            value = try RingerJSON.decoder().decode(type, from: Data(request.body))
        } catch let error as DecodingError {
            throw APIProblem.malformed(Self.describe(error))
        } catch {
            throw APIProblem.malformed("the body is not JSON")
        }
        // A repeated name is refused, not resolved: JSONDecoder keeps the first, other readers the last, and the body
        // must mean one thing to every one of them (StrictJSON); so is anything else they could read otherwise.
        switch StrictJSON.refusal(of: request.body) {
        case .repeatedName(let name):
            throw APIProblem.malformed(
                "the body names \"\(name.prefix(64))\" twice; each name may appear once per object")
        case .ambiguous(let reason):
            throw APIProblem.malformed("the body is JSON that readers do not all read alike (\(reason.prefix(120)))")
        case nil:
            break
        }
        // `null` is not a value of any field (docs/openapi.yaml): an optional field is left out instead. Codable
        // alone takes `null` for an absent optional, accepting what the schema refuses. Unknown keys are ignored.
        // A body without the bytes `null` has none, so only such a body is parsed a second time.
        guard request.body.firstRange(of: Array("null".utf8)) != nil else { return value }
        let fields = Set(Mirror(reflecting: value).children.compactMap { $0.label.map(RingerJSON.snakeCase) })
        if let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            let field = object.first(where: { fields.contains($0.key) && $0.value is NSNull })?.key
        {
            throw APIProblem.malformed("\(field) is null: leave an optional field out instead")
        }
        return value
    }

    /// A short, safe description of a decoding error: the field path and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? RingerJSON.snakeCase($0.stringValue) }
            return keys.isEmpty ? "the body" : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context): return "\(path(context)) has the wrong type"
        case .valueNotFound(_, let context): return "\(path(context)) must not be null"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(RingerJSON.snakeCase(key.stringValue)) is required"
                + (parent == "the body" ? "" : " in \(parent)")
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON" : "\(path(context)) is not valid"
        @unknown default: return "the body could not be read"
        }
    }

    static func json<T: Encodable>(_ value: T, status: Int = 200) throws -> HTTPResponse {
        jsonResponse(Array(try RingerJSON.encode(value)), status: status)
    }

    /// A call's answer, written with Jansson (RingerStore's `Call.jsonWriter`: the encoder's text, issue 33). A call
    /// that shows its pushes goes through the encoder, which writes each `latency_ms` in the fewest digits.
    static func json(_ call: Call, status: Int = 200) throws -> HTTPResponse {
        if call.pushes == nil, let body = call.jsonWriter.bytes() { return jsonResponse(body, status: status) }
        return jsonResponse(Array(try RingerJSON.encode(call)), status: status)
    }

    private static func jsonResponse(_ body: [UInt8], status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("content-type", "application/json")], body: body)
    }

}
