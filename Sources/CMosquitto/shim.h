#ifndef CAST_GATEWAY_CMOSQUITTO_H
#define CAST_GATEWAY_CMOSQUITTO_H
#include <mosquitto.h>
#endif
