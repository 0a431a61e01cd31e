#ifndef RINGER_CCURL_SHIM_H
#define RINGER_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are C variadics, which Swift cannot call;
// each wrapper below fixes one argument type so Swift sees an ordinary function.

// Sets an option whose argument is a C long (flags, counts, milliseconds).
static inline CURLcode CCurl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

// Sets an option whose argument is a NUL-terminated string (libcurl copies it).
static inline CURLcode CCurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

// Sets an option whose argument is an opaque pointer (PRIVATE, WRITEDATA, HEADERDATA, ERRORBUFFER, ...).
static inline CURLcode CCurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

// Sets an option whose argument is a curl_off_t (the *_LARGE sizes).
static inline CURLcode CCurl_easy_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

// Sets an option whose argument is a header list (HTTPHEADER).
static inline CURLcode CCurl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

// Sets WRITEFUNCTION or HEADERFUNCTION, which share the curl_write_callback signature.
static inline CURLcode CCurl_easy_setopt_write_callback(CURL *easy, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(easy, option, value);
}

// Sets SOCKOPTFUNCTION, called with each socket libcurl creates, before it connects.
static inline CURLcode CCurl_easy_setopt_sockopt_callback(CURL *easy, curl_sockopt_callback value) {
    return curl_easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, value);
}

// Sets CLOSESOCKETFUNCTION, called instead of close() for each socket libcurl is done with.
static inline CURLcode CCurl_easy_setopt_closesocket_callback(CURL *easy, curl_closesocket_callback value) {
    return curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, value);
}

// Reads an info value of type long (RESPONSE_CODE, HTTP_VERSION, NUM_CONNECTS, ...).
static inline CURLcode CCurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

// Reads an info value of type curl_off_t (TOTAL_TIME_T, in microseconds).
static inline CURLcode CCurl_easy_getinfo_offset(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

// Reads CURLINFO_PRIVATE, declared as char ** but holding the pointer stored with CURLOPT_PRIVATE.
static inline CURLcode CCurl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, (char **)value);
}

// Sets a multi option whose argument is a C long (PIPELINING, MAX_HOST_CONNECTIONS, ...).
static inline CURLMcode CCurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// CURL_GLOBAL_DEFAULT is a macro built from other macros; exposed with the long type curl_global_init takes.
static const long CCurl_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;

// CURLPIPE_MULTIPLEX is a macro; exposed with the long type CURLMOPT_PIPELINING takes.
static const long CCurl_PIPE_MULTIPLEX = CURLPIPE_MULTIPLEX;

#endif
