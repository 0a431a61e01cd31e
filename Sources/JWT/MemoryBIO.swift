import COpenSSL

/// Moves PEM text in and out of OpenSSL through memory BIOs.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `text`'s UTF-8 bytes, valid only during the call.
    static func reading<Result>(
        _ text: String, _ body: (OpaquePointer) throws(JWTError) -> Result
    ) throws(JWTError) -> Result {
        let bytes = Array(text.utf8)
        guard bytes.count < Int32.max else { throw JWTError.invalidKey("PEM text too large") }
        // Array.withUnsafeBytes only rethrows untyped errors, so the typed error travels in a Result.
        return try bytes.withUnsafeBytes { raw in
            Swift.Result { () throws(JWTError) -> Result in
                let bio = try OpenSSLCall.check(BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)), "BIO_new_mem_buf")
                defer { BIO_free(bio) }
                return try body(bio)
            }
        }.get()
    }

    /// Creates an empty memory BIO, lets `write` fill it (returning 1 on success) and returns its text.
    static func writing(_ function: String, _ write: (OpaquePointer) -> Int32) throws(JWTError) -> String {
        let bio = try OpenSSLCall.check(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        try OpenSSLCall.check(write(bio), function)
        var data: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw OpenSSLCall.failure("BIO_get_mem_data") }
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
