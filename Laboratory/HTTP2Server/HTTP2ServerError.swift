import SocketSupport

/// An error thrown by ``HTTP2Server/start()``.
///
/// Compare with the static members (`error == .alreadyStarted`); the other cases carry the failing C function
/// and the OpenSSL or `errno` detail, and are told apart with ``isSocket``, ``isTLSSetup`` and
/// ``isInvalidConfiguration``. Messages never contain key material or request header values.
public struct HTTP2ServerError: Error, Equatable, CustomStringConvertible {
    private enum Code: Equatable {
        case alreadyStarted
        case shutDown
        case invalidConfiguration(reason: String)
        case socket(function: String, errno: Int32, message: String)
        case tlsSetup(function: String, detail: String)
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// ``HTTP2Server/start()`` was called a second time.
    public static let alreadyStarted = HTTP2ServerError(.alreadyStarted)

    /// ``HTTP2Server/start()`` was called after ``HTTP2Server/shutdown()``.
    public static let shutDown = HTTP2ServerError(.shutDown)

    /// A configuration value is out of range (port, limits, timeouts).
    /// - Parameter reason: Which value and why.
    /// - Returns: The error value.
    public static func invalidConfiguration(_ reason: String) -> HTTP2ServerError {
        HTTP2ServerError(.invalidConfiguration(reason: reason))
    }

    /// A socket call failed while setting up the listener (address lookup, `socket`, `bind`, `listen`, ...).
    /// - Parameters:
    ///   - function: The C function, e.g. `bind`.
    ///   - errno: Its `errno` value (for `getaddrinfo`, its `EAI_*` code).
    ///   - message: `strerror` / `gai_strerror` text, with the address where it helps.
    /// - Returns: The error value.
    public static func socket(function: String, errno: Int32, message: String) -> HTTP2ServerError {
        HTTP2ServerError(.socket(function: function, errno: errno, message: message))
    }

    /// OpenSSL could not build the TLS context: unreadable certificate or key file, key not matching the
    /// certificate, failed context option.
    /// - Parameters:
    ///   - function: The OpenSSL function, e.g. `SSL_CTX_use_PrivateKey_file`.
    ///   - detail: The OpenSSL error queue as text (library reason strings and file paths, never key bytes).
    /// - Returns: The error value.
    public static func tlsSetup(function: String, detail: String) -> HTTP2ServerError {
        HTTP2ServerError(.tlsSetup(function: function, detail: detail))
    }

    /// True for ``socket(function:errno:message:)`` errors.
    public var isSocket: Bool {
        if case .socket = code { return true }
        return false
    }

    /// True for ``tlsSetup(function:detail:)`` errors.
    public var isTLSSetup: Bool {
        if case .tlsSetup = code { return true }
        return false
    }

    /// True for ``invalidConfiguration(_:)`` errors.
    public var isInvalidConfiguration: Bool {
        if case .invalidConfiguration = code { return true }
        return false
    }

    /// The C function that failed, for socket and TLS setup errors; else nil.
    public var function: String? {
        switch code {
        case .socket(let function, _, _), .tlsSetup(let function, _): return function
        default: return nil
        }
    }

    /// The `errno` (or `EAI_*`) value of a socket error; else nil.
    public var errno: Int32? {
        if case .socket(_, let value, _) = code { return value }
        return nil
    }

    /// A one-line human-readable explanation.
    public var description: String {
        switch code {
        case .alreadyStarted:
            return "HTTP2Server: already started"
        case .shutDown:
            return "HTTP2Server: server is shut down"
        case .invalidConfiguration(let reason):
            return "HTTP2Server: invalid configuration: \(reason)"
        case .socket(let function, let value, let message):
            return "HTTP2Server: \(function) failed with errno \(value): \(message)"
        case .tlsSetup(let function, let detail):
            return "HTTP2Server: TLS setup failed in \(function): \(detail)"
        }
    }
}

extension HTTP2ServerError {
    /// Runs `body`, turning a ``PosixError`` into ``socket(function:errno:message:)``.
    /// - Throws: the converted error.
    static func wrapping<Result>(_ body: () throws(PosixError) -> Result) throws(HTTP2ServerError) -> Result {
        do {
            return try body()
        } catch {
            throw .socket(function: error.function, errno: error.code, message: Posix.message(error.code))
        }
    }
}
