import Foundation
@testable import RingerKitAppleMirrored
import Testing

/// The installation id, the device id the server knows the phone by: in a file out of backups, not in
/// `UserDefaults`, which a backup restored onto a new phone carries, so a restored phone never takes over the old
/// phone's registration.
@Suite struct InstallationIDTests {
    /// A fresh folder for the id's file and a fresh `UserDefaults` suite, removed at the end.
    struct Install {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-id-\(UUID().uuidString)")
        let suite = "ringer-id-\(UUID().uuidString)"
        var file: URL { folder.appendingPathComponent(RingerPhone.installationIDFileName) }
        var defaults: UserDefaults { UserDefaults(suiteName: suite)! }
        var stored: String? { (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) } }
        var inDefaults: String? { defaults.string(forKey: RingerPhone.installationIDKey) }

        func id(readData: (URL) throws -> Data = { try Data(contentsOf: $0) }) -> String {
            RingerPhone.installationID(defaults: defaults, file: file, readData: readData)
        }

        func remove() {
            UserDefaults.standard.removePersistentDomain(forName: suite)
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func theInstallationIDIsKeptInAFileOutOfBackupsNotInUserDefaults() throws {
        let install = Install()
        defer { install.remove() }
        let id = install.id()
        #expect(UUID(uuidString: id) != nil)
        #expect(id == id.lowercased())
        #expect(install.stored == id)
        #expect(install.inDefaults == nil)
        #expect(install.id() == id)
        #if canImport(Darwin)
        #expect(try install.file.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup == true)
        #endif

        // A reinstall (the container deleted) makes a new one.
        try FileManager.default.removeItem(at: install.folder)
        #expect(install.id() != id)
    }

    @Test func anEarlierVersionsIDMovesFromUserDefaultsToTheFileOnceWritten() throws {
        let install = Install()
        defer { install.remove() }
        install.defaults.set("old-phone-id", forKey: RingerPhone.installationIDKey)
        #expect(install.id() == "old-phone-id")
        #expect(install.stored == "old-phone-id")
        #expect(install.inDefaults == nil)
        #expect(install.id() == "old-phone-id")

        // The file cannot be written (its folder is a file): the id stays in UserDefaults.
        let blocked = Install()
        defer { blocked.remove() }
        try Data().write(to: blocked.folder)
        blocked.defaults.set("old-phone-id", forKey: RingerPhone.installationIDKey)
        #expect(blocked.id() == "old-phone-id")
        #expect(blocked.inDefaults == "old-phone-id")
        let made = Install()
        defer { made.remove() }
        try Data().write(to: made.folder)
        let id = made.id()
        #expect(made.inDefaults == id)
        #expect(made.id() == id)
    }

    /// A file that is there but cannot be read is never replaced: `UserDefaults`' copy if any, else one id for the
    /// process, and the file's id once it can be read.
    @Test func anUnreadableIDFileIsNeverReplaced() throws {
        let install = Install()
        defer { install.remove() }
        let id = install.id()
        let locked: (URL) throws -> Data = { _ in throw CocoaError(.fileReadNoPermission) }

        install.defaults.set("copy-id", forKey: RingerPhone.installationIDKey)
        #expect(install.id(readData: locked) == "copy-id")
        #expect(install.inDefaults == "copy-id")
        install.defaults.removeObject(forKey: RingerPhone.installationIDKey)

        let forNow = install.id(readData: locked)
        #expect(forNow != id)
        #expect(install.id(readData: locked) == forNow)
        #expect(install.stored == id)
        #expect(install.inDefaults == nil)
        #expect(install.id() == id)
    }
}
