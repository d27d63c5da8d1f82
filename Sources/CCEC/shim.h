#ifndef CAST_GATEWAY_CCEC_H
#define CAST_GATEWAY_CCEC_H
#include <libcec/cecc.h>
#endif
