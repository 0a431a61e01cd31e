public import Foundation

/// `POST /v1/push-providers` and `PUT /v1/push-providers/{provider_id}` (admin key): the credentials of one app's
/// pushes (decision 0009 §4). An APNs provider is a `.p8` signing key for the bundle ids it serves; an FCM provider a
/// Firebase service account, for the project it names.
public struct PushProviderRequest: Codable, Sendable {
    /// What the provider is for, unique: 1 to 64 letters, digits, `.`, `_` or `-`.
    public var name: String
    /// `apns` or `fcm`.
    public var kind: PushProvider
    /// APNs: the team id (10 characters).
    public var teamID: String?
    /// APNs: the key id (10 characters).
    public var keyID: String?
    /// APNs: the `.p8` file's text (a PKCS#8 EC P-256 private key in PEM).
    public var key: String?
    /// APNs: the apps' bundle ids this key pushes for; each belongs to one provider only.
    public var bundleIDs: [String]?
    /// FCM: the service-account JSON file's text, as the Firebase console gives it.
    public var serviceAccount: String?

    /// Creates an APNs provider's request.
    public init(name: String, teamID: String, keyID: String, key: String, bundleIDs: [String]) {
        self.name = name
        kind = .apns
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
        self.bundleIDs = bundleIDs
    }

    /// Creates an FCM provider's request.
    public init(name: String, serviceAccount: String) {
        self.name = name
        kind = .fcm
        self.serviceAccount = serviceAccount
    }

    /// The keys as the wire spells them (`team_id`, `key_id`, `bundle_ids`).
    private enum CodingKeys: String, CodingKey {
        case name, kind, key, serviceAccount
        case teamID = "teamId"
        case keyID = "keyId"
        case bundleIDs = "bundleIds"
    }
}

/// A push provider as the API shows it: never its key or service account.
public struct PushProviderInfo: Codable, Hashable, Sendable {
    /// The provider's id (`pp_` and 24 characters).
    public var providerID: String
    /// Its unique name.
    public var name: String
    /// `apns` or `fcm`.
    public var kind: PushProvider
    /// APNs: the team and key ids, and the bundle ids served.
    public var teamID: String?
    public var keyID: String?
    public var bundleIDs: [String]?
    /// FCM: the Firebase project and the service account's e-mail.
    public var projectID: String?
    public var clientEmail: String?
    /// When it was added, and when its credentials last changed.
    public var createdAt: Date
    public var updatedAt: Date

    /// Creates the record.
    public init(
        providerID: String, name: String, kind: PushProvider, teamID: String? = nil, keyID: String? = nil,
        bundleIDs: [String]? = nil, projectID: String? = nil, clientEmail: String? = nil, createdAt: Date,
        updatedAt: Date
    ) {
        self.providerID = providerID
        self.name = name
        self.kind = kind
        self.teamID = teamID
        self.keyID = keyID
        self.bundleIDs = bundleIDs
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The keys as the wire spells them.
    private enum CodingKeys: String, CodingKey {
        case name, kind, clientEmail, createdAt, updatedAt
        case providerID = "providerId"
        case teamID = "teamId"
        case keyID = "keyId"
        case bundleIDs = "bundleIds"
        case projectID = "projectId"
    }
}

/// The answer to `GET /v1/push-providers`.
public struct PushProviderList: Codable, Sendable {
    /// Every provider added through the API, oldest first (the flags' credentials are the default, not listed).
    public var providers: [PushProviderInfo]

    /// Creates the answer.
    public init(providers: [PushProviderInfo]) { self.providers = providers }
}
