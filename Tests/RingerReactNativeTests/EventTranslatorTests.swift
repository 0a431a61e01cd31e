import RingerKit
@testable import RingerReactNativeMirrored
import RingerWire
import Testing

/// The translator's memory of the calls it saw, beyond what the shared vectors pin (TestVectors/react-native): it
/// is bounded, and a call seen again counts as new.
@Suite struct EventTranslatorTests {
    static func seen(_ translator: inout EventTranslator, _ callID: String) {
        let call = CallSummary(direction: .incoming, peer: Party(id: "alice"), hasVideo: false)
        _ = translator.translate(
            .observation(.pushReported(callID: callID, disposition: .ringing)), calls: [callID: call])
    }

    static func end(_ translator: inout EventTranslator, _ callID: String) -> [String] {
        translator.translate(.observation(.ended(callID: callID, reason: nil)), calls: [:]).map(\.type)
    }

    @Test func theLeastRecentlySeenCallIsForgottenBeyondTheMemory() {
        var translator = EventTranslator()
        let callIDs = (0...EventTranslator.rememberedCalls).map { "call-\($0)" }
        for callID in callIDs { Self.seen(&translator, callID) }
        // Never seen, as far as the translator knows now: a late end is not told.
        #expect(Self.end(&translator, callIDs[0]).isEmpty)
        #expect(Self.end(&translator, callIDs[1]) == ["incoming", "ended"])
    }

    @Test func aCallSeenAgainIsRememberedAsTheNewest() {
        var translator = EventTranslator()
        let callIDs = (0..<EventTranslator.rememberedCalls).map { "call-\($0)" }
        for callID in callIDs { Self.seen(&translator, callID) }
        Self.seen(&translator, callIDs[0])
        Self.seen(&translator, "one-more")
        #expect(Self.end(&translator, callIDs[1]).isEmpty)
        #expect(Self.end(&translator, callIDs[0]) == ["incoming", "ended"])
    }
}
