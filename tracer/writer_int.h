/* What the writer's own files share (file.c, chunks.c, strings.c,
 * procinfo.c); not for the writer's users. */
#ifndef DLTRACE_WRITER_INT_H
#define DLTRACE_WRITER_INT_H

#include <sched.h>

#include <sys/mman.h>

#include "frame.h"
#include "writer.h"

/* Spin with yield: the lock is only taken to grow the file or intern a
 * string, never on the hot path, and it must work across the two library
 * copies, which share no pthread state. */
static inline void dlt_spin_lock(_Atomic int *l)
{
	while (atomic_exchange_explicit(l, 1, memory_order_acquire))
		sched_yield();
}

static inline void dlt_spin_unlock(_Atomic int *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

/* Linux 5.14; older headers lack it, older kernels refuse it (EINVAL),
 * and the pages are then made by the first stores instead. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Maps [off, off+len) of w's file, growing the file first, the file opened
 * by path (file.c).  NULL with *err set when it cannot. */
uint8_t *dlt_map_range(struct dlt_writer *w, uint64_t off, uint64_t len,
		       int *err, int populate);

#endif
