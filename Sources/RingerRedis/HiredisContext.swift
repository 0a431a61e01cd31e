import CHiredis
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One hiredis 0.14 context (socket, reply reader, output buffer), freed on deinit; blocking for
/// ``RedisConnection``, non-blocking for the subscriber's poll loop. Arguments always go through the argv
/// calls (binary safe; `redisCommand` is printf-variadic and would read `%` in user data).
///
/// Not thread-safe: its owner uses it from one thread at a time.
final class HiredisContext {
    let pointer: UnsafeMutablePointer<redisContext>
    /// `host:port`, for errors.
    let endpoint: String

    private init(_ pointer: UnsafeMutablePointer<redisContext>, endpoint: String) {
        self.pointer = pointer
        self.endpoint = endpoint
    }

    deinit {
        redisFree(pointer)
    }

    /// Connects in blocking mode, waiting at most `timeout` seconds for TCP to connect.
    /// - Throws: ``RedisError/timeout(endpoint:operation:seconds:)`` or
    ///   ``RedisError/cannotConnect(endpoint:reason:)`` (refused, unresolvable host).
    static func connect(to url: RedisURL, timeout: TimeInterval) throws(RedisError) -> HiredisContext {
        let raw = redisConnectWithTimeout(url.host, Int32(clamping: url.port), interval(timeout))
        let code = errno
        guard let raw else { throw .system(reason: "hiredis could not allocate a context") }
        let context = HiredisContext(raw, endpoint: url.endpoint)
        if raw.pointee.err != 0 {
            if raw.pointee.err == REDIS_ERR_IO, code == ETIMEDOUT {
                throw .timeout(endpoint: url.endpoint, operation: "connect", seconds: timeout)
            }
            throw .cannotConnect(endpoint: url.endpoint, reason: context.errorText)
        }
        // TCP keepalive finds a peer that vanished without a FIN (hiredis: 15 s idle).
        _ = redisEnableKeepAlive(raw)
        return context
    }

    /// Starts a non-blocking connect; the caller waits for the socket to be writable, then checks
    /// ``socketError()``.
    /// - Throws: ``RedisError/cannotConnect(endpoint:reason:)`` when it fails at once (name not found).
    static func startConnect(to url: RedisURL) throws(RedisError) -> HiredisContext {
        guard let raw = redisConnectNonBlock(url.host, Int32(clamping: url.port)) else {
            throw .system(reason: "hiredis could not allocate a context")
        }
        let context = HiredisContext(raw, endpoint: url.endpoint)
        if raw.pointee.err != 0 { throw .cannotConnect(endpoint: url.endpoint, reason: context.errorText) }
        _ = redisEnableKeepAlive(raw)
        return context
    }

    /// The socket.
    var descriptor: Int32 { pointer.pointee.fd }

    /// Whether hiredis saw an error; it then refuses every further call on this context.
    var isBroken: Bool { pointer.pointee.err != 0 }

    /// hiredis' `errstr` (OS or protocol text, never command data).
    var errorText: String {
        let text = withUnsafeBytes(of: pointer.pointee.errstr) {
            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "unknown hiredis error" : text
    }

    /// The pending error of a non-blocking connect (`SO_ERROR`): 0 once connected.
    func socketError() -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }

    /// Sets the blocking read and write timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO`): seconds without progress.
    func setTimeout(_ seconds: TimeInterval) -> Bool {
        redisSetTimeout(pointer, Self.interval(seconds)) == REDIS_OK
    }

