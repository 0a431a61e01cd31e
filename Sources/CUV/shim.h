#ifndef CUV_SHIM_H
#define CUV_SHIM_H

// libuv, the event loop under the WebServer's libwebsockets context: lws' libuv plugin
// (libwebsockets-evlib-uv) runs on a "foreign" loop that the wrapper owns, so lws installs no
// signal handlers and leaves SIGINT/SIGTERM to the application.
#include <uv.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// glibc's malloc_trim(0), which Swift's Glibc module does not export: after many sockets closed, the
// server loop hands the freed heap of its arena back to the kernel (their rx buffers and sessions were
// spread over it, so the top of the heap seldom shrinks by itself). A no-op elsewhere.
static inline int CUV_malloc_trim(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

#endif
