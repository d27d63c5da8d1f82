// See CecLoader.h. The function pointers are resolved once, under a
// pthread_once, and never change afterwards.
#include "CecLoader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
    libcec_connection_t (*initialise)(libcec_configuration *);
    void (*destroy)(libcec_connection_t);
    int (*open)(libcec_connection_t, const char *, uint32_t);
    void (*close)(libcec_connection_t);
    void (*clear_configuration)(libcec_configuration *);
    int (*power_on_devices)(libcec_connection_t, cec_logical_address);
    int (*standby_devices)(libcec_connection_t, cec_logical_address);
    int (*transmit)(libcec_connection_t, const cec_command *);
    cec_logical_addresses (*get_logical_addresses)(libcec_connection_t);
    uint16_t (*get_device_physical_address)(libcec_connection_t, cec_logical_address);
    int8_t (*detect_adapters)(libcec_connection_t, cec_adapter_descriptor *, uint8_t, const char *, int);
} cec;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char load_error[256];

static void load(void) {
    // The major version the headers describe: structs must match the library's.
    char name[32];
    snprintf(name, sizeof name, "libcec.so.%d", (int)(LIBCEC_VERSION_CURRENT >> 16));
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s is not installed (%s); install libcec (e.g. apt install libcec%d) for HDMI-CEC",
                 name, dlerror(), (int)(LIBCEC_VERSION_CURRENT >> 16));
        return;
    }
#define RESOLVE(field, symbol)                                                                  \
    do {                                                                                        \
        *(void **)(&cec.field) = dlsym(library, symbol);                                         \
        if (!cec.field) {                                                                       \
            snprintf(load_error, sizeof load_error, "%s lacks %s; is it the right version?", name, symbol); \
            return;                                                                             \
        }                                                                                       \
    } while (0)
    RESOLVE(initialise, "libcec_initialise");
    RESOLVE(destroy, "libcec_destroy");
    RESOLVE(open, "libcec_open");
    RESOLVE(close, "libcec_close");
    RESOLVE(clear_configuration, "libcec_clear_configuration");
    RESOLVE(power_on_devices, "libcec_power_on_devices");
    RESOLVE(standby_devices, "libcec_standby_devices");
    RESOLVE(transmit, "libcec_transmit");
    RESOLVE(get_logical_addresses, "libcec_get_logical_addresses");
    RESOLVE(detect_adapters, "libcec_detect_adapters");
    RESOLVE(get_device_physical_address, "libcec_get_device_physical_address");
#undef RESOLVE
    loaded = 1;
}

int cg_cec_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (!loaded && error && error_size) {
        strncpy(error, load_error, error_size - 1);
        error[error_size - 1] = 0;
    }
    return loaded;
}

libcec_connection_t cg_cec_initialise(libcec_configuration *configuration) {
    return loaded ? cec.initialise(configuration) : NULL;
}
void cg_cec_destroy(libcec_connection_t connection) {
    if (loaded) cec.destroy(connection);
}
int cg_cec_open(libcec_connection_t connection, const char *port, uint32_t timeout) {
    return loaded ? cec.open(connection, port, timeout) : 0;
}
void cg_cec_close(libcec_connection_t connection) {
    if (loaded) cec.close(connection);
}
void cg_cec_clear_configuration(libcec_configuration *configuration) {
    if (loaded) cec.clear_configuration(configuration);
}
int cg_cec_power_on_devices(libcec_connection_t connection, cec_logical_address address) {
    return loaded ? cec.power_on_devices(connection, address) : 0;
}
int cg_cec_standby_devices(libcec_connection_t connection, cec_logical_address address) {
    return loaded ? cec.standby_devices(connection, address) : 0;
}
int cg_cec_transmit(libcec_connection_t connection, const cec_command *command) {
    return loaded ? cec.transmit(connection, command) : 0;
}
cec_logical_addresses cg_cec_get_logical_addresses(libcec_connection_t connection) {
    cec_logical_addresses none;
    memset(&none, 0, sizeof none);
    return loaded ? cec.get_logical_addresses(connection) : none;
}
int8_t cg_cec_detect_adapters(libcec_connection_t connection, cec_adapter_descriptor *list, uint8_t size,
                              const char *path, int quick) {
    return loaded ? cec.detect_adapters(connection, list, size, path, quick) : -1;
}
uint16_t cg_cec_get_device_physical_address(libcec_connection_t connection, cec_logical_address address) {
    return loaded ? cec.get_device_physical_address(connection, address) : 0xFFFF;
}
int cg_cec_has_command_handler(void) {
#if CEC_LIB_VERSION_MAJOR >= 7
    return 1;
#else
    return 0;
#endif
}
int cg_cec_set_command_handler(ICECCallbacks *callbacks, int (*handler)(void *, const cec_command *)) {
#if CEC_LIB_VERSION_MAJOR >= 7
    callbacks->commandHandler = handler;
    return 1;
#else
    (void)callbacks;
    (void)handler;
    return 0;
#endif
}
