// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
public import Foundation
public import RingerKit

extension RingerPhone {
    /// The `UserDefaults` key of a user's event-stream resume point: per user, so a user switch on
    /// the phone never resumes another user's stream (docs/openapi.yaml, `since`).
    static func resumePointKey(userID: String) -> String { "dev.ringer.events.since." + userID }

    /// The suite's `UserDefaults`, or `.standard` for nil.
    static func defaults(_ suite: String?) -> UserDefaults {
        suite.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    /// A ``FilePendingActionStore`` at `Application Support/Ringer/pending-call-actions.json`, so a
    /// decline made on the lock screen reaches the server after a relaunch. Falls back to memory when
    /// the folder cannot be created.
    /// - Returns: the store.
    public static func defaultPendingActionStore() -> any PendingActionStore {
        guard let file = supportFile("pending-call-actions.json") else { return InMemoryPendingActionStore() }
        return FilePendingActionStore(url: file)
    }

    /// A ``FileCallMemoryStore`` at `Application Support/Ringer/call-memory.json`, so an answer given just
    /// before the app's process died still connects after a relaunch, and a late push never rings a call that
    /// is over. Falls back to memory when the folder cannot be created.
    /// - Returns: the store.
    public static func defaultCallMemoryStore() -> any CallMemoryStore {
        guard let file = supportFile("call-memory.json") else { return InMemoryCallMemoryStore() }
        return FileCallMemoryStore(url: file)
    }

    /// `Application Support/Ringer/<name>`, creating the folder; nil when it cannot be created.
    static func supportFile(_ name: String) -> URL? {
        let files = FileManager.default
        guard let support = files.urls(for: .applicationSupportDirectory, in: .userDomainMask).first else { return nil }
        let folder = support.appendingPathComponent("Ringer", isDirectory: true)
        guard (try? files.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return nil }
        return folder.appendingPathComponent(name)
    }
}
#endif
