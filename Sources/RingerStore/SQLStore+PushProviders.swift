public import Foundation
public import RingerWire

/// A push provider as the store keeps it: what the API shows, and its credential sealed by the server.
public struct StoredPushProvider: Hashable, Sendable {
    /// The record the API shows.
    public var info: PushProviderInfo
    /// The `.p8` key or service-account JSON, sealed (`SecretBox`).
    public var sealedCredential: String

    /// Creates the record.
    public init(info: PushProviderInfo, sealedCredential: String) {
        self.info = info
        self.sealedCredential = sealedCredential
    }
}

/// A change of the push providers the store refused: another provider already serves a bundle id or project, or has
/// the name. Checked inside the change's transaction, under a lock every change of the providers takes, so two
/// changes at once (on two servers) never both pass.
public struct PushProviderConflict: Error, CustomStringConvertible {
    /// What is taken, in words: "bundle id com.example.app is another push provider's".
    public let description: String
}

extension SQLStore {
    /// Runs a change of the providers: under their one lock, after the conflict check against every other provider,
    /// moving the revision the servers poll; inside the caller's transaction.
    private static func changeProviders(
        checking provider: StoredPushProvider?, excluding id: String?, in db: any SQLConnection,
        _ write: () throws -> Bool
    ) throws -> Bool {
        try db.lock(["push-providers"])
        if let provider {
            var others: [StoredPushProvider] = []
            try db.query("SELECT info, credential FROM push_providers", []) { row in
                let other = try Self.provider(row)
                if other.info.providerID != id { others.append(other) }
            }
            if others.contains(where: { $0.info.name == provider.info.name }) {
                throw PushProviderConflict(description: "name \(provider.info.name) is another push provider's")
            }
            for bundle in provider.info.bundleIDs ?? []
            where others.contains(where: { $0.info.bundleIDs?.contains(bundle) == true }) {
                throw PushProviderConflict(description: "bundle id \(bundle) is another push provider's")
            }
            if let project = provider.info.projectID, others.contains(where: { $0.info.projectID == project }) {
                throw PushProviderConflict(description: "Firebase project \(project) is another push provider's")
            }
        }
        guard try write() else { return false }
        try db.query("UPDATE push_provider_revision SET revision = revision + 1 WHERE id = 1")
        return true
    }

    private static func provider(_ row: any SQLRow) throws -> StoredPushProvider {
        StoredPushProvider(
            info: try decodeText(PushProviderInfo.self, row.text(0) ?? ""), sealedCredential: row.text(1) ?? "")
    }

    public func insertPushProvider(_ provider: StoredPushProvider) async throws {
        let info = try Self.encodeText(provider.info)
        _ = try await run { db in
            try db.transaction {
                try Self.changeProviders(checking: provider, excluding: nil, in: db) {
                    try db.query(
                        """
                        INSERT INTO push_providers (provider_id, name, info, credential, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(provider.info.providerID), .text(provider.info.name), .text(info),
                            .text(provider.sealedCredential), .real(provider.info.createdAt.timeIntervalSince1970),
                            .real(provider.info.updatedAt.timeIntervalSince1970),
                        ])
                    return true
                }
            }
        }
    }

    public func pushProviders() async throws -> [StoredPushProvider] {
        try await run { db in
            var found: [StoredPushProvider] = []
            try db.query(
                "SELECT info, credential FROM push_providers ORDER BY created_at, \(db.dialect.insertionOrder)", []
            ) { row in found.append(try Self.provider(row)) }
            return found
        }
    }

    public func replacePushProvider(_ provider: StoredPushProvider) async throws -> Bool {
        let info = try Self.encodeText(provider.info)
        return try await run { db in
            try db.transaction {
                try Self.changeProviders(checking: provider, excluding: provider.info.providerID, in: db) {
                    try db.query(
                        "UPDATE push_providers SET name = ?, info = ?, credential = ?, updated_at = ? WHERE provider_id = ?",
                        [
                            .text(provider.info.name), .text(info), .text(provider.sealedCredential),
                            .real(provider.info.updatedAt.timeIntervalSince1970), .text(provider.info.providerID),
                        ])
                    return db.changes > 0
                }
            }
        }
    }

    public func deletePushProvider(id: String) async throws -> Bool {
        try await run { db in
            try db.transaction {
                try Self.changeProviders(checking: nil, excluding: id, in: db) {
                    try db.query("DELETE FROM push_providers WHERE provider_id = ?", [.text(id)])
                    return db.changes > 0
                }
            }
        }
    }

    public func pushProvidersVersion() async throws -> String {
        try await read { db in
            var version = ""
            try db.query("SELECT revision FROM push_provider_revision WHERE id = 1", []) { row in
                version = String(row.integer(0))
            }
            return version
        }
    }
}
