import Foundation
import RingerRedis
import Testing

@Suite struct RedisURLTests {
    @Test func fullURLGivesUserHostPortAndDatabase() throws {
        let url = try RedisURL(parsing: "redis://alice:s3cret@cache.internal:6380/2")
        #expect(url.host == "cache.internal")
        #expect(url.port == 6380)
        #expect(url.database == 2)
        #expect(url.user == "alice")
        #expect(url.hasPassword)
        #expect(url.endpoint == "cache.internal:6380")
    }

    @Test func portDefaultsTo6379AndDatabaseTo0() throws {
        for text in ["redis://localhost", "redis://localhost/", "REDIS://localhost"] {
            let url = try RedisURL(parsing: text)
            #expect(url.host == "localhost")
            #expect(url.port == 6379)
            #expect(url.database == 0)
            #expect(url.user == nil)
            #expect(!url.hasPassword)
        }
    }

    @Test func passwordWithoutUserLogsInAsTheDefaultUser() throws {
        let url = try RedisURL(parsing: "redis://:hunter2@10.0.0.5:7000/1")
        #expect(url.user == nil)
        #expect(url.hasPassword)
        #expect(url.description == "redis://:***@10.0.0.5:7000/1")
    }

    @Test func ipv6HostLosesItsBracketsAndKeepsThemInTheEndpoint() throws {
        let url = try RedisURL(parsing: "redis://[::1]:7001")
        #expect(url.host == "::1")
        #expect(url.endpoint == "[::1]:7001")
    }

    @Test func passwordIsNeverShownByDescriptionDebugDescriptionOrDump() throws {
        let url = try RedisURL(parsing: "redis://alice:s3cret@cache.internal:6380/2")
        var dumped = ""
        dump(url, to: &dumped)
        for text in [url.description, url.debugDescription, String(reflecting: url), "\(url)", dumped] {
            #expect(!text.contains("s3cret"), "\(text)")
        }
        #expect(url.description == "redis://alice:***@cache.internal:6380/2")
        #expect(dumped.contains("cache.internal"))
    }

    @Test func redissIsRefusedWithTheTunnelAdvice() {
        #expect(throws: RedisError.tlsUnsupported) { try RedisURL(parsing: "rediss://:s3cret@managed.example:6380") }
        let message = RedisError.tlsUnsupported.description
        #expect(message.contains("hiredis 0.14"))
        #expect(message.contains("stunnel"))
        #expect(message.contains("loopback"))
    }

    @Test func malformedURLsGetAReasonThatNeverQuotesThePassword() {
        let bad = [
            "http://:hunter2@host",  // wrong scheme
            "redis://:hunter2@",  // no host
            "redis://:hunter2@host:0",  // port out of range
            "redis://:hunter2@host:70000",  // port out of range
            "redis://:hunter2@host/x",  // database not a number
            "redis://:hunter2@host/-1",  // negative database
            "redis://alice@host",  // user without password
            "redis://:hunter2@host/0?timeout=1",  // query
            "not a url at all hunter2",
            "",
        ]
        for text in bad {
            do {
                _ = try RedisURL(parsing: text)
                Issue.record("\(text.count) characters parsed")
            } catch {
                guard case .invalidURL = error else {
                    Issue.record("wrong error \(error)")
                    continue
                }
                #expect(!error.description.contains("hunter2"), "\(error)")
            }
        }
    }
}
