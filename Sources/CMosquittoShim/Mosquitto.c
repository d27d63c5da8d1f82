// See CMosquittoShim.h.
#include "CMosquittoShim.h"

#define CG_TABLE mosquitto_table
#define CG_LIBRARY_VARIABLE mosquitto_library

static struct {
    CG_MOSQUITTO_FUNCTIONS(CG_SLOT, CG_SLOT_VOID)
} CG_TABLE;

static const struct cg_symbol symbols[] = {CG_MOSQUITTO_FUNCTIONS(CG_SYMBOL, CG_SYMBOL_VOID)};
// The soname has been .1 since libmosquitto 1.x (2.0 kept it).
static struct cg_library CG_LIBRARY_VARIABLE = CG_LIBRARY("libmosquitto.so.1", "libmosquitto1", symbols);

int cg_mosquitto_load(char *error, size_t error_size) {
    return cg_library_load(&CG_LIBRARY_VARIABLE, error, error_size);
}

CG_MOSQUITTO_FUNCTIONS(CG_WRAPPER, CG_WRAPPER_VOID)
