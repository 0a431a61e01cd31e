import FCM
import Foundation
import JWT
import OpenSSLSupport
import RingerStore
import RingerSupport
import RingerWire

/// The operator's push providers (decision 0009 §4; `/v1/push-providers`, admin key): each request is checked whole
/// (the key or service account parsed, no bundle id or project served twice) before anything is stored, and the
/// credential is sealed (``SecretBox``): never returned, never logged. Every server picks a change up within a second
/// (``PushProviderRegistry``).
struct PushProviderAdmin: Sendable {
    let store: any RingerStore
    let clock: any ServerClock
    let log: Logger
    let secrets: SecretBox?
    /// The Firebase projects the flags' service accounts serve (a provider may not take one of them).
    let flagProjects: [String]
    /// Reloads this server's providers after a change, so it is in force here when the change is answered (the
    /// others pick it up within a second).
    let changed: @Sendable () async -> Void

    /// The most providers a server keeps.
    static let maximumProviders = 100

    /// Whether `id` could be a provider id: `pp_` and 24 characters of lowercase base32.
    static func isProviderID(_ id: String) -> Bool { RandomIdentifier.matches(id, prefix: "pp_", length: 24) }

    /// What a sealed credential is bound to: one copied to another provider's row does not open.
    static func sealingContext(_ providerID: String) -> String { "push-provider:\(providerID)" }

    /// The stored provider with this id.
    /// - Throws: 404 `push-provider-not-found`.
    func stored(_ id: String) async throws -> StoredPushProvider {
        guard Self.isProviderID(id),
            let found = try await store.pushProviders().first(where: { $0.info.providerID == id })
        else { throw APIProblem.pushProviderNotFound(id) }
        return found
    }

    /// `POST /v1/push-providers`.
    func create(_ request: PushProviderRequest) async throws -> PushProviderInfo {
        guard let secrets else { throw APIProblem.secretsKeyRequired() }
        let existing = try await store.pushProviders()
        guard existing.count < Self.maximumProviders else {
            throw APIProblem.invalidField(
                "there are \(Self.maximumProviders) push providers already: remove some first")
        }
        let now = clock.now()
        let id = RandomIdentifier.make(prefix: "pp_", length: 24)
        let (info, credential) = try checked(request, id: id, createdAt: now, now: now)
        do {
            try await store.insertPushProvider(
                StoredPushProvider(
                    info: info, sealedCredential: try secrets.seal(credential, context: Self.sealingContext(id))))
        } catch let conflict as PushProviderConflict {
            throw APIProblem.invalidField(conflict.description)
        }
        log.info("push provider added", ["push.provider": .string(info.name), "push.provider_id": .string(id)])
        await changed()
        return info
    }

    /// `PUT /v1/push-providers/{provider_id}`: new credentials (a rotated key or service account) and what they serve.
    func replace(_ id: String, with request: PushProviderRequest) async throws -> PushProviderInfo {
        let current = try await stored(id)
        guard let secrets else { throw APIProblem.secretsKeyRequired() }
        let (info, credential) = try checked(request, id: id, createdAt: current.info.createdAt, now: clock.now())
        let replaced: Bool
        do {
            replaced = try await store.replacePushProvider(
                StoredPushProvider(
                    info: info, sealedCredential: try secrets.seal(credential, context: Self.sealingContext(id))))
        } catch let conflict as PushProviderConflict {
            throw APIProblem.invalidField(conflict.description)
        }
        guard replaced else { throw APIProblem.pushProviderNotFound(id) }
        log.info("push provider replaced", ["push.provider": .string(info.name), "push.provider_id": .string(id)])
        await changed()
        return info
    }

    /// The request's record and credential, checked whole: each problem is 422 `invalid-field` naming the field (a
    /// name, bundle id or project another provider has is refused by the store, in the change's transaction).
    private func checked(
        _ request: PushProviderRequest, id: String, createdAt: Date, now: Date
    ) throws -> (PushProviderInfo, [UInt8]) {
        let name = request.name
        guard (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({ byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 46
                    || byte == 95 || byte == 45
            })
        else { throw APIProblem.invalidField("name must be 1 to 64 letters, digits, '.', '_' or '-'") }
        switch request.kind {
        case .apns:
            guard request.serviceAccount == nil else {
                throw APIProblem.invalidField("service_account is for an fcm provider")
            }
            guard let team = request.teamID, Self.isAppleID(team) else {
                throw APIProblem.invalidField("team_id must be the 10-character Apple team id")
            }
            guard let keyID = request.keyID, Self.isAppleID(keyID) else {
                throw APIProblem.invalidField("key_id must be the 10-character id of the APNs key")
            }
            guard let pem = request.key, let key = try? JWTSigningKey(pem: pem), key.algorithm == .es256 else {
                throw APIProblem.invalidField("key must be the .p8 file's text: a PKCS#8 EC P-256 private key in PEM")
            }
            let bundles = request.bundleIDs ?? []
            guard !bundles.isEmpty, bundles.allSatisfy(DeviceRegistry.isBundleID),
                !bundles.contains(where: { $0.hasSuffix(".voip") })
            else {
                throw APIProblem.invalidField("bundle_ids must name the apps' bundle ids, e.g. com.example.app")
            }
            // Whether another provider serves one of them is checked in the store's transaction (PushProviderConflict).
            guard Set(bundles).count == bundles.count else { throw APIProblem.invalidField("bundle_ids repeats one") }
            let info = PushProviderInfo(
                providerID: id, name: name, kind: .apns, teamID: team, keyID: keyID, bundleIDs: bundles,
                createdAt: createdAt, updatedAt: now)
            return (info, Array(pem.utf8))
        case .fcm:
            guard request.teamID == nil, request.keyID == nil, request.key == nil, request.bundleIDs == nil else {
                throw APIProblem.invalidField("team_id, key_id, key and bundle_ids are for an apns provider")
            }
            guard let text = request.serviceAccount else {
                throw APIProblem.invalidField("service_account must be the service-account JSON file's text")
            }
            let account: FCMServiceAccount
            do {
                account = try FCMServiceAccount(json: Data(text.utf8), source: "push provider \(name)")
            } catch {
                throw APIProblem.invalidField("service_account does not parse: \(error.detail)")
            }
            let project = account.projectID
            guard !flagProjects.contains(project) else {
                throw APIProblem.invalidField(
                    "Firebase project \(project) has its credentials already (--fcm-service-account)")
            }
            let info = PushProviderInfo(
                providerID: id, name: name, kind: .fcm, projectID: project, clientEmail: account.clientEmail,
                createdAt: createdAt, updatedAt: now)
            return (info, Array(text.utf8))
        default:
            throw APIProblem.invalidField("kind must be apns or fcm")
        }
    }

    /// Apple's team and key ids: 10 uppercase letters and digits.
    private static func isAppleID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) }
    }
}
