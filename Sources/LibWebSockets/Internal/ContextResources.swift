import CLWS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C signature of an lws protocol callback.
typealias ProtocolCallback =
    @convention(c) (
        OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?,
        UnsafeMutableRawPointer?, Int
    ) -> Int32

/// C memory that lws keeps pointing at for the whole life of a context (protocol table, names,
/// file paths, interface, ALPN list): allocated here, freed only after `lws_context_destroy`.
final class ContextResources {
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var protocolTables: [UnsafeMutablePointer<lws_protocols>] = []
    private var policies: [UnsafeMutablePointer<lws_retry_bo_t>] = []
    private var loopArrays: [UnsafeMutablePointer<UnsafeMutableRawPointer?>] = []

    /// A C copy of `text` that lives as long as this object.
    func cString(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        strings.append(copy)
        return UnsafePointer(copy)
    }

    /// A one-protocol table (plus the zeroed terminator lws expects) using `callback`.
    /// Index 0 is also where lws binds HTTP and WebSocket clients that name no subprotocol.
    func protocols(
        name: String, callback: ProtocolCallback, rxBufferSize: Int, txPacketSize: Int = 0
    ) -> UnsafePointer<lws_protocols> {
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        table.initialize(repeating: lws_protocols(), count: 2)
        table[0].name = cString(name)
        table[0].callback = callback
        table[0].rx_buffer_size = rxBufferSize
        table[0].tx_packet_size = txPacketSize
        protocolTables.append(table)
        return UnsafePointer(table)
    }

    /// A retry-and-idle policy (lws' `retry_and_idle_policy`) with validity checking off
    /// (`secs_since_valid_hangup` 0): lws arms no PING or hang-up timer per connection.
    func noIdlePolicy() -> UnsafePointer<lws_retry_bo_t> {
        let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        policy.initialize(
            to: lws_retry_bo_t(
                retry_ms_table: nil, retry_ms_table_count: 0, conceal_count: 0,
                secs_since_valid_ping: 0, secs_since_valid_hangup: 0,
                jitter_percent: 0))
        policies.append(policy)
        return UnsafePointer(policy)
    }

    /// The one-entry `foreign_loops` array of `lws_context_creation_info` (read during `lws_create_context`).
    func foreignLoops(_ loop: UnsafeMutableRawPointer) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        let array = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
        array.initialize(to: loop)
        loopArrays.append(array)
        return array
    }

    deinit {
        policies.forEach { $0.deallocate() }
        loopArrays.forEach { $0.deallocate() }
        strings.forEach { free($0) }
        for table in protocolTables {
            table.deinitialize(count: 2)
            table.deallocate()
        }
    }
}
