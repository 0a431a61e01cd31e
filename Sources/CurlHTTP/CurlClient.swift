import CCurl
public import Foundation
import RingerHTTP
import RingerSupport

/// One outgoing request.
public struct OutgoingRequest: Sendable {
    /// `http://` or `https://` (no other protocol is allowed, and redirects are not followed).
    public var url: String
    /// Header fields, sent as given.
    public var headers: [(String, String)]
    /// The body, POSTed.
    public var body: [UInt8]
    /// Seconds the whole exchange may take, connection included.
    public var timeout: TimeInterval
    /// Whether the connection may go to a private, loopback or other non-public address (``IPAddress/isPublic``).
    /// Checked for each address the name resolves to, as the socket is opened, so a name that resolves elsewhere
    /// later (DNS rebinding) is caught too.
    public var allowPrivateAddresses: Bool

    /// Creates a POST.
    public init(
        url: String, headers: [(String, String)], body: [UInt8], timeout: TimeInterval, allowPrivateAddresses: Bool
    ) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.allowPrivateAddresses = allowPrivateAddresses
    }
}

/// What came back.
public struct OutgoingResponse: Sendable, Hashable {
    /// The HTTP status; nil when no answer came.
    public var status: Int?
    /// The answer's `Retry-After`, as sent.
    public var retryAfter: String?
    /// Why no answer came (libcurl's words, or the address rule's), or nil.
    public var error: String?
    /// True when the client's shutdown ended the request, not the network or the receiver.
    public var cancelled = false

    /// Creates a response.
    public init(status: Int?, retryAfter: String? = nil, error: String? = nil, cancelled: Bool = false) {
        self.status = status
        self.retryAfter = retryAfter
        self.error = error
        self.cancelled = cancelled
    }
}

/// Outgoing HTTP/1.1 and HTTP/2 requests (the server's webhook deliveries) on libcurl's multi interface, all on one
/// thread of the client's own: a slow or silent receiver holds only its own transfer, never a thread of the Swift
/// pool, and thousands of transfers cost one thread. No redirect is followed, no proxy from the environment is used
/// (a proxy would hide the address the request really goes to), only `http` and `https` are spoken.
///
/// Thread-safe. ``shutdown()`` ends every transfer still running with an error.
public final class CurlClient: Sendable {
    /// libcurl's multi handle, used by the client's thread alone but for `curl_multi_wakeup`, which libcurl allows from
    /// any thread, and the clean-up after the thread ended.
    private struct MultiHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    private let handle: MultiHandle
    private var multi: UnsafeMutableRawPointer { handle.pointer }
    /// Transfers handed over and not yet added to the multi handle; and whether the client is stopping.
    private let inbox = LockedValue<(pending: [Transfer], stopping: Bool)>(([], false))
    private let stopped = DispatchSemaphore(value: 0)

    /// libcurl's global set-up, once per process before the first handle (it is not thread-safe).
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Starts the client's thread.
    /// - Parameter maximumConnections: connections kept open at most, over every host.
    public init(maximumConnections: Int = 64) {
        _ = Self.globalInit
        handle = MultiHandle(pointer: UnsafeMutableRawPointer(curl_multi_init()!))
        _ = ringer_curl_multi_setopt_long(handle.pointer, CURLMOPT_MAX_TOTAL_CONNECTIONS, maximumConnections)
        let handle = self.handle
        let inbox = self.inbox
        let stopped = self.stopped
        let thread = Thread { Self.run(multi: handle.pointer, inbox: inbox, stopped: stopped) }
        thread.name = "ringer-curl"
        thread.start()
    }

    /// Makes the request.
    /// - Returns: the answer; never throws: a failure is a response with ``OutgoingResponse/error``.
    public func send(_ request: OutgoingRequest) async -> OutgoingResponse {
        await withCheckedContinuation { continuation in
            let transfer = Transfer(request: request, continuation: continuation)
            // Woken under the lock: ``shutdown()`` frees the multi handle only after it set `stopping` under the same
            // lock and the thread ended.
            let accepted = inbox.withLock { box -> Bool in
                guard !box.stopping else { return false }
                box.pending.append(transfer)
                curl_multi_wakeup(multi)
                return true
            }
            guard accepted else {
                continuation.resume(
                    returning: OutgoingResponse(status: nil, error: "the client is shut down", cancelled: true))
                return
            }
        }
    }

    /// Ends every transfer (each answered with an error) and the thread. Idempotent.
    public func shutdown() {
        let first = inbox.withLock { box -> Bool in
            defer { box.stopping = true }
            if !box.stopping { curl_multi_wakeup(multi) }
            return !box.stopping
        }
        guard first else { return }
        stopped.wait()
        curl_multi_cleanup(multi)
    }

    // MARK: The thread

