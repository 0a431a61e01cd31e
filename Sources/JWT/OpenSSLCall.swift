public import OpenSSLSupport

/// libcrypto results checked into ``JWTError`` (see `CheckedOpenSSL`).
typealias OpenSSLCall = CheckedOpenSSL<JWTError>

extension JWTError: OpenSSLFailure {}
