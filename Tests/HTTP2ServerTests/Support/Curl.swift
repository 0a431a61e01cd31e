import Foundation
import RingerTestSupport

/// Runs the `curl` command-line client against a test server.
enum Curl {
    /// What curl received.
    struct Exchange {
        let exitCode: Int32
        let status: Int
        let httpVersion: String
        let headers: [String: String]
        let bodyBytes: Data
        let errorOutput: String

        /// The body as UTF-8 text.
        var body: String { String(decoding: bodyBytes, as: UTF8.self) }
    }

    /// Sends one request with `curl --cacert <test CA>` to `https://localhost:<port><path>`.
    /// - Parameters:
    ///   - path: Path and query.
    ///   - server: The server.
    ///   - options: Extra curl options, e.g. `["--http2", "-X", "POST"]`.
    ///   - body: Request body sent with `--data-binary`, or nil.
    /// - Returns: The exchange; a transport failure shows as a non-zero ``Exchange/exitCode``.
    static func send(
        _ path: String, to server: TestServer, options: [String] = ["--http2"], body: [UInt8]? = nil
    )
        async throws -> Exchange
    {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "h2server-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let headerFile = scratch.appendingPathComponent("headers").path
        let bodyFile = scratch.appendingPathComponent("body").path
        var arguments =
            [
                "curl", "-sS", "--max-time", "20", "--cacert", server.certificates.caFile,
                "-D", headerFile, "-o", bodyFile, "-w", "%{http_code} %{http_version}",
            ] + options
        if let body {
            let upload = scratch.appendingPathComponent("upload")
            try Data(body).write(to: upload)
            arguments += ["--data-binary", "@\(upload.path)"]
        }
        arguments.append("https://localhost:\(server.port)\(path)")
        let result = try await ChildProcess.run(arguments, timeout: 30)
        let summary = result.standardOutput.split(separator: " ")
        var headers: [String: String] = [:]
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        for line in headerText.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Exchange(
            exitCode: result.status, status: summary.first.flatMap { Int($0) } ?? 0,
            httpVersion: summary.count > 1 ? String(summary[1]) : "",
            headers: headers, bodyBytes: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data(),
            errorOutput: result.standardError)
    }
}
