import Foundation
import RingerKit
import RingerWire
import Testing

/// The call memory survives the app's process in ``FileCallMemoryStore``: what a new process builds its machine
/// from, so a late push never rings a call that is over and an unconfirmed answer is sent again.
@Suite struct CallMemoryStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-memory-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("call-memory.json") }
    let heardFirst = "4f0c2a9e-0000-4000-8000-00000000000a"
    let diedRinging = "4f0c2a9e-0000-4000-8000-00000000000c"

    init() throws { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }

    @Test func aSavedMemoryIsReadBackWholeByANewStore() {
        defer { try? FileManager.default.removeItem(at: folder) }
        let memory = PhoneCallMachine.Memory(
            endedCalls: [
                heardFirst: .init(reason: .remoteEnded, learnedAt: Date(timeIntervalSince1970: 1_800_000_000)),
                diedRinging: .init(
                    reason: .failed, learnedAt: Date(timeIntervalSince1970: 1_800_000_030), shownHere: true),
            ],
            unconfirmedAnswers: [
                "4f0c2a9e-0000-4000-8000-00000000000b": .init(
                    caller: Party(id: "alice", name: "Alice"), calleeID: "bob", hasVideo: true,
                    expiresAt: Date(timeIntervalSince1970: 1_800_000_030),
                    localDeadline: Date(timeIntervalSince1970: 1_800_000_029.5))
            ])
        FileCallMemoryStore(url: file).save(memory)
        #expect(FileCallMemoryStore(url: file).load() == memory)
    }

    /// A file an earlier version wrote has no `shownHere`: its ends read as ends heard first.
    @Test func anEndStoredWithoutShownHereReadsAsAnEndHeardFirst() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let stored = PhoneCallMachine.Memory(endedCalls: [
            heardFirst: .init(reason: .unanswered, learnedAt: Date(timeIntervalSince1970: 1_800_000_000))
        ])
        var json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(stored)) as? [String: Any])
        var ended = try #require(json["endedCalls"] as? [String: [String: Any]])
        ended[heardFirst]?["shownHere"] = nil
        json["endedCalls"] = ended
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        #expect(FileCallMemoryStore(url: file).load() == stored)
        #expect(FileCallMemoryStore(url: file).load().endedCalls[heardFirst]?.shownHere == false)
    }

    @Test func aMissingOrCorruptFileReadsAsAnEmptyMemory() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(FileCallMemoryStore(url: file).load() == PhoneCallMachine.Memory())
        try Data("{\"endedCalls\": {".utf8).write(to: file)
        #expect(FileCallMemoryStore(url: file).load() == PhoneCallMachine.Memory())
    }
}
