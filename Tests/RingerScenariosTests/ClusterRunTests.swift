import Foundation
import RingerSandbox
import RingerScenarios
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// `ringer-lab scenario` and `ringer-lab explore` against a cluster: separate `ringer serve` processes on a real PostgreSQL
/// 15 and Redis 7 (started here on loopback; the tests fail saying what is missing when they cannot start), behind
/// the stack's loopback balancer, node kills real (`SIGKILL`). Budget: about a minute and a half on two cores.
@Suite(.serialized) struct ClusterRunTests {
    /// A cluster of `nodes` on the shared test PostgreSQL (each stack makes its own database and uses Redis names of
    /// its own) and a Redis of this test's own, so a Redis restart touches this test alone.
    private static func cluster(nodes: Int) async throws -> (LocalStack.Cluster, RedisServer) {
        let postgres = try await PostgresServer.shared()
        let redis = try RedisServer()
        let cluster = LocalStack.Cluster(
            nodes: nodes, databaseServer: postgres.url(database: "postgres"), redis: redis.url,
            executable: try BuiltRinger.lab())
        return (cluster, redis)
    }

    @Test func aPhoneOnAKilledNodeIsServedByTheNextLiveNodeThroughItsOneURL() async throws {
        let (cluster, redis) = try await Self.cluster(nodes: 2)
        var options = LocalStack.Options()
        options.cluster = cluster
        let stack = try await LocalStack.start(options)
        let phone = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore, node: 0)
        #expect(
            await eventually(within: 10) { phone.hasLiveEventStream }, "the phone's stream never went live on node-0")

        await stack.killNode(0)
        #expect(!stack.isNodeRunning(0) && stack.isNodeRunning(1))
        // The socket to node-0 died with it; the app reconnects through the same URL and lands on node-1.
        #expect(await eventually(within: 15) { phone.hasLiveEventStream }, "the phone never reconnected to node-1")
        // The stack's own URL prefers node-0 too: the admin API answers from node-1.
        _ = try await stack.userToken(for: "alice", name: "Alice")

        try await stack.startNode(0)
        #expect(stack.isNodeRunning(0))
        await stack.shutdown()
        withExtendedLifetime(redis) {}
    }

    @Test func aClusterWhoseNodesCannotReachRedisFailsToStartNamingTheNodeAndItsLog() async throws {
        var (cluster, redis) = try await Self.cluster(nodes: 2)
        cluster.redis = "redis://127.0.0.1:\(try ClosedPort.freePort())"
        cluster.startTimeout = 3
        var options = LocalStack.Options()
        options.cluster = cluster
        do {
            _ = try await LocalStack.start(options)
            Issue.record("a stack whose nodes never reach Redis started")
        } catch let error as LocalStackError {
            #expect(error.description.hasPrefix("node-0 was not healthy within 3 s"), "\(error)")
            #expect(error.description.contains("listening http.address=127.0.0.1:"), "the end of its log: \(error)")
        }
        withExtendedLifetime(redis) {}
    }

    /// Two stacks on one Redis at the same time, both with a `bob`: each stack's nodes use Redis names of their own
    /// (`--redis-prefix`), so the other stack's bob never hears of the call (pub/sub ignores the database number).
    @Test func twoClustersOnOneRedisAtOnceNeverHearEachOthersCalls() async throws {
        let (cluster, redis) = try await Self.cluster(nodes: 1)
        var options = LocalStack.Options()
        options.cluster = cluster
        let first = try await LocalStack.start(options)
        let second = try await LocalStack.start(options)
        let heardElsewhere = LockedValue<[String]>([])
        let rung = LockedValue<Set<String>>([])
        let elsewhere = try await second.phone(user: "bob", name: "Bob", deviceID: "bob-elsewhere", behaviour: .ignore)
        { seen in
            switch seen {
            case .event(let event): heardElsewhere.withLock { $0.append("event \(event.type) of \(event.call.callID)") }
            case .callKitReported(let callID): heardElsewhere.withLock { $0.append("CallKit call \(callID)") }
            default: break
            }
        }
        let bob = try await first.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore) { seen in
            if case .callKitReported(let callID) = seen { _ = rung.withLock { $0.insert(callID) } }
        }
        let alice = try await first.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        #expect(
            await eventually(within: 10) {
                elsewhere.hasLiveEventStream && bob.hasLiveEventStream && alice.hasLiveEventStream
            })

        let call = try await alice.call("bob")
        #expect(
            await eventually(within: 10) { rung.withLock { $0.contains(call.callID) } },
            "bob's phone on the caller's cluster never rang")
        // Time for a stray event to cross Redis, many times over.
        try await Task.sleep(for: .seconds(2))
        #expect(
            heardElsewhere.withLock { $0 }.isEmpty, "the other cluster's bob heard: \(heardElsewhere.withLock { $0 })")
        await first.shutdown()
        await second.shutdown()
        withExtendedLifetime(redis) {}
    }

    /// Scenarios/cluster: a node dying mid-ring and during an answered call.
    @Test(arguments: ClusterRunTests.clusterFiles)
    func clusterScenarioMatchesItsExpectations(_ file: String) async throws {
        let scenario = try Scenario.load(path: file)
        let (cluster, redis) = try await Self.cluster(nodes: 3)
        let (result, report) = await ScenarioRuns.run(scenario, cluster: cluster)
        #expect(result.passed, "\(report)")
        withExtendedLifetime(redis) {}
    }

    /// One server's scenarios whose devices then sit on different nodes: answered elsewhere across nodes, a cancel
    /// while the callee's socket is on another node, simultaneous accepts on two nodes, a restart of every node.
    @Test(arguments: [
        "10_answered_elsewhere_three_devices.json", "11_cancel_while_push_in_flight.json",
        "14_simultaneous_accepts.json", "12_restart_mid_ring.json", "27a_iphone_and_android_answered_on_iphone.json",
    ])
    func oneServersScenarioAlsoMatchesOnThreeNodes(_ name: String) async throws {
        let scenario = try Scenario.load(path: ScenarioFolder.file(name))
        let (cluster, redis) = try await Self.cluster(nodes: 3)
        let (result, report) = await ScenarioRuns.run(scenario, cluster: cluster)
        #expect(result.passed, "\(report)")
        withExtendedLifetime(redis) {}
    }

    /// A bounded set of exploration seeds on three nodes; among them a kill of node-0 (which placed the call) while
    /// it rings, a kill of a callee's node, and a node started again.
    @Test func clusterSeedsKeepEveryInvariant() async throws {
        let seeds: [UInt64] = ClusterRunTests.seeds
        let scripts = seeds.map { RaceScript.generate(seed: $0, nodes: 3) }
        let kills = scripts.flatMap { $0.steps.filter { $0.action == .killNode } }
        #expect(kills.contains { $0.node == 0 && $0.at < RaceScript.explorationRingTimeout })
        #expect(kills.contains { $0.node != 0 })
        #expect(scripts.contains { $0.steps.contains { $0.action == .startNode } })
        let (cluster, redis) = try await Self.cluster(nodes: 3)
        var explorer = RaceExplorer(timeScale: ClusterRunTests.explorationScale)
        explorer.cluster = cluster
        for seed in seeds {
            // Played once more before it counts, as RaceExplorationTests does: a stall of the loaded machine seldom
            // strikes the same check twice, a race the code loses shows again.
            await ScenarioRuns.RaceExplorationTests.play(seed, on: explorer, kind: "cluster")
        }
        withExtendedLifetime(redis) {}
    }

    /// Group calls on three nodes: callees' phones spread over the nodes, so a leg's answer, decline and ring-out are
    /// decided on one node while the others ring on another, and nodes die mid-ring.
    @Test func clusterGroupSeedsKeepEveryInvariant() async throws {
        let scripts = ClusterRunTests.groupSeeds.map { RaceScript.generateGroup(seed: $0, nodes: 3) }
        let kills = scripts.flatMap { $0.steps.filter { $0.action == .killNode } }
        #expect(kills.contains { $0.node == 0 && $0.at < RaceScript.explorationRingTimeout })
        #expect(kills.contains { $0.node != 0 })
        let (cluster, redis) = try await Self.cluster(nodes: 3)
        var explorer = RaceExplorer(timeScale: ClusterRunTests.explorationScale)
        explorer.cluster = cluster
        explorer.group = true
        for seed in ClusterRunTests.groupSeeds {
            await ScenarioRuns.RaceExplorationTests.play(seed, on: explorer, kind: "cluster group")
        }
        withExtendedLifetime(redis) {}
    }

    static let clusterFiles = ScenarioFolder.files(in: "cluster")
    // 7, 15, 16: node-0 dies mid-ring (7 and 15 come back); 4, 8, 14: a callee's node dies (8, 14 come back); 2: none dies.
    static let seeds: [UInt64] = [2, 4, 7, 8, 14, 15, 16]
    static let explorationScale = 0.1
    // 7, 15, 21: node-0 dies mid-ring (7 and 15 come back); 8, 17: a callee's node dies (8 comes back); 2: none dies.
    static let groupSeeds: [UInt64] = [2, 7, 8, 15, 17, 21]
}
