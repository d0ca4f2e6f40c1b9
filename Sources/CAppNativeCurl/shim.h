// The only place libcurl's header is included (docs/style.md §2).
// curl_easy_setopt/curl_easy_getinfo are variadic; Swift cannot call C variadics,
// so each argument type gets one typed wrapper.
#ifndef APPNATIVE_CURL_SHIM_H
#define APPNATIVE_CURL_SHIM_H

#include <curl/curl.h>
#include <openssl/ssl.h>

typedef size_t (*appnative_curl_write_callback)(char *data, size_t size, size_t count, void *context);

// Options taking a long (timeouts, flags, protocol bitmasks).
static inline CURLcode appnative_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

// Options taking a string (URL, CA file, user agent); curl copies the string.
static inline CURLcode appnative_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

// Options taking an opaque pointer (WRITEDATA, HTTPHEADER list, POSTFIELDS buffer).
static inline CURLcode appnative_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

// Options taking an off_t (POSTFIELDSIZE_LARGE, MAXFILESIZE_LARGE).
static inline CURLcode appnative_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

// Options taking a write callback (WRITEFUNCTION, HEADERFUNCTION).
static inline CURLcode appnative_curl_setopt_write_callback(CURL *handle, CURLoption option, appnative_curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

// Socket callbacks (CURLOPT_SOCKOPTFUNCTION, CURLOPT_CLOSESOCKETFUNCTION); their data pointers
// go through appnative_curl_setopt_pointer.
typedef int (*appnative_curl_sockopt_callback)(void *context, curl_socket_t socket, curlsocktype purpose);
typedef int (*appnative_curl_closesocket_callback)(void *context, curl_socket_t socket);

static inline CURLcode appnative_curl_setopt_sockopt_callback(CURL *handle, appnative_curl_sockopt_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, value);
}

static inline CURLcode appnative_curl_setopt_closesocket_callback(CURL *handle, appnative_curl_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}

// CURLOPT_SSL_CTX_FUNCTION that keeps a connection's TLS record buffers between reads and
// writes: libcurl sets SSL_MODE_RELEASE_BUFFERS, which frees and reallocates them (about 17 KB
// each) on every SSL_read and SSL_write that empties them.
static inline CURLcode appnative_curl_keep_tls_buffers(CURL *handle, void *ssl_ctx, void *context) {
    (void)handle;
    (void)context;
    SSL_CTX_clear_mode((SSL_CTX *)ssl_ctx, SSL_MODE_RELEASE_BUFFERS);
    return CURLE_OK;
}

static inline CURLcode appnative_curl_setopt_keep_tls_buffers(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, appnative_curl_keep_tls_buffers);
}

// Info returning a long (response code, redirect count).
static inline CURLcode appnative_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

// Info returning a pointer (CURLINFO_PRIVATE).
static inline CURLcode appnative_curl_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

// curl_multi_setopt is variadic too.
static inline CURLMcode appnative_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// CURLVERSION_NOW is a macro the importer drops.
static inline curl_version_info_data *appnative_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
