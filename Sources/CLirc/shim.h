#ifndef CAST_GATEWAY_CLIRC_H
#define CAST_GATEWAY_CLIRC_H
#include <lirc_client.h>
#endif
