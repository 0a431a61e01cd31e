import Foundation
import LibWebSockets

/// The arithmetic of the ringing benchmark's idle sockets: the largest number the server's open-file limit
/// allows, the levels measured, and the holder processes (one loopback source address each) that open them.
///
/// Every idle socket is one descriptor in the server and one in a holder; the holders and the server each
/// have the machine's open-file limit (20,000 here), and one source address can open at most the kernel's
/// ephemeral ports to one server port.
enum SocketHolderPlan {
    /// One level of idle sockets as asked for on the command line.
    enum Level: Hashable, Sendable {
        /// Exactly this many.
        case count(Int)
        /// The largest the server's limit allows (``largestIdleSockets(serverLimit:serverDescriptors:loadDescriptors:margin:)``).
        case largest
    }

    /// Descriptors left unused in the server beyond everything counted: its log, SQLite's files, the APNs
    /// connection and what a busy moment opens.
    static let serverMargin = 500
    /// Descriptors a holder keeps for itself (Python, its HTTP pool) and ports left to other connections.
    static let holderMargin = 500

    /// The largest number of idle sockets the server can hold beside the load generator's: under its open-file limit,
    /// and under the connection budget it derives from that limit (`WebServer.connectionBudget(forFileLimit:)`), past
    /// which it would close the load generator's own sockets to make room.
    /// - Parameters:
    ///   - serverLimit: the server's soft open-file limit.
    ///   - serverDescriptors: descriptors the server has open with no client connected.
    ///   - loadDescriptors: the load generator's connections to the server (its callers' and callees'
    ///     sockets and its HTTP pool).
    ///   - margin: descriptors left free.
    /// - Returns: at least 0.
    static func largestIdleSockets(
        serverLimit: Int, serverDescriptors: Int, loadDescriptors: Int,
        margin: Int = serverMargin
    ) -> Int {
        let byFiles = serverLimit - serverDescriptors - loadDescriptors - margin
        let byBudget = WebServer.connectionBudget(forFileLimit: serverLimit) - loadDescriptors - margin / 5
        return max(0, min(byFiles, byBudget))
    }

    /// The levels to measure, ascending, each at most `largest`, without repeats (a fixed level above the
    /// largest is dropped: it cannot be held).
    /// - Parameters:
    ///   - requested: the levels asked for.
    ///   - largest: ``largestIdleSockets(serverLimit:serverDescriptors:loadDescriptors:margin:)``.
    /// - Returns: e.g. `[0, 5000, 10000, 19136]`.
    static func levels(_ requested: [Level], largest: Int) -> [Int] {
        let counts = requested.map { level -> Int in
            switch level {
            case .count(let count): return count
            case .largest: return largest
            }
        }
        return Array(Set(counts.filter { $0 >= 0 && $0 <= largest })).sorted()
    }

    /// How many sockets one holder may open: its own open-file limit and one source address's ports, each
    /// less ``holderMargin``.
    /// - Parameters:
    ///   - holderLimit: a holder's open-file limit (the same as this process's).
    ///   - ephemeralPorts: the kernel's local port range size.
    /// - Returns: at least 1.
    static func socketsPerHolder(holderLimit: Int, ephemeralPorts: Int) -> Int {
        max(1, min(holderLimit, ephemeralPorts) - holderMargin)
    }

    /// The new holders that take the running ones (holding `current` sockets) to `target`: running holders
    /// keep what they hold, so the difference is split into holders of at most `perHolder`.
    /// - Parameters:
    ///   - current: sockets the running holders hold.
    ///   - target: sockets wanted.
    ///   - perHolder: ``socketsPerHolder(holderLimit:ephemeralPorts:)``.
    /// - Returns: each new holder's count; empty when `target <= current`.
    static func newHolders(current: Int, target: Int, perHolder: Int) -> [Int] {
        var left = target - current
        var counts: [Int] = []
        while left > 0 {
            counts.append(min(left, perHolder))
            left -= counts[counts.count - 1]
        }
        return counts
    }

    /// The loopback source address of holder number `index` (0-based): 127.0.0.2, 127.0.0.3, …; 127.0.0.1
    /// is left to the load generator.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` past 127.0.0.254.
    static func sourceAddress(holder index: Int) throws -> String {
        guard index >= 0, index + 2 <= 254 else {
            throw BenchmarkError.invalidArgument(
                "more than 253 socket holders: no loopback address left for holder \(index)")
        }
        return "127.0.0.\(index + 2)"
    }

    /// Parses `--idle-sockets`: comma-separated counts and `max`, e.g. `0,5000,10000,max`.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` for an empty list, a negative count or another word.
    static func parseLevels(_ text: String) throws -> [Level] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !text.isEmpty else { throw BenchmarkError.invalidArgument("--idle-sockets needs at least one level") }
        return try parts.map { part in
            if part == "max" { return .largest }
            guard let count = Int(part), count >= 0 else {
                throw BenchmarkError.invalidArgument(
                    "--idle-sockets takes counts of 0 or more and max, comma-separated; got \(part)")
            }
            return .count(count)
        }
    }
}
