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

/* The writer's file opened again by path, checked to be the same file
 * (file.c): the writer keeps no descriptor, since the host may close any
 * descriptor we keep, and one it reuses must never be written through.
 * Close it at once.  -1 with *err set when it cannot. */
int dlt_file_open(struct dlt_writer *w, int *err);

/* Makes the file on fd hold [off, off + len) with real blocks, zero
 * filled (file.c).  0 or an errno. */
int dlt_file_extend(int fd, uint64_t off, uint64_t len);

/* Bytes the file may grow to from its current size without the kernel
 * raising SIGXFSZ in the host (RLIMIT_FSIZE), at most want. */
uint64_t dlt_file_room(uint64_t want);

/* Shortens the file to size; 0 or an errno. */
int dlt_file_cut(struct dlt_writer *w, uint64_t size);

/* The lock tried without waiting long: a cut may run in a signal
 * handler whose thread, or another one stopped by it, holds the lock. */
static inline int dlt_spin_trylock(_Atomic int *l, int tries)
{
	for (int i = 0; i < tries; i++) {
		if (!atomic_exchange_explicit(l, 1, memory_order_acquire))
			return 1;
		sched_yield();
	}
	return 0;
}

/* The ring (ring.c), format 2.6. */
/* A ring chunk t gave back joins the queue. */
void dlt_ring_retired(struct dlt_writer *w, const struct dlt_tls *t);
/* Under w->lock, for a ring chunk of clen bytes at off: 0 when the ring may
 * grow (within its share and the budget), else the oldest ring chunk given
 * back (taken off the queue), or 0 when none is. */
uint64_t dlt_ring_take(struct dlt_writer *w, uint64_t off, uint64_t clen,
		       uint64_t limit);
/* The ring chunk at off, taken, summed up into an AGG (t->rare's) and made
 * t's anew; NULL when it cannot be (it is queued again). */
uint8_t *dlt_ring_reuse(struct dlt_writer *w, struct dlt_tls *t, uint64_t off);
/* Under w->lock: a ring chunk given back that can hold an AGG and need
 * more bytes, taken out of the ring for the other records (the ring keeps
 * at least ring_min bytes), or 0. */
uint64_t dlt_ring_take_for(struct dlt_writer *w, uint64_t need);
/* The ring chunk at off, taken by dlt_ring_take_for, summed up and made
 * t's (a chunk of the other records) with its AGG as its first record;
 * NULL when it cannot be (it is queued again). */
uint8_t *dlt_ring_steal(struct dlt_writer *w, struct dlt_tls *t, uint64_t off);
/* n calls (calls) or other records were not written: counted in the
 * header, the latter said once on stderr. */
void dlt_ring_lost(struct dlt_writer *w, int calls, uint32_t n);

#endif
