// See CAvahiShim.h. avahi-common's functions resolve through the client
// library's handle: it is among its dependencies.
#include "CAvahiShim.h"

#define CG_TABLE avahi_table
#define CG_LIBRARY_VARIABLE avahi_library

static struct {
    CG_AVAHI_FUNCTIONS(CG_SLOT, CG_SLOT_VOID)
} CG_TABLE;

static const struct cg_symbol symbols[] = {CG_AVAHI_FUNCTIONS(CG_SYMBOL, CG_SYMBOL_VOID)};
static struct cg_library CG_LIBRARY_VARIABLE = CG_LIBRARY("libavahi-client.so.3", "libavahi-client3", symbols);

int cg_avahi_load(char *error, size_t error_size) {
    return cg_library_load(&CG_LIBRARY_VARIABLE, error, error_size);
}

CG_AVAHI_FUNCTIONS(CG_WRAPPER, CG_WRAPPER_VOID)
