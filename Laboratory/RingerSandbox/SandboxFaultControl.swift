import Foundation
import RingerHTTP

/// `/sandbox/faults`: fault injection over HTTP for tools in other processes.
///
/// - `POST /sandbox/faults` with one fault:
///   - `{"kind": "answer", "status": 503, "reason": "ServiceUnavailable"}`,
///     `{"kind": "delay", "seconds": 2.5}`, `{"kind": "never_answer"}`: push faults; optional `"token"`
///     (one device token; default every push), `"count"` (default 1) or `"persistent": true`.
///   - `{"kind": "goaway", "after_streams": 3}`, `{"kind": "close", "after_streams": 3}`: connection faults;
///     optional `"connections"` (default 1) or `"persistent": true` for every connection.
///   - `{"kind": "close"}` without `after_streams`: cut every open connection now.
///   - `{"kind": "max_concurrent_streams", "value": 1}`: lasts until cleared; at least 1 (0 would lock out
///     these control routes too).
///   Answers 201 with the fault as understood, or 400.
/// - `GET /sandbox/faults`: `{"faults": [push faults with counts left], "connection_faults": […]}`.
/// - `DELETE /sandbox/faults`: clears everything; 204.
enum SandboxFaultControl {
    private struct ConnectionBody: Decodable {
        var kind: String
        var afterStreams: Int?
        var connections: Int?
        var persistent: Bool?
        var value: Int?
    }

    static func handle(_ request: HTTPRequest, sandbox: APNsSandbox) -> HTTPResponse {
        switch request.method {
        case "POST":
            return inject(Data(request.body), into: sandbox)
        case "GET":
            let listed: [String: Any] = [
                "faults": sandbox.activeFaults.compactMap { fault in
                    (try? JSONEncoder().encode(fault)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
                },
                "connection_faults": sandbox.activeConnectionFaults.map(describe),
            ]
            let data = (try? JSONSerialization.data(withJSONObject: listed, options: [.sortedKeys])) ?? Data()
            return HTTPResponse(status: 200, headers: [("content-type", "application/json")], body: Array(data))
        case "DELETE":
            sandbox.clearFaults()
            return HTTPResponse(status: 204)
        default:
            return SandboxControl.json(405, ["error": "use POST, GET or DELETE"])
        }
    }

    private static func inject(_ body: Data, into sandbox: APNsSandbox) -> HTTPResponse {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let connection = try? decoder.decode(ConnectionBody.self, from: body) else {
            return SandboxControl.json(400, ["error": "expected a JSON object with \"kind\""])
        }
        let connections = connection.persistent == true ? nil : max(connection.connections ?? 1, 1)
        // The control routes share the sandbox's connections: a fault that refuses every stream of every
        // connection for good would refuse the `DELETE /sandbox/faults` that lifts it, until a restart.
        let lockedOut = SandboxControl.json(
            400, ["error": "\"after_streams\": 0 with \"persistent\" would lock out /sandbox/faults too"])
        let fault: APNsSandboxConnectionFault
        switch connection.kind {
        case "answer", "delay", "never_answer":
            do {
                let pushFault = try JSONDecoder().decode(APNsSandboxFault.self, from: body)
                if let token = pushFault.deviceToken, !APNsRequestValidator.isHexToken(token) {
                    return SandboxControl.json(400, ["error": "token must be hex"])
                }
                sandbox.inject(pushFault)
                let echoed = (try? JSONEncoder().encode(pushFault)) ?? Data("{}".utf8)
                return HTTPResponse(status: 201, headers: [("content-type", "application/json")], body: Array(echoed))
            } catch {
                return SandboxControl.json(400, ["error": "bad \(connection.kind) fault: \(error)"])
            }
        case "goaway":
            guard let after = connection.afterStreams, after >= 0 else {
                return SandboxControl.json(400, ["error": "goaway needs \"after_streams\" >= 0"])
            }
            if after == 0 && connections == nil { return lockedOut }
            fault = .goAway(afterStreams: after, connections: connections)
        case "close":
            guard let after = connection.afterStreams else {
                fault = .closeNow
                break
            }
            guard after >= 0 else { return SandboxControl.json(400, ["error": "\"after_streams\" must be >= 0"]) }
            if after == 0 && connections == nil { return lockedOut }
            fault = .close(afterStreams: after, connections: connections)
        case "max_concurrent_streams":
            // Not 0: the control routes share the sandbox's connections, so a limit of 0 would refuse the very
            // `DELETE /sandbox/faults` that lifts it, until a restart.
            guard let value = connection.value, (1...Int(Int32.max)).contains(value) else {
                return SandboxControl.json(400, ["error": "max_concurrent_streams needs \"value\" >= 1"])
            }
            fault = .maxConcurrentStreams(value)
        default:
            return SandboxControl.json(400, ["error": "unknown kind \"\(connection.kind.prefix(40))\""])
        }
        sandbox.inject(fault)
        let data = (try? JSONSerialization.data(withJSONObject: describe(fault), options: [.sortedKeys])) ?? Data()
        return HTTPResponse(status: 201, headers: [("content-type", "application/json")], body: Array(data))
    }

    /// The JSON shape of a connection fault, as `POST` reads it.
    private static func describe(_ fault: APNsSandboxConnectionFault) -> [String: Any] {
        func limited(_ kind: String, _ after: Int, _ connections: Int?) -> [String: Any] {
            var object: [String: Any] = ["kind": kind, "after_streams": after]
            if let connections { object["connections"] = connections } else { object["persistent"] = true }
            return object
        }
        switch fault {
        case .goAway(let after, let connections): return limited("goaway", after, connections)
        case .close(let after, let connections): return limited("close", after, connections)
        case .closeNow: return ["kind": "close"]
        case .maxConcurrentStreams(let value): return ["kind": "max_concurrent_streams", "value": value]
        }
    }
}
