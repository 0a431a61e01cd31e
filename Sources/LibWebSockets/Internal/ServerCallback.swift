import CLWS

/// The lws protocol callback of every ``WebServer``: a plain global function, so it carries no
/// actor isolation, converts to `@convention(c)`, and runs on the server's service thread.
/// The engine comes back from the context's user pointer.
func clwsServerCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    let engine = Unmanaged<ServerEngine>.fromOpaque(raw).takeUnretainedValue()
    return engine.handle(wsi: wsi, reason: reason, input: input, length: length)
}
