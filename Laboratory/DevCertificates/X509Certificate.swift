import COpenSSL
import OpenSSLSupport

/// Owns one OpenSSL `X509` and frees it on deinit. Not thread-safe; used within one call.
final class X509Certificate {
    /// The owned certificate.
    let pointer: OpaquePointer

    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// Reads the first PEM certificate in `pem`.
    static func read(pem: String) throws(DevCertificateError) -> X509Certificate {
        try OpenSSLCall.reading(pem) { (bio) throws(DevCertificateError) -> X509Certificate in
            guard let certificate = PEM_read_bio_X509(bio, nil, openSSLRefusePassphrase, nil) else {
                throw DevCertificateError.invalidPEM("no PEM certificate (\(OpenSSLCall.drainErrors()))")
            }
            return X509Certificate(taking: certificate)
        }
    }

    /// Builds and signs a v3 certificate with a random serial and SHA-256 (RFC 5280 §4.1).
    /// - Parameters:
    ///   - commonName: The subject CN.
    ///   - subjectKey: The key the certificate certifies.
    ///   - issuer: The issuing certificate and its key, or `nil` for a self-signed certificate.
    ///   - validDays: Validity from one hour ago (clock skew) to this many days ahead.
    ///   - extensions: `(NID, OpenSSL config value)` pairs, e.g. `(NID_basic_constraints, "critical,CA:TRUE")`.
    static func issue(
        commonName: String, subjectKey: DevKey, issuer: (certificate: X509Certificate, key: DevKey)?,
        validDays: Int, extensions: [(nid: Int32, value: String)]
    ) throws(DevCertificateError) -> X509Certificate {
        let certificate = X509Certificate(taking: try OpenSSLCall.check(X509_new(), "X509_new"))
        let x509 = certificate.pointer
        try OpenSSLCall.check(X509_set_version(x509, Int(X509_VERSION_3)), "X509_set_version")
        try certificate.setRandomSerial()
        let subject = try OpenSSLCall.check(X509_get_subject_name(x509), "X509_get_subject_name")
        for (field, value) in [("O", "Ringer development (not for production)"), ("CN", commonName)] {
            try OpenSSLCall.check(
                X509_NAME_add_entry_by_txt(subject, field, MBSTRING_UTF8, value, -1, -1, 0),
                "X509_NAME_add_entry_by_txt")
        }
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? subject
        try OpenSSLCall.check(X509_set_issuer_name(x509, issuerName), "X509_set_issuer_name")
        _ = try OpenSSLCall.check(X509_gmtime_adj(X509_getm_notBefore(x509), -3600), "X509_gmtime_adj")
        _ = try OpenSSLCall.check(X509_gmtime_adj(X509_getm_notAfter(x509), validDays * 86_400), "X509_gmtime_adj")
        try OpenSSLCall.check(X509_set_pubkey(x509, subjectKey.pointer), "X509_set_pubkey")
        try certificate.add(extensions, issuer: issuer?.certificate.pointer ?? x509)
        try OpenSSLCall.check(X509_sign(x509, issuer?.key.pointer ?? subjectKey.pointer, EVP_sha256()), "X509_sign")
        return certificate
    }

    /// Sets a positive 159-bit random serial, unique in practice (RFC 5280 §4.1.2.2: at most 20 bytes).
    private func setRandomSerial() throws(DevCertificateError) {
        let number = try OpenSSLCall.check(BN_new(), "BN_new")
        defer { BN_free(number) }
        try OpenSSLCall.check(BN_rand(number, 159, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY), "BN_rand")
        _ = try OpenSSLCall.check(BN_to_ASN1_INTEGER(number, X509_get_serialNumber(pointer)), "BN_to_ASN1_INTEGER")
    }

    /// Adds X.509v3 extensions written in OpenSSL's configuration syntax (x509v3_config(5)).
    private func add(_ extensions: [(nid: Int32, value: String)], issuer: OpaquePointer) throws(DevCertificateError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, pointer, nil, nil, 0)
        for (nid, value) in extensions {
            guard let `extension` = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw OpenSSLCall.failure("X509V3_EXT_nconf_nid(\(String(cString: OBJ_nid2sn(nid))))")
            }
            defer { X509_EXTENSION_free(`extension`) }
            try OpenSSLCall.check(X509_add_ext(pointer, `extension`, -1), "X509_add_ext")
        }
    }

    /// Whether `key` is the private key for this certificate's public key.
    func matches(_ key: DevKey) -> Bool {
        let matches = X509_check_private_key(pointer, key.pointer) == 1
        ERR_clear_error()
        return matches
    }

    /// Whether this certificate may sign others (basicConstraints CA:TRUE).
    var isCertificateAuthority: Bool {
        X509_check_ca(pointer) >= 1
    }

    /// The certificate as PEM (`BEGIN CERTIFICATE`).
    func pem() throws(DevCertificateError) -> String {
        try OpenSSLCall.writing("PEM_write_bio_X509") { bio in PEM_write_bio_X509(bio, pointer) }
    }
}
