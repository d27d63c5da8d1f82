// GPIO outputs over libgpiod, the same three calls for libgpiod 1.x (Debian
// bookworm) and 2.x (trixie); the version is chosen at compile time. Only
// StatusOutput (the LED lines) links this and libgpiod.
#ifndef CAST_GATEWAY_CGPIOD_SHIM_H
#define CAST_GATEWAY_CGPIOD_SHIM_H

#include <stddef.h>

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
