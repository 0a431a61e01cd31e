import Foundation

/// One JSON file of the native half, in `Application Support/Ringer/` (beside RingerKitApple's own files). Written
/// atomically with the data protection `completeUntilFirstUserAuthentication`, so a VoIP push on a locked phone after
/// its first unlock can read it, and excluded from backups, so a reinstall or a restored phone starts without it
/// (Apple, "Encrypting your app's files"; `URLResourceValues.isExcludedFromBackup`). Both are Apple-only; elsewhere
/// (the Linux type-check) the file is plain. Thread-safe as far as the file system is: each read or write is one
/// call; callers serialise writes to the same file.
struct NativeFile: Sendable {
    /// What ``read(_:)`` found.
    enum Reading<Value> {
        /// The file's value.
        case value(Value)
        /// No file, or one that is not a `Value`'s JSON: reading it again would find the same.
        case none
        /// The file is there but could not be read now. Before the first unlock after a restart, iOS keeps a
        /// `completeUntilFirstUserAuthentication` file's contents locked (`protectedDataDidBecomeAvailableNotification`
        /// says when they are not): reading it again then may succeed.
        case unreadable

        /// The value; nil for ``none`` and ``unreadable``.
        var value: Value? {
            if case .value(let value) = self { value } else { nil }
        }
    }

    /// Where the file lives.
    let url: URL
    /// Reads the file's bytes (`Data(contentsOf:)`, or a test's).
    private let readData: @Sendable (URL) throws -> Data

    /// The file `name` in `folder`.
    /// - Parameters:
    ///   - name: the file's name.
    ///   - folder: its folder.
    ///   - readData: reads a file's bytes; tests pass one that fails as a locked phone's file system does.
    init(
        _ name: String, in folder: URL,
        readData: @escaping @Sendable (URL) throws -> Data = { try Data(contentsOf: $0) }
    ) {
        url = folder.appendingPathComponent(name)
        self.readData = readData
    }

    /// `Application Support/Ringer`, nil when the system has no Application Support folder.
    static var defaultFolder: URL? {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?
            .appendingPathComponent("Ringer", isDirectory: true)
    }

    /// The file's value; nil when it is missing, unreadable or not a `Value`.
    func load<Value: Decodable>(_ type: Value.Type) -> Value? {
        read(type).value
    }

    /// The file's value, telling a missing file apart from one that is there but cannot be read now.
    func read<Value: Decodable>(_ type: Value.Type) -> Reading<Value> {
        let data: Data
        do {
            data = try readData(url)
        } catch {
            return Self.isNoSuchFile(error) || !FileManager.default.fileExists(atPath: url.path) ? .none : .unreadable
        }
        return (try? JSONDecoder().decode(Value.self, from: data)).map { .value($0) } ?? .none
    }

    /// Whether `error` says the file does not exist (Foundation's codes, or the POSIX one beneath them).
    private static func isNoSuchFile(_ error: any Error) -> Bool {
        if let error = error as? CocoaError, [.fileReadNoSuchFile, .fileNoSuchFile].contains(error.code) {
            return true
        }
        return (error as? POSIXError)?.code == .ENOENT
    }

    /// Replaces the file's value, creating its folder when needed.
    /// - Throws: the file system's error.
    func save(_ value: some Encodable) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let data = try JSONEncoder().encode(value)
        #if canImport(Darwin)
        try data.write(to: url, options: [.atomic, .completeFileProtectionUntilFirstUserAuthentication])
        // An atomic write puts a new file in place: the exclusion is set on each one.
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var excluded = url
        try excluded.setResourceValues(values)
        #else
        try data.write(to: url, options: [.atomic])
        #endif
    }

    /// Deletes the file; a missing file is no error.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The logged-in user's session as `login` keeps it (`session.json`), so a cold start logs in natively and
/// answers go out before JavaScript runs. The token is never logged.
struct StoredSession: Codable, Sendable, Equatable {
    /// The user token the app's backend minted.
    var userToken: String
    /// Its subject.
    var userID: String
    /// The base URL of the server the phone used when the user logged in, which the token belongs to; nil in files
    /// written before sessions named it.
    var server: String?

    private enum CodingKeys: String, CodingKey {
        case userToken
        case userID = "userId"
        case server
    }
}

/// The server `configure({server})` chose (`server.json`), used from the next cold start on instead of the
/// Info.plist's `RingerServerURL`.
struct StoredServer: Codable, Sendable, Equatable {
    /// The server's base URL.
    var server: String
}
