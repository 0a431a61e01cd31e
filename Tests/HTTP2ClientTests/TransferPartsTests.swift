import Testing
@testable import HTTP2Client

/// The pieces a request's transfer is built from: the header list handed to libcurl, the pool of reused
/// easy handles, and the origin key of the reconnect backoff.
@Suite struct TransferPartsTests {
    @Test func headerLinesAreLowercasedAndRemoveLibcurlDefaults() {
        let list = HeaderList([.init("APNS-Topic", "dev.app.voip"), .init("X-Empty", ""), .init("authorization", "bearer A.b")])
        defer { list.deallocate() }
        #expect(list.lines == ["apns-topic: dev.app.voip", "x-empty;", "authorization: bearer A.b", "content-type:", "expect:"])
    }

    @Test func givenContentTypeAndExpectAreKeptInAnyCase() {
        let list = HeaderList([.init("Content-Type", "application/json"), .init("EXPECT", "")])
        defer { list.deallocate() }
        #expect(list.lines == ["content-type: application/json", "expect;"])
    }

    @Test func noHeadersStillRemoveTheDefaults() {
        let list = HeaderList([])
        defer { list.deallocate() }
        #expect(list.lines == ["content-type:", "expect:"])
    }

    @Test func poolKeepsAtMostItsCapacity() throws {
        let pool = EasyHandlePool(capacity: 1)
        let first = try #require(pool.take())
        let second = try #require(pool.take())
        #expect(first != second)
        pool.recycle(first)
        pool.recycle(second)  // over capacity: freed
        #expect(pool.spareCount == 1)
        #expect(pool.take() == first)
        #expect(pool.spareCount == 0)
        pool.recycle(first)
    }

    @Test func originIsSchemeHostAndPortLowercased() {
        #expect(PendingResponse.origin(of: "HTTPS://Api.Push.Apple.com:443/3/device/AB?x#y") == "https://api.push.apple.com:443")
        #expect(PendingResponse.origin(of: "http://127.0.0.1:8080") == "http://127.0.0.1:8080")
        #expect(PendingResponse.origin(of: "https://h?q=/") == "https://h")
        #expect(PendingResponse.origin(of: "No-Scheme/Path") == "no-scheme/path")
    }
}
