import CNGHTTP2
import CTLS

/// OpenSSL's ALPN selection callback (`SSL_CTX_set_alpn_select_cb`): picks "h2" from the client's list with
/// nghttp2's selector. A client that does not offer "h2" gets the fatal `no_application_protocol` alert, as
/// RFC 7301 §3.2 requires, so an HTTP/1.1-only client is refused during the handshake.
func selectHTTP2Protocol(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let out, let outLength, let offered else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    // nghttp2 declares the result as `unsigned char **`; it points into `offered`, which OpenSSL keeps alive.
    let selected = UnsafeMutableRawPointer(out).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
    let result = nghttp2_select_next_protocol(selected, outLength, offered, offeredLength)
    return result == 1 ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_ALERT_FATAL
}
