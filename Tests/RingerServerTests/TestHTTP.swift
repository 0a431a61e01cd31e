import Foundation
import RingerWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A tiny HTTP client for tests: raw status, content type and body, so tests see exactly what the
/// server sent (problem+json included).
struct TestHTTP: Sendable {
    let base: URL

    struct Response: Sendable {
        var status: Int
        var contentType: String?
        var body: Data
        /// The `Retry-After` header, if any.
        var retryAfter: String?
        /// The `Date` header, if any.
        var date: String? = nil
        /// The `WWW-Authenticate` header, if any.
        var wwwAuthenticate: String? = nil

        /// The body as a JSON object (empty when not an object).
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try RingerJSON.decode(type, from: body) }
    }

    /// Sends one request and waits for its answer.
    /// - Parameter timeout: seconds without an answer after which the request fails with `URLError.timedOut`
    ///   (URLSession's default, 60, when nil).
    func send(
        _ method: String, _ path: String, token: String? = nil, json: String? = nil,
        headers: [String: String] = [:], timeout: TimeInterval? = nil
    ) async throws -> Response {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        if let timeout { request.timeoutInterval = timeout }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return Response(
            status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), body: data,
            retryAfter: http.value(forHTTPHeaderField: "Retry-After"), date: http.value(forHTTPHeaderField: "Date"),
            wwwAuthenticate: http.value(forHTTPHeaderField: "WWW-Authenticate"))
    }
}
