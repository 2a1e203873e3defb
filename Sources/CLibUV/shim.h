#ifndef DEADZONE_CLIBUV_SHIM_H
#define DEADZONE_CLIBUV_SHIM_H
#include <uv.h>
#endif
