// The only place OpenSSL headers are included (docs/style.md §2).
// Deprecated OpenSSL APIs are compile errors here: we build against the 3.0 API only.
#ifndef APPNATIVE_OPENSSL_SHIM_H
#define APPNATIVE_OPENSSL_SHIM_H

#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// OPENSSL_free is a macro that passes __FILE__/__LINE__; Swift cannot call macros.
static inline void appnative_openssl_free(void *pointer) { OPENSSL_free(pointer); }

// OPENSSL_VERSION_NUMBER is a macro constant the importer drops.
static inline unsigned long appnative_openssl_header_version(void) { return OPENSSL_VERSION_NUMBER; }

// BIO_get_mem_data is a function-like macro over BIO_ctrl.
static inline long appnative_openssl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

// EVP_PKEY_CTX_set_rsa_padding is a real function in 3.0 but its constant RSA_PKCS1_PADDING is a macro
// the importer keeps; this wrapper keeps the padding choice in one audited place.
static inline int appnative_openssl_set_pkcs1_padding(EVP_PKEY_CTX *ctx) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING);
}

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline int appnative_openssl_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

// SSL_CTX_set_mode is a macro; partial writes and moving buffers are needed for non-blocking I/O.
static inline long appnative_openssl_ssl_ctx_set_nonblocking_modes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

// SSL_OP_* constants are 64-bit macros the importer drops.
static inline uint64_t appnative_openssl_ssl_ctx_set_server_options(SSL_CTX *ctx) {
    return SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
}

// SSL_set_tlsext_host_name is a macro over SSL_ctrl (SNI for outbound TLS).
static inline int appnative_openssl_ssl_set_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// ALPN for the client listener (RFC 7301): the server's preference order, h2 first. A C function
// because OpenSSL calls it during the handshake; it only reads the client's list and points into
// a static array, so nothing crosses into Swift. No overlap: no ALPN, the connection is HTTP/1.1.
static inline int appnative_openssl_alpn_select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                                   const unsigned char *in, unsigned int inlen, void *arg) {
    static const unsigned char offered[] = "\x02h2\x08http/1.1";
    (void)ssl;
    (void)arg;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, offered, sizeof(offered) - 1, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

// Installs the selection above; the callback is C, so Swift passes no closure across.
static inline void appnative_openssl_ssl_ctx_offer_h2(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, appnative_openssl_alpn_select_h2, NULL);
}

// Whether the handshake selected `h2` (SSL_get0_alpn_selected hands out a length-prefixed view).
static inline int appnative_openssl_ssl_selected_h2(const SSL *ssl) {
    const unsigned char *protocol = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl, &protocol, &length);
    return length == 2 && protocol != NULL && protocol[0] == 'h' && protocol[1] == '2';
}

#endif
