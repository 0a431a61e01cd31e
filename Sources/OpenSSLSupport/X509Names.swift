import COpenSSL
public import Foundation

/// Reading attributes of X.509 names, for the targets that inspect certificates (`APNs` for the app's
/// certificate, `HTTP2Server` for the sandbox's client certificates).
public enum X509Names {
    /// The first attribute `nid` of an `X509_NAME` as UTF-8, e.g. `NID_userId` (OID 0.9.2342.19200300.100.1.1,
    /// where Apple puts an APNs certificate's bundle id) or `NID_commonName`.
    /// - Parameters:
    ///   - nid: the attribute's OpenSSL NID.
    ///   - name: an `X509_NAME *` (`X509_get_subject_name`), borrowed.
    /// - Returns: the value, or nil when the name has no such attribute or it is not valid text.
    public static func entry(_ nid: Int32, of name: OpaquePointer?) -> String? {
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let data = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { return nil }
        // OPENSSL_free is a macro over CRYPTO_free, which wants the caller's file and line.
        defer { CRYPTO_free(utf8, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }
}

/// When the certificates of a PEM file expire (CA bundles, TLS certificates), for `ringer doctor`.
public enum X509Expiry {
    /// The `notAfter` of each certificate in a PEM file, in file order; empty when it holds none or cannot be read.
    public static func notAfter(ofPEMFile path: String) -> [Date] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var dates: [Date] = []
        while let certificate = PEM_read_X509(file, nil, nil, nil) {
            defer { X509_free(certificate) }
            var parts = tm()
            if let time = X509_get0_notAfter(certificate), ASN1_TIME_to_tm(time, &parts) == 1 {
                dates.append(Date(timeIntervalSince1970: TimeInterval(timegm(&parts))))
            }
        }
        // The loop ends on the end of the file, which OpenSSL queues as an error: not one.
        ERR_clear_error()
        return dates
    }
}
