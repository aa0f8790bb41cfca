/* Reading this process's own memory where it may be unmapped, and telling
 * a return address from any other word: the stall watchdog's stacks
 * (watchdog.c) and a crash's frames (signals.c). */
#ifndef DLTRACE_STACKSCAN_H
#define DLTRACE_STACKSCAN_H

#include <stdint.h>
#include <sys/types.h>

/* Copies n bytes at addr; fails (returns less, or -1) instead of faulting
 * where the memory is not mapped.  Async-signal-safe (one system call). */
ssize_t dlt_peek(void *dst, uint64_t addr, size_t n);

/* 1 when the instruction before ret is a call, so that ret is a return
 * address (read with dlt_peek). */
int dlt_after_call(uint64_t ret);

#endif
