// Debian 12's hiredis 0.14.1: blocking and non-blocking contexts, no TLS (hiredis_ssl came with 1.0).
// Only the argv calls are used from Swift: redisCommand is printf-variadic, which Swift cannot call.
#include <hiredis/hiredis.h>
