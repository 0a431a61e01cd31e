import CTLS
import OpenSSLSupport
import TLSSocket

#if canImport(Glibc)
import Glibc
#endif

/// An OpenSSL failure while the client's TLS context is built, before it becomes an ``HTTP2ClientError``.
struct TLSSetupFailure: OpenSSLFailure {
    let function: String
    let detail: String

    static func crypto(function: String, detail: String) -> TLSSetupFailure {
        TLSSetupFailure(function: function, detail: detail)
    }

    var clientError: HTTP2ClientError {
        .transport(function: function, code: 0, message: detail)
    }
}

private typealias TLSCall = CheckedOpenSSL<TLSSetupFailure>

/// The client's OpenSSL `SSL_CTX`: TLS 1.2 or newer, ALPN offering only "h2", the trust store, and the
/// optional client identity (APNs certificate-based authentication).
///
/// Settings follow RFC 9113 §9.2 (TLS 1.2 at least, no compression, no renegotiation). Trust is the system
/// store (`SSL_CTX_set_default_verify_paths`: Debian's /etc/ssl/certs) plus ``HTTP2Client/Configuration/caFile``.
/// Everything that can be wrong with a certificate, key or password fails here, when the client is made,
/// not on the first request. Thread-safety: configured once in `init`; afterwards only `SSL_new`, which the
/// lock serializes.
final class ClientTLSContext: Sendable {
    private let context: TLSContextHandle
    private let verifyPeer: Bool

    /// Builds the context.
    /// - Parameter configuration: trust (``HTTP2Client/Configuration/caFile``, ``HTTP2Client/Configuration/verifyPeer``)
    ///   and identity (``HTTP2Client/Configuration/clientCertificate``).
    /// - Throws: ``HTTP2ClientError/transport(function:code:message:)`` naming the OpenSSL call that refused a
    ///   file, key or password (never the password itself).
    init(configuration: HTTP2Client.Configuration) throws(HTTP2ClientError) {
        ERR_clear_error()
        // This runs on the caller's thread (often one of Swift's shared pool), where a reason OpenSSL leaves
        // behind (some loaders note what they skipped even on success) would be read by the next TLS operation
        // of any library on that thread as its own failure (SSL_get_error needs an empty queue): leave it empty.
        defer { ERR_clear_error() }
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSCall.failure("SSL_CTX_new").clientError
        }
        let password = configuration.clientCertificate?.password.map { strdup($0) } ?? nil
        do {
            try Self.configure(context, configuration, password: password)
        } catch {
            SSL_CTX_free(context)
            free(password)
            throw error.clientError
        }
        // The key passphrase handed to OpenSSL's default password callback lives as long as the context.
        self.context = TLSContextHandle(context, retained: password.map { UnsafeMutableRawPointer($0) })
        verifyPeer = configuration.verifyPeer
    }

    /// A client `SSL` for one connection to `target`: SNI for a host name (none for an IP literal, RFC 6066
    /// §3), and, when verifying, the name or address the server certificate must match (RFC 9110 §4.3.4).
    /// - Returns: the `SSL`, or nil when OpenSSL is out of memory.
    func makeConnection(to target: RequestTarget) -> OpaquePointer? {
        guard let ssl = context.makeConnection() else { return nil }
        var configured = true
        if target.hostIsAddress {
            if verifyPeer { configured = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), target.host) == 1 }
        } else {
            configured = CTLS_set_tlsext_host_name(ssl, target.host) == 1
            if verifyPeer && configured { configured = SSL_set1_host(ssl, target.host) == 1 }
        }
        SSL_set_connect_state(ssl)
        guard configured else {
            SSL_free(ssl)
            return nil
        }
        return ssl
    }

    private static func configure(
        _ context: OpaquePointer, _ configuration: HTTP2Client.Configuration,
        password: UnsafeMutablePointer<CChar>?
    ) throws(TLSSetupFailure) {
        guard TLSContextHandle.applyHTTP2Baseline(context) else {
            throw TLSCall.failure("SSL_CTX_set_min_proto_version")
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        // SSL_CTX_set_alpn_protos returns 0 on success, unlike its neighbours.
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else {
            throw TLSCall.failure("SSL_CTX_set_alpn_protos")
        }
        if configuration.verifyPeer {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            try TLSCall.check(SSL_CTX_set_default_verify_paths(context), "SSL_CTX_set_default_verify_paths")
            if let caFile = configuration.caFile {
                try TLSCall.check(SSL_CTX_load_verify_locations(context, caFile, nil), "SSL_CTX_load_verify_locations")
            }
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        guard let identity = configuration.clientCertificate else { return }
        if let password {
            // With no callback set, OpenSSL's default one reads the passphrase from this pointer.
            SSL_CTX_set_default_passwd_cb_userdata(context, password)
        } else {
            // An encrypted key without a password fails instead of prompting on the terminal.
            SSL_CTX_set_default_passwd_cb(context, openSSLRefusePassphrase)
        }
        switch identity.format {
        case .pem:
            try TLSCall.check(
                SSL_CTX_use_certificate_chain_file(context, identity.certificateFile),
                "SSL_CTX_use_certificate_chain_file")
            try TLSCall.check(
                SSL_CTX_use_PrivateKey_file(context, identity.keyFile ?? identity.certificateFile, SSL_FILETYPE_PEM),
                "SSL_CTX_use_PrivateKey_file")
        case .p12:
            try usePKCS12(context, file: identity.certificateFile, password: identity.password)
        }
        try TLSCall.check(SSL_CTX_check_private_key(context), "SSL_CTX_check_private_key")
    }

    /// Loads certificate, key and intermediates from a PKCS#12 bundle.
    private static func usePKCS12(_ context: OpaquePointer, file: String, password: String?) throws(TLSSetupFailure) {
        let bio = try TLSCall.check(BIO_new_file(file, "rb"), "BIO_new_file")
        defer { BIO_free(bio) }
        let bundle = try TLSCall.check(d2i_PKCS12_bio(bio, nil), "d2i_PKCS12_bio")
        defer { PKCS12_free(bundle) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var chain: OpaquePointer?
        try TLSCall.check(PKCS12_parse(bundle, password ?? "", &key, &certificate, &chain), "PKCS12_parse")
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
            if let chain {
                while let extra = OPENSSL_sk_pop(chain) { X509_free(OpaquePointer(extra)) }
                OPENSSL_sk_free(chain)
            }
        }
        guard let key, let certificate else {
            throw TLSSetupFailure(function: "PKCS12_parse", detail: "the bundle holds no certificate and key pair")
        }
        try TLSCall.check(SSL_CTX_use_certificate(context, certificate), "SSL_CTX_use_certificate")
        try TLSCall.check(SSL_CTX_use_PrivateKey(context, key), "SSL_CTX_use_PrivateKey")
        if let chain {
            for index in 0..<OPENSSL_sk_num(chain) {
                guard let extra = OPENSSL_sk_value(chain, index) else { continue }
                try TLSCall.check(CTLS_CTX_add1_chain_cert(context, OpaquePointer(extra)), "SSL_CTX_add1_chain_cert")
            }
        }
    }
}
