// libcec loaded at run time (dlopen), so that a board without HDMI-CEC
// neither loads libcec (with libstdc++, libudev, libX11 behind it: about
// 2 MB of RSS) nor needs it installed. The functions mirror libcec's C API;
// each fails safely when the library is not loaded.
#ifndef CAST_GATEWAY_CEC_LOADER_H
#define CAST_GATEWAY_CEC_LOADER_H

#include <stddef.h>
#include <libcec/cecc.h>

/// Loads libcec.so.<major> (the major version the headers are from) once.
/// Returns 1 when it is usable; otherwise 0, with the reason in `error`.
int cg_cec_load(char *error, size_t error_size);

libcec_connection_t cg_cec_initialise(libcec_configuration *configuration);
void cg_cec_destroy(libcec_connection_t connection);
int cg_cec_open(libcec_connection_t connection, const char *port, uint32_t timeout);
void cg_cec_close(libcec_connection_t connection);
void cg_cec_clear_configuration(libcec_configuration *configuration);
int cg_cec_power_on_devices(libcec_connection_t connection, cec_logical_address address);
int cg_cec_standby_devices(libcec_connection_t connection, cec_logical_address address);
int cg_cec_transmit(libcec_connection_t connection, const cec_command *command);
cec_logical_addresses cg_cec_get_logical_addresses(libcec_connection_t connection);
uint16_t cg_cec_get_device_physical_address(libcec_connection_t connection, cec_logical_address address);
/// libcec 7's `commandHandler` callback (a command it returns 1 for is the
/// client's to answer, not libcec's). Returns 0, setting nothing, with libcec 6.
int cg_cec_set_command_handler(ICECCallbacks *callbacks, int (*handler)(void *, const cec_command *));
/// 1 when libcec offers that handler (libcec 7 and later): it sees every
/// received command, with no filter in front of it.
int cg_cec_has_command_handler(void);
int8_t cg_cec_detect_adapters(libcec_connection_t connection, cec_adapter_descriptor *list, uint8_t size,
                              const char *path, int quick);

#endif
