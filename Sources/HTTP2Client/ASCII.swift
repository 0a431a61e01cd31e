/// Checks on ASCII text that make no copies, for every request on the hot path: case-insensitive comparisons (URL
/// scheme, header names), where `lowercased()` would allocate a string each time, and byte scans.
enum ASCII {
    /// The byte lowercased if it is an ASCII capital letter, else unchanged.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// True when `text` starts with `prefix` ignoring ASCII case.
    /// - Parameters:
    ///   - text: any string.
    ///   - prefix: lowercase ASCII.
    static func hasPrefix(_ text: String, lowercasedPrefix prefix: StaticString) -> Bool {
        var expected = prefix.utf8Start
        var left = prefix.utf8CodeUnitCount
        for byte in text.utf8 {
            guard left > 0 else { return true }
            guard lowercased(byte) == expected.pointee else { return false }
            expected += 1
            left -= 1
        }
        return left == 0
    }

    /// True when `text` equals `other` ignoring ASCII case.
    /// - Parameters:
    ///   - text: any string.
    ///   - other: lowercase ASCII.
    static func equals(_ text: String, lowercased other: StaticString) -> Bool {
        text.utf8.count == other.utf8CodeUnitCount && hasPrefix(text, lowercasedPrefix: other)
    }

    /// True when some UTF-8 byte of `text` satisfies `predicate`. A native string's bytes are scanned in place, as a
    /// buffer: iterating `String.UTF8View` costs several times as much, and this runs over every request's URL and
    /// header fields.
    @inline(__always)
    static func contains(_ text: String, where predicate: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(where: predicate) }
            ?? text.utf8.contains(where: predicate)
    }
}
