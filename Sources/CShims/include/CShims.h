// The project's one C shim: thin wrappers for C macros that Swift cannot
// import, and for differences between library versions. No logic lives here.
#ifndef CAST_GATEWAY_CSHIMS_H
#define CAST_GATEWAY_CSHIMS_H

#include <openssl/ssl.h>
#include <openssl/evp.h>
#include "DeviceAuthShims.h"
#include "CecLoader.h"

/// SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION). Returns 1 on success.
int cg_ssl_ctx_require_tls12(SSL_CTX *ctx);

/// SSL_CTX_set_mode with partial writes and moving write buffers enabled,
/// which non-blocking writers need. Returns the new mode bits.
long cg_ssl_ctx_enable_partial_writes(SSL_CTX *ctx);

/// SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF): a peer that closes
/// without close_notify reads as an orderly end of stream.
void cg_ssl_ctx_ignore_unexpected_eof(SSL_CTX *ctx);

/// EVP_EC_gen("P-256"): a fresh P-256 key pair, or NULL.
EVP_PKEY *cg_generate_p256_key(void);

/* GPIO outputs over libgpiod, the same three calls for libgpiod 1.x (Debian
 * bookworm) and 2.x (trixie); the version is chosen at compile time. */
typedef struct cg_gpio_output cg_gpio_output;

/// Requests one line as an output, initially inactive: by `line_name` (e.g.
/// "GPIO17") on whichever chip has it, or, when `line_name` is NULL, line
/// `offset` of the chip labelled `chip_label`. Returns NULL and writes a
/// message to `error` on failure.
cg_gpio_output *cg_gpio_request_output(const char *line_name, const char *chip_label, unsigned int offset,
                                       int active_low, const char *consumer, char *error, size_t error_size);

/// Drives the line active (1) or inactive (0). Returns 0 on success.
int cg_gpio_set_value(cg_gpio_output *output, int active);

/// Releases the line and frees `output`.
void cg_gpio_release(cg_gpio_output *output);

#endif
