/* How a GPU library call is written (calls.c): as an 8-byte compact entry
 * when the same thread made a call of the same API with the same values
 * earlier in its current chunk and this one returned 0, else as a record
 * (API_DEF, which gives its API and values a slot for the entries that
 * follow, or API_CALL).  docs/trace-format.md, "API_DEF and compact
 * entries".
 *
 * The fast path is here, inline, for the wrappers of api.c: a table
 * lookup, one compare-and-exchange and one 8-byte store, no system call.
 * Why 8 bytes: on the development VM a traced call spent most of its added
 * time making and touching the pages its 32-byte record filled (a page per
 * 128 calls); a quarter of the bytes is a quarter of the pages. */
#ifndef DLTRACE_CALLS_H
#define DLTRACE_CALLS_H

#include <stdint.h>

#include "apitable.h"
#include "state.h"

/* The calls of one API with the same values, as this thread last defined
 * them in its chunk number chunk (an API_DEF there). */
struct dlt_call_slot {
	uint32_t chunk;
	uint16_t id;
	uint16_t nv;
	uint64_t v[DLT_API_MAX_VALS];
};

/* Per thread, made on the thread's first recorded call (a __thread table
 * would not fit the static TLS the LD_AUDIT namespace lives in). */
struct dlt_calls {
	uint64_t base; /* start of the chunk's last API_DEF or entry */
	/* Writing an entry or a definition: a call a signal handler makes
	 * meanwhile on this thread is written as an API_CALL, so that the
	 * chunk's chain of times and slots stays the thread's own. */
	int busy;
	struct dlt_call_slot slot[DLT_ENTRY_SLOTS];
};
extern __thread struct dlt_calls *dlt_calls_tls;

/* Format 2.6: the thread's ring chunk, where its successful calls of the
 * frequent APIs go (tracer/ring.c); its errors, and every call of the APIs
 * that explain a job (inits, selections: apis.def roles, api.c), go to
 * dlt_tls with the other records. */
extern __thread struct dlt_tls dlt_ring_tls;
/* A call written before it started (format.h: open calls), to be closed
 * in place when it returns. */
struct dlt_open_call {
	void *at;	   /* the entry, or the record's ret and dur */
	struct dlt_tls *t; /* whose chunk it is in */
	uint64_t ticket;   /* record.h: closed in place only in its chunk */
	uint64_t word;	   /* the entry as written */
	int kind;	   /* 0 nothing written, 1 a record, 2 an entry */
};

#define DLT_CALL_INLINE static inline __attribute__((always_inline))

/* The slot of an API and its values: the values folded into one word,
 * then one multiply (a launch has one value, a collective five). */
DLT_CALL_INLINE uint32_t dlt_call_hash(uint16_t id, const uint64_t *v,
				       uint32_t n)
{
	uint64_t h = (uint64_t)id << 48;
	for (uint32_t i = 0; i < n; i++)
		h ^= (v[i] << (13 * i % 64)) | (v[i] >> ((64 - 13 * i) % 64));
	return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >>
			  (64 - DLT_ENTRY_SLOT_BITS));
}

/* Whether slot sl holds, for chunk number nchunk, API id with values v. */
DLT_CALL_INLINE int dlt_slot_holds(const struct dlt_call_slot *sl,
				   uint32_t nchunk, uint16_t id,
				   const uint64_t *v, uint32_t n)
{
	int same = sl->chunk == nchunk && sl->id == id;
	for (uint32_t i = 0; i < n; i++)
		same &= sl->v[i] == v[i];
	return same;
}

/* Writes the call as an entry if it can be one; returns its address, or
 * NULL when the caller must write a record.  dur DLT_ENTRY_DUR_OPEN: the
 * call has not returned yet. */
