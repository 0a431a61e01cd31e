import Foundation
import RingerHTTP

/// The sandbox's control routes under `/sandbox/`, for tools in other processes (tests, aioapns checks).
enum SandboxControl {
    private struct DeviceBody: Decodable {
        var token: String
        var bundleID: String

        /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
        /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
        private enum CodingKeys: String, CodingKey {
            case token
            case bundleID = "bundleId"
        }
    }

    private struct KeyBody: Decodable {
        var keyID: String
        var teamID: String
        var publicKeyPem: String

        /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
        /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
        private enum CodingKeys: String, CodingKey {
            case publicKeyPem
            case keyID = "keyId"
            case teamID = "teamId"
        }
    }

    static func handle(_ request: HTTPRequest, sandbox: APNsSandbox) -> HTTPResponse {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let parts = request.path.split(separator: "/").map(String.init)
        switch (request.method, parts.count > 1 ? parts[1] : "") {
        case ("POST", "devices"):
            guard let body = try? decoder.decode(DeviceBody.self, from: Data(request.body)),
                APNsRequestValidator.isHexToken(body.token)
            else {
                return json(400, ["error": "expected {\"token\": hex, \"bundle_id\": string}"])
            }
            sandbox.register(SandboxDevice(token: body.token, bundleID: body.bundleID))
            return json(201, ["token": body.token.lowercased()])
        case ("DELETE", "devices") where parts.count == 3:
            sandbox.unregister(token: parts[2], at: Date())
            return HTTPResponse(status: 204)
        case ("POST", "keys"):
            guard let body = try? decoder.decode(KeyBody.self, from: Data(request.body)),
                (try? sandbox.addProviderKey(
                    keyID: body.keyID, teamID: body.teamID,
                    publicKeyPEM: body.publicKeyPem)) != nil
            else {
                return json(400, ["error": "expected {\"key_id\", \"team_id\", \"public_key_pem\"}"])
            }
            return json(201, ["key_id": body.keyID])
        case ("GET", "pushes"):
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.dateEncodingStrategy = .millisecondsSince1970
            let pushes: [SandboxPush]
            switch readPosition(request, counting: "pushes") {
            case .refused(let answer): return answer
            case .from(let count): pushes = sandbox.acceptedPushes(since: count)
            case .all: pushes = sandbox.acceptedPushes
            }
            let data = (try? encoder.encode(pushes)) ?? Data("[]".utf8)
            return HTTPResponse(
                status: 200, headers: [("content-type", "application/json")],
                body: Array(data))
        case (_, "faults") where parts.count == 2:
            return SandboxFaultControl.handle(request, sandbox: sandbox)
        case ("GET", "stats"):
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = .sortedKeys
            let data = (try? encoder.encode(sandbox.statistics)) ?? Data("{}".utf8)
            return HTTPResponse(status: 200, headers: [("content-type", "application/json")], body: Array(data))
        default:
            return json(404, ["error": "no such sandbox route"])
        }
    }

    /// A listing's `?since=N`: only the entries after the first N (a poller's read position).
    enum ReadPosition {
        /// No `since`: every entry.
        case all
        /// The entries after the first N.
        case from(Int)
        /// Not a whole number of entries already read: this 400.
        case refused(HTTPResponse)
    }

    /// Reads `?since=N` for a listing of `what` (`pushes`, `messages`).
    static func readPosition(_ request: HTTPRequest, counting what: String) -> ReadPosition {
        guard let since = request.query["since"] else { return .all }
        guard let count = Int(since), count >= 0 else {
            return .refused(json(400, ["error": "since must be a whole number of \(what) already read"]))
        }
        return .from(count)
    }

    static func json(_ status: Int, _ object: [String: String]) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return HTTPResponse(
            status: status, headers: [("content-type", "application/json")],
            body: Array(data))
    }
}
