import Foundation
import RingerCommandLine
import RingerTestSupport
import Testing

@testable import RingerServer

/// `--listen host:port`, IPv6 included.
@Suite struct ListenAddressTests {
    let environment = [
        "RINGER_ADMIN_KEY": APITests.adminKey, "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
    ]

    @Test func aBracketedIPv6ListenAddressIsTheAddressWithoutItsBrackets() throws {
        // RFC 3986 §3.2.2 writes an IPv6 host with a port in brackets; getaddrinfo takes it without them.
        let any = try ServerConfiguration.parse(arguments: ["--listen", "[::]:8080"], environment: environment)
        #expect(any.host == "::" && any.port == 8080)
        let loopback = try ServerConfiguration.parse(arguments: ["--listen", "[::1]:0"], environment: environment)
        #expect(loopback.host == "::1" && loopback.port == 0)
        let plain = try ServerConfiguration.parse(arguments: ["--listen", "127.0.0.1:9"], environment: environment)
        #expect(plain.host == "127.0.0.1" && plain.port == 9)
        for bad in ["[::1", "[::1]", "[::1]8080", "8080", "host:"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ServerConfiguration.parse(arguments: ["--listen", bad], environment: environment)
            }
        }
    }

    @Test func theServerListensOnABracketedIPv6Loopback() async throws {
        let host = try ServerConfiguration.parse(arguments: ["--listen", "[::1]:0"], environment: environment).host
        try await APITests.withServer(configure: { $0.host = host }) { http in
            let port = http.base.port ?? 0
            // curl: Foundation's URL loading on Linux takes no IPv6 literal.
            let result = try await ChildProcess.run([
                "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-g",
                "http://[::1]:\(port)/healthz",
            ])
            #expect(result.standardOutput == "200", "\(result.standardError)")
        }
    }
}
