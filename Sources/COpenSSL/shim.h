#ifndef CAST_GATEWAY_COPENSSL_H
#define CAST_GATEWAY_COPENSSL_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/rand.h>
#include <openssl/pem.h>
#include <openssl/objects.h>
#include <openssl/x509v3.h>

/* OpenSSL's function-like macros (SSL_CTX_set_min_proto_version, STACK_OF,
 * ...) cannot be called from Swift. These wrappers are static inline, so they
 * hold no state and are compiled only into the modules that import COpenSSL
 * (TLS and DeviceAuth); no separate C target is needed. */

/// SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION). Returns 1 on success.
static inline int cg_ssl_ctx_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// SSL_CTX_set_mode with partial writes and moving write buffers enabled,
/// which non-blocking writers need. Returns the new mode bits.
static inline long cg_ssl_ctx_enable_partial_writes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF): a peer that closes
/// without close_notify reads as an orderly end of stream.
static inline void cg_ssl_ctx_ignore_unexpected_eof(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
}

/// EVP_EC_gen("P-256"): a fresh P-256 key pair, or NULL.
static inline EVP_PKEY *cg_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

/// Empties this thread's OpenSSL error queue into text: each error's
/// message, joined by "; ", or "no OpenSSL error recorded" when the queue is
/// empty. The text is in a per-thread buffer, valid until the next call on
/// the thread (copy it at once: Swift's String(cString:) does). The one
/// drain TLS and DeviceAuth both use; the queue is emptied even when the
/// text is truncated.
static inline const char *cg_openssl_errors(void) {
    static _Thread_local char out[4096];
    size_t used = 0;
    int count = 0;
    unsigned long code;
    out[0] = 0;
    while ((code = ERR_get_error()) != 0) {
        char text[256];
        ERR_error_string_n(code, text, sizeof text);
        const char *parts[2] = { count > 0 ? "; " : "", text };
        for (int i = 0; i < 2; i++) {
            for (const char *c = parts[i]; *c && used + 1 < sizeof out; c++) out[used++] = *c;
        }
        out[used] = 0;
        count++;
    }
    return count > 0 ? out : "no OpenSSL error recorded";
}

/* X.509 stacks and certificate policies for the DeviceAuth module. */

/// sk_X509_new_null().
static inline STACK_OF(X509) *cg_x509_stack_new(void) {
    return sk_X509_new_null();
}

/// Pushes `cert`, taking a new reference to it. Returns 1 on success.
static inline int cg_x509_stack_push(STACK_OF(X509) *stack, X509 *cert) {
    if (X509_up_ref(cert) != 1) return 0;
    if (sk_X509_push(stack, cert) <= 0) {
        X509_free(cert);
        return 0;
    }
    return 1;
}

/// sk_X509_num().
static inline int cg_x509_stack_count(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

/// sk_X509_value(): a borrowed pointer, or NULL.
static inline X509 *cg_x509_stack_get(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

/// sk_X509_pop_free(stack, X509_free).
static inline void cg_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

/// Whether the certificatePolicies extension of `cert` lists `oid` (dotted
/// text): 1 yes, 0 no (or no such extension), -1 the extension is malformed.
static inline int cg_x509_has_policy(X509 *cert, const char *oid) {
    int critical = -1;
    CERTIFICATEPOLICIES *policies = (CERTIFICATEPOLICIES *)X509_get_ext_d2i(cert, NID_certificate_policies, &critical, NULL);
    if (policies == NULL) return critical == -1 ? 0 : -1;
    ASN1_OBJECT *wanted = OBJ_txt2obj(oid, 1);
    int found = 0;
    if (wanted != NULL) {
        for (int i = 0; i < sk_POLICYINFO_num(policies); i++) {
            POLICYINFO *info = sk_POLICYINFO_value(policies, i);
            if (info != NULL && OBJ_cmp(info->policyid, wanted) == 0) {
                found = 1;
                break;
            }
        }
        ASN1_OBJECT_free(wanted);
    }
    CERTIFICATEPOLICIES_free(policies);
    return wanted == NULL ? -1 : found;
}
#endif