    private static func run(
        multi: UnsafeMutableRawPointer, inbox: LockedValue<(pending: [Transfer], stopping: Bool)>,
        stopped: DispatchSemaphore
    ) {
        var active: [UnsafeMutableRawPointer: Transfer] = [:]
        while true {
            let (pending, stopping) = inbox.withLock { box in
                defer { box.pending = [] }
                return (box.pending, box.stopping)
            }
            if stopping {
                let shutDown = OutgoingResponse(status: nil, error: "the client shut down", cancelled: true)
                for transfer in pending { transfer.finish(shutDown) }
                for (easy, transfer) in active {
                    curl_multi_remove_handle(multi, easy)
                    transfer.cleanUp(easy)
                    transfer.finish(shutDown)
                }
                stopped.signal()
                return
            }
            for transfer in pending {
                guard let easy = transfer.makeHandle() else {
                    transfer.finish(OutgoingResponse(status: nil, error: "libcurl could not make a handle"))
                    continue
                }
                guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
                    transfer.cleanUp(easy)
                    transfer.finish(OutgoingResponse(status: nil, error: "libcurl could not start the transfer"))
                    continue
                }
                active[easy] = transfer
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                let code = message.pointee.data.result
                curl_multi_remove_handle(multi, easy)
                transfer.finish(transfer.response(easy, code))
                transfer.cleanUp(easy)
            }
            // Wakes on socket activity, a timeout of libcurl's, `curl_multi_wakeup`, or after a second.
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }
}

/// One request in flight: its options' storage, what its callbacks gathered, and whom to answer.
private final class Transfer: @unchecked Sendable {
    // @unchecked: made on a caller's thread, then touched only by the client's thread (its callbacks included).
    let request: OutgoingRequest
    private var continuation: CheckedContinuation<OutgoingResponse, Never>?
    private var headers: UnsafeMutablePointer<curl_slist>?
    /// The answer's `Retry-After`, read by the header callback.
    var retryAfter: String?
    /// Why the socket was refused, set by the open-socket callback.
    var refusal: String?

    init(request: OutgoingRequest, continuation: CheckedContinuation<OutgoingResponse, Never>) {
        self.request = request
        self.continuation = continuation
    }

    /// Answers the caller, once.
    func finish(_ response: OutgoingResponse) {
        continuation?.resume(returning: response)
        continuation = nil
    }

    /// An easy handle set up for the request, its callbacks given this transfer; nil when libcurl cannot make one.
    func makeHandle() -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else { return nil }
        let handle = UnsafeMutableRawPointer(easy)
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ringer_curl_easy_setopt_string(handle, CURLOPT_URL, request.url)
        _ = ringer_curl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ringer_curl_easy_setopt_string(handle, CURLOPT_NOPROXY, "*")
        _ = ringer_curl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = ringer_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = ringer_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(request.timeout * 1000))
        _ = ringer_curl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(min(request.timeout, 10) * 1000))
        _ = ringer_curl_easy_setopt_long(handle, CURLOPT_POST, 1)
        _ = ringer_curl_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, request.body.count)
        request.body.withUnsafeBytes { bytes in
            // Copied by libcurl, so the request's array need not outlive this call.
            _ = ringer_curl_easy_setopt_pointer(
                handle, CURLOPT_COPYPOSTFIELDS,
                UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
        }
        // No `Expect: 100-continue`: a receiver would wait a round trip for nothing.
        for (name, value) in request.headers + [("Expect", "")] {
            headers = curl_slist_append(headers, "\(name): \(value)")
        }
        _ = ringer_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
        _ = ringer_curl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, discardBody)
        _ = ringer_curl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, readHeader)
        _ = ringer_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = ringer_curl_easy_setopt_opensocket(handle, openSocket)
        _ = ringer_curl_easy_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context)
        return handle
    }

    /// The response of a finished transfer.
    func response(_ easy: UnsafeMutableRawPointer, _ code: CURLcode) -> OutgoingResponse {
        guard code == CURLE_OK else {
            // A refused address explains the failure only when no other address of the name answered.
            return OutgoingResponse(status: nil, error: refusal ?? String(cString: curl_easy_strerror(code)))
        }
        var status = 0
        _ = ringer_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return OutgoingResponse(status: status, retryAfter: retryAfter)
    }

    /// Frees the handle and the header list.
    func cleanUp(_ easy: UnsafeMutableRawPointer) {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headers)
        headers = nil
    }
}

/// The answer's body is not kept: the status says what the sender needs.
private func discardBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
)
    -> Int
{
    size * count
}

/// Keeps `Retry-After` from the answer's header lines (a header name is case-insensitive, RFC 9110 §5.1).
private func readHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
)
    -> Int
{
    let length = size * count
    guard let data, let context else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    let parts = line.split(separator: ":", maxSplits: 1)
    if parts.count == 2, parts[0].lowercased() == "retry-after" {
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        transfer.retryAfter = parts[1].trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return length
}

/// Opens each socket libcurl asks for, unless the address is not public and the request does not allow that: the
/// one place every address a name resolves to is seen before anything is sent to it.
private func openSocket(
    _ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let family = address.pointee.family
    if !transfer.request.allowPrivateAddresses {
        // libcurl's `addr` is declared a `struct sockaddr` but holds the whole address (`addrlen` bytes): read it
        // through a raw pointer, bounded by that length.
        let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) ?? 0
        let raw = UnsafeRawPointer(address) + offset
        let length = Int(address.pointee.addrlen)
        var text: String?
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
            var raw4 = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            text = inet_ntop(AF_INET, &raw4, &buffer, socklen_t(buffer.count)).map { String(cString: $0) }
        } else if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
            var raw6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            text = inet_ntop(AF_INET6, &raw6, &buffer, socklen_t(buffer.count)).map { String(cString: $0) }
        }
        guard let text, let ip = IPAddress(text), ip.isPublic else {
            transfer.refusal = "refused to connect to \(text ?? "an address of another family"): not a public address"
            return CURL_SOCKET_BAD
        }
    }
    return socket(family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
}
