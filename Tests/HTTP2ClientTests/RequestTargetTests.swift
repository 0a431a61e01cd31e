import Testing

@testable import HTTP2Client

/// How a request URL becomes the connection key and the HTTP/2 pseudo-headers (RFC 9113 §8.3.1).
@Suite struct RequestTargetTests {
    @Test func originIsSchemeHostAndPortLowercasedWithDefaultPorts() throws {
        let apns = try RequestTarget(url: "HTTPS://Api.Push.Apple.com/3/device/AB?x=1#frag")
        #expect(apns.origin == "https://api.push.apple.com:443")
        #expect(apns.authority == "Api.Push.Apple.com")
        #expect(apns.path == "/3/device/AB?x=1")
        #expect(!apns.hostIsAddress)
        let plain = try RequestTarget(url: "http://127.0.0.1:8080")
        #expect(plain.origin == "http://127.0.0.1:8080")
        #expect(plain.path == "/")
        #expect(plain.hostIsAddress && !plain.isSecure)
        #expect(try RequestTarget(url: "https://h?q=/").path == "/?q=/")
    }

    @Test func ipv6LiteralsKeepTheirBracketsOnlyInTheAuthority() throws {
        let target = try RequestTarget(url: "https://[::1]:2197/3/device/ab")
        #expect(target.host == "::1")
        #expect(target.port == 2197)
        #expect(target.authority == "[::1]:2197")
        #expect(target.origin == "https://[::1]:2197")
        #expect(target.hostIsAddress)
    }

    @Test(arguments: [
        "https://Api.Push.Apple.com/3/device/CD", "https://Api.Push.Apple.com/3/device/CD?y=2#f",
        "https://Api.Push.Apple.com:443/3/device/CD", "https://api.push.apple.com/3/device/CD",
        "https://Api.Push.Apple.com.evil/3/device/CD", "https://Api.Push.Apple.com", "https://Api.Push.Apple.com?q=1",
        "http://Api.Push.Apple.com/3/device/CD",
    ])
    func aURLSplitReusingAnEarlierTargetIsTheSameAsASplitInFull(url: String) throws {
        let known = try RequestTarget(url: "https://Api.Push.Apple.com/3/device/AB")
        let (target, reused) = try RequestTarget.parse(url: url, reusing: known)
        #expect(target == (try RequestTarget(url: url)))
        // Only a URL with the very same scheme and authority, then a path, takes the shortcut.
        #expect(reused == url.hasPrefix("https://Api.Push.Apple.com/"))
    }

    @Test(arguments: [
        "ftp://h/x", "https://", "https://:443/", "https://h:0/", "https://h:99999/", "https://h:8a/",
        "https://user@h/", "https://[::1/", "no-scheme/path",
    ])
    func malformedURLsAreInvalidRequests(url: String) {
        #expect(throws: HTTP2ClientError.self) { try RequestTarget(url: url) }
    }
}
