import Foundation
import RingerHTTP
import RingerTestSupport
import Testing

@testable import RingerServer

/// The route table is the API: it and docs/openapi.yaml list exactly the same operations (method and path
/// template), read from the spec by PyYAML (Tests/Peers/openapi_operations.py), and the answers that come
/// from the table (405 with `Allow`, HEAD, the methods libwebsockets leaves to the router) follow it.
@Suite struct RouteTableTests {
    /// The operations of an OpenAPI document, as `METHOD /template`.
    static func specOperations(_ path: String) async throws -> Set<String> {
        let outcome = try await PeerScripts.run("openapi_operations.py", [path])
        return Set(try JSONDecoder().decode([String].self, from: Data(outcome.standardOutput.utf8)))
    }

    /// The table's operations, as `METHOD /template`.
    static var tableOperations: Set<String> { Set(APIRouter.routes.map { "\($0.method) \($0.path)" }) }

    /// What one side lists and the other does not; both empty when they agree.
    static func differences(table: Set<String>, spec: Set<String>) -> (undocumented: [String], unrouted: [String]) {
        (table.subtracting(spec).sorted(), spec.subtracting(table).sorted())
    }

    @Test func theRouteTableAndTheSpecListTheSameOperations() async throws {
        let spec = try await Self.specOperations(SpecConformanceTests.spec)
        #expect(spec.count >= 17, "the reader found too few operations: \(spec.sorted())")
        let (undocumented, unrouted) = Self.differences(table: Self.tableOperations, spec: spec)
        #expect(undocumented.isEmpty, "routed but not in docs/openapi.yaml: \(undocumented)")
        #expect(unrouted.isEmpty, "in docs/openapi.yaml but not routed: \(unrouted)")
    }

    /// The comparison can fail either way: a spec that drops one operation and adds another is told apart.
    @Test func aSpecMissingAnOperationOrListingAnExtraOneIsAMismatch() async throws {
        var yaml = try String(contentsOfFile: SpecConformanceTests.spec, encoding: .utf8)
        // The keepalive operation goes; a PATCH on /v1/devices appears.
        let keepalive = try #require(yaml.range(of: "  /v1/calls/{call_id}/keepalive:\n"))
        yaml.replaceSubrange(keepalive, with: "  /v1/calls/{call_id}/keepalive-gone:\n")
        let devices = try #require(yaml.range(of: "  /v1/devices:\n"))
        yaml.replaceSubrange(devices, with: "  /v1/devices:\n    patch:\n      responses: {}\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString).yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let (undocumented, unrouted) = Self.differences(
            table: Self.tableOperations,
            spec: try await Self.specOperations(file.path))
        #expect(undocumented == ["POST /v1/calls/{call_id}/keepalive"])
        #expect(unrouted == ["PATCH /v1/devices", "POST /v1/calls/{call_id}/keepalive-gone"])
    }

    @Test func aMisspeltMethodInTheSpecIsAnErrorNotAMissingOperation() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString).yaml")
        try "openapi: 3.1.0\npaths:\n  /healthz:\n    gte:\n      responses: {}\n".write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        await #expect(throws: (any Error).self) { _ = try await Self.specOperations(file.path) }
    }

    @Test func eachOperationIsRoutedOnceAndNoTwoTemplatesOverlap() {
        let operations = APIRouter.routes.map { "\($0.method) \($0.path)" }
        #expect(operations.count == Set(operations).count, "an operation is listed twice")
        let templates = APIRouter.routes.map(\.path).reduce(into: [PathTemplate]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        for (index, template) in templates.enumerated() {
            for other in templates[(index + 1)...] {
                #expect(!template.overlaps(other), "\(template) and \(other) match the same paths")
            }
        }
    }

    @Test func aPathFindsItsTemplateWithItsParameters() throws {
        let match = try #require(RouteMatch.find("//v1/calls/0d4c/accept/", in: APIRouter.routes))
        #expect(match.parameters == ["call_id": "0d4c"])
        #expect(match.allowedMethods == ["POST"])
        #expect(RouteMatch.find("/v1/calls/0d4c/unknown", in: APIRouter.routes) == nil)
        #expect(RouteMatch.find("/v1/calls/0d4c/accept/more", in: APIRouter.routes) == nil)
        #expect(RouteMatch.find("/v1", in: APIRouter.routes) == nil)
    }

    @Test func allowNamesTheTablesMethodsThenHeadWhereGetIs() throws {
        #expect(
            try #require(RouteMatch.find("/v1/calls", in: APIRouter.routes)).allowedMethods == ["GET", "POST", "HEAD"])
        #expect(
            try #require(RouteMatch.find("/v1/devices/p", in: APIRouter.routes)).allowedMethods == ["PUT", "DELETE"])
        #expect(try #require(RouteMatch.find("/healthz", in: APIRouter.routes)).allowedMethods == ["GET", "HEAD"])
        let events = try #require(RouteMatch.find("/v1/events", in: APIRouter.routes))
        #expect(events.route(for: "HEAD")?.method == "GET")
        #expect(events.route(for: "POST") == nil)
    }

    @Test func aMethodLibWebSocketsLeavesToTheRouterIsAnsweredFromTheTable() {
        let trace = APIRouter.unknownMethodResponse(method: "TRACE", path: "/v1/calls")
        #expect(trace.status == 405)
        #expect(trace.headers.first { $0.0 == "allow" }?.1 == "GET, POST, HEAD")
        #expect(APIRouter.unknownMethodResponse(method: "QUERY", path: "/v1/nothing").status == 404)
        #expect(APIRouter.unknownMethodResponse(method: "BREW", path: "/v1/calls").status == 501)
    }
}
