#ifndef CAST_GATEWAY_CCURL_H
#define CAST_GATEWAY_CCURL_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
 * call. These typed wrappers are static inline here rather than in a C
 * target on purpose: cast-gateway embeds the simulator and must not link
 * libcurl. Being static inline, they are compiled only into the modules that
 * import CCurl. */

static inline CURLcode cg_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cg_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cg_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cg_curl_setopt_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

static inline CURLcode cg_curl_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode cg_curl_setopt_header_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

/* Only http and https, on the request and on redirects (CURLOPT_PROTOCOLS_STR
 * since 7.85; the bit masks before, deprecated after). */
static inline CURLcode cg_curl_allow_http_only(CURL *handle) {
#if LIBCURL_VERSION_NUM >= 0x075500
    CURLcode result = curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    if (result != CURLE_OK) return result;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    CURLcode result = curl_easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (result != CURLE_OK) return result;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

static inline CURLcode cg_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

#endif
