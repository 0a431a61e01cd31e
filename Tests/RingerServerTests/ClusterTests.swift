import DevCertificates
import Foundation
import JWT
import LibWebSockets
import RingerSupport
import RingerSandbox
import RingerTestSupport
import Testing

/// Three real `ringer serve` processes on one PostgreSQL and one Redis, callers and callees on different nodes:
/// what the cluster guarantees (docs/operations.md) against real processes, real kills and a real Redis restart.
/// Each test starts its own cluster (about 2 s); the suite takes about 30 s on two cores (9 tests, 29 s measured on 2 December 2026).
@Suite(.serialized) struct ClusterTests {
    /// Creates a call on a node and returns its id.
    private func place(
        _ cluster: RingerCluster, from caller: ClusterPhone, to callee: String, on node: Int
    ) async throws -> String {
        let response = try await cluster.http(node).send(
            "POST", "/v1/calls", token: caller.token, json: #"{"callee":"\#(callee)"}"#)
        try #require(
            response.status == 201,
            "POST /v1/calls on node \(node): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        try #require(response.object["state"] as? String == "ringing", "\(response.object)")
        return try #require(response.object["call_id"] as? String)
    }

    private func act(
        _ cluster: RingerCluster, _ action: String, call: String, as phone: ClusterPhone, on node: Int
    ) async throws -> Int {
        let body = ["accept", "decline", "ringing"].contains(action) ? #"{"device_id":"\#(phone.device)"}"# : nil
        return try await cluster.http(node).send("POST", "/v1/calls/\(call)/\(action)", token: phone.token, json: body)
            .status
    }

    @Test func anAnswerOnOneNodeReachesTheCallerOnAnotherAndTheCalleesOtherDeviceOnAThird() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bobPhone = try await cluster.phone("bob", device: "bob-phone", on: 1)
        let bobTablet = try await cluster.phone("bob", device: "bob-tablet", on: 2)
        // Bob's devices are sockets only, on nodes 1 and 2: node 0 sees him online through Redis and rings.
        let call = try await place(cluster, from: alice, to: "bob", on: 0)
        #expect(await bobPhone.waitFor("call.incoming", call: call))
        #expect(await bobTablet.waitFor("call.incoming", call: call))
        #expect(try await act(cluster, "accept", call: call, as: bobPhone, on: 1) == 200)
        #expect(await alice.waitFor("call.accepted", call: call))
        #expect(await bobTablet.waitFor("call.answered_elsewhere", call: call))
        #expect(!bobPhone.types(ofCall: call).contains("call.answered_elsewhere"))
    }

