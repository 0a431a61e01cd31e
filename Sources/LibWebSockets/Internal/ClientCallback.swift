import CLWS

/// The lws protocol callback of the shared WebSocket client context: a plain global function
/// (no actor isolation, converts to `@convention(c)`), run on the client service thread.
func clwsClientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    let engine = Unmanaged<ClientEngine>.fromOpaque(raw).takeUnretainedValue()
    // OpenSSL's error queue is per thread and every client connection's TLS runs on this one: a reason a
    // failing connection left (reported to it already, in `input`) must not make the next connection's
    // handshake step in the same service turn read as failed (`SSL_get_error` consults the queue). So every
    // callback leaves the queue empty, as each service turn begins with it empty.
    defer { ERR_clear_error() }
    return engine.handle(wsi: wsi, reason: reason, input: input, length: length)
}
