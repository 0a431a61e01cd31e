import CTLS
import OpenSSLSupport
import RingerHTTP

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
        return HTTPRequest.ClientCertificate(
            subjectUID: subjectUID(of: certificate),
            notAfter: notAfter(of: certificate) ?? 0)
    }

    /// The subject's UID attribute (OID 0.9.2342.19200300.100.1.1) as UTF-8, if present.
    private static func subjectUID(of certificate: OpaquePointer) -> String? {
        X509Names.entry(NID_userId, of: X509_get_subject_name(certificate))
    }

    /// The end of validity in seconds since 1970 (UTC).
    private static func notAfter(of certificate: OpaquePointer) -> Int64? {
        var parts = tm()
        guard let time = X509_get0_notAfter(certificate), ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }
}
