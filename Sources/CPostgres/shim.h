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

#endif
