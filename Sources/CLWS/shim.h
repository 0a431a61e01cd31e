#ifndef CLWS_SHIM_H
#define CLWS_SHIM_H

#include <libwebsockets.h>

// Swift cannot import LWS_PRE: it expands through the function-like macro _LWS_PAD.
static const size_t CLWS_PRE = LWS_PRE;

// The option bits below are `(1ll << n)` macros, which Swift does not import.
static const uint64_t CLWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
static const uint64_t CLWS_SERVER_OPTION_DISABLE_IPV6 = LWS_SERVER_OPTION_DISABLE_IPV6;
static const uint64_t CLWS_SERVER_OPTION_VALIDATE_UTF8 = LWS_SERVER_OPTION_VALIDATE_UTF8;
static const uint64_t CLWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND = LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
static const uint64_t CLWS_SERVER_OPTION_H2_JUST_FIX_WINDOW_UPDATE_OVERFLOW =
    LWS_SERVER_OPTION_H2_JUST_FIX_WINDOW_UPDATE_OVERFLOW;

static const uint64_t CLWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG =
    LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG;

static const uint64_t CLWS_SERVER_OPTION_LIBUV = LWS_SERVER_OPTION_LIBUV;

// A server vhost that adopts sockets the wrapper accepted itself (so that it can survive EMFILE) instead
// of listening: TLS and HTTP as for a listening vhost.
static const int CLWS_CONTEXT_PORT_NO_LISTEN_SERVER = CONTEXT_PORT_NO_LISTEN_SERVER;

#endif
