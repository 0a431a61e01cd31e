import CTLS
import HTTPTypes
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the verified client certificate of a finished handshake into ``HTTPRequest/ClientCertificate``.
///
/// Called once per connection on its thread, right after the handshake; OpenSSL keeps the certificate
/// in the session, so a resumed session reports the one verified when the session began.
enum PeerCertificate {
    /// The client's certificate, when it sent one and it verified.
    /// - Parameter ssl: A connection whose handshake completed.
    /// - Returns: Its identity, or nil when the client sent no certificate or it did not verify.
    static func read(_ ssl: OpaquePointer) -> HTTPRequest.ClientCertificate? {
        // The handshake already failed for a certificate that did not verify; the check keeps this
        // function correct on its own.
        guard let certificate = SSL_get0_peer_certificate(ssl), SSL_get_verify_result(ssl) == X509_V_OK else {
            return nil
        }
        return HTTPRequest.ClientCertificate(subjectUID: subjectUID(of: certificate),
                                             notAfter: notAfter(of: certificate) ?? 0)
    }

    /// The subject's UID attribute (OID 0.9.2342.19200300.100.1.1) as UTF-8, if present.
    private static func subjectUID(of certificate: OpaquePointer) -> String? {
        let name = X509_get_subject_name(certificate)
        let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
              let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { return nil }
        // OPENSSL_free is a macro over CRYPTO_free, which wants the caller's file and line.
        defer { CRYPTO_free(utf8, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    /// The end of validity in seconds since 1970 (UTC).
    private static func notAfter(of certificate: OpaquePointer) -> Int64? {
        var parts = tm()
        guard let time = X509_get0_notAfter(certificate), ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }
}
