import Foundation

/// The random ids the server hands out for what the backend and the operator make (API keys, webhook endpoints, push
/// providers): lowercase base32 (RFC 4648 §6's alphabet, lowercased: no look-alike characters, safe in a path), from
/// `SystemRandomNumberGenerator`, the system's cryptographic source (`getrandom` on Linux).
enum RandomIdentifier {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// `prefix` and `length` random characters, 5 bits each.
    static func make(prefix: String = "", length: Int) -> String {
        var random = SystemRandomNumberGenerator()
        return prefix + String(decoding: (0..<length).map { _ in alphabet[Int(random.next() % 32)] }, as: UTF8.self)
    }

    /// Whether `text` is `prefix` and `length` characters of the alphabet: one ``make(prefix:length:)`` could give.
    static func matches(_ text: some StringProtocol, prefix: String = "", length: Int) -> Bool {
        text.hasPrefix(prefix) && text.utf8.count == prefix.utf8.count + length
            && text.utf8.dropFirst(prefix.utf8.count).allSatisfy(alphabet.contains)
    }

    /// `count` random bytes (secrets).
    static func bytes(_ count: Int) -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &random) }
    }
}
