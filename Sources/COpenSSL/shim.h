// The parts of OpenSSL 3.0 libcrypto that Ringer's JWT, DevCertificates and OpenSSLSupport (SecretBox) targets call, plus typed
// shims for the function-like macros Swift cannot import.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// BIO_get_mem_data is a function-like macro over BIO_ctrl; returns the length and points *data at the bytes.
static inline long COpenSSL_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

#endif
