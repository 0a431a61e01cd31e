import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files with their permissions set from the moment they exist, so a key is never readable
/// by others, even briefly.
enum PrivateFile {
    /// Replaces `url`'s contents with `text`, creating it with `mode` (and forcing `mode` if it existed).
    static func store(_ text: String, at url: URL, mode: mode_t) throws(DevCertificateError) {
        let path = url.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { close(descriptor) }
        guard fchmod(descriptor, mode) == 0 else { throw failure("fchmod", path) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw failure("write", path) }
            bytes = bytes.dropFirst(written)
        }
    }

    private static func failure(_ function: String, _ path: String) -> DevCertificateError {
        DevCertificateError.io(function: function, detail: "\(path): \(String(cString: strerror(errno)))")
    }
}
