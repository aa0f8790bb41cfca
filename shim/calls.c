/* The slow paths of writing a GPU call (calls.h). */
#define _GNU_SOURCE
#include "calls.h"

#include <sys/mman.h>

#include "prefetch.h"
#include "watchdog.h"

__thread struct dlt_calls *dlt_calls_tls;
__thread struct dlt_tls dlt_ring_tls;

/* The thread's ring state, tied to its other state (where the AGG of a
 * ring chunk it uses again goes) before its first ring record. */
static struct dlt_tls *dlt_ring(void)
{
	struct dlt_tls *t = &dlt_ring_tls;
	if (__builtin_expect(t->rare == NULL, 0)) {
		dlt_agg_key_index = dlt_api_key_index;
		t->rare = &dlt_tls;
	}
	return t;
}

/* The thread's table, made on first use; NULL when there is no memory for
 * it (every call is then a record). */
static struct dlt_calls *dlt_calls_get(void)
{
	struct dlt_calls *c = dlt_calls_tls;
	if (c == NULL) {
		void *p = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		c = dlt_calls_tls = p;
	}
	return c;
}

void dlt_calls_release(struct dlt_writer *w)
{
	struct dlt_calls *c = dlt_calls_tls;
	dlt_calls_tls = NULL;
	if (c)
		munmap(c, sizeof(*c));
	if (dlt_ring_tls.rare)
		dlt_ring_release(w, &dlt_ring_tls);
}

/* An API_DEF for the call (open when dur is DLT_DUR_OPEN), giving its API
 * and values slot s of the chunk it lands in; NULL when nothing could be
 * written.  Called with c->busy set. */
static struct dlt_rec_api_def *dlt_call_def(struct dlt_writer *w,
					    struct dlt_calls *c, uint16_t id,
					    uint64_t t0, uint32_t dur,
					    const uint64_t *v, uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_def) + 8 * n);
	struct dlt_tls *t = dlt_ring();
	struct dlt_rec_api_def *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return NULL;
	/* Two kinds of calls whose values hash to one slot and that
	 * alternate (the runtime's launch and the driver's it makes) would
	 * take it from each other at every call, each call a definition: a
	 * slot this chunk defined for another call is left alone when its
	 * pair is free. */
	uint32_t s = dlt_call_hash(id, v, n);
	const struct dlt_call_slot *a = &c->slot[s];
	if (a->chunk == t->nchunk && !dlt_slot_holds(a, t->nchunk, id, v, n) &&
	    c->slot[s ^ 1].chunk != t->nchunk)
		s ^= 1;
	r->h.ts = t0;
	r->ret = 0;
	r->dur = dur;
	r->slot = s;
	r->pad = 0;
	for (uint32_t i = 0; i < n; i++)
		r->v[i] = v[i];
	dlt_rec_commit(r, DLT_REC_API_DEF, id, len);
	/* The definition counts for the chunk it is in: a signal handler
	 * that filled the chunk after the reservation moved the thread on. */
	if ((uint8_t *)r >= t->chunk && (uint8_t *)r < t->end) {
		struct dlt_call_slot *sl = &c->slot[s];
		sl->chunk = t->nchunk;
		sl->id = id;
		sl->nv = (uint16_t)n;
		for (uint32_t i = 0; i < n; i++)
			sl->v[i] = v[i];
		c->base = t0;
	}
	return r;
}

/* An API_CALL in t's chunk. */
static struct dlt_rec_api_call *
dlt_call_plain(struct dlt_writer *w, struct dlt_tls *t, uint16_t id, int ret,
	       uint64_t t0, uint32_t dur, const uint64_t *v, uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_call) + 8 * n);
	struct dlt_rec_api_call *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return NULL;
	r->h.ts = t0;
	r->ret = ret;
	r->dur = dur;
	for (uint32_t i = 0; i < n; i++)
		r->v[i] = v[i];
	dlt_rec_commit(r, DLT_REC_API_CALL, id, len);
	return r;
}

