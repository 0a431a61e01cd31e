public import OpenSSLSupport

/// libcrypto results checked into ``DevCertificateError`` (see `CheckedOpenSSL`).
typealias OpenSSLCall = CheckedOpenSSL<DevCertificateError>

extension DevCertificateError: OpenSSLFailure {}
