import Foundation
import RingerSandbox
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

/// The app's backend on the cluster set-up (decision 0009, step 8): two `ringer serve` on one PostgreSQL database and
/// one Redis. A key made on one server works on the other and is revoked on both at once; webhooks for calls placed
/// and cancelled on either server each arrive once, in order, each attempt made by one server; a push provider added
/// on one is in force on the other within seconds; each server counts its own calls in `/metrics`.
@Suite(.serialized) struct ClusterBackendTests {
    @Test func theBackendAPIWorksAcrossTheServersOfACluster() async throws {
        let receiver = try await WebhookDeliveryTests.Receiver.start()
        let cluster = try await RingerCluster(
            nodes: 2,
            arguments: [
                "--secrets-key", Data(WebhookEndpointTests.secretsKey).base64EncodedString(),
                "--webhook-allow-http", "on", "--webhook-allow-private-addresses", "on",
            ])
        let made = try await cluster.http(0).send(
            "POST", "/v1/api-keys", token: RingerCluster.adminKey,
            json: #"{"name":"backend","scopes":["calls:write","calls:read","webhooks:write","tokens:write"]}"#)
        let key = try made.decode(CreatedAPIKey.self)
        // The endpoint is made on the other server.
        let endpoint = try await WebhookEndpointTests.endpoint(
            cluster.http(1), key: key.key, types: ["call.created", "call.cancelled"], url: receiver.url)
        try await receiver.configure(#"{"secrets":["\#(endpoint.secret)"]}"#)
        let bob = try
            (try await cluster.http(0).send(
                "POST", "/v1/tokens", token: key.key, json: #"{"user_id":"bob"}"#)).decode(TokenResponse.self).token
        try await APITests.registerPhone(cluster.http(0), token: bob, device: "bob-iphone")
        var calls: [String] = []
        for index in 0..<6 {
            let placed = try await cluster.http(index % 2).send(
                "POST", "/v1/server/calls", token: key.key, json: #"{"caller_id":"caller\#(index)","callee":"bob"}"#)
            let call = try placed.decode(Call.self)
            calls.append(call.callID)
            let cancelled = try await cluster.http(1 - index % 2).send(
                "POST", "/v1/server/calls/\(call.callID)/cancel", token: key.key)
            #expect(cancelled.status == 200)
        }
        let records = try await receiver.wait(seconds: 30) { $0.count >= 12 }
        // Each event once (no server made an attempt another had made), verified, in each call's order.
        #expect(records.count == 12 && Set(records.map(\.id)).count == 12)
        #expect(records.allSatisfy { $0.verifiedBy == [0] })
        for call in calls {
            let mine = records.filter { $0.callId == call }.sorted { ($0.seq ?? 0) < ($1.seq ?? 0) }
            #expect(mine.map(\.type) == ["call.created", "call.cancelled"] && mine.map(\.seq) == [1, 2])
        }
        // History reads the same on either server.
        for node in 0..<2 {
            let list = try
                (try await cluster.http(node).send(
                    "GET", "/v1/server/calls?user_id=bob&missed=true", token: key.key)).decode(ServerCallList.self)
            #expect(list.calls.map(\.callID) == calls.reversed())
        }
        // Each server counts the calls it placed.
        var created = 0.0
        for node in 0..<2 {
            let text = try await cluster.http(node).send("GET", "/metrics", token: RingerCluster.adminKey).body
            let line = String(decoding: text, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("ringer_calls_created_total ") }
            created += Double(line?.split(separator: " ").last ?? "") ?? 0
        }
        #expect(created == 6)
        // A push provider added on one server takes devices on the other within seconds.
        let account = try FCMSandboxServiceAccountFile.make(
            projectID: "cluster-project", tokenURI: "https://localhost:9/token")
        let body: [String: Any] = [
            "name": "cluster-firebase", "kind": "fcm", "service_account": String(decoding: account, as: UTF8.self),
        ]
        let provider = try await cluster.http(0).send(
            "POST", "/v1/push-providers", token: RingerCluster.adminKey,
            json: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        #expect(provider.status == 201)
        var registered = 0
        for _ in 0..<100 where registered != 200 {
            registered = try await cluster.http(1).send(
                "PUT", "/v1/devices/bob-pixel", token: bob,
                json: #"{"platform":"android","fcm_token":"pixel-token","fcm_project_id":"cluster-project"}"#
            ).status
            if registered != 200 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(registered == 200)
        // Revoked on one server, refused by the other at once.
        #expect(
            try await cluster.http(1).send("DELETE", "/v1/api-keys/\(key.info.keyID)", token: RingerCluster.adminKey)
                .status == 204)
        APITests.expectProblem(
            try await cluster.http(0).send("GET", "/v1/server/calls", token: key.key), status: 401, type: .unauthorized)
        await receiver.peer.stop()
    }
}
