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

/* HTTP serving over libmicrohttpd (0.9.7x on bookworm, 1.0.x on trixie). */
#if __has_include(<microhttpd.h>)
#define CG_HAVE_MICROHTTPD 1
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Receives each libmicrohttpd error line, formatted.
typedef void (*cg_mhd_log_function)(void *context, const char *message);

/// Resource limits of one daemon.
struct cg_mhd_limits {
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int timeout_seconds;
    size_t memory_limit;
    int turbo;
};

/// MHD_start_daemon with one internal thread blocking in epoll (poll where
/// epoll is missing), listening on `address` (its port may be 0), with the
/// request target passed to `handler` still percent-encoded, new connections
/// offered to `admit` and their start and end told to `notify`. NULL on failure.
struct MHD_Daemon *cg_mhd_start(const struct sockaddr *address, int ipv6, MHD_AccessHandlerCallback handler,
                                void *handler_context, const struct cg_mhd_limits *limits,
                                MHD_AcceptPolicyCallback admit, MHD_NotifyConnectionCallback notify,
                                void *admission_context, cg_mhd_log_function log, void *log_context);

/// The peer address of a connection (MHD_get_connection_info is variadic), or NULL.
const struct sockaddr *cg_mhd_client_address(struct MHD_Connection *connection);

/// The socket of a connection, or -1.
int cg_mhd_connection_fd(struct MHD_Connection *connection);

/// The daemon's listening socket (for getsockname), or -1.
int cg_mhd_listen_fd(struct MHD_Daemon *daemon);

/* The enums below are imported differently by Swift depending on how the
 * library version annotates them; these keep Swift code independent of it. */

/// MHD_NO: close the connection without an answer.
enum MHD_Result cg_mhd_refuse(void);

/// MHD_YES: accept the connection.
enum MHD_Result cg_mhd_allow(void);

/// 1 for MHD_CONNECTION_NOTIFY_STARTED, 0 for MHD_CONNECTION_NOTIFY_CLOSED.
int cg_mhd_connection_started(enum MHD_ConnectionNotificationCode code);

/// A request header (case-insensitive name), or NULL.
const char *cg_mhd_request_header(struct MHD_Connection *connection, const char *name);

/// A response whose body is a copy of `size` bytes at `data` (NULL/0: empty).
struct MHD_Response *cg_mhd_response_copy(const void *data, size_t size);
#else
#define CG_HAVE_MICROHTTPD 0
#endif

#endif
