import COpenSSL
public import Foundation
public import HTTP2Client
import OpenSSLSupport

/// A TLS client certificate for certificate-based APNs authentication, checked when the server starts so
/// a wrong file or password fails at once instead of as `BadCertificate` on the first call
/// (Apple: "Establishing a certificate-based connection to APNs").
///
/// Apple issues one certificate per app: its subject's UID is the bundle id, and it may also cover the
/// app's `.voip` topic. Formats: a PKCS#12 bundle (`.p12`, as exported from Keychain Access, usually
/// with a password) or PEM (certificate, with the key in the same file or in `keyFile`).
public struct APNsCertificate: Sendable {
    /// What ``HTTP2Client`` presents during the TLS handshake.
    public let identity: HTTP2Client.ClientCertificate
    /// The subject's UID (Apple puts the bundle id there), if present.
    public let bundleID: String?
    /// The subject, one line (`/UID=…/CN=…`), for the operator's log.
    public let subject: String
    /// The certificate's end of validity.
    public let notAfter: Date

    /// Loads and checks a certificate and its key.
    /// - Parameters:
    ///   - file: `.p12`/`.pfx` (PKCS#12) or PEM.
    ///   - keyFile: the PEM private key when it is not in `file`.
    ///   - password: the bundle's or key's password, if encrypted (never logged).
    ///   - now: to reject an expired certificate.
    /// - Throws: ``APNsCertificateError``: unreadable file, wrong format or password, no password for an
    ///   encrypted file (`passwordNeeded`), no private key (`noPrivateKey`), key not matching, or expired.
    public static func load(
        file: String, keyFile: String? = nil, password: String? = nil,
        now: Date = Date()
    ) throws -> APNsCertificate {
        let isPKCS12 = ["p12", "pfx"].contains(URL(fileURLWithPath: file).pathExtension.lowercased())
        guard let bytes = FileManager.default.contents(atPath: file) else {
            throw APNsCertificateError.unreadable(file)
        }
        var keyBytes: Data?
        if let keyFile {
            guard let data = FileManager.default.contents(atPath: keyFile) else {
                throw APNsCertificateError.unreadable(keyFile)
            }
            keyBytes = data
        }
        let (certificate, key) =
            try isPKCS12
            ? parsePKCS12(bytes, password: password)
            : parsePEM(bytes, keyPEM: keyBytes ?? bytes, password: password)
        defer {
            X509_free(certificate)
            EVP_PKEY_free(key)
        }
        guard X509_check_private_key(certificate, key) == 1 else {
            _ = CertificateCall.drainErrors()
            throw APNsCertificateError.keyMismatch
        }
        let notAfter = try Self.date(X509_get0_notAfter(certificate))
        guard notAfter > now else { throw APNsCertificateError.expired(ISO8601DateFormatter().string(from: notAfter)) }
        let name = X509_get_subject_name(certificate)
        let identity = HTTP2Client.ClientCertificate(
            certificateFile: file, keyFile: isPKCS12 ? nil : keyFile, format: isPKCS12 ? .p12 : .pem, password: password
        )
        return APNsCertificate(
            identity: identity, bundleID: X509Names.entry(NID_userId, of: name),
            subject: Self.oneLine(name), notAfter: notAfter)
    }

    private static func parsePKCS12(_ bytes: Data, password: String?) throws -> (OpaquePointer, OpaquePointer) {
        let parsed = bytes.withUnsafeBytes { raw in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))
            defer { BIO_free(bio) }
            return d2i_PKCS12_bio(bio, nil)
        }
        let bundle = try CertificateCall.check(parsed, "d2i_PKCS12_bio")
        defer { PKCS12_free(bundle) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        guard PKCS12_parse(bundle, password ?? "", &key, &certificate, nil) == 1 else {
            // Without a password the usual cause is an encrypted bundle (Keychain always encrypts exports).
            guard password != nil else {
                _ = CertificateCall.drainErrors()
                throw APNsCertificateError.passwordNeeded
            }
            throw CertificateCall.failure("PKCS12_parse")
        }
        guard let certificate, let key else {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw CertificateCall.failure("PKCS12_parse")
        }
        return (certificate, key)
    }

    private static func parsePEM(
        _ certificatePEM: Data, keyPEM: Data, password: String?
    ) throws -> (OpaquePointer, OpaquePointer) {
        let certificate = try CertificateCall.reading(String(decoding: certificatePEM, as: UTF8.self)) {
            bio throws(APNsCertificateError) -> OpaquePointer in
            try CertificateCall.check(PEM_read_bio_X509(bio, nil, nil, nil), "PEM_read_bio_X509")
        }
        let keyText = String(decoding: keyPEM, as: UTF8.self)
        guard keyText.contains("PRIVATE KEY-----") else {
            X509_free(certificate)
            throw APNsCertificateError.noPrivateKey
        }
        if password == nil, keyText.contains("ENCRYPTED") {
            X509_free(certificate)
            throw APNsCertificateError.passwordNeeded
        }
        do {
            let key = try CertificateCall.reading(keyText) {
                bio throws(APNsCertificateError) -> OpaquePointer in
                // With no callback, OpenSSL takes the last argument as the passphrase; without a
                // password an encrypted key fails instead of prompting on the terminal.
                let key =
                    password.map { password in
                        password.withCString {
                            PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: $0))
                        }
                    } ?? PEM_read_bio_PrivateKey(bio, nil, openSSLRefusePassphrase, nil)
                return try CertificateCall.check(key, "PEM_read_bio_PrivateKey")
            }
            return (certificate, key)
        } catch {
            X509_free(certificate)
            throw error
        }
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) throws -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { throw CertificateCall.failure("ASN1_TIME_to_tm") }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private static func oneLine(_ name: OpaquePointer?) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        guard X509_NAME_oneline(name, &buffer, Int32(buffer.count)) != nil else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
