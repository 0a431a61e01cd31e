#ifndef RINGER_CPOSTGRES_SHIM_H
#define RINGER_CPOSTGRES_SHIM_H

// libpq, PostgreSQL's C client, as packaged by Debian (libpq-dev 15). Debian puts the header in
// /usr/include/postgresql, which pkg-config's libpq.pc adds.
#include <libpq-fe.h>
#include <postgres_ext.h>

// PG_DIAG_* are character-literal macros (postgres_ext.h), which Swift imports unreliably: give them types.
static const int CPostgres_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int CPostgres_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;

// A notice processor that drops the server's NOTICEs (libpq prints them on stderr by default, e.g. "relation
// already exists, skipping"), so the server's own log stays the only output.
static inline void CPostgres_ignoreNotice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void CPostgres_silenceNotices(PGconn *connection) {
    PQsetNoticeProcessor(connection, CPostgres_ignoreNotice, NULL);
}

// Whether TLS holds bytes it already decrypted that libpq has not read yet. poll(2) on the socket cannot see them:
// libpq's own waits check this first (pqSocketCheck, via SSL_pending), and so must a caller that polls the socket
// itself, or a message split across a TLS record could wait for bytes that already arrived. Declared here, not
// through <openssl/ssl.h>, so this module exports no OpenSSL type that CTLS also exports.
static inline int CPostgres_tlsBytesPending(PGconn *connection) {
    struct ssl_st;
    extern int SSL_pending(const struct ssl_st *ssl);
    if (!PQsslInUse(connection)) return 0;
    const struct ssl_st *ssl = (const struct ssl_st *)PQsslStruct(connection, "OpenSSL");
    return ssl != NULL && SSL_pending(ssl) > 0;
}

#endif
