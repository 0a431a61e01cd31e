import CLWS

/// An engine that answers the lws protocol callbacks of its context; the context's user pointer holds it.
protocol ProtocolCallbackHandler: AnyObject {
    /// Routes one lws callback of `wsi`, on the context's service thread.
    /// - Returns: what the protocol callback must return (non-zero closes the connection).
    func handle(
        wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int
    )
        -> Int32
}

extension ServerEngine: ProtocolCallbackHandler {}
extension ClientEngine: ProtocolCallbackHandler {}

/// Hands one lws callback to the engine of `wsi`'s context, taken back unretained from the context's user pointer
/// (the engine outlives its context). A callback without a connection or a context user is answered 0.
private func dispatch<Engine: ProtocolCallbackHandler>(
    to _: Engine.Type, _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    let engine = Unmanaged<Engine>.fromOpaque(raw).takeUnretainedValue()
    return engine.handle(wsi: wsi, reason: reason, input: input, length: length)
}

// The two callbacks are plain global functions, one per engine type: a generic or a closure cannot convert to
// `@convention(c)`, and a closure written in main.swift would be main-actor isolated.

/// The lws protocol callback of every ``WebServer``, run on the server's service thread.
func clwsServerCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    dispatch(to: ServerEngine.self, wsi, reason, input, length)
}

/// The lws protocol callback of the shared WebSocket client context, run on the client service thread.
func clwsClientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    dispatch(to: ClientEngine.self, wsi, reason, input, length)
}
