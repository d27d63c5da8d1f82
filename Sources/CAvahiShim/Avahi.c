// See CAvahiShim.h. avahi-common's functions resolve through the client
// library's handle: it is among its dependencies.
#include "CAvahiShim.h"

CG_SHIM(cg_avahi_load, "libavahi-client.so.3", "libavahi-client3", CG_AVAHI_FUNCTIONS)