/* Errors of one API with one status written with the other records before
 * the rest of them go to the ring: a program that gets the same error
 * millions of times (a loop retrying a launch) keeps the first ones and
 * counts the rest, rather than fill the budget with them and lose what
 * came after. */
#define DLT_ERRORS_KEPT 64
#define DLT_ERROR_KINDS 256

static struct {
	_Atomic uint64_t key; /* 1 + (API id << 32 | status), 0 free */
	_Atomic uint32_t n;
} dlt_err_seen[DLT_ERROR_KINDS];
static _Atomic uint32_t dlt_err_gen; /* the file the counts are about */

/* 1 when this error of API id is one too many to keep apart. */
static int dlt_error_to_ring(struct dlt_writer *w, uint16_t id, int ret)
{
	uint32_t gen = atomic_load_explicit(&w->gen, memory_order_relaxed);
	if (atomic_exchange(&dlt_err_gen, gen) != gen)
		for (uint32_t i = 0; i < DLT_ERROR_KINDS; i++) {
			atomic_store(&dlt_err_seen[i].key, 0);
			atomic_store(&dlt_err_seen[i].n, 0);
		}
	uint64_t key = 1 + ((uint64_t)id << 32 | (uint32_t)ret);
	uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 56);
	for (uint32_t k = 0; k < DLT_ERROR_KINDS; k++) {
		uint32_t i = (h + k) % DLT_ERROR_KINDS;
		uint64_t cur = atomic_load(&dlt_err_seen[i].key);
		if (cur == 0 && atomic_compare_exchange_strong(
					&dlt_err_seen[i].key, &cur, key))
			cur = key;
		if (cur == key)
			return atomic_fetch_add(&dlt_err_seen[i].n, 1) >=
			       DLT_ERRORS_KEPT;
	}
	return 0; /* more kinds than the table holds: all kept */
}

void dlt_call_record(struct dlt_writer *w, uint16_t id, int ring, int ret,
		     uint64_t t0, uint64_t dur, const uint64_t *v, uint32_t n)
{
	/* A thread that calls GPU libraries records often: its next times
	 * come from the time-stamp counter where that works. */
	dlt_clock_use_tsc();
	if (ring && ret != 0 && dlt_error_to_ring(w, id, ret)) {
		dlt_call_plain(w, dlt_ring(), id, ret, t0, dlt_dur(dur), v, n);
		dlt_prefetch_poll();
		return;
	}
	ring = ring && ret == 0;
	struct dlt_calls *c = ring ? dlt_calls_get() : NULL;
	if (c && !c->busy) {
		c->busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		dlt_call_def(w, c, id, t0, dlt_dur(dur), v, n);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		c->busy = 0;
	} else {
		dlt_call_plain(w, ring ? dlt_ring() : &dlt_tls, id, ret, t0,
			       dlt_dur(dur), v, n);
	}
	dlt_prefetch_poll();
}

void dlt_call_open_record(struct dlt_writer *w, uint16_t id, int ring,
			  uint64_t t0, const uint64_t *v, uint32_t n,
			  struct dlt_open_call *o)
{
	/* A call that can block is about to start: if it never returns, the
	 * watchdog must already be there to see where it waits. */
	if (__builtin_expect(!dlt_watch_asked(), 0))
		dlt_watch_ask("a GPU call that can block");
	dlt_clock_use_tsc();
	o->kind = 0;
	struct dlt_calls *c = ring ? dlt_calls_get() : NULL;
	struct dlt_tls *t = ring ? dlt_ring() : &dlt_tls;
	void *r;
	if (c && !c->busy) {
		c->busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		struct dlt_rec_api_def *d =
			dlt_call_def(w, c, id, t0, DLT_DUR_OPEN, v, n);
		r = d ? (void *)&d->ret : NULL;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		c->busy = 0;
	} else {
		struct dlt_rec_api_call *a =
			dlt_call_plain(w, t, id, 0, t0, DLT_DUR_OPEN, v, n);
		r = a ? (void *)&a->ret : NULL;
	}
	if (r) {
		o->at = r;
		o->t = t;
		o->kind = 1;
		o->ticket = dlt_rec_ticket(t);
	}
}
