#ifndef DEADZONE_CLIBUV_SHIM_H
#define DEADZONE_CLIBUV_SHIM_H
#include <uv.h>

#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>
/// Names the calling thread (at most 15 bytes are kept), as `ps -L` and /proc show it.
static inline void deadzone_name_thread(const char *name) { prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }
#else
#include <pthread.h>
static inline void deadzone_name_thread(const char *name) { pthread_setname_np(name); }
#endif

#endif
