internal import CCurl

/// The single place where libcurl result codes become ``HTTP2ClientError`` values.
enum Curl {
    /// `curl_global_init` is not safe to race with other libcurl setup, so it runs once, on first use;
    /// Swift initialises a static `let` exactly once, thread-safely. Never paired with `curl_global_cleanup`:
    /// clients may be created and destroyed many times during the process's life.
    private static let globalInitResult: UInt32 = curl_global_init(CCurl_GLOBAL_DEFAULT).rawValue

    /// Initialises libcurl for the process if no one has yet.
    /// - Throws: ``HTTP2ClientError/transport(function:code:message:)`` if `curl_global_init` failed.
    static func initializeGlobally() throws(HTTP2ClientError) {
        try check(CURLcode(rawValue: globalInitResult), "curl_global_init")
    }

    /// Maps an easy-interface result code.
    /// - Parameters:
    ///   - code: The `CURLcode` returned by `function`.
    ///   - function: The C function (and option) that returned it, for the message.
    ///   - detail: libcurl's error-buffer text for this transfer, if any.
    /// - Returns: ``HTTP2ClientError/timedOut`` for `CURLE_OPERATION_TIMEDOUT`, else a transport error.
    static func error(_ code: CURLcode, function: String, detail: String = "") -> HTTP2ClientError {
        if code == CURLE_OPERATION_TIMEDOUT {
            return .timedOut
        }
        var message = String(cString: curl_easy_strerror(code))
        if !detail.isEmpty, detail != message {
            message += " (\(detail))"
        }
        return .transport(function: function, code: Int(code.rawValue), message: message)
    }

    /// True for results that mean the connection failed or broke before the answer was complete, so the
    /// request may succeed on another connection: resolving, connecting or the TLS handshake failed, the
    /// connection was closed or reset mid-exchange, HTTP/2 framing broke, or the server reset the stream.
    /// libcurl 7.88 already resends on its own a stream refused by the server or sent on a reused connection
    /// that died before any answer (`Curl_retry_request`, at most 5 times); what it gives up on arrives
    /// here as `CURLE_SEND_ERROR` or `CURLE_RECV_ERROR`.
    static func isConnectionFailure(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_HTTP2, CURLE_PARTIAL_FILE, CURLE_SSL_CONNECT_ERROR,
             CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_HTTP2_STREAM:
            return true
        default:
            return false
        }
    }

    /// Maps a multi-interface result code to a transport error.
    /// - Parameters:
    ///   - code: The `CURLMcode` returned by `function`.
    ///   - function: The C function that returned it.
    /// - Returns: The transport error.
    static func error(_ code: CURLMcode, function: String) -> HTTP2ClientError {
        .transport(function: function, code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))
    }

    /// Throws unless `code` is `CURLE_OK`.
    /// - Throws: The mapped error.
    static func check(_ code: CURLcode, _ function: @autoclosure () -> String) throws(HTTP2ClientError) {
        guard code == CURLE_OK else { throw error(code, function: function()) }
    }

    /// Throws unless `code` is `CURLM_OK`.
    /// - Throws: The mapped error.
    static func check(_ code: CURLMcode, _ function: @autoclosure () -> String) throws(HTTP2ClientError) {
        guard code == CURLM_OK else { throw error(code, function: function()) }
    }
}
