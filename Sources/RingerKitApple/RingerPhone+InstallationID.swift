// Compiled where Package.swift defines RINGER_CALLKIT (see RingerPhone+Defaults.swift), and on Linux against the
// framework mirrors (Tests/AppleMirrors).
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
public import Foundation
public import RingerKit
import RingerSupport

extension RingerPhone {
    /// The `UserDefaults` key where earlier versions kept ``installationID(defaults:)``.
    static let installationIDKey = "dev.ringer.installation-id"

    /// The name of the installation id's file in `Application Support/Ringer`.
    static let installationIDFileName = "installation-id"

    /// The id this process uses when the id's file is there but cannot be read and `UserDefaults` has no copy;
    /// guards every reading and writing of the id, so two first calls never make two ids.
    private static let unreadableInstallationID = LockedValue<String?>(nil)

    /// A stable id for this app install, the device id the server knows the phone by: a random lowercase UUID made
    /// on first use and kept in the file `Application Support/Ringer/installation-id`, so it is new after a
    /// reinstall (a reinstalled app has new push tokens too).
    ///
    /// - Important: The id must not reach another phone, and must be readable at every launch. A restored backup
    ///   carries `UserDefaults` to a new phone, whose registration under the old phone's id would replace the old
    ///   phone's on the server: the file is excluded from backups (`URLResourceValues.isExcludedFromBackup`) and
    ///   the id leaves `UserDefaults`. A VoIP push may launch the app after a restart, before the first unlock, when
    ///   files protected `completeUntilFirstUserAuthentication` (`UserDefaults` among them) cannot be read, and a
    ///   new id then would register a second device: the file is written without data protection
    ///   (`NSFileProtectionNone`; Apple, "Encrypting your app's files"). The id is no secret: requests name it
    ///   beside the user token, which is what the server checks.
    /// - Note: An id found in `UserDefaults` (kept there by earlier versions) is moved to the file, the same value,
    ///   and removed from `UserDefaults` only once the file is written; when it cannot be written, the id stays in
    ///   `UserDefaults`, as with no Application Support folder. A file that is there but cannot be read is never
    ///   replaced: the id is then `UserDefaults`' copy if there is one, else one random id for this process. A
    ///   backup made before the move still carries the old id in `UserDefaults`. Thread-safe.
    /// - Parameter defaults: where earlier versions kept the id (read to move it to the file).
    /// - Returns: the id.
    public static func installationID(defaults: UserDefaults = .standard) -> String {
        installationID(defaults: defaults, file: supportFile(installationIDFileName))
    }

    /// ``installationID(defaults:)`` with its file given.
    /// - Parameters:
    ///   - defaults: where earlier versions kept the id.
    ///   - file: the id's file; nil keeps the id in `defaults`.
    ///   - readData: reads the file's bytes; tests pass one that fails as a locked phone's file system does.
    /// - Returns: the id.
    static func installationID(
        defaults: UserDefaults, file: URL?, readData: (URL) throws -> Data = { try Data(contentsOf: $0) }
    ) -> String {
        unreadableInstallationID.withLock { unreadable in
            let kept = defaults.string(forKey: installationIDKey).flatMap { $0.isEmpty ? nil : $0 }
            guard let file else {
                if let kept { return kept }
                let id = UUID().uuidString.lowercased()
                defaults.set(id, forKey: installationIDKey)
                return id
            }
            switch readInstallationID(file, readData: readData) {
            case .id(let id):
                if kept != nil { defaults.removeObject(forKey: installationIDKey) }
                return id
            case .unreadable:
                if let kept { return kept }
                let id = unreadable ?? UUID().uuidString.lowercased()
                unreadable = id
                return id
            case .none:
                let id = kept ?? UUID().uuidString.lowercased()
                if writeInstallationID(id, to: file) {
                    if kept != nil { defaults.removeObject(forKey: installationIDKey) }
                } else if kept == nil {
                    defaults.set(id, forKey: installationIDKey)
                }
                return id
            }
        }
    }

    /// What the id's file holds.
    private enum StoredInstallationID {
        /// The id.
        case id(String)
        /// No file, or an empty one.
        case none
        /// A file that could not be read now.
        case unreadable
    }

    /// Reads the id's file, telling a missing file apart from one that is there but cannot be read.
    private static func readInstallationID(
        _ file: URL, readData: (URL) throws -> Data
    ) -> StoredInstallationID {
        guard let data = try? readData(file) else {
            return FileManager.default.fileExists(atPath: file.path) ? .unreadable : .none
        }
        let id = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? .none : .id(id)
    }

    /// Writes the id's file atomically, unprotected and excluded from backups (both Apple-only; elsewhere, the
    /// Linux type-check, the file is plain); a file left half done is removed.
    /// - Returns: whether the file was written.
    private static func writeInstallationID(_ id: String, to file: URL) -> Bool {
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            #if canImport(Darwin)
            try Data(id.utf8).write(to: file, options: [.atomic, .noFileProtection])
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            var excluded = file
            try excluded.setResourceValues(values)
            #else
            try Data(id.utf8).write(to: file, options: [.atomic])
            #endif
            return true
        } catch {
            try? FileManager.default.removeItem(at: file)
            return false
        }
    }
}
#endif
