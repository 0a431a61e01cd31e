#ifndef RINGER_CNGHTTP2_SHIM_H
#define RINGER_CNGHTTP2_SHIM_H

// libnghttp2 (HTTP/2 framing, HPACK, flow control) as packaged by Debian (libnghttp2-dev).
// Its API is plain functions, enums and structs that Swift imports directly; nothing needs a shim.
#include <nghttp2/nghttp2.h>

#endif
