import CLWS
import Foundation
import RingerSupport

/// Work that other threads hand to the client service thread.
enum ClientMessage: Sendable {
    /// Open this connection.
    case connect(ClientConnectRequest)
    /// The connection `id` has something to write (or close).
    case writable(id: UInt64)
}

/// Everything needed to open one client WebSocket.
struct ClientConnectRequest: Sendable {
    let client: WebSocketClient
    let address: String
    let port: Int
    let pathAndQuery: String
    let hostHeader: String
    let useTLS: Bool
    let caFile: String?
    let headers: [(name: String, value: String)]
}

/// The process-wide client side: one lws context and one service thread shared by every
/// ``WebSocketClient``, created on first use and kept for the life of the process.
///
/// Thread-safety: a locked mailbox for other threads; connection state behind a
/// ``ServiceThreadBound`` checked to be the service thread.
final class ClientEngine: Sendable {
    let mailbox = ServiceMailbox<ClientMessage>()
    let bound = ServiceThreadBound(ClientTable())

    private static let shared = LockedValue<ClientEngine?>(nil)

    /// The shared engine, starting its context and thread on first use.
    /// - Throws: ``LibWebSocketsError/contextCreationFailed`` when lws cannot create the context.
    static func running() throws -> ClientEngine {
        try shared.withLock { shared in
            if let engine = shared { return engine }
            let engine = ClientEngine()
            try engine.start()
            shared = engine
            return engine
        }
    }

    /// The connection tables; service thread only.
    var table: ClientTable { bound.value }

    private func start() throws {
        LibWebSocketsLog.applyDefaultIfNeeded()
        let outcome = LockedValue<Bool?>(nil)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            bound.claimForCurrentThread()
            var info = makeContextInfo(table.resources)
            guard let context = lws_create_context(&info) else {
                outcome.withLock { $0 = false }
                started.signal()
                return
            }
            table.context = context
            mailbox.attach(context: context)
            outcome.withLock { $0 = true }
            started.signal()
            // OpenSSL's error queue is per thread and every client connection's TLS runs on this one: a reason
            // left by one connection's failed handshake (an untrusted certificate) must not be read as the
            // next one's failure, so each service turn starts with an empty queue.
            repeat {
                ERR_clear_error()
            } while lws_service(context, 0) >= 0
        }
        thread.name = "lws-client"
        thread.start()
        started.wait()
        guard outcome.withLock({ $0 }) == true else {
            throw LibWebSocketsError.contextCreationFailed.with(
                function: "lws_create_context",
                detail: "client context")
        }
    }

    /// A listen-less context whose default vhost verifies TLS peers with the system CA store.
    private func makeContextInfo(_ resources: ContextResources) -> lws_context_creation_info {
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = resources.protocols(
            name: "websocket-client", callback: clwsClientCallback,
            rxBufferSize: 16 * 1024)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options = CLWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT | CLWS_SERVER_OPTION_VALIDATE_UTF8
        info.timeout_secs = 10
        info.connect_timeout_secs = 10
        return info
    }

    /// Routes one lws callback of a client connection.
    func handle(
        wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int
    )
        -> Int32
    {
        // OpenSSL's error queue is per thread and every client connection's TLS runs on this one: a reason a
        // failing connection left (reported to it already, in `input`) must not make the next connection's
        // handshake step in the same service turn read as failed (`SSL_get_error` consults the queue). So every
        // callback leaves the queue empty, as each service turn begins with it empty.
        defer { ERR_clear_error() }
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED: return onWake()
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: return onAppendHeaders(wsi, input: input, length: length)
        case LWS_CALLBACK_CLIENT_ESTABLISHED: return onEstablished(wsi)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: return onConnectionError(wsi, message: input)
        case LWS_CALLBACK_CLIENT_RECEIVE: return onReceive(wsi, bytes: input, count: length)
        case LWS_CALLBACK_CLIENT_WRITEABLE: return onWritable(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: return onPeerClose(wsi, payload: input, length: length)
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_WSI_DESTROY: return onClosed(wsi)
        default: return 0
        }
    }

    /// The connection whose id the wsi carries, if still tracked.
    func session(for wsi: OpaquePointer) -> ClientSession? {
        guard let raw = lws_get_opaque_user_data(wsi) else { return nil }
        return table.sessions[UInt64(UInt(bitPattern: raw))]
    }
}
