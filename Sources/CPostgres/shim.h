// libpq, PostgreSQL's client library; Debian's libpq-dev puts the header in /usr/include/postgresql,
// which pkg-config's `libpq` adds to the include path.
#include <libpq-fe.h>
