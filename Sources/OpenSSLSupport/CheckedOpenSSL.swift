import COpenSSL

/// An error type that can carry an OpenSSL failure: the function that failed and OpenSSL's reasons.
public protocol OpenSSLFailure: Error {
    /// The failure of `function`, with `detail` from OpenSSL's error queue (never key material).
    static func crypto(function: String, detail: String) -> Self
}

/// The one place libcrypto results are checked, for every target that calls OpenSSL (`JWT`,
/// `DevCertificates`): each failure drains OpenSSL's thread-local error queue into a typed error
/// naming the function, so a stale reason never leaks into the next call's error.
///
/// Each target names its own error type: `typealias OpenSSLCall = CheckedOpenSSL<JWTError>`.
public enum CheckedOpenSSL<Failure: OpenSSLFailure> {
    /// Empties OpenSSL's error queue for this thread.
    /// - Returns: up to four reasons joined with `; `, or "no OpenSSL reason".
    public static func drainErrors() -> String {
        OpenSSLErrorQueue.drain() ?? "no OpenSSL reason"
    }

    /// The failure of `function`, with the queued reasons.
    public static func failure(_ function: String) -> Failure {
        Failure.crypto(function: function, detail: drainErrors())
    }

    /// Checks an OpenSSL status result (1 or more is success).
    /// - Throws: `Failure` naming `function`.
    public static func check(_ result: Int32, _ function: String) throws(Failure) {
        guard result > 0 else { throw failure(function) }
    }

    /// Checks an OpenSSL pointer result (nil is failure).
    /// - Returns: the pointer.
    /// - Throws: `Failure` naming `function`.
    public static func check<Pointer>(_ pointer: Pointer?, _ function: String) throws(Failure) -> Pointer {
        guard let pointer else { throw failure(function) }
        return pointer
    }

    /// Runs `body` with a read-only memory BIO over `text` (a PEM document).
    /// - Throws: `Failure` when the BIO cannot be made, or what `body` throws.
    public static func reading<Result>(
        _ text: String, _ body: (OpaquePointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let bytes = Array(text.utf8)
        guard bytes.count < Int32.max else {
            throw Failure.crypto(function: "BIO_new_mem_buf", detail: "PEM text too large")
        }
        // Array.withUnsafeBytes only rethrows untyped errors, so the typed error travels in a Result.
        return try bytes.withUnsafeBytes { raw in
            Swift.Result { () throws(Failure) -> Result in
                let bio = try check(BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)), "BIO_new_mem_buf")
                defer { BIO_free(bio) }
                return try body(bio)
            }
        }.get()
    }

    /// Runs an OpenSSL `i2d_*` encoder (e.g. `i2d_PUBKEY`, `i2d_ECDSA_SIG`) twice, as its contract asks: with no
    /// output for the length, then into a buffer of that length.
    /// - Parameters:
    ///   - function: the encoder's name, for the error.
    ///   - encode: calls the encoder with the given output cursor (nil to measure), returning its result.
    /// - Returns: the DER bytes.
    /// - Throws: `Failure` naming `function` when it fails or writes another length than it measured.
    public static func encodingDER(
        _ function: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(Failure) -> [UInt8] {
        let length = encode(nil)
        guard length > 0 else { throw failure(function) }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else { throw failure(function) }
        return der
    }

    /// Lets `write` fill a memory BIO (e.g. `PEM_write_bio_X509`) and returns what it wrote.
    /// - Throws: `Failure` naming `function` when writing fails or writes nothing.
    public static func writing(_ function: String, _ write: (OpaquePointer) -> Int32) throws(Failure) -> String {
        let bio = try check(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        try check(write(bio), function)
        var data: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw failure("BIO_get_mem_data") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
    }
}

/// This thread's OpenSSL error queue, for every target that calls OpenSSL (libcrypto or libssl): OpenSSL keeps
/// failure reasons per thread, and a reason left behind is read as the failure of the thread's next call.
public enum OpenSSLErrorQueue {
    /// Empties the queue.
    /// - Parameter limit: most reasons kept in the text (the rest are discarded with the queue).
    /// - Returns: the reasons in order, joined with `; `, or nil when the queue was empty.
    public static func drain(limit: Int = 4) -> String? {
        var reasons: [String] = []
        var code = ERR_get_error()
        while code != 0 {
            if reasons.count < limit {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            }
            code = ERR_get_error()
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}

/// A `pem_password_cb` that refuses: encrypted PEM keys fail instead of prompting on the terminal.
public func openSSLRefusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