DLT_CALL_INLINE uint64_t *dlt_call_entry(struct dlt_writer *w, uint16_t id,
					 const uint64_t *v, uint32_t n,
					 uint64_t t0, uint64_t dur,
					 uint64_t *word_out)
{
	struct dlt_calls *c = dlt_calls_tls;
	struct dlt_tls *t = &dlt_ring_tls;
	if (__builtin_expect(c == NULL || c->busy, 0))
		return NULL;
	c->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint64_t *e = NULL;
	uint32_t s = dlt_call_hash(id, v, n);
	uint32_t nchunk = t->nchunk;
	/* Signed: a call recorded after a call it made (the runtime's
	 * launch after the driver's) started before it. */
	uint64_t dt = t0 - c->base + (1ull << (DLT_ENTRY_DT_BITS - 1));
	/* Two slots a call may have (calls.c, dlt_call_def): the second
	 * only looked at when the first holds another call. */
	int same = dlt_slot_holds(&c->slot[s], nchunk, id, v, n);
	if (__builtin_expect(!same, 0)) {
		s ^= 1;
		same = dlt_slot_holds(&c->slot[s], nchunk, id, v, n);
	}
	uint8_t *p = t->cur;
	if (__builtin_expect(
		    same && (dt >> DLT_ENTRY_DT_BITS) == 0 &&
			    dur <= DLT_ENTRY_DUR_OPEN && p != NULL &&
			    (intptr_t)((uintptr_t)t->end - (uintptr_t)p) >= 8 &&
			    t->gen == atomic_load_explicit(
					      &w->gen, memory_order_relaxed),
		    1) &&
	    dlt_cur_move(&t->cur, p, p + 8)) {
		e = (uint64_t *)(void *)p;
		uint64_t word = DLT_ENTRY_CALL |
				((uint64_t)s << DLT_ENTRY_SLOT_SHIFT) |
				(((dt - (1ull << (DLT_ENTRY_DT_BITS - 1))) &
				  ((1ull << DLT_ENTRY_DT_BITS) - 1))
				 << DLT_ENTRY_DT_SHIFT) |
				(dur << DLT_ENTRY_DUR_SHIFT);
		if (__builtin_expect(t->nchunk != nchunk, 0)) {
			/* A signal handler took this thread to a new chunk
			 * between the look-up and the reservation: the word
			 * is given up. */
			word = DLT_ENTRY_SKIP;
			e = NULL;
		} else {
			c->base = t0;
			*word_out = word;
		}
		atomic_store_explicit((_Atomic uint64_t *)(void *)p, word,
				      memory_order_release);
		__builtin_prefetch(p + DLT_PREFETCH_AHEAD, 1, 3);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->busy = 0;
	return e;
}

/* The slow paths (calls.c): an API_DEF (defining the slot for the calls
 * that follow) or an API_CALL.  ring: the API's successful calls go to
 * the ring. */
void dlt_call_record(struct dlt_writer *w, uint16_t id, int ring, int ret,
		     uint64_t t0, uint64_t dur, const uint64_t *v, uint32_t n);
void dlt_call_open_record(struct dlt_writer *w, uint16_t id, int ring,
			  uint64_t t0, const uint64_t *v, uint32_t n,
			  struct dlt_open_call *o);

/* A call that is done: an entry if it can be, else a record. */
DLT_CALL_INLINE void dlt_call_done(struct dlt_writer *w, uint16_t id, int ring,
				   int ret, uint64_t t0, uint64_t t1,
				   const uint64_t *v, uint32_t n)
{
	uint64_t word;
	if (__builtin_expect(ring && ret == 0 && t1 - t0 < DLT_ENTRY_DUR_OPEN,
			     1) &&
	    dlt_call_entry(w, id, v, n, t0, t1 - t0, &word) != NULL)
		return;
	dlt_call_record(w, id, ring, ret, t0, t1 - t0, v, n);
}

/* A blocking call is about to start (its values are all known): written
 * now, open, so that a call that never returns is in the trace. */
DLT_CALL_INLINE void dlt_call_open(struct dlt_writer *w, uint16_t id, int ring,
				   uint64_t t0, const uint64_t *v, uint32_t n,
				   struct dlt_open_call *o)
{
	uint64_t *e = ring ? dlt_call_entry(w, id, v, n, t0, DLT_ENTRY_DUR_OPEN,
					    &o->word)
			   : NULL;
	if (__builtin_expect(e != NULL, 1)) {
		o->at = e;
		o->t = &dlt_ring_tls;
		o->kind = 2;
		o->ticket = dlt_rec_ticket(&dlt_ring_tls);
		return;
	}
	dlt_call_open_record(w, id, ring, t0, v, n, o);
}

/* The call opened in o returned: closed in place, one 8-byte store.  0
 * when that cannot be (another chunk now, a status an entry cannot say, a
 * duration too long for one): the caller writes a complete record, and the
 * open one stands for its API_ENTER. */
DLT_CALL_INLINE int dlt_call_close(struct dlt_writer *w,
				   const struct dlt_open_call *o, int ret,
				   uint64_t dur)
{
	if (o->kind == 0 || !dlt_rec_in_place(w, o->t, o->ticket))
		return 0;
	/* An error is never left in the ring: a complete record goes with
	 * the others, and the open one stands for its API_ENTER. */
	if (ret != 0 && o->t == &dlt_ring_tls)
		return 0;
	uint64_t word;
	if (o->kind == 2) {
		if (ret != 0 || dur >= DLT_ENTRY_DUR_OPEN)
			return 0;
		word = (o->word & ~((uint64_t)DLT_ENTRY_DUR_OPEN
				    << DLT_ENTRY_DUR_SHIFT)) |
		       (dur << DLT_ENTRY_DUR_SHIFT);
	} else {
		word = (uint64_t)(uint32_t)ret | ((uint64_t)dlt_dur(dur) << 32);
	}
	atomic_store_explicit((_Atomic uint64_t *)o->at, word,
			      memory_order_release);
	return 1;
}

/* The thread ends: its table and its ring chunk go. */
void dlt_calls_release(struct dlt_writer *w);

#endif
