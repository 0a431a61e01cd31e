import COpenSSL

/// One place that turns OpenSSL's thread-local error queue into ``JWTError`` values.
enum OpenSSLCall {
    /// Drains this thread's OpenSSL error queue into one line of reasons (no key material is ever in them).
    static func drainErrors() -> String {
        var reasons: [String] = []
        var code = ERR_get_error()
        while code != 0 {
            if reasons.count < 4 { reasons.append(reason(for: code)) }
            code = ERR_get_error()
        }
        return reasons.isEmpty ? "no OpenSSL reason" : reasons.joined(separator: "; ")
    }

    private static func reason(for code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// A ``JWTError/crypto`` for `function`, carrying and clearing the queued OpenSSL reasons.
    static func failure(_ function: String) -> JWTError {
        JWTError.crypto(function: function, detail: drainErrors())
    }

    /// Throws ``JWTError/crypto`` unless `result` is 1, OpenSSL's usual success value.
    static func check(_ result: Int32, _ function: String) throws(JWTError) {
        guard result == 1 else { throw failure(function) }
    }

    /// Returns the pointer, or throws ``JWTError/crypto`` when OpenSSL returned `NULL`.
    static func check<Pointer>(_ pointer: Pointer?, _ function: String) throws(JWTError) -> Pointer {
        guard let pointer else { throw failure(function) }
        return pointer
    }
}
