/* Reading this process's own memory where it may be unmapped: a crash's
 * raw stack and build-ids (signals.c, common/rawcap.c). */
#ifndef DLTRACE_STACKSCAN_H
#define DLTRACE_STACKSCAN_H

#include <stdint.h>
#include <sys/types.h>

/* Copies n bytes at addr; fails (returns less, or -1) instead of faulting
 * where the memory is not mapped.  Async-signal-safe (one system call). */
ssize_t dlt_peek(void *dst, uint64_t addr, size_t n);

#endif
