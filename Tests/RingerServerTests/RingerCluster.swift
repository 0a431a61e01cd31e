import Foundation
import LibWebSockets
import RingerSupport
import RingerTestKit
import RingerTestSupport

/// Several real `ringer serve` processes on one fresh PostgreSQL database and one Redis, as an operator runs them
/// (docs/operations.md), for the cluster tests. Each node is a child process on its own loopback port; ``kill(_:)``
/// is a real SIGKILL.
final class RingerCluster: @unchecked Sendable {
    // @unchecked: `processes` is only touched under its lock; the rest is immutable.
    static let adminKey = "cluster-admin"
    static let secret = String(repeating: "c", count: 40)

    let redis: RedisServer
    let database: String
    /// Each node's loopback port; a port another process took between its choice and the node's bind is replaced at
    /// the start ([init]), never after.
    private(set) var ports: [Int]
    let ringTimeout: Int
    private let processes: LockedValue<[Int: Process]>
    private let arguments: [String]
    private let logs: [URL]
    /// Holds the logs; removed with the cluster (a failure message quotes a log before that).
    private let folder: URL

    /// Starts `count` nodes and waits until each answers `/healthz` with Redis connected.
    /// - Throws: when PostgreSQL, Redis or a node cannot start (with the node's log).
    /// - Parameters:
    ///   - count: nodes.
    ///   - ringTimeout: seconds.
    ///   - arguments: more `ringer serve` flags for every node (APNs settings).
    init(nodes count: Int = 3, ringTimeout: Int = 4, arguments: [String] = []) async throws {
        self.arguments = arguments
        redis = try RedisServer()
        database = try await PostgresServer.shared().makeDatabase()
        self.ringTimeout = ringTimeout
        ports = try (0..<count).map { _ in try ClosedPort.freePort() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-cluster-\(UUID().uuidString)")
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        logs = (0..<count).map { folder.appendingPathComponent("node-\($0).log") }
        processes = LockedValue([:])
        for index in 0..<count { try start(index) }
        for index in 0..<count {
            // A free port is only free when chosen: another test's server may bind it before this node does (the
            // node then exits with "Address already in use"). Such a node starts again on another port.
            var attempts = 0
            while true {
                do {
                    try await waitUntilHealthy(index)
                    break
                } catch  where attempts < 3 && log(index).contains("Address already in use") {
                    attempts += 1
                    ports[index] = try ClosedPort.freePort()
                    try start(index)
                }
            }
        }
    }

    deinit {
        for process in processes.snapshot.values where process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The node's HTTP base.
    func http(_ node: Int) -> TestHTTP { TestHTTP(base: URL(string: "http://127.0.0.1:\(ports[node])")!) }

    /// SIGKILL: no drain, no goodbye, as a machine dying.
    func kill(_ node: Int) {
        guard let process = processes.withLock({ $0.removeValue(forKey: node) }) else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// What the node logged (for failure messages).
    func log(_ node: Int) -> String { (try? String(contentsOf: logs[node], encoding: .utf8)) ?? "" }

    /// A user token, minted on node 0.
    func token(_ user: String) async throws -> String {
        let response = try await http(0).send(
            "POST", "/v1/tokens", token: Self.adminKey, json: #"{"user_id":"\#(user)","name":"\#(user)"}"#)
        guard response.status == 201, let token = response.object["token"] as? String else {
            throw TestSupportError.setup("minting a token for \(user) answered \(response.status)")
        }
        return token
    }

    /// Opens a device's event socket on a node and waits for `stream.ready`.
    func phone(_ user: String, device: String, on node: Int, since: Int64? = nil) async throws -> ClusterPhone {
        let token = try await self.token(user)
        let phone = ClusterPhone(user: user, device: device, token: token, node: node)
        var url = "ws://127.0.0.1:\(ports[node])/v1/events?device_id=\(device)&access_token=\(token)"
        if let since { url += "&since=\(since)" }
        phone.socket = try await WebSocketClient.connect(
            url: url, onText: { [weak phone] text in phone?.received(text) })
        guard await phone.waitFor({ $0["type"] as? String == "stream.ready" }, within: 10) != nil else {
            throw TestSupportError.setup("\(user)/\(device) got no stream.ready from node \(node)")
        }
        return phone
    }

    private func start(_ index: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ringer")
        process.arguments =
            [
                "serve", "--listen", "127.0.0.1:\(ports[index])", "--node-id", "node-\(index)",
                "--ring-timeout", String(ringTimeout), "--database-pool-size", "4",
            ]
            + LaboratoryServeFlags.rateLimitsOff + arguments
        process.environment = [
            "RINGER_ADMIN_KEY": Self.adminKey, "RINGER_USER_TOKEN_SECRET": Self.secret,
            "RINGER_DATABASE": database, "RINGER_REDIS": redis.url,
        ]
        FileManager.default.createFile(atPath: logs[index].path, contents: nil)
        let handle = try FileHandle(forWritingTo: logs[index])
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        processes.withLock { $0[index] = process }
    }

    private func waitUntilHealthy(_ index: Int) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            // A node that exited (it could not listen) never becomes healthy: said at once, with its log.
            if let process = processes.withLock({ $0[index] }), !process.isRunning { break }
            if let health = try? await http(index).send("GET", "/healthz"), health.status == 200,
                (health.object["cluster"] as? [String: Any])?["redis"] as? String == "connected"
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError.setup("node \(index) never became healthy; its log:\n\(log(index))")
    }
}

/// One device's event socket on one node, recording every frame.
final class ClusterPhone: @unchecked Sendable {
    // @unchecked: `socket` is set once right after init; `frames` is a lock box.
    let user: String
    let device: String
    let token: String
    let node: Int
    var socket: WebSocketClient?
    private let frames = LockedValue<[String]>([])

    init(user: String, device: String, token: String, node: Int) {
        (self.user, self.device, self.token, self.node) = (user, device, token, node)
    }

    fileprivate func received(_ text: String) { frames.withLock { $0.append(text) } }

    /// Every frame so far, decoded.
    var events: [[String: Any]] {
        frames.snapshot.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// The call events (not `stream.ready`) of one call, in arrival order, as `type` names.
    func types(ofCall callID: String) -> [String] {
        events.filter { ($0["call"] as? [String: Any])?["call_id"] as? String == callID }.compactMap {
            $0["type"] as? String
        }
    }

    /// The `seq`s of the call events received, in arrival order.
    var seqs: [Int64] {
        events.filter { $0["type"] as? String != "stream.ready" }.compactMap { ($0["seq"] as? NSNumber)?.int64Value }
    }

    /// Waits until a frame matches, at most `seconds`; returns it, or nil.
    func waitFor(_ match: ([String: Any]) -> Bool, within seconds: Double) async -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let found = events.first(where: match) { return found }
            try? await Task.sleep(for: .milliseconds(25))
        } while Date() < deadline
        return nil
    }

    /// Waits for an event of this type for the call.
    func waitFor(_ type: String, call callID: String, within seconds: Double = 5) async -> Bool {
        await waitFor(
            { $0["type"] as? String == type && ($0["call"] as? [String: Any])?["call_id"] as? String == callID },
            within: seconds) != nil
    }

    func close() { socket?.close() }
}
