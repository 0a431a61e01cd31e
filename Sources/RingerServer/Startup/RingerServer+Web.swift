import LibWebSockets
import RingerHTTP

/// The HTTP and WebSocket server under the API: libwebsockets, told to answer every refusal it makes itself as
/// problem+json with a stable `type`, like the router's own.
extension RingerServer {
    /// The web server's settings for `configuration`: listen address, limits, keepalive, and the answers lws gives
    /// without asking the router (413, 404 and 503 to upgrades, 408, 431, 400s for malformed framing, 501/405 for
    /// methods it does not parse, and a pipelined request behind a body).
    static func webConfiguration(_ configuration: ServerConfiguration) -> WebServer.Configuration {
        var web = WebServer.Configuration(
            host: configuration.host, port: configuration.port,
            extraRequestHeaders: ["idempotency-key"],
            maxRequestBodyBytes: APIRouter.maxBodyBytes,
            webSocketPaths: APIRouter.webSocketPaths,
            maxWebSocketMessageBytes: Self.maxEventSocketMessageBytes)
        web.webSocketPingSeconds = 20
        // The API's handlers wait for the store's writes, the push clients and the cluster in suspensions, and do
        // little between them: a point read on SQLite's reading connection (microseconds, never blocked by the
        // writer in WAL mode), a token check, a call's rules. What could hold the thread longer, a push-provider
        // reload, runs on the global executor (issue 33).
        web.handlesRequestsOnServiceThread = true
        web.payloadTooLargeResponse = APIProblem.response(
            APIProblem.payloadTooLarge(limit: APIRouter.maxBodyBytes))
        // Refused upgrades answer problem+json like every other refusal (clients read `type`, not the text).
        web.webSocketNotFoundResponse = APIProblem.response(APIRouter.noWebSocket)
        web.webSocketShuttingDownResponse = APIProblem.response(APIProblem.unavailable())
        web.requestDeadlineSeconds = configuration.requestDeadlineSeconds
        web.requestTimeoutResponse = APIProblem.response(
            APIProblem.requestTimeout(seconds: configuration.requestDeadlineSeconds))
        web.maxConnectionsPerAddress = configuration.maxConnectionsPerAddress
        web.maxConnections = configuration.maxConnections
        web.headersTooLargeResponse = APIProblem.response(
            APIProblem.headersTooLarge(limit: web.maxRequestHeaderBytes))
        web.badRequestTargetResponse = APIProblem.response(APIProblem.badRequestTarget())
        web.badContentLengthResponse = APIProblem.response(APIProblem.badContentLength())
        web.badHeaderValueResponse = APIProblem.response(APIProblem.badHeaderValue())
        web.transferEncodingResponder = { both in
            APIProblem.response(APIProblem.transferEncoding(withContentLength: both))
        }
        web.unknownMethodResponse = APIProblem.response(APIProblem.methodNotImplemented())
        web.unknownMethodResponder = { method, path in
            APIRouter.unknownMethodResponse(method: method, path: path)
        }
        web.pipelinedRequestResponse = APIProblem.response(
            APIProblem.malformed(
                "another request was pipelined behind this one's body; nothing was done: send each after the previous answer"
            ))
        return web
    }
}
