import CTLS
import OpenSSLSupport
import TLSSocket

/// The server's OpenSSL `SSL_CTX`: TLS 1.2 or newer, the certificate chain and key, ALPN that accepts
/// only "h2", and optionally a request for a client certificate verified against a CA file.
///
/// Settings follow RFC 9113 §9.2: TLS 1.2 at least, compression and renegotiation off, and for TLS 1.2 only
/// ephemeral-key AEAD cipher suites (§9.2.2 forbids the rest). Thread-safety: the context is configured once in
/// `init` and afterwards only used to create connections, which happens under a lock.
final class TLSContext: Sendable {
    private let context: TLSContextHandle

    /// Builds the context and loads the certificate chain and private key.
    /// - Parameters:
    ///   - certificatePath: PEM certificate chain.
    ///   - privateKeyPath: PEM private key.
    ///   - clientCAPath: PEM CA certificates for client certificates; nil requests none.
    /// - Throws: ``HTTP2ServerError/tlsSetup(function:detail:)`` naming the OpenSSL call that failed.
    init(certificatePath: String, privateKeyPath: String, clientCAPath: String? = nil) throws {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw HTTP2ServerError.tlsSetup(function: "SSL_CTX_new", detail: TLSContext.drainErrors())
        }
        do {
            try TLSContext.configure(context, certificatePath: certificatePath, privateKeyPath: privateKeyPath)
            if let clientCAPath { try TLSContext.requestClientCertificates(context, caPath: clientCAPath) }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        self.context = TLSContextHandle(context)
    }

    /// Creates the `SSL` object for one accepted connection.
    /// - Returns: The new `SSL`, or nil when OpenSSL is out of memory.
    func makeConnection() -> OpaquePointer? {
        context.makeConnection()
    }

    /// Empties this thread's OpenSSL error queue into one line of text.
    static func drainErrors() -> String {
        OpenSSLErrorQueue.drain(limit: .max) ?? "no OpenSSL error detail"
    }

    private static func configure(_ context: OpaquePointer, certificatePath: String, privateKeyPath: String) throws {
        func check(_ result: Int32, _ function: String) throws {
            guard result == 1 else {
                throw HTTP2ServerError.tlsSetup(function: function, detail: drainErrors())
            }
        }
        try check(TLSContextHandle.applyHTTP2Baseline(context) ? 1 : 0, "SSL_CTX_set_min_proto_version")
        SSL_CTX_set_options(context, CTLS_OP_CIPHER_SERVER_PREFERENCE)
        try check(SSL_CTX_set_cipher_list(context, "ECDHE+AESGCM:ECDHE+CHACHA20"), "SSL_CTX_set_cipher_list")
        try check(SSL_CTX_use_certificate_chain_file(context, certificatePath), "SSL_CTX_use_certificate_chain_file")
        try check(SSL_CTX_use_PrivateKey_file(context, privateKeyPath, SSL_FILETYPE_PEM), "SSL_CTX_use_PrivateKey_file")
        try check(SSL_CTX_check_private_key(context), "SSL_CTX_check_private_key")
        SSL_CTX_set_alpn_select_cb(context, selectHTTP2Protocol, nil)
    }

    /// Asks every client for a certificate and verifies one that comes against `caPath`. SSL_VERIFY_PEER
    /// without SSL_VERIFY_FAIL_IF_NO_PEER_CERT: a certificate that does not verify fails the handshake,
    /// but a client may send none (APNs accepts provider tokens on such connections).
    private static func requestClientCertificates(_ context: OpaquePointer, caPath: String) throws {
        guard SSL_CTX_load_verify_locations(context, caPath, nil) == 1 else {
            throw HTTP2ServerError.tlsSetup(function: "SSL_CTX_load_verify_locations", detail: drainErrors())
        }
        // The CA names go into the CertificateRequest so a client holding several identities can choose.
        guard let names = SSL_load_client_CA_file(caPath) else {
            throw HTTP2ServerError.tlsSetup(function: "SSL_load_client_CA_file", detail: drainErrors())
        }
        SSL_CTX_set_client_CA_list(context, names)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // OpenSSL refuses to resume a session of a verifying server without a session id context.
        let sessionContext = Array("ringer-http2".utf8)
        guard SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count)) == 1 else {
            throw HTTP2ServerError.tlsSetup(function: "SSL_CTX_set_session_id_context", detail: drainErrors())
        }
    }
}
