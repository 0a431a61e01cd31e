import Foundation

/// Readings of a running process and of the kernel's socket memory from `/proc` (proc(5)), for the ringing
/// benchmark: the server's open-file limit and descriptors (how many idle sockets fit), its resident memory,
/// and the kernel's TCP buffers (reported beside the server's memory, never in it).
enum ProcFiles {
    /// The kernel's TCP socket counts, system-wide (`/proc/net/sockstat`, line `TCP: inuse … mem …`).
    struct TCPSockets: Hashable, Sendable {
        /// Sockets in use (both ends of a loopback connection count).
        var inUse: Int
        /// Memory the kernel holds for TCP buffers, in pages.
        var memoryPages: Int
    }

    /// The soft `Max open files` of `/proc/<pid>/limits`.
    /// - Parameter limits: the file's text.
    /// - Returns: the limit, or nil when the line is missing or says `unlimited`.
    static func openFileLimit(limits: String) -> Int? {
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else {
            return nil
        }
        let fields = line.dropFirst("Max open files".count).split(separator: " ")
        return fields.first.flatMap { Int($0) }
    }

    /// `VmRSS` of `/proc/<pid>/status`, in bytes (the file says kB, meaning KiB).
    /// - Parameter status: the file's text.
    /// - Returns: bytes, or nil when the line is missing.
    static func residentBytes(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, let kib = Int(fields[1]) else { return nil }
        return kib * 1024
    }

    /// The `TCP:` line of `/proc/net/sockstat`, e.g. `TCP: inuse 5 orphan 0 tw 2 alloc 7 mem 1`.
    /// - Parameter sockstat: the file's text.
    /// - Returns: the counts, or nil when the line or a field is missing.
    static func tcpSockets(sockstat: String) -> TCPSockets? {
        guard let line = sockstat.split(separator: "\n").first(where: { $0.hasPrefix("TCP:") }) else { return nil }
        let fields = line.split(separator: " ").map(String.init)
        func value(_ name: String) -> Int? {
            guard let index = fields.firstIndex(of: name), index + 1 < fields.count else { return nil }
            return Int(fields[index + 1])
        }
        guard let inUse = value("inuse"), let pages = value("mem") else { return nil }
        return TCPSockets(inUse: inUse, memoryPages: pages)
    }

    /// The slab caches that hold a TCP connection's kernel objects: its `tcp_sock` and the socket's inode.
    static let tcpSlabCaches: Set<String> = ["TCP", "sock_inode_cache"]

    /// Bytes of the named caches' active objects in `/proc/slabinfo` (slabinfo(5), version 2.1:
    /// `name active_objs num_objs objsize …`), system-wide.
    /// - Parameters:
    ///   - slabinfo: the file's text.
    ///   - caches: cache names.
    /// - Returns: the sum of `active_objs * objsize`, or nil when none of the caches is listed.
    static func slabBytes(slabinfo: String, caches: Set<String> = tcpSlabCaches) -> Int? {
        var total: Int?
        for line in slabinfo.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 3, caches.contains(String(fields[0])), let active = Int(fields[1]),
                let size = Int(fields[3])
            else { continue }
            total = (total ?? 0) + active * size
        }
        return total
    }

    /// The TCP slab caches' bytes now (nil when /proc/slabinfo cannot be read: it needs root).
    static func tcpSlabBytes() -> Int? { read("/proc/slabinfo").flatMap { slabBytes(slabinfo: $0) } }

    /// The soft open-file limit of a running process.
    static func openFileLimit(pid: pid_t) -> Int? { read("/proc/\(pid)/limits").flatMap(openFileLimit(limits:)) }

    /// The resident memory of a running process, bytes.
    static func residentBytes(pid: pid_t) -> Int? { read("/proc/\(pid)/status").flatMap(residentBytes(status:)) }

    /// How many descriptors a running process has open (entries of `/proc/<pid>/fd`).
    static func openDescriptors(pid: pid_t) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// The kernel's TCP sockets now.
    static func tcpSockets() -> TCPSockets? { read("/proc/net/sockstat").flatMap(tcpSockets(sockstat:)) }

    /// The number of local ports the kernel hands out (`/proc/sys/net/ipv4/ip_local_port_range`), which caps
    /// the connections from one source address to one server port.
    static func ephemeralPorts() -> Int? {
        guard let fields = read("/proc/sys/net/ipv4/ip_local_port_range")?.split(whereSeparator: \.isWhitespace),
            fields.count == 2, let low = Int(fields[0]), let high = Int(fields[1]), high >= low
        else { return nil }
        return high - low + 1
    }

    /// The page size, bytes.
    static var pageSize: Int { Int(sysconf(Int32(_SC_PAGESIZE))) }

    /// CLOCK_MONOTONIC now, seconds: the clock Python's `time.monotonic()` reads, so the load generator's
    /// step windows and the server samples share one time line.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The whole file: `String(contentsOfFile:)` stops after the first read of a /proc file (one page of
    /// /proc/slabinfo), so this reads to the end.
    static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
