import Foundation

/// Where a ``PostgresStore`` connects: a `postgres://` or `postgresql://` URL as libpq reads it
/// (`postgres://user:password@host:port/database?sslmode=require`; PostgreSQL: "Connection URIs").
public struct PostgresTarget: Sendable, CustomStringConvertible {
    /// The URL, password included; never printed (``description`` hides the password).
    let url: String
    /// The password in the URL (after `user:` or as `password=` in the query), if any, to hide in messages.
    private let password: String?
    /// How long a connect may take, seconds (libpq's `connect_timeout`, at least 2).
    public let connectTimeoutSeconds: Int

    /// - Parameters:
    ///   - url: `postgres://…` or `postgresql://…`.
    ///   - connectTimeoutSeconds: libpq's `connect_timeout`; values under 2 become 2, as libpq does.
    /// - Returns: nil when `url` is not a PostgreSQL URL.
    public init?(url: String, connectTimeoutSeconds: Int = 5) {
        guard Self.isPostgresURL(url) else { return nil }
        self.url = url
        self.connectTimeoutSeconds = max(2, connectTimeoutSeconds)
        password = Self.passwords(in: url).first
    }

    /// True for the URL schemes libpq reads as a connection URI.
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The URL with its passwords replaced by `***`: the one in the user info (`user:secret@`, also in a multi-host
    /// URL that `URLComponents` cannot read) and any `password=` query parameter (PostgreSQL: "Connection URIs").
    public var description: String {
        var text = url
        for secret in Self.passwords(in: url) { text = text.replacingOccurrences(of: secret, with: "***") }
        return text
    }

    /// `text` with the URL's password (raw and percent-decoded) replaced by `***`. A password of fewer than four
    /// characters is left alone in messages: replacing it would garble every word that contains it, and libpq's
    /// messages never quote the password (the URL itself is only shown through ``description``).
    func redacted(_ text: String) -> String {
        guard let password, password.count >= 4 else { return text }
        var text = text.replacingOccurrences(of: password, with: "***")
        if let decoded = password.removingPercentEncoding, decoded != password {
            text = text.replacingOccurrences(of: decoded, with: "***")
        }
        return text
    }

    /// The passwords the URL carries, as written (percent-encoded if they were).
    private static func passwords(in url: String) -> [String] {
        var found: [String] = []
        guard let schemeEnd = url.range(of: "://") else { return found }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            let secret = authority[authority.index(after: colon)..<at]
            if !secret.isEmpty { found.append(String(secret)) }
        }
        if let query = url.firstIndex(of: "?") {
            for pair in url[url.index(after: query)...].split(separator: "&") where pair.hasPrefix("password=") {
                let secret = pair.dropFirst("password=".count)
                if !secret.isEmpty { found.append(String(secret)) }
            }
        }
        return found
    }
}