    /// Whether an idle blocking connection can no longer carry a command: Redis closed it (a restart, its
    /// `timeout` setting), it was reset, or bytes wait that no command asked for (a reply that came after
    /// its command timed out). Reading nothing, it can never lose data.
    func isUnusableWhileIdle() -> Bool {
        var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&watch, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        let peeked = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return false }
        return true
    }

    /// Sends a command and waits for its reply (blocking mode). An error reply comes back as
    /// ``RedisReply/error(_:)``.
    /// - Parameters:
    ///   - arguments: the command and its arguments, at least one.
    ///   - timeout: the context's timeout in seconds, for the error.
    /// - Throws: ``RedisError/timeout(endpoint:operation:seconds:)``,
    ///   ``RedisError/connectionLost(endpoint:reason:)`` or ``RedisError/protocolError(reason:)``; the
    ///   context is then broken.
    func exchange(_ arguments: [Data], timeout: TimeInterval) throws(RedisError) -> RedisReply {
        var code: Int32 = 0
        let raw = BrokenPipeSignal.whileBlocked { () -> UnsafeMutableRawPointer? in
            let result = Self.withArgv(arguments) { redisCommandArgv(pointer, $0, $1, $2) }
            code = errno
            return result
        }
        guard let raw else { throw failure(errno: code, operation: "reply", timeout: timeout) }
        defer { freeReplyObject(raw) }
        return try RedisReply(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// Queues a command in the output buffer (non-blocking mode); ``flush()`` sends it.
    func append(_ arguments: [Data]) throws(RedisError) {
        let status = Self.withArgv(arguments) { redisAppendCommandArgv(pointer, $0, $1, $2) }
        guard status == REDIS_OK else { throw .system(reason: "hiredis could not queue a command (out of memory)") }
    }

    /// Writes as much of the output buffer as the socket takes now (non-blocking mode).
    /// - Returns: true when the buffer is empty.
    /// - Throws: ``RedisError/connectionLost(endpoint:reason:)`` when the write fails.
    func flush() throws(RedisError) -> Bool {
        var done: Int32 = 0
        var code: Int32 = 0
        let status = BrokenPipeSignal.whileBlocked { () -> Int32 in
            let status = redisBufferWrite(pointer, &done)
            code = errno
            return status
        }
        guard status == REDIS_OK else { throw failure(errno: code, operation: "write", timeout: 0) }
        return done != 0
    }

    /// Reads what the socket has into the reply reader (non-blocking mode).
    /// - Throws: ``RedisError/connectionLost(endpoint:reason:)`` on EOF or a read error.
    func readAvailable() throws(RedisError) {
        let status = redisBufferRead(pointer)
        let code = errno
        guard status == REDIS_OK else { throw failure(errno: code, operation: "read", timeout: 0) }
    }

    /// The next complete reply already read, or nil.
    /// - Throws: ``RedisError/protocolError(reason:)`` for bytes that are not RESP.
    func nextReply() throws(RedisError) -> RedisReply? {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(pointer, &raw) == REDIS_OK else { throw .protocolError(reason: errorText) }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return try RedisReply(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// The error hiredis recorded, as a ``RedisError``; `code` is `errno` right after the failed call.
    private func failure(errno code: Int32, operation: String, timeout: TimeInterval) -> RedisError {
        switch pointer.pointee.err {
        case REDIS_ERR_IO where code == EAGAIN || code == EWOULDBLOCK || code == ETIMEDOUT:
            // A blocking read or write hit SO_RCVTIMEO/SO_SNDTIMEO.
            return .timeout(endpoint: endpoint, operation: operation, seconds: timeout)
        case REDIS_ERR_PROTOCOL:
            return .protocolError(reason: errorText)
        case REDIS_ERR_OOM:
            return .system(reason: "out of memory")
        default:
            return .connectionLost(endpoint: endpoint, reason: errorText)
        }
    }

    /// Passes the arguments as hiredis' argv: pointers into one buffer plus lengths, so bytes (NUL too)
    /// go as they are.
    private static func withArgv<T>(
        _ arguments: [Data],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> T
    ) -> T {
        var joined: [UInt8] = []
        joined.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(joined.count)
            lengths.append(argument.count)
            joined.append(contentsOf: argument)
        }
        // Never empty, so the base address exists even when every argument is.
        joined.append(0)
        lengths.append(0)
        return joined.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            // A trailing nil keeps the array non-empty (argc says how many count), as the 0 does for lengths.
            var pointers: [UnsafePointer<CChar>?] = offsets.map { base + $0 } + [nil]
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { body(Int32(arguments.count), argv.baseAddress!, $0.baseAddress!) }
            }
        }
    }

    /// Seconds as a `timeval`, at least 1 ms (hiredis treats zero as "fail at once" for connect).
    private static func interval(_ seconds: TimeInterval) -> timeval {
        let clamped = seconds.isNaN ? 0.001 : min(max(seconds, 0.001), 365 * 86_400)
        let whole = clamped.rounded(.down)
        return timeval(tv_sec: time_t(whole), tv_usec: suseconds_t((clamped - whole) * 1_000_000))
    }
}
