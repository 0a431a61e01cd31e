import Foundation
import OpenSSLSupport
import RingerHTTP
import RingerStore
import RingerSupport
import RingerWire

/// The app's backend's webhook endpoints (decision 0009 §3): made, changed, rotated and removed through the API, each
/// with a Standard Webhooks secret kept sealed (``SecretBox``) and shown only when made or rotated.
struct WebhookEndpoints: Sendable {
    let store: any RingerStore
    let clock: any ServerClock
    let log: Logger
    /// Seals the secrets; nil when the server was given no `--secrets-key`, and no endpoint can be made.
    let secrets: SecretBox?
    /// `--webhook-allow-http`.
    let allowHTTP: Bool
    /// `--webhook-allow-private-addresses`.
    let allowPrivateAddresses: Bool

    /// The most endpoints a server keeps: each event is written once per endpoint that takes it.
    static let maximumEndpoints = 50
    /// The longest URL taken, bytes.
    static let maximumURLBytes = 2048
    /// The longest description, characters.
    static let maximumDescription = 256
    /// How long a rotated-out secret keeps signing by default, and at most, seconds.
    static let defaultPreviousSecretLifetime = 86_400
    static let maximumPreviousSecretLifetime = 604_800
    /// Random bytes in a secret (Standard Webhooks: 24 to 64).
    static let secretBytes = 32

    /// A new endpoint id: `ep_` and 24 characters of lowercase base32 (120 random bits).
    static func newID() -> String { RandomIdentifier.make(prefix: "ep_", length: 24) }

    /// Whether `id` could be an endpoint id.
    static func isEndpointID(_ id: String) -> Bool { RandomIdentifier.matches(id, prefix: "ep_", length: 24) }

    /// A new signing secret: its bytes and its `whsec_` text (Standard Webhooks: `whsec_` + base64 of the key).
    static func newSecret() -> (bytes: [UInt8], text: String) {
        let bytes = RandomIdentifier.bytes(secretBytes)
        return (bytes, secretText(bytes))
    }

    /// The `whsec_` text of a secret's bytes.
    static func secretText(_ bytes: [UInt8]) -> String { "whsec_" + Data(bytes).base64EncodedString() }

    /// What a sealed secret of an endpoint is bound to: a secret copied to another endpoint's row does not open.
    static func sealingContext(_ endpointID: String) -> String { "webhook:\(endpointID)" }

