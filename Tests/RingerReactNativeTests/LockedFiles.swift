import Foundation

/// The host's file system as iOS shows it after a restart, before the first unlock: a file written with
/// `completeUntilFirstUserAuthentication` is there (its name and size can be read) but its contents cannot, until
/// ``unlock()``. Records which files were read, locked or not.
final class LockedFiles: @unchecked Sendable {
    // @unchecked: `locked` and `reads` are guarded by `lock`.
    private let lock = NSLock()
    private var locked = true
    private var reads: [String] = []
    /// The names of the files that are locked; nil for all.
    private let names: Set<String>?

    /// A file system locked until ``unlock()``.
    /// - Parameter names: the only files locked until then (the others written with less protection); nil for all.
    init(only names: Set<String>? = nil) {
        self.names = names
    }

    /// Apple's error for a protected file read while protected data is unavailable (`NSFileReadNoPermissionError`).
    static let noPermission = CocoaError(.fileReadNoPermission)

    /// Reads `url` as `Data(contentsOf:)` does once unlocked; before, an existing file throws ``noPermission``.
    @Sendable func read(_ url: URL) throws -> Data {
        let locked = lock.withLock {
            reads.append(url.lastPathComponent)
            return self.locked && names?.contains(url.lastPathComponent) != false
        }
        if locked && FileManager.default.fileExists(atPath: url.path) { throw Self.noPermission }
        return try Data(contentsOf: url)
    }

    /// The user unlocked the phone: files can be read from now on.
    func unlock() { lock.withLock { locked = false } }

    /// How many times the file `name` was read.
    func readCount(_ name: String) -> Int { lock.withLock { reads.filter { $0 == name }.count } }

    /// UIKit tells the app that protected data became available
    /// (`UIApplication.protectedDataDidBecomeAvailableNotification`).
    static func postProtectedDataDidBecomeAvailable() {
        NotificationCenter.default.post(
            name: Notification.Name("UIApplicationProtectedDataDidBecomeAvailable"), object: nil)
    }
}
