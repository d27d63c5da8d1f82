// See CecLoader.h. The function pointers are resolved once, by the shared
// loader, and never change afterwards.
#include "CecLoader.h"
#include <LibraryLoader.h>
#include <string.h>

/* Called through their slots below (the wrappers fail safely when unloaded). */
#define CG_CEC_FUNCTIONS(F, V)                     \
    F(, libcec_initialise, , )                     \
    F(, libcec_destroy, , )                        \
    F(, libcec_open, , )                           \
    F(, libcec_close, , )                          \
    F(, libcec_clear_configuration, , )            \
    F(, libcec_power_on_devices, , )               \
    F(, libcec_standby_devices, , )                \
    F(, libcec_transmit, , )                       \
    F(, libcec_get_logical_addresses, , )          \
    F(, libcec_get_device_physical_address, , )    \
    F(, libcec_detect_adapters, , )

/* The major version the headers describe: structs must match the library's. */
CG_LIBRARY_TABLE("libcec.so." CEC_LIB_VERSION_MAJOR_STR, "libcec" CEC_LIB_VERSION_MAJOR_STR, CG_CEC_FUNCTIONS)

/* Set once the table is complete; CecSource makes every call on its one queue. */
static int loaded = 0;

int cg_cec_load(char *error, size_t error_size) {
    int usable = cg_library_load(&cg_loaded, error, error_size);
    if (usable) loaded = 1;
    return usable;
}

libcec_connection_t cg_cec_initialise(libcec_configuration *configuration) {
    return loaded ? cg_table.libcec_initialise(configuration) : NULL;
}
void cg_cec_destroy(libcec_connection_t connection) {
    if (loaded) cg_table.libcec_destroy(connection);
}
int cg_cec_open(libcec_connection_t connection, const char *port, uint32_t timeout) {
    return loaded ? cg_table.libcec_open(connection, port, timeout) : 0;
}
void cg_cec_close(libcec_connection_t connection) {
    if (loaded) cg_table.libcec_close(connection);
}
void cg_cec_clear_configuration(libcec_configuration *configuration) {
    if (loaded) cg_table.libcec_clear_configuration(configuration);
}
int cg_cec_power_on_devices(libcec_connection_t connection, cec_logical_address address) {
    return loaded ? cg_table.libcec_power_on_devices(connection, address) : 0;
}
int cg_cec_standby_devices(libcec_connection_t connection, cec_logical_address address) {
    return loaded ? cg_table.libcec_standby_devices(connection, address) : 0;
}
int cg_cec_transmit(libcec_connection_t connection, const cec_command *command) {
    return loaded ? cg_table.libcec_transmit(connection, command) : 0;
}
cec_logical_addresses cg_cec_get_logical_addresses(libcec_connection_t connection) {
    cec_logical_addresses none;
    memset(&none, 0, sizeof none);
    return loaded ? cg_table.libcec_get_logical_addresses(connection) : none;
}
int8_t cg_cec_detect_adapters(libcec_connection_t connection, cec_adapter_descriptor *list, uint8_t size,
                              const char *path, int quick) {
    return loaded ? cg_table.libcec_detect_adapters(connection, list, size, path, quick) : -1;
}
uint16_t cg_cec_get_device_physical_address(libcec_connection_t connection, cec_logical_address address) {
    return loaded ? cg_table.libcec_get_device_physical_address(connection, address) : 0xFFFF;
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
