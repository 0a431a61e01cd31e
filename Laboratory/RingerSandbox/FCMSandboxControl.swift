import Foundation
import RingerHTTP

/// The FCM sandbox's control routes under `/sandbox/`, on both of its ports, for tools in other processes
/// (tests, peers, `ringer-lab sandbox` users). JSON in and out; errors are `{"error": "…"}` with 400 or 404.
///
/// - `POST /sandbox/devices` `{"token", "project_id", "package_name" (default dev.ringer.demo),
///   "reachability": "online"|"dozing"|"offline" (default online)}` → 201: registers a token whose
///   messages are only recorded (or go to its WebSocket once it connects).
/// - `DELETE /sandbox/devices/<token>` → 204: the token is deleted; sends get 404 `UNREGISTERED`.
/// - `POST /sandbox/devices/<token>/reachability` `{"reachability": …}` → 204.
/// - `POST /sandbox/service-accounts` with a service-account JSON file, or `{"client_email",
///   "private_key_id", "public_key_pem", "project_id", "project_ids": [more]}` → 201: trusts the account.
/// - `DELETE /sandbox/access-tokens` → 204: every access token issued stops working (401).
/// - `POST /sandbox/maintenance` (optional `{"token"}`) → 200 `{"delivered": n}`: a Doze maintenance window.
/// - `GET /sandbox/messages[?since=N]` → 200: every accepted message (after the first N) with its `accepted_at`
///   (ms since 1970), `state` (see ``FCMSandboxDeliveryState``) and, once delivered, the phone's `receipt`
///   (`userVisible`, `silent`, `notDelivered` with `reason`), oldest first.
/// - `GET /sandbox/stats` → 200: ``FCMSandboxStatistics`` in snake_case.
/// - `POST /sandbox/faults` with one fault (``FCMSandboxFault``'s JSON) → 201 echoing it, or
///   `{"kind": "revoke", "token"}` → 201: revokes the token now (`UNREGISTERED`).
///   `GET /sandbox/faults` → `{"faults": [...]}`; `DELETE /sandbox/faults` → 204 clears them.
enum FCMSandboxControl {
    static func handle(_ request: HTTPRequest, sandbox: FCMSandbox) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        switch (request.method, parts.count > 1 ? parts[1] : "") {
        case ("POST", "devices") where parts.count == 2:
            return addDevice(body, sandbox: sandbox)
        case ("DELETE", "devices") where parts.count == 3:
            guard sandbox.hasDevice(token: parts[2]) else { return json(404, ["error": "no such token"]) }
            sandbox.unregister(token: parts[2], at: sandbox.now())
            return HTTPResponse(status: 204)
        case ("POST", "devices") where parts.count == 4 && parts[3] == "reachability":
            guard
                let reachability = (body?["reachability"] as? String).flatMap(
                    FCMSandboxDevice.Reachability.init(rawValue:))
            else {
                return json(400, ["error": "expected {\"reachability\": \"online\"|\"dozing\"|\"offline\"}"])
            }
            guard sandbox.hasDevice(token: parts[2]) else { return json(404, ["error": "no such token"]) }
            sandbox.setReachability(token: parts[2], reachability)
            return HTTPResponse(status: 204)
        case ("POST", "service-accounts"):
            return addServiceAccount(request.body, body, sandbox: sandbox)
        case ("DELETE", "access-tokens"):
            sandbox.revokeAccessTokens()
            return HTTPResponse(status: 204)
        case ("POST", "maintenance"):
            let delivered = sandbox.runMaintenanceWindow(token: body?["token"] as? String)
            return json(200, ["delivered": delivered])
        case ("GET", "messages"):
            let messages: [FCMSandboxMessage]
            switch SandboxControl.readPosition(request, counting: "messages") {
            case .refused(let answer): return answer
            case .from(let count): messages = sandbox.acceptedMessages(since: count)
            case .all: messages = sandbox.acceptedMessages
            }
            let listed = messages.map { describe($0, state: sandbox.deliveryState(ofMessage: $0.name)) }
            return json(200, listed)
        case ("GET", "stats"):
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = .sortedKeys
            let data = (try? encoder.encode(sandbox.statistics)) ?? Data("{}".utf8)
            return HTTPResponse(status: 200, headers: [("content-type", "application/json")], body: Array(data))
        case (_, "faults") where parts.count == 2:
            return faults(request, body, sandbox: sandbox)
        case (_, "connect"):
            return json(400, ["error": "GET /sandbox/connect is a WebSocket upgrade, on the HTTP/1.1 port"])
        default:
            return json(404, ["error": "no such sandbox route"])
        }
    }

    private static func addDevice(_ body: [String: Any]?, sandbox: FCMSandbox) -> HTTPResponse {
        guard let token = body?["token"] as? String, isPlausibleToken(token),
            let project = body?["project_id"] as? String, !project.isEmpty
        else {
            return json(400, ["error": "expected {\"token\", \"project_id\", \"package_name\"?, \"reachability\"?}"])
        }
        var reachability = FCMSandboxDevice.Reachability.online
        if let text = body?["reachability"] {
            guard let value = (text as? String).flatMap(FCMSandboxDevice.Reachability.init(rawValue:)) else {
                return json(400, ["error": "reachability must be online, dozing or offline"])
            }
            reachability = value
        }
        let package = body?["package_name"] as? String ?? "dev.ringer.demo"
        sandbox.register(
            FCMSandboxDevice(token: token, projectID: project, packageName: package, reachability: reachability))
        return json(201, ["token": token])
    }

    private static func addServiceAccount(_ raw: [UInt8], _ body: [String: Any]?, sandbox: FCMSandbox) -> HTTPResponse {
        do {
            let account: FCMSandboxServiceAccount
            if body?["type"] != nil {
                account = try FCMSandboxServiceAccount(serviceAccountJSON: Data(raw))
            } else {
                guard let email = body?["client_email"] as? String, let keyID = body?["private_key_id"] as? String,
                    let pem = body?["public_key_pem"] as? String, let project = body?["project_id"] as? String
                else {
                    return json(
                        400,
                        [
                            "error": "expected a service-account file or {\"client_email\", \"private_key_id\", "
                                + "\"public_key_pem\", \"project_id\", \"project_ids\"?}"
                        ])
                }
                account = try FCMSandboxServiceAccount(
                    clientEmail: email, keyID: keyID, publicKeyPEM: pem, projectID: project,
                    otherProjectIDs: Set(body?["project_ids"] as? [String] ?? []))
            }
            sandbox.addServiceAccount(account)
            return json(201, ["client_email": account.clientEmail])
        } catch {
            return json(400, ["error": "\(error)"])
        }
    }

    private static func faults(_ request: HTTPRequest, _ body: [String: Any]?, sandbox: FCMSandbox) -> HTTPResponse {
        switch request.method {
        case "POST":
            if body?["kind"] as? String == "revoke" {
                guard let token = body?["token"] as? String, sandbox.hasDevice(token: token) else {
                    return json(400, ["error": "revoke needs the \"token\" of a registered device"])
                }
                sandbox.revoke(token: token)
                return json(201, ["kind": "revoke", "token": token])
            }
            do {
                let fault = try JSONDecoder().decode(FCMSandboxFault.self, from: Data(request.body))
                sandbox.inject(fault)
                let echoed = (try? JSONEncoder().encode(fault)) ?? Data("{}".utf8)
                return HTTPResponse(status: 201, headers: [("content-type", "application/json")], body: Array(echoed))
            } catch {
                return json(400, ["error": "bad fault: \(error)".prefix(400).description])
            }
        case "GET":
            let listed = sandbox.activeFaults.compactMap { fault in
                (try? JSONEncoder().encode(fault)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
            }
            return json(200, ["faults": listed])
        case "DELETE":
            sandbox.clearFaults()
            return HTTPResponse(status: 204)
        default:
            return json(405, ["error": "use POST, GET or DELETE"])
        }
    }

    /// The listing entry of one message.
    private static func describe(_ message: FCMSandboxMessage, state: FCMSandboxDeliveryState?) -> [String: Any] {
        var object: [String: Any] = [
            "name": message.name, "project_id": message.projectID, "token": message.token, "data": message.data,
            "requested_priority": message.requestedPriority.rawValue, "priority": message.priority.rawValue,
            "ttl": message.ttl, "accepted_at": Int64((message.acceptedAt.timeIntervalSince1970 * 1000).rounded()),
            "state": state?.name ?? "unknown",
        ]
        if let notification = message.notification {
            var block: [String: String] = [:]
            block["title"] = notification.title
            block["body"] = notification.body
            object["notification"] = block
        }
        if let key = message.collapseKey { object["collapse_key"] = key }
        if case .delivered(let receipt?) = state {
            switch receipt {
            case .userVisible: object["receipt"] = "userVisible"
            case .silent: object["receipt"] = "silent"
            case .notDelivered(let reason):
                object["receipt"] = "notDelivered"
                object["reason"] = reason
            case .connectionLost: object["receipt"] = "connectionLost"  // never final: the message is stored again
            }
        }
        return object
    }

    /// A registration token the control routes accept: 1…4096 bytes of printable ASCII without spaces or `/`
    /// (FCM's own tokens are letters, digits, `-`, `_` and `:`).
    static func isPlausibleToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 4096
            && token.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "/") }
    }

    static func json(_ status: Int, _ object: Any) -> HTTPResponse {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return HTTPResponse(status: status, headers: [("content-type", "application/json")], body: Array(data))
    }
}
