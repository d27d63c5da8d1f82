// libmosquitto, loaded when [mqtt] first connects (see LibraryLoader.h):
// cg_mosquitto_* are its functions, callable once cg_mosquitto_load succeeded.
#ifndef CAST_GATEWAY_CMOSQUITTO_SHIM_H
#define CAST_GATEWAY_CMOSQUITTO_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mosquitto.h>
#include <LibraryLoader.h>

/// Loads libmosquitto.so.1 once; 1 when usable, else 0 with the reason in `error`.
int cg_mosquitto_load(char *error, size_t error_size);

#define CG_MOSQUITTO_FUNCTIONS(F, V)                                                                                   \
    F(int, mosquitto_lib_init, (void), ())                                                                             \
    F(struct mosquitto *, mosquitto_new, (const char *id, bool clean, void *obj), (id, clean, obj))                    \
    V(mosquitto_destroy, (struct mosquitto *mosq), (mosq))                                                             \
    F(int, mosquitto_disconnect, (struct mosquitto *mosq), (mosq))                                                     \
    F(int, mosquitto_subscribe_multiple,                                                                               \
      (struct mosquitto *mosq, int *mid, int count, char *const *const subs, int qos, int options,                     \
       const mosquitto_property *properties),                                                                          \
      (mosq, mid, count, subs, qos, options, properties))                                                              \
    F(int, mosquitto_publish,                                                                                          \
      (struct mosquitto *mosq, int *mid, const char *topic, int length, const void *payload, int qos, bool retain),    \
      (mosq, mid, topic, length, payload, qos, retain))                                                                \
    F(int, mosquitto_username_pw_set, (struct mosquitto *mosq, const char *username, const char *password),            \
      (mosq, username, password))                                                                                      \
    F(int, mosquitto_connect_async, (struct mosquitto *mosq, const char *host, int port, int keepalive),               \
      (mosq, host, port, keepalive))                                                                                   \
    F(int, mosquitto_int_option, (struct mosquitto *mosq, enum mosq_opt_t option, int value), (mosq, option, value))   \
    F(int, mosquitto_tls_set,                                                                                          \
      (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile,      \
       int (*password)(char *buf, int size, int rwflag, void *userdata)),                                              \
      (mosq, cafile, capath, certfile, keyfile, password))                                                             \
    F(int, mosquitto_threaded_set, (struct mosquitto *mosq, bool threaded), (mosq, threaded))                          \
    F(int, mosquitto_reconnect_delay_set,                                                                              \
      (struct mosquitto *mosq, unsigned int delay, unsigned int maximum, bool exponential),                            \
      (mosq, delay, maximum, exponential))                                                                             \
    F(int, mosquitto_will_set,                                                                                         \
      (struct mosquitto *mosq, const char *topic, int length, const void *payload, int qos, bool retain),              \
      (mosq, topic, length, payload, qos, retain))                                                                     \
    V(mosquitto_connect_with_flags_callback_set,                                                                       \
      (struct mosquitto *mosq, void (*callback)(struct mosquitto *, void *, int, int)), (mosq, callback))              \
    V(mosquitto_disconnect_callback_set, (struct mosquitto *mosq, void (*callback)(struct mosquitto *, void *, int)),  \
      (mosq, callback))                                                                                                \
    V(mosquitto_message_callback_set,                                                                                  \
      (struct mosquitto *mosq, void (*callback)(struct mosquitto *, void *, const struct mosquitto_message *)),        \
      (mosq, callback))                                                                                                \
    V(mosquitto_property_free_all, (mosquitto_property **properties), (properties))                                    \
    F(int, mosquitto_property_add_int32, (mosquitto_property **properties, int identifier, uint32_t value),            \
      (properties, identifier, value))                                                                                 \
    F(int, mosquitto_connect_bind_v5,                                                                                  \
      (struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind,                            \
       const mosquitto_property *properties),                                                                          \
      (mosq, host, port, keepalive, bind, properties))                                                                 \
    F(int, mosquitto_loop, (struct mosquitto *mosq, int timeout, int packets), (mosq, timeout, packets))               \
    F(int, mosquitto_socket, (struct mosquitto *mosq), (mosq))                                                         \
    F(const char *, mosquitto_strerror, (int code), (code))                                                            \
    F(const char *, mosquitto_connack_string, (int code), (code))                                                      \
    F(const char *, mosquitto_reason_string, (int code), (code))

CG_MOSQUITTO_FUNCTIONS(CG_DECLARE, CG_DECLARE_VOID)

#endif
