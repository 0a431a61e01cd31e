import CTLS
import RingerSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One configured OpenSSL `SSL_CTX`, shared by every connection made from it: the settings both HTTP/2 ends
/// need (RFC 9113 §9.2) and the locked `SSL_new`.
///
/// Thread-safety: configure the context before wrapping it; afterwards it only creates connections, which
/// the lock serializes.
public final class TLSContextHandle: Sendable {
    private struct Owned: @unchecked Sendable {
        let context: OpaquePointer
        let retained: UnsafeMutableRawPointer?
    }

    private let owned: LockedValue<Owned>

    /// Takes ownership of a configured context.
    /// - Parameters:
    ///   - context: the `SSL_CTX`, freed with this handle.
    ///   - retained: memory OpenSSL was handed and reads for the context's lifetime (a key passphrase),
    ///     `free`d after it; nil for none.
    public init(_ context: OpaquePointer, retained: UnsafeMutableRawPointer? = nil) {
        owned = LockedValue(Owned(context: context, retained: retained))
    }

    deinit {
        // Connections still alive hold their own reference to the SSL_CTX (OpenSSL counts them).
        owned.withLock { owned in
            SSL_CTX_free(owned.context)
            free(owned.retained)
        }
    }

    /// Creates one connection's `SSL`.
    /// - Returns: the new `SSL`, or nil when OpenSSL is out of memory.
    public func makeConnection() -> OpaquePointer? {
        owned.withLock { SSL_new($0.context) }
    }

    /// Applies the settings RFC 9113 §9.2 asks of both ends: TLS 1.2 or newer, compression and renegotiation
    /// off; and the partial writes and movable buffer ``TLSSocket``'s write pump relies on (after WANT_WRITE
    /// it retries `SSL_write` with whatever is still queued, from wherever the array now lives).
    /// - Parameter context: a fresh `SSL_CTX`.
    /// - Returns: false when OpenSSL refused the minimum version (`SSL_CTX_set_min_proto_version`).
    public static func applyHTTP2Baseline(_ context: OpaquePointer) -> Bool {
        guard CTLS_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else { return false }
        SSL_CTX_set_options(context, CTLS_OP_NO_COMPRESSION | CTLS_OP_NO_RENEGOTIATION)
        _ = CTLS_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        return true
    }
}