    /// Every cross-node test above also passes when no event goes through Redis at all (the store's 2 s
    /// reconciliation carries them), so this one bounds the latency: eight hops in a row, nearly all well inside the
    /// reconciliation interval. Without Redis delivery each hop takes 0-2 s, so seven or eight of them under 0.5 s
    /// by chance is about 4 in 10,000; one hop may be slow on a loaded machine (a 0.53 s hop once failed a bound on
    /// all eight).
    @Test func eventsCrossNodesOverRedisWellInsideTheStoresReconciliation() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 1)
        var hops: [TimeInterval] = []
        for _ in 0..<4 {
            let call = try await place(cluster, from: alice, to: "bob", on: 0)
            var sent = Date()
            #expect(await bob.waitFor("call.incoming", call: call, within: 3))
            hops.append(Date().timeIntervalSince(sent))
            sent = Date()
            #expect(try await act(cluster, "cancel", call: call, as: alice, on: 0) == 200)
            #expect(await bob.waitFor("call.cancelled", call: call, within: 3))
            hops.append(Date().timeIntervalSince(sent))
        }
        #expect(hops.filter { $0 < 0.5 }.count >= 7, "eight cross-node events took \(hops) s")
    }

    @Test func simultaneousAcceptsOnTwoNodesHaveOneWinner() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bobPhone = try await cluster.phone("bob", device: "bob-phone", on: 1)
        let bobTablet = try await cluster.phone("bob", device: "bob-tablet", on: 2)
        let call = try await place(cluster, from: alice, to: "bob", on: 0)
        #expect(await bobTablet.waitFor("call.incoming", call: call))
        async let first = act(cluster, "accept", call: call, as: bobPhone, on: 1)
        async let second = act(cluster, "accept", call: call, as: bobTablet, on: 2)
        let statuses = try await [first, second].sorted()
        #expect(statuses == [200, 409])
        #expect(await alice.waitFor("call.accepted", call: call))
        try await Task.sleep(for: .milliseconds(500))
        #expect(alice.types(ofCall: call).filter { $0 == "call.accepted" }.count == 1)
    }

    @Test func aCancelOnOneNodeReachesTheCalleesSocketOnAnother() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 1)
        let call = try await place(cluster, from: alice, to: "bob", on: 2)
        #expect(await bob.waitFor("call.incoming", call: call))
        #expect(try await act(cluster, "cancel", call: call, as: alice, on: 0) == 200)
        #expect(await bob.waitFor("call.cancelled", call: call))
    }

    @Test func killingTheNodeThatPlacedARingingCallStillEndsItOnTimeAndOnce() async throws {
        let cluster = try await RingerCluster(ringTimeout: 3)
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 1)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 2)
        let call = try await place(cluster, from: alice, to: "bob", on: 0)
        let placed = Date()
        #expect(await bob.waitFor("call.incoming", call: call))
        cluster.kill(0)
        // The ring timeout was node 0's timer; node 1's or 2's sweep claims it within 2 s of the deadline.
        #expect(await bob.waitFor("call.unanswered", call: call, within: 3 + 4))
        let ended = Date().timeIntervalSince(placed)
        #expect(ended < 3 + 3, "ended \(ended) s after it was placed")
        #expect(await alice.waitFor("call.unanswered", call: call, within: 2))
        try await Task.sleep(for: .seconds(1.5))
        #expect(bob.types(ofCall: call) == ["call.incoming", "call.unanswered"])
        #expect(alice.types(ofCall: call).filter { $0 == "call.unanswered" }.count == 1)
    }

    /// Places a group call on a node and returns its id.
    private func placeGroup(
        _ cluster: RingerCluster, from caller: ClusterPhone, to callees: [String], on node: Int
    ) async throws -> String {
        let list = callees.map { "\"\($0)\"" }.joined(separator: ",")
        let response = try await cluster.http(node).send(
            "POST", "/v1/calls", token: caller.token, json: "{\"callees\":[\(list)]}")
        try #require(response.status == 201, "\(response.status) \(String(decoding: response.body, as: UTF8.self))")
        return try #require(response.object["call_id"] as? String)
    }

    /// Two callees of one `first_answer` group call accept at once on two nodes: one wins, the other is told it was
    /// answered elsewhere, and the caller hears of one answer (decision 0007 §5).
    @Test func twoCalleesOfAGroupAcceptingOnTwoNodesHaveOneWinner() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 1)
        let carol = try await cluster.phone("carol", device: "carol-phone", on: 2)
        let call = try await placeGroup(cluster, from: alice, to: ["bob", "carol"], on: 0)
        #expect(await bob.waitFor("call.incoming", call: call))
        #expect(await carol.waitFor("call.incoming", call: call))
        async let first = act(cluster, "accept", call: call, as: bob, on: 1)
        async let second = act(cluster, "accept", call: call, as: carol, on: 2)
        let (bobStatus, carolStatus) = try await (first, second)
        #expect([bobStatus, carolStatus].sorted() == [200, 409])
        let loser = bobStatus == 200 ? carol : bob
        #expect(await loser.waitFor("call.answered_elsewhere", call: call))
        #expect(await alice.waitFor("call.accepted", call: call))
        try await Task.sleep(for: .milliseconds(500))
        #expect(alice.types(ofCall: call).filter { $0 == "call.accepted" }.count == 1)
    }

    /// The node that placed a group call dies mid-ring: another node's sweep rings out each leg within 2 s of its
    /// deadline, once.
    @Test func killingTheNodeThatPlacedAGroupCallEndsEachLegOnTimeAndOnce() async throws {
        let cluster = try await RingerCluster(ringTimeout: 3)
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 1)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 2)
        let carol = try await cluster.phone("carol", device: "carol-phone", on: 1)
        let call = try await placeGroup(cluster, from: alice, to: ["bob", "carol"], on: 0)
        let placed = Date()
        #expect(await bob.waitFor("call.incoming", call: call))
        #expect(await carol.waitFor("call.incoming", call: call))
        cluster.kill(0)
        #expect(await bob.waitFor("call.unanswered", call: call, within: 3 + 4))
        #expect(await carol.waitFor("call.unanswered", call: call, within: 2))
        let ended = Date().timeIntervalSince(placed)
        #expect(ended < 3 + 3, "ended \(ended) s after it was placed")
        #expect(await alice.waitFor("call.unanswered", call: call, within: 2))
        try await Task.sleep(for: .seconds(1.5))
        #expect(bob.types(ofCall: call) == ["call.incoming", "call.unanswered"])
        #expect(alice.types(ofCall: call).filter { $0 == "call.unanswered" }.count == 1)
    }

    @Test func eventsStoredWhileRedisIsDownReachTheOtherNodeAndLaterOnesCrossAgainOnceItIsBack() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 1)
        let call = try await place(cluster, from: alice, to: "bob", on: 0)
        #expect(await bob.waitFor("call.incoming", call: call))

        cluster.redis.stop()
        // Accepted on node 1 while Redis is down: node 0 reads it from PostgreSQL (its reconciliation).
        #expect(try await act(cluster, "accept", call: call, as: bob, on: 1) == 200)
        #expect(await alice.waitFor("call.accepted", call: call, within: 6))
        let health = try await cluster.http(0).send("GET", "/healthz")
        #expect(health.object["status"] as? String == "degraded")
        #expect((health.object["cluster"] as? [String: Any])?["redis"] as? String == "lost")

        try cluster.redis.start()
        // Once resubscribed, an end on node 0 reaches node 1's socket, and nothing was skipped or repeated.
        var connected = false
        for _ in 0..<100 where !connected {
            let health = try await cluster.http(1).send("GET", "/healthz")
            connected = (health.object["cluster"] as? [String: Any])?["redis"] as? String == "connected"
            if !connected { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(connected)
        #expect(try await act(cluster, "end", call: call, as: alice, on: 0) == 200)
        #expect(await bob.waitFor("call.ended", call: call, within: 3))
        // Alice's stream arrived whole and in order; Bob's phone skips only the event of its own accept (sent to
        // his other devices), never one twice.
        #expect(alice.seqs == Array(1...Int64(alice.seqs.count)))
        #expect(bob.seqs == bob.seqs.sorted() && Set(bob.seqs).count == bob.seqs.count)
        #expect(bob.types(ofCall: call) == ["call.incoming", "call.ended"])
    }

    @Test func aPhoneReconnectingToAnotherNodeWithSinceGetsExactlyWhatItMissed() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 1)
        // An FCM token, so calls ring Bob while his socket is away (the server sends no FCM message here: no
        // credentials; it still counts the device as one that can be woken).
        let registration =
            #"{"platform":"android","fcm_token":"\#(String(repeating: "f", count: 22)):\#(String(repeating: "A", count: 140))"}"#
        let registered = try await cluster.http(1).send(
            "PUT", "/v1/devices/bob-phone", token: bob.token, json: registration)
        try #require(
            registered.status == 200, "\(registered.status) \(String(decoding: registered.body, as: UTF8.self))")
        let first = try await place(cluster, from: alice, to: "bob", on: 0)
        #expect(await bob.waitFor("call.incoming", call: first))
        let seen = try #require(bob.seqs.last)
        bob.close()
        // While Bob's phone is away: the call is cancelled and another placed.
        #expect(try await act(cluster, "cancel", call: first, as: alice, on: 0) == 200)
        let second = try await place(cluster, from: alice, to: "bob", on: 0)
        try await Task.sleep(for: .milliseconds(300))
        let back = try await cluster.phone("bob", device: "bob-phone", on: 2, since: seen)
        #expect(await back.waitFor("call.incoming", call: second))
        #expect(back.types(ofCall: first) == ["call.cancelled"])
        #expect(back.seqs == [seen + 1, seen + 2])
    }

    @Test func aDeviceReconnectingToAnotherNodeClosesItsLingeringSocketOnTheFirst() async throws {
        let cluster = try await RingerCluster(nodes: 2)
        let old = try await cluster.phone("bob", device: "bob-phone", on: 0)
        let new = try await cluster.phone("bob", device: "bob-phone", on: 1)
        var closed = false
        for _ in 0..<50 where !closed {
            closed = !(old.socket?.isOpen ?? false)
            if !closed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(closed)
        #expect(new.socket?.isOpen == true)
    }

    @Test func aVoIPPushInFlightOnANodeThatDiesIsSentOnceByAnother() async throws {
        // An APNs sandbox that never answers the first push: it is in flight on node 0 when node 0 dies.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-cluster-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tls = try DevCertificateAuthority.create().write(to: folder.appendingPathComponent("tls"))
        let key = try JWTSigningKey.generateP256()
        let keyFile = folder.appendingPathComponent("AuthKey_CLUSTER001.p8")
        try Data(try key.pkcs8PEM().utf8).write(to: keyFile)
        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: tls.serverCertificate.path,
                privateKeyPath: tls.serverPrivateKey.path), logger: .silent())
        try sandbox.addProviderKey(keyID: "CLUSTER001", teamID: "CLUSTERTEA", publicKeyPEM: try key.publicKeyPEM())
        let sandboxPort = try sandbox.start()
        defer { sandbox.shutdown() }
        let voip = String(repeating: "be", count: 32)
        sandbox.register(SandboxDevice(token: voip, bundleID: "com.example.app"))
        sandbox.inject(APNsSandboxFault(.neverAnswer, deviceToken: voip, count: 1))

        let cluster = try await RingerCluster(
            ringTimeout: 40,
            arguments: [
                "--apns-host", "localhost:\(sandboxPort)", "--apns-ca-file", tls.caCertificate.path,
                "--apns-key-file", keyFile.path, "--apns-key-id", "CLUSTER001", "--apns-team-id", "CLUSTERTEA",
            ])
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 1)
        let bobToken = try await cluster.token("bob")
        let registered = try await cluster.http(2).send(
            "PUT", "/v1/devices/bob-iphone", token: bobToken,
            json: """
                {"platform":"ios","voip_token":"\(voip)","apns_environment":"sandbox","bundle_id":"com.example.app"}
                """)
        try #require(registered.status == 200)
        let call = try await place(cluster, from: alice, to: "bob", on: 0)
        // Node 0's push reached the sandbox and waits for an answer that never comes.
        var inFlight = false
        for _ in 0..<100 where !inFlight {
            inFlight = sandbox.deliveriesUnderway > 0 || sandbox.activeFaults.isEmpty
            if !inFlight { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(inFlight)
        #expect(sandbox.acceptedPushes.isEmpty)
        cluster.kill(0)

        // Within the 10 s a heartbeat takes to go stale and a sweep: one live node sends it, once.
        var pushes: [SandboxPush] = []
        for _ in 0..<300 where pushes.isEmpty {
            pushes = sandbox.acceptedPushes.filter { String(decoding: $0.payload, as: UTF8.self).contains(call) }
            if pushes.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(pushes.count == 1, "node 1: \(cluster.log(1))\nnode 2: \(cluster.log(2))")
        #expect(pushes.first?.pushType == "voip")
        try await Task.sleep(for: .seconds(2))
        #expect(sandbox.acceptedPushes.filter { String(decoding: $0.payload, as: UTF8.self).contains(call) }.count == 1)
    }

    @Test func aCalleeWhoseOnlySocketIsOnAnotherNodeIsRungRightAfterARedisRestart() async throws {
        let cluster = try await RingerCluster()
        let alice = try await cluster.phone("alice", device: "alice-phone", on: 0)
        let bob = try await cluster.phone("bob", device: "bob-phone", on: 1)
        cluster.redis.stop()
        try cluster.redis.start()
        var connected = false
        for _ in 0..<100 where !connected {
            let health = try await cluster.http(0).send("GET", "/healthz")
            connected = (health.object["cluster"] as? [String: Any])?["redis"] as? String == "connected"
            if !connected { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(connected)
        // Give the nodes the heartbeat interval (2 s) and a reconciliation round to settle, far less than 30 s.
        try await Task.sleep(for: .seconds(5))
        let response = try await cluster.http(0).send(
            "POST", "/v1/calls", token: alice.token, json: #"{"callee":"bob"}"#)
        #expect(response.status == 201)
        #expect(response.object["state"] as? String == "ringing", "\(response.object)")
        if let call = response.object["call_id"] as? String {
            #expect(await bob.waitFor("call.incoming", call: call))
        }
    }
}
