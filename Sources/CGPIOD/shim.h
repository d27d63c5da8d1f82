#ifndef CAST_GATEWAY_CGPIOD_H
#define CAST_GATEWAY_CGPIOD_H
#include <gpiod.h>
#endif
