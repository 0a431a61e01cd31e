internal import CCurl
import Foundation

/// One request on the wire: the easy handle, its header list and error buffer, and the response as it
/// arrives. Created, used and destroyed on the loop thread only; libcurl's callbacks reach it through
/// the `Unmanaged` pointer stored in `CURLOPT_PRIVATE`, `CURLOPT_WRITEDATA` and `CURLOPT_HEADERDATA`.
final class Transfer {
    /// The caller waiting for this transfer.
    let pending: PendingResponse
    /// 1 for the first send, 2 for the first resend after a connection failure, ...
    let attempt: Int
    /// When the transfer entered the multi handle.
    var startedAt = ContinuousClock.now
    /// The one request let through to a host whose connections keep failing (see ``ReconnectBackoff``).
    var isProbe = false
    /// The easy handle, from the loop's pool; given back in `deinit`, after `MultiLoop` has removed it from
    /// the multi handle.
    let easy: UnsafeMutableRawPointer
    private let pool: EasyHandlePool
    private var headerList: HeaderList?
    /// libcurl writes a NUL-terminated detail message here when a transfer fails.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let maxBodyBytes: Int
    private var body: [UInt8] = []
    private var bodyTooLarge = false
    private var headerParser = ResponseHeaderParser()

    private init(pending: PendingResponse, attempt: Int, easy: UnsafeMutableRawPointer, pool: EasyHandlePool,
                 maxBodyBytes: Int) {
        self.pending = pending
        self.attempt = attempt
        self.easy = easy
        self.pool = pool
        self.maxBodyBytes = maxBodyBytes
        let size = Int(CURL_ERROR_SIZE)
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
    }

    deinit {
        pool.recycle(easy)
        headerList?.deallocate()
        errorBuffer.deallocate()
    }

    /// Takes an easy handle (all options at their defaults) and sets every option except the user-data
    /// pointers (see ``attach(userData:connections:)``).
    /// - Parameters:
    ///   - pending: The caller's request.
    ///   - attempt: 1 for the first send, then 2, 3 for resends.
    ///   - configuration: The client's settings.
    ///   - pool: The loop's spare handles.
    /// - Throws: ``HTTP2ClientError`` if libcurl refuses an option.
    static func make(for pending: PendingResponse, attempt: Int, configuration: HTTP2Client.Configuration,
                     pool: EasyHandlePool) throws(HTTP2ClientError) -> Transfer {
        guard let easy = pool.take() else {
            throw Curl.error(CURLE_OUT_OF_MEMORY, function: "curl_easy_init")
        }
        // From here on `deinit` gives the handle back, also when configuring fails.
        let transfer = Transfer(pending: pending, attempt: attempt, easy: easy, pool: pool,
                                maxBodyBytes: configuration.maxResponseBodyBytes)
        try transfer.configure(configuration)
        return transfer
    }

    private func configure(_ configuration: HTTP2Client.Configuration) throws(HTTP2ClientError) {
        let request = pending.request
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_NOSIGNAL, 1)  // timeouts must not raise SIGALRM in a multi-threaded process
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        let plainHTTP = ASCII.hasPrefix(request.url, lowercasedPrefix: "http://")
        let version = plainHTTP && configuration.http2PriorKnowledge
            ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS
        try set(CURLOPT_HTTP_VERSION, version)
        try set(CURLOPT_PIPEWAIT, 1)  // wait to multiplex on the connection being set up rather than open another
        if let keepAlive = configuration.keepAliveInterval {
            try set(CURLOPT_TCP_KEEPALIVE, 1)
            try set(CURLOPT_TCP_KEEPIDLE, Int(keepAlive.rounded(.up)))
            try set(CURLOPT_TCP_KEEPINTVL, min(Int(keepAlive.rounded(.up)), 10))
        }
        try set(CURLOPT_MAXAGE_CONN, Int(configuration.connectionIdleLifetime.rounded(.down)))
        // What is left of the whole-exchange deadline (earlier attempts used some); rounded up so a positive
        // time never becomes 0 ("no timeout"). The loop enforces the deadline too, also where libcurl does not
        // (a transfer waiting for a connection or a free stream).
        let left = ContinuousClock.now.duration(to: pending.deadline)
        let milliseconds = min((Double(left.components.seconds) * 1000 + Double(left.components.attoseconds) / 1e15)
            .rounded(.up), Double(Int32.max))
        try set(CURLOPT_TIMEOUT_MS, max(1, Int(milliseconds)))
        try set(CURLOPT_USERAGENT, configuration.userAgent)

