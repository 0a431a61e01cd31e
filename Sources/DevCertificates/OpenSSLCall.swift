import COpenSSL

/// One place that turns OpenSSL's thread-local error queue into ``DevCertificateError`` values.
enum OpenSSLCall {
    /// Drains this thread's OpenSSL error queue into one line of reasons.
    static func drainErrors() -> String {
        var reasons: [String] = []
        var code = ERR_get_error()
        while code != 0 {
            if reasons.count < 4 {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            }
            code = ERR_get_error()
        }
        return reasons.isEmpty ? "no OpenSSL reason" : reasons.joined(separator: "; ")
    }

    /// A ``DevCertificateError/crypto`` for `function`, carrying and clearing the queued reasons.
    static func failure(_ function: String) -> DevCertificateError {
        DevCertificateError.crypto(function: function, detail: drainErrors())
    }

    /// Throws unless `result` is positive (OpenSSL's success values here are 1 or a byte count).
    static func check(_ result: Int32, _ function: String) throws(DevCertificateError) {
        guard result > 0 else { throw failure(function) }
    }

    /// Returns the pointer, or throws when OpenSSL returned `NULL`.
    static func check<Pointer>(_ pointer: Pointer?, _ function: String) throws(DevCertificateError) -> Pointer {
        guard let pointer else { throw failure(function) }
        return pointer
    }

    /// Runs `body` with a read-only memory BIO over `text`, valid only during the call.
    static func withReadBIO<Result>(
        _ text: String, _ body: (OpaquePointer) throws(DevCertificateError) -> Result
    ) throws(DevCertificateError) -> Result {
        let bytes = Array(text.utf8)
        guard bytes.count < Int32.max else { throw DevCertificateError.invalidPEM("PEM text too large") }
        // Array.withUnsafeBytes only rethrows untyped errors, so the typed error travels in a Result.
        return try bytes.withUnsafeBytes { raw in
            Swift.Result { () throws(DevCertificateError) -> Result in
                let bio = try check(BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)), "BIO_new_mem_buf")
                defer { BIO_free(bio) }
                return try body(bio)
            }
        }.get()
    }

    /// Lets `write` fill a memory BIO (returning a positive value on success) and returns its text.
    static func pem(_ function: String, _ write: (OpaquePointer) -> Int32) throws(DevCertificateError) -> String {
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

/// Refuses every passphrase prompt, so an encrypted PEM key fails instead of reading the terminal.
func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