    /// Why `text` cannot be an endpoint's URL, or nil when it can: `https` (or `http` when allowed), a host, no user
    /// or password (they would sit in the database and in logs; use a path or query secret, or verify the signature),
    /// no fragment, and, unless allowed, a host that is no private, loopback or other non-public address
    /// (`localhost` included). A host name that resolves to one is refused when each delivery connects.
    static func urlProblem(_ text: String, allowHTTP: Bool, allowPrivateAddresses: Bool) -> String? {
        guard text.utf8.count <= maximumURLBytes else { return "url must be at most \(maximumURLBytes) bytes" }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return "url must be an absolute http(s) URL with a host" }
        guard scheme == "https" || (scheme == "http" && allowHTTP) else {
            return allowHTTP
                ? "url must be http:// or https://"
                : "url must be https:// (plain http:// needs --webhook-allow-http on)"
        }
        guard components.user == nil, components.password == nil else {
            return "url must not hold a user or password"
        }
        guard components.fragment == nil else { return "url must not have a fragment" }
        if let port = components.port, !(1...65535).contains(port) { return "url has no valid port" }
        if !allowPrivateAddresses {
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            let lowered = bare.lowercased()
            let local =
                lowered == "localhost" || lowered == "localhost." || lowered.hasSuffix(".localhost")
                || lowered.hasSuffix(".localhost.")
            if local || IPAddress(numericHost: bare).map({ !$0.isPublic }) == true {
                return
                    "url names a private or loopback address (allowed only with --webhook-allow-private-addresses on)"
            }
        }
        return nil
    }

    /// The request's fields, checked: every problem is 422 `invalid-field` naming the field; a missing `url` is 400.
    private func checked(
        _ request: WebhookEndpointRequest
    ) throws -> (
        url: String, types: [WebhookEventType], description: String?
    ) {
        guard let url = request.url else { throw APIProblem.malformed("url is required") }
        if let problem = Self.urlProblem(url, allowHTTP: allowHTTP, allowPrivateAddresses: allowPrivateAddresses) {
            throw APIProblem.invalidField(problem)
        }
        let types = request.eventTypes ?? []
        if let unknown = types.first(where: { !WebhookEventType.known.contains($0) }) {
            throw APIProblem.invalidField(
                "event_types holds \"\(unknown.rawValue.prefix(64))\", which is not one of "
                    + WebhookEventType.known.map(\.rawValue).joined(separator: ", "))
        }
        guard Set(types).count == types.count else { throw APIProblem.invalidField("event_types names a type twice") }
        if let description = request.description {
            guard (1...Self.maximumDescription).contains(description.count),
                !description.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw APIProblem.invalidField(
                    "description must be 1 to \(Self.maximumDescription) characters without control characters")
            }
        }
        return (url, WebhookEventType.known.filter(types.contains), request.description)
    }

    /// The box that seals secrets.
    /// - Throws: 409 `secrets-key-required` when the server has none.
    private func box() throws -> SecretBox {
        guard let secrets else { throw APIProblem.secretsKeyRequired() }
        return secrets
    }

    /// `POST /v1/webhooks`: a new endpoint and its secret, shown this once.
    func create(_ request: WebhookEndpointRequest) async throws -> WebhookEndpointWithSecret {
        let (url, types, description) = try checked(request)
        let box = try box()
        guard try await store.webhookEndpoints().count < Self.maximumEndpoints else {
            throw APIProblem.invalidField(
                "there are \(Self.maximumEndpoints) webhook endpoints already: remove some first")
        }
        let now = clock.now()
        let id = Self.newID()
        let secret = Self.newSecret()
        let endpoint = StoredWebhookEndpoint(
            info: WebhookEndpoint(
                endpointID: id, url: url, eventTypes: types, description: description,
                enabled: request.enabled ?? true, createdAt: now, updatedAt: now),
            sealedSecret: try box.seal(secret.bytes, context: Self.sealingContext(id)))
        try await store.insertWebhookEndpoint(endpoint)
        log.info("webhook endpoint created", ["webhook.endpoint": .string(id)])
        return WebhookEndpointWithSecret(endpoint: endpoint.info, secret: secret.text)
    }

    /// The stored endpoint.
    /// - Throws: 404 `webhook-endpoint-not-found`.
    func stored(_ id: String) async throws -> StoredWebhookEndpoint {
        guard Self.isEndpointID(id), let endpoint = try await store.webhookEndpoint(id: id) else {
            throw APIProblem.webhookEndpointNotFound(id)
        }
        return endpoint
    }

    /// `PUT /v1/webhooks/{endpoint_id}`: changes the fields the request gives and leaves the others as they are
    /// (`enabled` too, so a 410 that disabled it meanwhile stands unless the request enables it); enabling clears why
    /// the server disabled it, disabling fails its pending deliveries. Its secrets are left alone.
    func replace(_ id: String, with request: WebhookEndpointRequest) async throws -> WebhookEndpoint {
        let current = try await stored(id).info
        var merged = request
        merged.url = request.url ?? current.url
        merged.eventTypes = request.eventTypes ?? current.eventTypes
        merged.description = request.description ?? current.description
        let (url, types, description) = try checked(merged)
        guard
            let endpoint = try await store.updateWebhookEndpoint(
                id: id, url: url, eventTypes: types, description: description, enabled: request.enabled,
                at: clock.now())
        else { throw APIProblem.webhookEndpointNotFound(id) }
        log.info("webhook endpoint changed", ["webhook.endpoint": .string(id)])
        return endpoint.info
    }

    /// `POST /v1/webhooks/{endpoint_id}/rotate-secret`: a new secret, shown this once; the old one keeps signing beside
    /// it (both signatures in `webhook-signature`) for the time asked.
    func rotate(_ id: String, _ request: RotateWebhookSecretRequest) async throws -> WebhookEndpointWithSecret {
        let lifetime = request.previousSecretExpiresInSeconds ?? Self.defaultPreviousSecretLifetime
        guard (0...Self.maximumPreviousSecretLifetime).contains(lifetime) else {
            throw APIProblem.invalidField(
                "previous_secret_expires_in_seconds must be from 0 to \(Self.maximumPreviousSecretLifetime)")
        }
        let box = try box()
        _ = try await stored(id)
        let now = clock.now()
        let secret = Self.newSecret()
        guard
            let endpoint = try await store.rotateWebhookSecret(
                id: id, sealedSecret: try box.seal(secret.bytes, context: Self.sealingContext(id)),
                keepPreviousUntil: lifetime > 0 ? now.addingTimeInterval(TimeInterval(lifetime)) : nil, at: now)
        else { throw APIProblem.webhookEndpointNotFound(id) }
        log.info("webhook secret rotated", ["webhook.endpoint": .string(id)])
        return WebhookEndpointWithSecret(endpoint: endpoint.info, secret: secret.text)
    }
}
