import Foundation
import RingerCommandLine
import RingerHTTP
import RingerTestKit
import RingerWire
import Testing

@testable import RingerServer

/// The rate limits end to end over loopback with the real server, on a clock the test moves by hand
/// (docs/security.md "Rate limits").
@Suite(.serialized) struct RateLimitTests {
    static let forged = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.AAAA"

    static func expectRateLimited(
        _ response: TestHTTP.Response, retryAfter: Int? = nil, naming flag: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        APITests.expectProblem(response, status: 429, type: .rateLimited, sourceLocation: sourceLocation)
        let seconds = response.retryAfter.flatMap(Int.init)
        #expect(
            seconds != nil && seconds! >= 1, "Retry-After \(response.retryAfter ?? "missing")",
            sourceLocation: sourceLocation)
        if let retryAfter { #expect(seconds == retryAfter, sourceLocation: sourceLocation) }
        #expect(
            (response.object["detail"] as? String)?.contains("--" + flag) == true,
            "\(response.object["detail"] ?? "no detail")", sourceLocation: sourceLocation)
    }

    static func calls(_ http: TestHTTP, token: String) async throws -> [Call] {
        try (try await http.send("GET", "/v1/calls?limit=100", token: token)).decode(CallList.self).calls
    }

    @Test func aCallerOverTheCallLimitGets429WithRetryAfterAndRingsNobody() async throws {
        let clock = ManualServerClock(sleeps: .never)
        try await APITests.withServer(clock: clock, configure: { $0.rateLimits.callsPerCallerPerMinute = 3 }) { http in
            let alice = try await APITests.token(http, "alice")
            var callees: [String: String] = [:]
            for name in ["bob", "carol", "dave", "erin"] {
                callees[name] = try await APITests.token(http, name)
                try await APITests.registerPhone(
                    http, token: callees[name]!, device: "\(name)-iphone",
                    voip: String(repeating: ["bob": "b1", "carol": "c2", "dave": "d3", "erin": "e4"][name]!, count: 32))
            }
            for name in ["bob", "carol", "dave"] {
                let placed = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"\#(name)"}"#)
                #expect(try placed.decode(Call.self).state == .ringing)
            }
            let refused = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"erin"}"#)
            // Three a minute: one more every 20 s.
            Self.expectRateLimited(refused, retryAfter: 20, naming: "rate-limit-calls-per-minute")
            // Nothing stored, so nothing rang: erin has no call, and alice's list holds the three.
            #expect(try await Self.calls(http, token: callees["erin"]!).isEmpty)
            #expect(try await Self.calls(http, token: alice).count == 3)
            // Another caller is not held back by alice's limit.
            #expect(
                try await http.send("POST", "/v1/calls", token: callees["bob"]!, json: #"{"callee":"erin"}"#).status
                    == 201)
            clock.advance(by: 19)
            Self.expectRateLimited(
                try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"erin"}"#),
                retryAfter: 1, naming: "rate-limit-calls-per-minute")
            clock.advance(by: 1)
            #expect(try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"erin"}"#).status == 201)
        }
    }

    @Test func oneCallerCannotRingOneCalleeDozensOfTimes() async throws {
        let clock = ManualServerClock(sleeps: .never)
        // The defaults: ten calls a minute from one caller to one callee.
        try await APITests.withServer(clock: clock) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            let carol = try await APITests.token(http, "carol")
            let dave = try await APITests.token(http, "dave")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            try await APITests.registerPhone(
                http, token: dave, device: "dave-iphone", voip: String(repeating: "cd", count: 32))
            for _ in 0..<10 {
                let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                #expect(call.state == .ringing)
                #expect(try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: alice).status == 200)
            }
            let refused = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)
            Self.expectRateLimited(refused, retryAfter: 6, naming: "rate-limit-calls-to-one-callee-per-minute")
            #expect(try await Self.calls(http, token: bob).count == 10)
            // The limit is the pair's: alice may call someone else, and bob may be called by someone else.
            #expect(try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"dave"}"#).status == 201)
            #expect(try await http.send("POST", "/v1/calls", token: carol, json: #"{"callee":"bob"}"#).status == 201)
        }
    }

    @Test func aRetriedCallWithTheSameIdempotencyKeySpendsNothing() async throws {
        try await APITests.withServer(configure: { $0.rateLimits.callsPerCallerPerMinute = 1 }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            for _ in 0..<3 {
                let placed = try await http.send(
                    "POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#,
                    headers: ["Idempotency-Key": "k-1"])
                #expect(placed.status == 201)
            }
        }
    }

    @Test func failedAuthenticationsFromOneAddressAreSlowedDown() async throws {
        let clock = ManualServerClock(sleeps: .never)
        try await APITests.withServer(clock: clock, configure: { $0.rateLimits.authFailuresPerAddressPerMinute = 5 }) {
            http in
            let alice = try await APITests.token(http, "alice")
            // A request without credentials guesses nothing and is not counted.
            for _ in 0..<10 { #expect(try await http.send("GET", "/v1/devices").status == 401) }
            for _ in 0..<4 { #expect(try await http.send("GET", "/v1/devices", token: Self.forged).status == 401) }
            // A wrong admin key counts as well.
            #expect(
                try await http.send("POST", "/v1/tokens", token: "wrong-admin-key", json: #"{"user_id":"x"}"#).status
                    == 401)
            Self.expectRateLimited(
                try await http.send("GET", "/v1/devices", token: Self.forged), retryAfter: 12,
                naming: "rate-limit-auth-failures-per-minute")
            // Past the limit the address's credentials are refused unchecked, so a right guess looks like a wrong one.
            Self.expectRateLimited(
                try await http.send("GET", "/v1/devices", token: alice),
                naming: "rate-limit-auth-failures-per-minute")
            Self.expectRateLimited(
                try await http.send("POST", "/v1/tokens", token: APITests.adminKey, json: #"{"user_id":"x"}"#),
                naming: "rate-limit-auth-failures-per-minute")
            clock.advance(by: 12)
            #expect(try await http.send("GET", "/v1/devices", token: alice).status == 200)
        }
    }

    @Test func forwardedForIsTrustedOnlyFromConfiguredProxies() async throws {
        /// The answer to a forged token sent with `X-Forwarded-For: forwardedFor`.
        func guess(_ http: TestHTTP, from forwardedFor: String) async throws -> TestHTTP.Response {
            try await http.send("GET", "/v1/devices", token: Self.forged, headers: ["X-Forwarded-For": forwardedFor])
        }
        let flag = "rate-limit-auth-failures-per-minute"
        // No trusted proxy: the header is the client's own claim and changes nothing.
        try await APITests.withServer(configure: { $0.rateLimits.authFailuresPerAddressPerMinute = 3 }) { http in
            for index in 0..<3 { #expect(try await guess(http, from: "198.51.100.\(index)").status == 401) }
            Self.expectRateLimited(try await guess(http, from: "198.51.100.99"), naming: flag)
        }
        // Loopback is the proxy: the client is the right-most address it did not add itself.
        let loopback = try ["127.0.0.0/8", "::1"].map(AddressRange.init)
        try await APITests.withServer(configure: {
            $0.rateLimits.authFailuresPerAddressPerMinute = 3
            $0.trustedProxies = loopback
        }) { http in
            for _ in 0..<3 { #expect(try await guess(http, from: "203.0.113.5").status == 401) }
            Self.expectRateLimited(try await guess(http, from: "203.0.113.5"), naming: flag)
            // Another client behind the same proxy has its own budget.
            #expect(try await guess(http, from: "203.0.113.6").status == 401)
            // An address the client wrote in front of the one the proxy appended proves nothing.
            Self.expectRateLimited(try await guess(http, from: "203.0.113.77, 203.0.113.5"), naming: flag)
            // A chain of trusted proxies is walked through.
            Self.expectRateLimited(try await guess(http, from: "203.0.113.5, 127.0.0.9"), naming: flag)
        }
    }

    @Test func askingForUnknownCalleesIsSlowedDownWithoutTellingThemApart() async throws {
        let clock = ManualServerClock(sleeps: .never)
        let proxy = try AddressRange("127.0.0.1")
        try await APITests.withServer(
            clock: clock,
            configure: {
                $0.rateLimits.unknownCalleesPerMinute = 3
                $0.trustedProxies = [proxy]
            }
        ) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            let carol = try await APITests.token(http, "carol")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let aliceAt = ["X-Forwarded-For": "203.0.113.5"]
            for index in 0..<3 {
                APITests.expectProblem(
                    try await http.send(
                        "POST", "/v1/calls", token: alice, json: #"{"callee":"nobody-\#(index)"}"#,
                        headers: aliceAt),
                    status: 404, type: .userNotFound)
            }
            // Past the limit a known callee and an unknown one get the same answer, so it tells nothing.
            for callee in ["bob", "nobody-9"] {
                Self.expectRateLimited(
                    try await http.send(
                        "POST", "/v1/calls", token: alice, json: #"{"callee":"\#(callee)"}"#,
                        headers: aliceAt),
                    retryAfter: 20, naming: "rate-limit-unknown-callees-per-minute")
            }
            #expect(try await Self.calls(http, token: bob).isEmpty)
            // The same address under another user's token is held back too; another address is not.
            Self.expectRateLimited(
                try await http.send(
                    "POST", "/v1/calls", token: carol, json: #"{"callee":"bob"}"#,
                    headers: aliceAt),
                naming: "rate-limit-unknown-callees-per-minute")
            #expect(
                try await http.send(
                    "POST", "/v1/calls", token: carol, json: #"{"callee":"bob"}"#,
                    headers: ["X-Forwarded-For": "203.0.113.6"]
                ).status == 201)
            clock.advance(by: 20)
            #expect(
                try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#, headers: aliceAt)
                    .status == 201)
        }
    }

    @Test func deviceChangesOfOneUserAreLimited() async throws {
        try await APITests.withServer(configure: { $0.rateLimits.deviceChangesPerUserPerMinute = 2 }) { http in
            let bob = try await APITests.token(http, "bob")
            let carol = try await APITests.token(http, "carol")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            #expect(try await http.send("DELETE", "/v1/devices/bob-iphone", token: bob).status == 204)
            Self.expectRateLimited(
                try await http.send(
                    "PUT", "/v1/devices/bob-iphone", token: bob,
                    json: """
                        {"platform":"ios","voip_token":"\(APITests.voip)","apns_environment":"sandbox","bundle_id":"com.example.app"}
                        """), retryAfter: 30, naming: "rate-limit-device-changes-per-minute")
            Self.expectRateLimited(
                try await http.send("DELETE", "/v1/devices/bob-iphone", token: bob),
                naming: "rate-limit-device-changes-per-minute")
            // Reading is not a change; another user has a budget of their own.
            #expect(try await http.send("GET", "/v1/devices", token: bob).status == 200)
            try await APITests.registerPhone(http, token: carol, device: "carol-iphone")
        }
    }

    @Test func aZeroLimitSwitchesItOff() async throws {
        try await APITests.withServer(configure: { $0.rateLimits = .off }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            for _ in 0..<40 {
                #expect(
                    try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#).status == 201)
            }
        }
    }

    /// Issue 26: each caller may ring one callee ten times a minute, but nothing capped the callers together, so
    /// many accounts could ring one phone hundreds of times a minute. The callee's own budget counts every caller.
    @Test func manyCallersTogetherCannotRingOneCalleePastItsBudget() async throws {
        let clock = ManualServerClock(sleeps: .never)
        try await APITests.withServer(clock: clock, configure: { $0.rateLimits.callsPerCalleePerMinute = 3 }) { http in
            let bob = try await APITests.token(http, "bob")
            _ = try await APITests.token(http, "dave")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            var callers: [String] = []
            for name in ["alice", "carol", "erin", "frank"] { callers.append(try await APITests.token(http, name)) }
            for caller in callers.prefix(3) {
                let call = try (try await http.send("POST", "/v1/calls", token: caller, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                #expect(try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: caller).status == 200)
            }
            let refused = try await http.send("POST", "/v1/calls", token: callers[3], json: #"{"callee":"bob"}"#)
            Self.expectRateLimited(refused, retryAfter: 20, naming: "rate-limit-calls-per-callee-per-minute")
            #expect(try await Self.calls(http, token: bob).count == 3)
            // Another callee is not affected, and bob's budget refills over the minute.
            #expect(
                try await http.send("POST", "/v1/calls", token: callers[3], json: #"{"callee":"dave"}"#).status == 201)
            clock.advance(by: 20)
            #expect(
                try await http.send("POST", "/v1/calls", token: callers[3], json: #"{"callee":"bob"}"#).status == 201)
        }
    }

    /// Found by review: three accounts calling the callee ten times a minute each spent the callee's budget, and
    /// every other caller got 429: the budget against strangers locked out the callee's contacts. A caller the
    /// callee has talked with (a call between them was answered) is not held back by it; strangers still are.
    @Test func strangersSpendingTheCalleesBudgetDoNotLockOutTheCalleesContacts() async throws {
        let clock = ManualServerClock(sleeps: .never)
        // Three a minute: friend's first call and two strangers' spend it.
        try await APITests.withServer(clock: clock, configure: { $0.rateLimits.callsPerCalleePerMinute = 3 }) { http in
            let bob = try await APITests.token(http, "bob")
            let friend = try await APITests.token(http, "friend")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            // friend and bob talked once.
            let first = try (try await http.send("POST", "/v1/calls", token: friend, json: #"{"callee":"bob"}"#))
                .decode(Call.self)
            #expect(
                try await http.send(
                    "POST", "/v1/calls/\(first.callID)/accept", token: bob,
                    json: #"{"device_id":"bob-iphone"}"#
                ).status == 200)
            #expect(try await http.send("POST", "/v1/calls/\(first.callID)/end", token: bob).status == 200)
            // Strangers spend the rest of bob's budget, and the next stranger is refused.
            for name in ["s1", "s2"] {
                let stranger = try await APITests.token(http, name)
                let call = try (try await http.send("POST", "/v1/calls", token: stranger, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                _ = try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: stranger)
            }
            let third = try await APITests.token(http, "s3")
            Self.expectRateLimited(
                try await http.send("POST", "/v1/calls", token: third, json: #"{"callee":"bob"}"#),
                naming: "rate-limit-calls-per-callee-per-minute")
            // bob's contact still gets through.
            #expect(try await http.send("POST", "/v1/calls", token: friend, json: #"{"callee":"bob"}"#).status == 201)
        }
    }

    @Test func theLimitsAreFlagsAndEnvironmentVariables() throws {
        let environment = [
            "RINGER_ADMIN_KEY": APITests.adminKey, "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
        ]
        let defaults = try ServerConfiguration.parse(arguments: [], environment: environment)
        #expect(defaults.rateLimits == RateLimitSettings())
        #expect(
            defaults.rateLimits.callsPerCallerPerMinute == 30 && defaults.rateLimits.callsToOneCalleePerMinute == 10)
        #expect(defaults.rateLimits.callsPerCalleePerMinute == 30)
        #expect(defaults.trustedProxies.isEmpty)
        let flags = try ServerConfiguration.parse(
            arguments: [
                "--rate-limit-calls-per-minute", "5", "--rate-limit-calls-to-one-callee-per-minute", "2",
                "--rate-limit-device-changes-per-minute", "0", "--rate-limit-auth-failures-per-minute=7",
                "--rate-limit-unknown-callees-per-minute", "9", "--rate-limit-calls-per-callee-per-minute", "4",
                "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "fd00::/8",
            ], environment: environment)
        #expect(flags.rateLimits.callsPerCallerPerMinute == 5)
        #expect(flags.rateLimits.callsToOneCalleePerMinute == 2)
        #expect(flags.rateLimits.deviceChangesPerUserPerMinute == 0)
        #expect(flags.rateLimits.authFailuresPerAddressPerMinute == 7)
        #expect(flags.rateLimits.unknownCalleesPerMinute == 9)
        #expect(flags.rateLimits.callsPerCalleePerMinute == 4)
        #expect(flags.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8"])
        let fromEnvironment = try ServerConfiguration.parse(
            arguments: [],
            environment: environment.merging([
                "RINGER_RATE_LIMIT_CALLS_PER_MINUTE": "0", "RINGER_TRUSTED_PROXY": "10.1.0.0/16, 192.0.2.7",
            ]) { $1 })
        #expect(fromEnvironment.rateLimits.callsPerCallerPerMinute == 0)
        #expect(fromEnvironment.trustedProxies.map(\.description) == ["10.1.0.0/16", "192.0.2.7"])
        for bad in [
            ["--rate-limit-calls-per-minute", "-1"], ["--rate-limit-calls-per-minute", "many"],
            ["--trusted-proxy", "proxy.example"], ["--trusted-proxy", "10.0.0.0/33"], ["--trusted-proxy", "::/129"],
        ] {
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration.parse(arguments: bad, environment: environment)
            }
        }
    }

    @Test func theBenchmarksRunTheServerWithEveryLimitOff() throws {
        let environment = [
            "RINGER_ADMIN_KEY": APITests.adminKey, "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
        ]
        #expect(
            try ServerConfiguration.parse(arguments: LaboratoryServeFlags.rateLimitsOff, environment: environment)
                .rateLimits
                == .off)
    }
}

/// The client address behind proxies, and the key per-address limits count under.
@Suite struct ClientAddressTests {
    let resolver = ClientAddressResolver(trusted: [
        try! AddressRange("10.0.0.0/8"), try! AddressRange("2001:db8:ffff::/48"),
    ])

    @Test func withoutATrustedPeerTheHeaderIsIgnored() {
        #expect(resolver.client(peer: "198.51.100.1", forwardedFor: "203.0.113.5")?.description == "198.51.100.1")
        #expect(resolver.client(peer: nil, forwardedFor: "203.0.113.5") == nil)
    }

    @Test func theRightMostUntrustedHopIsTheClient() {
        #expect(
            resolver.client(peer: "10.0.0.2", forwardedFor: "1.1.1.1, 203.0.113.5, 10.9.9.9")?.description
                == "203.0.113.5")
        #expect(resolver.client(peer: "10.0.0.2", forwardedFor: nil)?.description == "10.0.0.2")
        // Every hop trusted: the farthest one is the nearest client known.
        #expect(resolver.client(peer: "10.0.0.2", forwardedFor: "10.1.1.1")?.description == "10.1.1.1")
        // Garbage stops the walk at the last proxy believed.
        #expect(
            resolver.client(peer: "10.0.0.2", forwardedFor: "203.0.113.5, unknown, 10.3.3.3")?.description == "10.3.3.3"
        )
        #expect(
            resolver.client(peer: "2001:db8:ffff::1", forwardedFor: "2001:db8:1:2::99")?.description
                == "2001:db8:1:2::99")
    }

    @Test func aDualStackPeerIsTheIPv4AddressItMaps() {
        #expect(resolver.client(peer: "::ffff:10.0.0.2", forwardedFor: "203.0.113.5")?.description == "203.0.113.5")
        #expect(IPAddress("::ffff:192.0.2.1") == IPAddress("192.0.2.1"))
        #expect(IPAddress("::ffff:192.0.2.1")?.limitKey == "192.0.2.1")
    }

    @Test func anIPv6ClientIsCountedByItsSlash64() {
        #expect(IPAddress("2001:db8:1:2:aaaa::1")?.limitKey == "2001:db8:1:2::/64")
        #expect(IPAddress("2001:db8:1:2:bbbb::7")?.limitKey == IPAddress("2001:db8:1:2:aaaa::1")?.limitKey)
        #expect(IPAddress("2001:db8:1:3::1")?.limitKey != IPAddress("2001:db8:1:2::1")?.limitKey)
    }

    @Test func rangesMatchTheirPrefixOnly() throws {
        let range = try AddressRange("192.168.4.0/22")
        #expect(range.contains(IPAddress("192.168.7.255")!))
        #expect(!range.contains(IPAddress("192.168.8.0")!))
        #expect(try AddressRange("0.0.0.0/0").contains(IPAddress("8.8.8.8")!))
        #expect(!(try AddressRange("0.0.0.0/0")).contains(IPAddress("2001:db8::1")!))
        #expect(try AddressRange("192.0.2.7").contains(IPAddress("192.0.2.7")!))
        #expect(!(try AddressRange("192.0.2.7")).contains(IPAddress("192.0.2.8")!))
        #expect(IPAddress("example.com") == nil && IPAddress("1.2.3.4:80") == nil && IPAddress("") == nil)
    }
}

/// What a caller may learn about a callee (docs/security.md "What a caller learns about a callee").
@Suite(.serialized) struct CalleePrivacyTests {
    @Test func aCallerLearnsThatACalleeCannotBeReachedButNotWhy() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            _ = try await APITests.token(http, "bob")
            let carol = try await APITests.token(http, "carol")
            // Bob has no device at all; carol has one that cannot be woken for a call (an iPhone with only an
            // alert-push token, no VoIP token).
            let registered = try await http.send(
                "PUT", "/v1/devices/carol-iphone", token: carol,
                json: """
                    {"platform":"ios","apns_token":"\(APITests.voip)","apns_environment":"sandbox","bundle_id":"com.example.app"}
                    """)
            #expect(registered.status == 200)
            let toBob = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            let toCarol = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"carol"}"#))
                .decode(Call.self)
            #expect(toBob.state == .failed && toCarol.state == .failed)
            #expect(toBob.failureReason == "bob cannot be reached")
            #expect(toCarol.failureReason == "carol cannot be reached")
        }
    }

    @Test func onlyTheCalleeSeesThePushesSentToTheirDevices() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            APITests.expectProblem(
                try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: alice),
                status: 403, type: .forbidden)
            let asCaller = try await http.send("GET", "/v1/calls/\(call.callID)", token: alice)
            #expect(asCaller.status == 200)
            #expect(asCaller.object["pushes"] == nil)
            #expect(try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: bob).status == 200)
            #expect(try await http.send("GET", "/v1/calls/\(call.callID)", token: bob).object["pushes"] is [Any])
        }
    }
}
