// See CMosquittoShim.h. The soname has been .1 since libmosquitto 1.x (2.0 kept it).
#include "CMosquittoShim.h"

CG_SHIM(cg_mosquitto_load, "libmosquitto.so.1", "libmosquitto1", CG_MOSQUITTO_FUNCTIONS)