        try set(CURLOPT_SSL_VERIFYPEER, configuration.verifyPeer ? 1 : 0)
        try set(CURLOPT_SSL_VERIFYHOST, configuration.verifyPeer ? 2 : 0)
        if let caFile = configuration.caFile {
            try set(CURLOPT_CAINFO, caFile)
        }
        if let identity = configuration.clientCertificate {
            try set(CURLOPT_SSLCERT, identity.certificateFile)
            try set(CURLOPT_SSLCERTTYPE, identity.format.rawValue)
            if let keyFile = identity.keyFile {
                try set(CURLOPT_SSLKEY, keyFile)
            }
            if let password = identity.password {
                try set(CURLOPT_KEYPASSWD, password)
            }
        }

        try configureMethodAndBody(request)
        try configureHeaders(request)
    }

    private func configureMethodAndBody(_ request: HTTP2Request) throws(HTTP2ClientError) {
        let method = request.method
        if method == "GET" && request.body.isEmpty {
            try set(CURLOPT_HTTPGET, 1)
            return
        }
        if method == "HEAD" && request.body.isEmpty {
            try set(CURLOPT_NOBODY, 1)
            return
        }
        if method == "POST" || !request.body.isEmpty {
            // The size goes first so binary bodies with NUL bytes are copied whole.
            try Curl.check(CCurl_easy_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
                           "curl_easy_setopt(POSTFIELDSIZE_LARGE)")
            let code = request.body.withUnsafeBytes { bytes -> CURLcode in
                // COPYPOSTFIELDS copies the bytes now; an empty body still needs a non-null pointer.
                var empty: UInt8 = 0
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return CCurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, &empty)
                }
                return CCurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            }
            try Curl.check(code, "curl_easy_setopt(COPYPOSTFIELDS)")
        }
        if method != "POST" {
            try set(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    private func configureHeaders(_ request: HTTP2Request) throws(HTTP2ClientError) {
        let list = HeaderList(request.headers)
        headerList = list
        try Curl.check(CCurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list.head), "curl_easy_setopt(HTTPHEADER)")
    }

    /// Points the callbacks and `CURLOPT_PRIVATE` at `userData`, an `Unmanaged` reference to `self`
    /// that ``MultiLoop`` retains while the handle is in the multi handle, and the socket callbacks at
    /// `connections`, which outlives every connection (the multi handle is cleaned up first).
    /// - Throws: ``HTTP2ClientError`` if libcurl refuses an option.
    func attach(userData: UnsafeMutableRawPointer, connections: UnsafeMutableRawPointer) throws(HTTP2ClientError) {
        try Curl.check(CCurl_easy_setopt_sockopt_callback(easy, connectionOpenedCallback),
                       "curl_easy_setopt(SOCKOPTFUNCTION)")
        try set(CURLOPT_SOCKOPTDATA, pointer: connections)
        try Curl.check(CCurl_easy_setopt_closesocket_callback(easy, connectionClosedCallback),
                       "curl_easy_setopt(CLOSESOCKETFUNCTION)")
        try set(CURLOPT_CLOSESOCKETDATA, pointer: connections)
        try set(CURLOPT_PRIVATE, pointer: userData)
        try Curl.check(CCurl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, transferBodyCallback),
                       "curl_easy_setopt(WRITEFUNCTION)")
        try set(CURLOPT_WRITEDATA, pointer: userData)
        try Curl.check(CCurl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, transferHeaderCallback),
                       "curl_easy_setopt(HEADERFUNCTION)")
        try set(CURLOPT_HEADERDATA, pointer: userData)
    }

    /// Appends body bytes from the write callback.
    /// - Returns: false when the body would exceed the configured limit, which aborts the transfer.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxBodyBytes else {
            bodyTooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Feeds one header line from the header callback.
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        headerParser.consume(bytes)
    }

    /// Turns the finished transfer into the caller's result.
    /// - Parameter code: The transfer's `CURLcode` from `curl_multi_info_read`.
    /// - Returns: The response, or the mapped error.
    func outcome(for code: CURLcode) -> Result<HTTP2Response, any Error> {
        if bodyTooLarge {
            return .failure(Curl.error(code, function: "curl_multi_info_read",
                                       detail: "response body exceeds maxResponseBodyBytes (\(maxBodyBytes))"))
        }
        guard code == CURLE_OK else {
            return .failure(Curl.error(code, function: "curl_multi_info_read", detail: String(cString: errorBuffer)))
        }
        do {
            let status = try infoLong(CURLINFO_RESPONSE_CODE, "RESPONSE_CODE")
            let version = try infoLong(CURLINFO_HTTP_VERSION, "HTTP_VERSION")
            let connects = try infoLong(CURLINFO_NUM_CONNECTS, "NUM_CONNECTS")
            var microseconds: curl_off_t = 0
            try Curl.check(CCurl_easy_getinfo_offset(easy, CURLINFO_TOTAL_TIME_T, &microseconds),
                           "curl_easy_getinfo(TOTAL_TIME_T)")
            return .success(HTTP2Response(
                status: status != 0 ? status : (headerParser.status ?? 0),
                headers: headerParser.fields,
                body: body,
                httpVersion: Self.majorVersion(curlVersion: version),
                newConnections: connects,
                elapsed: TimeInterval(microseconds) / 1_000_000,
                localPort: localPort,
                attempts: attempt
            ))
        } catch {
            return .failure(error)
        }
    }

    /// The local port of the connection this transfer used (`CURLINFO_LOCAL_PORT`, copied to the transfer when
    /// a connection is set up or reused for it); 0 before it has one.
    var localPort: Int {
        (try? infoLong(CURLINFO_LOCAL_PORT, "LOCAL_PORT")) ?? 0
    }

    /// Maps `CURLINFO_HTTP_VERSION` (`CURL_HTTP_VERSION_1_0` = 1, `1_1` = 2, `2_0` = 3, `3` = 30) to a major version.
    private static func majorVersion(curlVersion: Int) -> Int {
        switch curlVersion {
        case CURL_HTTP_VERSION_1_0, CURL_HTTP_VERSION_1_1: return 1
        case CURL_HTTP_VERSION_2_0: return 2
        case CURL_HTTP_VERSION_3: return 3
        default: return 0
        }
    }

    private func infoLong(_ info: CURLINFO, _ name: String) throws(HTTP2ClientError) -> Int {
        var value = 0
        try Curl.check(CCurl_easy_getinfo_long(easy, info, &value), "curl_easy_getinfo(\(name))")
        return value
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTP2ClientError) {
        try Curl.check(CCurl_easy_setopt_long(easy, option, value), "curl_easy_setopt(\(option.rawValue))")
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTP2ClientError) {
        // Never put `value` in the error: it may be the key password.
        try Curl.check(CCurl_easy_setopt_string(easy, option, value), "curl_easy_setopt(\(option.rawValue))")
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws(HTTP2ClientError) {
        try Curl.check(CCurl_easy_setopt_pointer(easy, option, pointer), "curl_easy_setopt(\(option.rawValue))")
    }
}
