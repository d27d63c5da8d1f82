/* libmicrohttpd glue: MHD_start_daemon and MHD_get_daemon_info are variadic,
 * and the logger receives a va_list; Swift can call neither. The library is
 * loaded at run time; these call it through the table. */
#include "CMicroHTTPDShim.h"

#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

/* The wrapped functions and those only this file calls (variadic ones among them). */
#define CG_MHD_ALL(F, V)                              \
    CG_MHD_FUNCTIONS(F, V)                            \
    F(, MHD_start_daemon, , )                         \
    F(, MHD_get_daemon_info, , )                      \
    F(, MHD_get_connection_info, , )                  \
    F(, MHD_lookup_connection_value, , )              \
    F(, MHD_create_response_from_buffer, , )          \
    F(, MHD_is_feature_supported, , )

/* The soname is .12 in both 0.9.7x and 1.0.x; trixie's package has the t64 suffix. */
#if MHD_VERSION >= 0x01000000
#define MHD_PACKAGE "libmicrohttpd12t64"
#else
#define MHD_PACKAGE "libmicrohttpd12"
#endif
CG_LIBRARY_TABLE("libmicrohttpd.so.12", MHD_PACKAGE, CG_MHD_ALL)

int cg_mhd_load(char *error, size_t error_size) {
    return cg_library_load(&cg_loaded, error, error_size);
}

CG_MHD_FUNCTIONS(CG_WRAPPER, CG_WRAPPER_VOID)

struct cg_mhd_logger {
    cg_mhd_log_function function;
    void *context;
};

static void forward_log(void *cls, const char *format, va_list arguments) {
    const struct cg_mhd_logger *logger = cls;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    size_t length = strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r')) message[--length] = '\0';
    if (logger && logger->function) logger->function(logger->context, message);
}

/* Leaves the request target exactly as received (MHD would otherwise
 * percent-decode it first), so that the path validator sees %2F, %00 and
 * %2e%2e for what they are. */
static size_t keep_escaped(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/* One logger per process is enough: it only forwards to a Swift function. */
static struct cg_mhd_logger shared_logger;

/* The one option list of both daemons. MHD_OPTION_ARRAY lets the options a
 * daemon does not use (admission, completion, TLS) be left out instead of
 * spelling out a second variadic call. */
static struct MHD_Daemon *start_daemon(const struct sockaddr *address, int ipv6, MHD_AccessHandlerCallback handler,
                                       void *handler_context, const struct cg_mhd_limits *limits,
                                       MHD_AcceptPolicyCallback admit, MHD_NotifyConnectionCallback notify,
                                       void *admission_context, MHD_RequestCompletedCallback completed,
                                       const struct cg_mhd_tls *tls, cg_mhd_log_function log, void *log_context) {
    if (!cg_table.MHD_start_daemon) cg_library_not_loaded(&cg_loaded, "MHD_start_daemon");
    /* Both daemons forward to one Swift logger function, which labels nothing by daemon. */
    shared_logger.function = log;
    shared_logger.context = log_context;
    unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (ipv6) flags |= MHD_USE_IPv6;
    if (limits->turbo) flags |= MHD_USE_TURBO;
    if (tls) flags |= MHD_USE_TLS;
    uint16_t port = 0;
    if (address->sa_family == AF_INET) port = ntohs(((const struct sockaddr_in *)address)->sin_port);
    else if (address->sa_family == AF_INET6) port = ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    struct MHD_OptionItem options[16];
    size_t count = 0;
#define CG_OPTION(OPTION, VALUE, POINTER) \
    options[count++] = (struct MHD_OptionItem){(OPTION), (intptr_t)(VALUE), (void *)(POINTER)}
    /* The logger first: MHD reports the options after it through it. */
    CG_OPTION(MHD_OPTION_EXTERNAL_LOGGER, forward_log, &shared_logger);
    if (notify) CG_OPTION(MHD_OPTION_NOTIFY_CONNECTION, notify, admission_context);
    if (completed) CG_OPTION(MHD_OPTION_NOTIFY_COMPLETED, completed, NULL);
    CG_OPTION(MHD_OPTION_SOCK_ADDR, 0, address);
    CG_OPTION(MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, NULL);
    CG_OPTION(MHD_OPTION_CONNECTION_LIMIT, limits->connection_limit, NULL);
    CG_OPTION(MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits->per_ip_connection_limit, NULL);
    CG_OPTION(MHD_OPTION_CONNECTION_TIMEOUT, limits->timeout_seconds, NULL);
    CG_OPTION(MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits->memory_limit, NULL);
    CG_OPTION(MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL);
    if (tls) {
        CG_OPTION(MHD_OPTION_HTTPS_MEM_KEY, 0, tls->key_pem);
        CG_OPTION(MHD_OPTION_HTTPS_MEM_CERT, 0, tls->certificate_pem);
    }
    CG_OPTION(MHD_OPTION_END, 0, NULL);
#undef CG_OPTION
    return cg_table.MHD_start_daemon(flags, port, admit, admission_context, handler, handler_context,
                                     MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

struct MHD_Daemon *cg_mhd_start(const struct sockaddr *address, int ipv6, MHD_AccessHandlerCallback handler,
                                void *handler_context, const struct cg_mhd_limits *limits,
                                MHD_AcceptPolicyCallback admit, MHD_NotifyConnectionCallback notify,
                                void *admission_context, cg_mhd_log_function log, void *log_context) {
    return start_daemon(address, ipv6, handler, handler_context, limits, admit, notify, admission_context, NULL, NULL,
                        log, log_context);
}

struct MHD_Daemon *cg_mhd_start_app(const struct sockaddr *address, int ipv6, MHD_AccessHandlerCallback handler,
                                    void *handler_context, const struct cg_mhd_limits *limits,
                                    MHD_RequestCompletedCallback completed, const struct cg_mhd_tls *tls,
                                    cg_mhd_log_function log, void *log_context) {
    return start_daemon(address, ipv6, handler, handler_context, limits, NULL, NULL, NULL, completed, tls, log, log_context);
}

int cg_mhd_tls_supported(void) {
    return cg_table.MHD_is_feature_supported && cg_table.MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

int cg_mhd_listen_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = cg_table.MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
    return info ? (int)info->listen_fd : -1;
}

const struct sockaddr *cg_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = cg_table.MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

int cg_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = cg_table.MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? (int)info->connect_fd : -1;
}

enum MHD_Result cg_mhd_refuse(void) {
    return MHD_NO;
}

enum MHD_Result cg_mhd_allow(void) {
    return MHD_YES;
}

int cg_mhd_connection_started(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

const char *cg_mhd_request_header(struct MHD_Connection *connection, const char *name) {
    return cg_table.MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

struct MHD_Response *cg_mhd_response_copy(const void *data, size_t size) {
    if (size == 0) return cg_table.MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    return cg_table.MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}
