/* The slow paths of writing a GPU call (calls.h). */
#define _GNU_SOURCE
#include "calls.h"

#include <sys/mman.h>

#include "prefetch.h"
#include "watchdog.h"

__thread struct dlt_calls *dlt_calls_tls;

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

void dlt_calls_release(void)
{
	struct dlt_calls *c = dlt_calls_tls;
	dlt_calls_tls = NULL;
	if (c)
		munmap(c, sizeof(*c));
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
	struct dlt_rec_api_def *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return NULL;
	uint32_t s = dlt_call_hash(id, v, n);
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
	struct dlt_tls *t = &dlt_tls;
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

static struct dlt_rec_api_call *dlt_call_plain(struct dlt_writer *w,
					       uint16_t id, int ret,
					       uint64_t t0, uint32_t dur,
					       const uint64_t *v, uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_call) + 8 * n);
	struct dlt_rec_api_call *r = dlt_rec_reserve(w, &dlt_tls, len);
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

void dlt_call_record(struct dlt_writer *w, uint16_t id, int ret, uint64_t t0,
		     uint64_t dur, const uint64_t *v, uint32_t n)
{
	/* A thread that calls GPU libraries records often: its next times
	 * come from the time-stamp counter where that works. */
	dlt_clock_use_tsc();
	struct dlt_calls *c = ret == 0 ? dlt_calls_get() : NULL;
	if (c && !c->busy) {
		c->busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		dlt_call_def(w, c, id, t0, dlt_dur(dur), v, n);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		c->busy = 0;
	} else {
		dlt_call_plain(w, id, ret, t0, dlt_dur(dur), v, n);
	}
	dlt_prefetch_poll();
}

void dlt_call_open_record(struct dlt_writer *w, uint16_t id, uint64_t t0,
			  const uint64_t *v, uint32_t n,
			  struct dlt_open_call *o)
{
	/* A call that can block is about to start: if it never returns, the
	 * watchdog must already be there to see where it waits. */
	if (__builtin_expect(!dlt_watch_asked(), 0))
		dlt_watch_ask("a GPU call that can block");
	dlt_clock_use_tsc();
	o->kind = 0;
	struct dlt_calls *c = dlt_calls_get();
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
			dlt_call_plain(w, id, 0, t0, DLT_DUR_OPEN, v, n);
		r = a ? (void *)&a->ret : NULL;
	}
	if (r) {
		o->at = r;
		o->kind = 1;
		o->ticket = dlt_rec_ticket(&dlt_tls);
	}
}
