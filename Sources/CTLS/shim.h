#ifndef RINGER_CTLS_SHIM_H
#define RINGER_CTLS_SHIM_H

// OpenSSL libssl (TLS) as packaged by Debian (libssl-dev 3.0).
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/pkcs12.h>
#include <openssl/x509v3.h>

// SSL_CTX_set_min_proto_version is a function-like macro over SSL_CTX_ctrl, which Swift cannot call.
static inline int CTLS_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

// SSL_CTX_set_mode is a function-like macro over SSL_CTX_ctrl, which Swift cannot call.
static inline long CTLS_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

// The SSL_OP_* flags are built with the function-like macro SSL_OP_BIT, which Swift does not import.
static const uint64_t CTLS_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;

// See CTLS_OP_NO_COMPRESSION: SSL_OP_BIT macro.
static const uint64_t CTLS_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;

// See CTLS_OP_NO_COMPRESSION: SSL_OP_BIT macro.
static const uint64_t CTLS_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;

// SSL_set_tlsext_host_name is a function-like macro over SSL_ctrl (the client's SNI), which Swift cannot call.
static inline int CTLS_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// SSL_CTX_add1_chain_cert is a function-like macro over SSL_CTX_ctrl (intermediates of a PKCS#12 identity).
static inline int CTLS_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(ctx, certificate);
}

#endif
