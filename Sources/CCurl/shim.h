// libcurl (Debian's libcurl4-openssl-dev) for the server's outgoing HTTP requests (webhook deliveries), plus typed
// shims for its variadic calls, which Swift cannot import: curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>
#include <sys/socket.h>

static inline CURLcode ringer_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ringer_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ringer_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ringer_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*ringer_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ringer_curl_easy_setopt_data_callback(
    CURL *handle, CURLoption option, ringer_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ringer_curl_easy_setopt_opensocket(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

static inline CURLcode ringer_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ringer_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ringer_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

#endif
