import Foundation

/// Where a Redis server is and how to log in: `redis://[[user]:password@]host[:port][/db]`, the scheme of
/// the IANA provisional registration (https://www.iana.org/assignments/uri-schemes/prov/redis), parsed by
/// Foundation's `URLComponents` (RFC 3986; user and password are percent-decoded).
///
/// A user name makes the login `AUTH user password` (Redis 6 ACL users), a password alone `AUTH password`.
/// `rediss://` is refused: Debian 12's hiredis 0.14 has no TLS.
///
/// The password is never shown: ``description``, ``debugDescription`` and the mirror (`dump`) write `***`.
public struct RedisURL: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Host name or IP address (IPv6 without brackets).
    public let host: String
    /// TCP port, 1...65535.
    public let port: Int
    /// Database index selected after login (`SELECT`); 0 is Redis' default and sends nothing.
    public let database: Int
    /// ACL user name, or nil for the default user.
    public let user: String?
    /// Kept internal so that only the connection, at `AUTH`, ever reads it.
    let password: String?

    /// Whether the URL logs in with a password.
    public var hasPassword: Bool { password != nil }

    /// A URL from its parts (not validated: a bad host or port fails at connect).
    /// - Parameters:
    ///   - host: host name or IP address.
    ///   - port: TCP port.
    ///   - database: database index for `SELECT`.
    ///   - user: ACL user name, or nil for the default user.
    ///   - password: password for `AUTH`, or nil for none.
    public init(
        host: String = "127.0.0.1", port: Int = 6379, database: Int = 0, user: String? = nil,
        password: String? = nil
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
    }

    /// Parses `redis://[[user]:password@]host[:port][/db]`; port defaults to 6379 and db to 0.
    /// - Parameter text: the URL.
    /// - Throws: ``RedisError/tlsUnsupported`` for `rediss://`; ``RedisError/invalidURL(reason:)`` for
    ///   anything else that does not fit (the reason never quotes the URL, which may hold a password).
    public init(parsing text: String) throws(RedisError) {
        guard let parts = URLComponents(string: text.trimmingCharacters(in: .whitespaces)) else {
            throw .invalidURL(reason: "not a URL")
        }
        switch parts.scheme?.lowercased() {
        case "redis": break
        case "rediss": throw .tlsUnsupported
        case nil: throw .invalidURL(reason: "no scheme")
        case let other?: throw .invalidURL(reason: "scheme \(other):// is not redis://")
        }
        var host = parts.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .invalidURL(reason: "no host") }
        let port = parts.port ?? 6379
        guard (1...65535).contains(port) else { throw .invalidURL(reason: "port \(port) is not in 1...65535") }

        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        var database = 0
        if !path.isEmpty {
            guard path.allSatisfy(\.isASCII), let index = Int(path), index >= 0 else {
                throw .invalidURL(reason: "the path must be a database number such as /0")
            }
            database = index
        }
        guard parts.query == nil, parts.fragment == nil else {
            throw .invalidURL(reason: "query parameters and fragments are not supported")
        }
        let user = parts.user.flatMap { $0.isEmpty ? nil : $0 }
        let password = parts.password.flatMap { $0.isEmpty ? nil : $0 }
        if user != nil, password == nil {
            throw .invalidURL(reason: "a user name needs a password (redis://user:password@host)")
        }
        self.init(host: host, port: port, database: database, user: user, password: password)
    }

    /// `host:port`, IPv6 in brackets, for messages.
    public var endpoint: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The URL with the password written `***`.
    public var description: String {
        var login = ""
        if password != nil { login = "\(user ?? ""):***@" }
        return "redis://\(login)\(endpoint)/\(database)"
    }

    public var debugDescription: String { description }

    /// Fields without the password, so `dump` and debuggers never show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "database": database, "user": user as Any,
                "hasPassword": hasPassword,
            ])
    }
}
