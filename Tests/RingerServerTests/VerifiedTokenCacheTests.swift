import Foundation
import RingerWire
import Testing

@testable import RingerServer

/// A user token checked once is taken from the cache of verified tokens afterwards (issue 33), but only those very
/// bytes, and its times are checked again on every request.
struct VerifiedTokenCacheTests {
    static let secret = String(repeating: "k", count: 32)

    @Test func aCachedTokenStillExpires() throws {
        let tokens = try UserTokens(secret: Self.secret)
        let start = Date(timeIntervalSince1970: 1_796_000_000)
        let token = try tokens.mint(userID: "alice", name: "Alice", ttl: 60, now: start).token
        #expect(try tokens.verify(token, now: start).sub == "alice")
        #expect(try tokens.verify(token, now: start.addingTimeInterval(60)).name == "Alice")
        // Past exp and the 60 s of leeway: refused, though the signature was checked before.
        #expect(throws: Problem.self) { try tokens.verify(token, now: start.addingTimeInterval(121)) }
        // Refusing it dropped nothing that matters: at a time it is valid, it is valid again.
        #expect(try tokens.verify(token, now: start).sub == "alice")
    }

    @Test func aTokenDifferingInOneByteFromACachedOneIsCheckedInFullAndRefused() throws {
        let tokens = try UserTokens(secret: Self.secret)
        let now = Date(timeIntervalSince1970: 1_796_000_000)
        let token = try tokens.mint(userID: "alice", name: nil, ttl: 3600, now: now).token
        _ = try tokens.verify(token, now: now)
        var bytes = Array(token.utf8)
        bytes[bytes.count - 2] = bytes[bytes.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forged = String(decoding: bytes, as: UTF8.self)
        #expect(throws: Problem.self) { try tokens.verify(forged, now: now) }
        let other = try UserTokens(secret: String(repeating: "z", count: 32))
        let foreign = try other.mint(userID: "alice", name: nil, ttl: 3600, now: now).token
        #expect(throws: Problem.self) { try tokens.verify(foreign, now: now) }
    }

    @Test func aTokenNotYetValidIsNotKeptAndIsValidLater() throws {
        let tokens = try UserTokens(secret: Self.secret)
        let issued = Date(timeIntervalSince1970: 1_796_000_000)
        let token = try tokens.mint(userID: "bob", name: nil, ttl: 3600, now: issued)
        #expect(throws: Problem.self) { try tokens.verify(token.token, now: issued.addingTimeInterval(-600)) }
        #expect(try tokens.verify(token.token, now: issued).sub == "bob")
    }

    @Test func moreTokensThanTheCacheKeepsAreAllStillVerified() throws {
        let tokens = try UserTokens(secret: Self.secret)
        let now = Date(timeIntervalSince1970: 1_796_000_000)
        let minted = try (0..<(UserTokens.verifiedTokensKept + 10)).map {
            try tokens.mint(userID: "user-\($0)", name: nil, ttl: 3600, now: now).token
        }
        for (index, token) in minted.enumerated() { #expect(try tokens.verify(token, now: now).sub == "user-\(index)") }
        #expect(try tokens.verify(minted[0], now: now).sub == "user-0")
    }
}
