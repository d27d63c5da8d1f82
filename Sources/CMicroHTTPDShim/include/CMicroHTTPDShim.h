// HTTP serving over libmicrohttpd (0.9.7x on bookworm, 1.0.x on trixie),
// loaded when [media] first starts (see LibraryLoader.h; with GnuTLS behind
// it, it is the largest optional library): MHD_start_daemon and
// MHD_get_*_info are variadic, and the logger receives a va_list; Swift can
// call neither. Swift calls the rest as cg_MHD_*, once cg_mhd_load succeeded.
#ifndef CAST_GATEWAY_CMICROHTTPD_SHIM_H
#define CAST_GATEWAY_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <LibraryLoader.h>

/// Loads libmicrohttpd.so.12 once; 1 when usable, else 0 with the reason in `error`.
int cg_mhd_load(char *error, size_t error_size);

#define CG_MHD_FUNCTIONS(F, V)                                                                                         \
    F(enum MHD_Result, MHD_add_response_header, (struct MHD_Response *response, const char *header, const char *content), \
      (response, header, content))                                                                                     \
    F(struct MHD_Response *, MHD_create_response_from_fd_at_offset64, (uint64_t size, int fd, uint64_t offset),        \
      (size, fd, offset))                                                                                              \
    V(MHD_destroy_response, (struct MHD_Response *response), (response))                                               \
    F(enum MHD_Result, MHD_queue_response,                                                                             \
      (struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response),                         \
      (connection, status, response))                                                                                  \
    V(MHD_stop_daemon, (struct MHD_Daemon *daemon), (daemon))

CG_MHD_FUNCTIONS(CG_DECLARE, CG_DECLARE_VOID)

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

/// The certificate and key of an HTTPS daemon, PEM text (NUL-terminated),
/// which libmicrohttpd copies into GnuTLS at start.
struct cg_mhd_tls {
    const char *certificate_pem;
    const char *key_pem;
};

/// MHD_start_daemon for a small application (the web interface): one
/// internal thread blocking in epoll, listening on `address`, requests passed
/// to `handler` (target still percent-encoded), and each request's end told
/// to `completed` (MHD_OPTION_NOTIFY_COMPLETED), which frees what the handler
/// kept in the request's context. HTTPS when `tls` is not NULL (check
/// cg_mhd_tls_supported first). NULL on failure.
struct MHD_Daemon *cg_mhd_start_app(const struct sockaddr *address, int ipv6, MHD_AccessHandlerCallback handler,
                                    void *handler_context, const struct cg_mhd_limits *limits,
                                    MHD_RequestCompletedCallback completed, const struct cg_mhd_tls *tls,
                                    cg_mhd_log_function log, void *log_context);

/// 1 when the loaded libmicrohttpd was built with HTTPS (GnuTLS), else 0.
int cg_mhd_tls_supported(void);

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

#endif
