/// One client WebSocket on the client service thread. Service thread only.
final class ClientSession {
    let request: ClientConnectRequest
    /// The lws connection, once `lws_client_connect_via_info` made it.
    var wsi: OpaquePointer?
    var isEstablished = false
    var frameWriter = WebSocketFrameWriter()
    var assembler = MessageAssembler(limit: WebSocketClient.maxMessageBytes)
    /// The close code and reason to report, once known: the server's close frame, or the one this
    /// client sent on its own (a message too big). Nil means none was exchanged yet.
    var closeFrame: (code: UInt16, reason: String)?

    init(request: ClientConnectRequest) {
        self.request = request
    }

    var client: WebSocketClient { request.client }
}

/// Everything the client service thread owns.
final class ClientTable {
    var context: OpaquePointer?
    var sessions: [UInt64: ClientSession] = [:]
    /// One vhost per CA file ("" = the default vhost), since lws binds the client TLS
    /// context (and so the trusted CAs) to a vhost.
    var vhostsByCAFile: [String: OpaquePointer] = [:]
    /// C strings and the protocol table, alive as long as the context.
    let resources = ContextResources()
    let scratch = ScratchBuffer(capacity: 32 * 1024)
}
