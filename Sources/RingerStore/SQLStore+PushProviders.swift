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

extension SQLStore {
    private static func provider(_ row: any SQLRow) throws -> StoredPushProvider {
        StoredPushProvider(
            info: try decodeText(PushProviderInfo.self, row.text(0) ?? ""), sealedCredential: row.text(1) ?? "")
    }

    public func insertPushProvider(_ provider: StoredPushProvider) async throws {
        let info = try Self.encodeText(provider.info)
        try await run { db in
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
            try db.query(
                "UPDATE push_providers SET name = ?, info = ?, credential = ?, updated_at = ? WHERE provider_id = ?",
                [
                    .text(provider.info.name), .text(info), .text(provider.sealedCredential),
                    .real(provider.info.updatedAt.timeIntervalSince1970), .text(provider.info.providerID),
                ])
            return db.changes > 0
        }
    }

    public func deletePushProvider(id: String) async throws -> Bool {
        try await run { db in
            try db.query("DELETE FROM push_providers WHERE provider_id = ?", [.text(id)])
            return db.changes > 0
        }
    }

    public func pushProvidersVersion() async throws -> String {
        try await run { db in
            var version = ""
            try db.query("SELECT COUNT(*), MAX(updated_at), MAX(provider_id) FROM push_providers", []) { row in
                version = "\(row.integer(0)):\(row.text(1) ?? ""):\(row.text(2) ?? "")"
            }
            return version
        }
    }
}
