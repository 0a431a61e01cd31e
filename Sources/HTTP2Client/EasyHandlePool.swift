internal import CCurl

/// Spare libcurl easy handles of one loop, reused from one request to the next.
///
/// `curl_easy_init` and `curl_easy_cleanup` per request allocate and free a handle's state and buffers
/// (several KiB) every time; `curl_easy_reset` only puts the options back to their defaults and keeps the
/// rest, so a reused handle costs a fraction of a new one. Every request still sets all its options on a
/// handle fresh from `curl_easy_reset`, so nothing of an earlier request carries over (libcurl:
/// "curl_easy_reset re-initializes all options previously set on a specified CURL handle to the default
/// values"; connections and caches live in the multi handle, not here).
///
/// Thread-safety: loop thread only, like every easy handle of that loop.
final class EasyHandlePool {
    /// Most spare handles kept; more are freed. A loop turn returns the handles of the answers it read and
    /// the next one takes as many for new requests, so the pool only holds about one turn's worth.
    let capacity: Int
    private var spare: [UnsafeMutableRawPointer] = []

    /// Creates an empty pool.
    /// - Parameter capacity: most spare handles kept (each holds about 20 KiB of libcurl buffers).
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    deinit {
        spare.forEach { curl_easy_cleanup($0) }
    }

    /// A handle with every option at its default: a spare one, or a new one.
    /// - Returns: the handle, or nil if libcurl is out of memory.
    func take() -> UnsafeMutableRawPointer? {
        spare.popLast() ?? curl_easy_init()
    }

    /// Takes back a handle that is in no multi handle, resetting its options; frees it if the pool is full.
    /// - Parameter easy: a handle from ``take()``.
    func recycle(_ easy: UnsafeMutableRawPointer) {
        guard spare.count < capacity else {
            curl_easy_cleanup(easy)
            return
        }
        curl_easy_reset(easy)
        spare.append(easy)
    }

    /// Spare handles held now (for tests).
    var spareCount: Int { spare.count }
}
