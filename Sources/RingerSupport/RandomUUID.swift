public import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension UUID {
    /// A new random (version 4, RFC 9562 §5.4) UUID from the kernel's CSPRNG. Thread-safe.
    ///
    /// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for every UUID: three system calls, for
    /// every call and every push; `arc4random_buf` (glibc 2.36+, and Apple's platforms) is one `getrandom` call.
    public static func random() -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            if let base = buffer.baseAddress { arc4random_buf(base, buffer.count) }
        }
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // variant 10xx
        return UUID(uuid: bytes)
    }

    /// The 8-4-4-4-12 form of RFC 9562 §4 in lowercase hex: 36 characters, as call ids and `apns-id` are written.
    /// `uuidString` formats through `snprintf` and is uppercase, and this runs for every call and push.
    public var lowercaseText: String {
        withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var count = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[count] = UInt8(ascii: "-")
                        count += 1
                    }
                    text[count] = digits.utf8Start[Int(byte >> 4)]
                    text[count + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    count += 2
                }
                return count
            }
        }
    }
}
