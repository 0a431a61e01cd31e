/// The rule for the identifiers apps and operators choose: user ids, device ids, a server's node id. They appear
/// in URLs, logs, push payloads and Redis keys, so they are plain ASCII.
public enum Identifier {
    /// Longest identifier, in bytes.
    public static let maximumLength = 128

    /// The rule in words, for error messages.
    public static let rule = "1 to \(maximumLength) letters, digits, '.', '_', ':', '@' or '-'"

    /// Whether `id` is 1…``maximumLength`` ASCII letters, digits and `._:@-`.
    public static func isValid(_ id: String) -> Bool {
        guard (1...maximumLength).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == 46 || byte == 95 || byte == 58 || byte == 64 || byte == 45
        }
    }
}
