/* The fast path of recording: reserve room in the calling thread's chunk,
 * fill it, commit it with one release store.  No lock, no system call; the
 * slow path (a new chunk) is chunks.c. */
#ifndef DLTRACE_RECORD_H
#define DLTRACE_RECORD_H

#include "writer.h"

/* Reserves len bytes (rounded up to 8) for one record in the calling
 * thread's chunk.  Returns NULL when tracing is off or the record cannot be
 * placed; the caller then records nothing. */
void *dlt_rec_reserve_slow(struct dlt_writer *w, struct dlt_tls *t,
			   uint32_t len);

static inline uint32_t dlt_rec_round(uint32_t len)
{
	return (len + DLT_REC_ALIGN - 1) & ~(DLT_REC_ALIGN - 1);
}

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

/* Publishes a record: the release store of the first 8 bytes comes last. */
static inline void dlt_rec_commit(void *rec, uint16_t type, uint16_t flags,
				  uint32_t len)
{
	struct dlt_rec_hdr *h = rec;
	uint64_t word = (uint64_t)dlt_rec_round(len) | ((uint64_t)type << 32) |
			((uint64_t)flags << 48);
	atomic_store_explicit((_Atomic uint64_t *)(void *)h, word,
			      memory_order_release);
}

#endif
