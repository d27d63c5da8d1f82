// X.509 stack and policy helpers for the DeviceAuth module: OpenSSL's
// STACK_OF macros and CERTIFICATEPOLICIES walking cannot be called from Swift.
#ifndef CAST_GATEWAY_DEVICE_AUTH_SHIMS_H
#define CAST_GATEWAY_DEVICE_AUTH_SHIMS_H

#include <openssl/x509.h>

/// sk_X509_new_null().
STACK_OF(X509) *cg_x509_stack_new(void);

/// Pushes `cert`, taking a new reference to it. Returns 1 on success.
int cg_x509_stack_push(STACK_OF(X509) *stack, X509 *cert);

/// sk_X509_num().
int cg_x509_stack_count(const STACK_OF(X509) *stack);

/// sk_X509_value(): a borrowed pointer, or NULL.
X509 *cg_x509_stack_get(const STACK_OF(X509) *stack, int index);

/// sk_X509_pop_free(stack, X509_free).
void cg_x509_stack_free(STACK_OF(X509) *stack);

/// Whether the certificatePolicies extension of `cert` lists `oid` (dotted
/// text): 1 yes, 0 no (or no such extension), -1 the extension is malformed.
int cg_x509_has_policy(X509 *cert, const char *oid);

#endif
