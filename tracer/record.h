/* The fast path of recording: reserve room in the calling thread's chunk,
 * fill it, commit it with one release store.  No lock, no system call; the
 * slow path (a new chunk) is chunks.c. */
#ifndef DLTRACE_RECORD_H
#define DLTRACE_RECORD_H

#include "frame.h"
#include "writer.h"

/* Moves *cur from old to new unless it no longer holds old.  A signal
 * handler of this thread that records runs before or after one instruction,
 * never inside it, so a record it reserved is never handed out again.  No
 * lock prefix: no other thread touches a thread's dlt_tls. */
static inline int dlt_cur_move(uint8_t **cur, uint8_t *old, uint8_t *new_cur)
{
#if defined(__x86_64__)
	uint8_t *prev = old;
	__asm__ volatile("cmpxchgq %2, %1"
			 : "+a"(prev), "+m"(*cur)
			 : "r"(new_cur)
			 : "cc", "memory");
	return prev == old;
#else
	return __atomic_compare_exchange_n(cur, &old, new_cur, 0,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

/* Reserves len bytes (rounded up to 8) for one record in the calling
 * thread's chunk.  Returns NULL when tracing is off or the record cannot be
 * placed; the caller then records nothing. */
static inline void *dlt_rec_reserve(struct dlt_writer *w, struct dlt_tls *t,
				    uint32_t len)
{
	len = dlt_rec_round(len);
	for (;;) {
		uint8_t *p = t->cur;
		/* Signed: while a chunk is being retired end is NULL, and a
		 * handler must not take that for room. */
		if (__builtin_expect(
			    p == NULL ||
				    t->gen != atomic_load_explicit(
						      &w->gen,
						      memory_order_relaxed) ||
				    (intptr_t)((uintptr_t)t->end -
					       (uintptr_t)p) < (intptr_t)len,
			    0))
			return dlt_rec_reserve_slow(w, t, len);
		if (__builtin_expect(dlt_cur_move(&t->cur, p, p + len), 1)) {
			/* Own the cache lines a little ahead: the pages were
			 * made by another thread (or core), and a store that
			 * misses costs more than the rest of a record. */
			__builtin_prefetch(p + DLT_PREFETCH_AHEAD, 1, 3);
			return p;
		}
	}
}

/* A record reserved at rec with len bytes turned out to need only used:
 * the rest goes back to the chunk unless something was reserved after it
 * meanwhile (a signal handler's record).  Returns the length to commit. */
static inline uint32_t dlt_rec_shrink(struct dlt_tls *t, void *rec,
				      uint32_t len, uint32_t used)
{
	len = dlt_rec_round(len);
	used = dlt_rec_round(used);
	if (used < len &&
	    dlt_cur_move(&t->cur, (uint8_t *)rec + len, (uint8_t *)rec + used))
		return used;
	return len;
}

/* A record may be updated in place after it was committed (a blocking
 * call's duration, a wait that lasts, a repeat count) only while its
 * thread still writes the chunk the record is in: a chunk given back may
 * be unmapped at any time.  dlt_rec_ticket right after the reserve;
 * dlt_rec_in_place before each update. */
static inline uint64_t dlt_rec_ticket(const struct dlt_tls *t)
{
	return ((uint64_t)t->gen << 32) | t->nchunk;
}

static inline int dlt_rec_in_place(struct dlt_writer *w,
				   const struct dlt_tls *t, uint64_t ticket)
{
	return ticket == dlt_rec_ticket(t) &&
	       t->gen == atomic_load_explicit(&w->gen, memory_order_relaxed);
}

#endif
