import Foundation

/// Where a ``PostgresStore`` connects: a `postgres://` or `postgresql://` URL as libpq reads it
/// (`postgres://user:password@host:port/database?sslmode=require`; PostgreSQL: "Connection URIs").
public struct PostgresTarget: Sendable, CustomStringConvertible {
    /// The URL, password included; never printed (``description`` hides the password).
    let url: String
    /// The password in the URL, if any, to hide in messages.
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
        password = URLComponents(string: url)?.password.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// True for the URL schemes libpq reads as a connection URI.
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The URL with its password replaced by `***`.
    public var description: String { redacted(url) }

    /// `text` with the URL's password (raw and percent-encoded) replaced by `***`.
    func redacted(_ text: String) -> String {
        guard let password else { return text }
        var text = text.replacingOccurrences(of: password, with: "***")
        if let encoded = password.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed), encoded != password {
            text = text.replacingOccurrences(of: encoded, with: "***")
        }
        return text
    }
}
