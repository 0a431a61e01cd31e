import CTLS
import OpenSSLSupport

/// Loads a server's certificate chain and private key into a throw-away OpenSSL context, as lws will.
///
/// lws 4.1.6 on a foreign loop answers TLS files it cannot use by half-destroying the context it returns, and
/// finishing that destruction closes descriptors that may by then be another thread's (``WebServer/start()``).
/// Files that pass here also pass lws' own loading (`SSL_CTX_use_certificate_chain_file`,
/// `SSL_CTX_use_PrivateKey_file`, `SSL_CTX_check_private_key`), so lws never takes that path.
enum TLSFilesCheck {
    /// - Returns: nil when both files load and the key matches the certificate; otherwise which step failed and
    ///   OpenSSL's reason (never the files' contents).
    static func problem(certificatePath: String, privateKeyPath: String) -> String? {
        guard let context = SSL_CTX_new(TLS_server_method()) else { return "SSL_CTX_new failed" }
        defer { SSL_CTX_free(context) }
        let steps: [(String, () -> Int32)] = [
            (
                "cannot load the TLS certificate chain \(certificatePath)",
                { SSL_CTX_use_certificate_chain_file(context, certificatePath) }
            ),
            (
                "cannot load the TLS private key \(privateKeyPath)",
                { SSL_CTX_use_PrivateKey_file(context, privateKeyPath, SSL_FILETYPE_PEM) }
            ),
            (
                "the TLS private key \(privateKeyPath) does not match the certificate",
                { SSL_CTX_check_private_key(context) }
            ),
        ]
        for (failure, step) in steps where step() != 1 {
            return "\(failure): \(OpenSSLErrorQueue.drain() ?? "no OpenSSL reason")"
        }
        return nil
    }
}
