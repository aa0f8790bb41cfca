/* The ring (format 2.6): a process's successful calls of the frequent APIs
 * go into ring chunks, which are used again, oldest first, once they hold
 * their share of the budget; each is summed up into an AGG record before.
 * What explains a failure (loads, errors, signals, stalls, stacks ...)
 * goes into the other chunks and is never given up for the ring
 * (docs/design.md, "A bounded trace").
 *
 * Nothing here runs per call: a chunk is summed up when it is used again,
 * by the thread that takes it, once per DLT_CHUNK_BIG bytes of calls. */
#define _GNU_SOURCE
#include "writer_int.h"

#include "record.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

int (*dlt_agg_key_index)(uint16_t api);
void (*dlt_ring_stage)(int stage);

/* The crash tests' hook (tests/test_ring.c): a process killed at each step
 * of using a chunk again must read back whole. */
static void dlt_stage(int stage)
{
	if (__builtin_expect(dlt_ring_stage != NULL, 0))
		dlt_ring_stage(stage);
}

/* What summing up one chunk needs: the values its API_DEFs gave their
 * slots (only the API and the key are kept), and the AGG being made.
 * Per thread (struct dlt_tls.fold): no lock, and a thread's ring state and
 * its other state each have their own. */
struct dlt_fold {
	uint32_t gen; /* slot[i] is this chunk's when slot[i].gen == gen */
	struct {
		uint32_t gen;
		uint16_t api;
		uint16_t pad;
		uint64_t key;
	} slot[DLT_ENTRY_SLOTS];
	uint32_t last;	 /* the row the previous call went to */
	uint64_t lo, hi; /* its interval, in the trace's clock */
	/* The AGG being made, rows included, as it is written. */
	uint64_t agg[(sizeof(struct dlt_rec_agg) +
		      DLT_AGG_MAX_ROWS * sizeof(struct dlt_agg_row)) /
		     8];
};

static struct dlt_rec_agg *dlt_fold_agg(struct dlt_fold *f)
{
	return (struct dlt_rec_agg *)(void *)f->agg;
}

static struct dlt_fold *dlt_fold_get(struct dlt_tls *t)
{
	if (t->fold == NULL) {
		void *p = mmap(NULL, sizeof(struct dlt_fold),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			t->fold = p;
	}
	return t->fold;
}

static void dlt_row_add(struct dlt_agg_row *a, const struct dlt_agg_row *b)
{
	if (a->count == 0 || b->min_ns < a->min_ns)
		a->min_ns = b->min_ns;
	if (b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
	a->count += b->count;
	a->errors += b->errors;
	a->total_ns += b->total_ns;
	for (uint32_t i = 0; i < DLT_AGG_HIST; i++)
		a->hist[i] += b->hist[i];
}

/* Every row twice as wide: rows that now share an interval become one. */
static void dlt_fold_widen(struct dlt_fold *f)
{
	struct dlt_rec_agg *g = dlt_fold_agg(f);
	g->span_s *= 2;
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		struct dlt_agg_row *r = &g->rows[i];
		r->interval -= r->interval % g->span_s;
		uint32_t j = 0;
		while (j < n &&
		       !(g->rows[j].api == r->api && g->rows[j].key == r->key &&
			 g->rows[j].interval == r->interval))
			j++;
		if (j < n)
			dlt_row_add(&g->rows[j], r);
		else
			g->rows[n++] = *r;
	}
	g->n = n;
	f->last = 0;
	f->hi = 0;
}

/* The row of api and key for a call at ts, made (empty) if new; its
 * interval's bounds cached in f for the calls that follow. */
static struct dlt_agg_row *dlt_fold_row(struct dlt_fold *f, uint64_t start_ns,
					uint16_t api, uint64_t key, uint64_t ts)
{
	struct dlt_rec_agg *g = dlt_fold_agg(f);
	uint64_t s = ts > start_ns ? (ts - start_ns) / DLT_AGG_INTERVAL_NS : 0;
	uint32_t sec = s < UINT32_MAX ? (uint32_t)s : UINT32_MAX;
	for (;;) {
		uint32_t iv = sec - sec % g->span_s;
		uint32_t i = 0;
		while (i < g->n &&
		       !(g->rows[i].api == api && g->rows[i].key == key &&
			 g->rows[i].interval == iv))
			i++;
		if (i == g->n && g->n == DLT_AGG_MAX_ROWS) {
			dlt_fold_widen(f);
			continue;
		}
		if (i == g->n) {
			memset(&g->rows[i], 0, sizeof(g->rows[i]));
			g->rows[i].api = api;
			g->rows[i].key = key;
			g->rows[i].interval = iv;
			g->n++;
		}
		f->last = i;
		f->lo = start_ns + (uint64_t)iv * DLT_AGG_INTERVAL_NS;
		f->hi = f->lo + (uint64_t)g->span_s * DLT_AGG_INTERVAL_NS;
		return &g->rows[i];
	}
}

/* One call returned: counted in its row.  Per call of the chunk, so
 * without a division or a copy: calls come in runs of one API in one
 * second, and the previous call's row is tried first. */
static void dlt_fold_call(struct dlt_fold *f, uint64_t start_ns, uint16_t api,
			  uint64_t key, uint64_t ts, uint64_t dur, int32_t ret)
{
	struct dlt_rec_agg *g = dlt_fold_agg(f);
	struct dlt_agg_row *r = g->n ? &g->rows[f->last] : NULL;
	if (r == NULL || r->api != api || r->key != key || ts < f->lo ||
	    ts >= f->hi)
		r = dlt_fold_row(f, start_ns, api, key, ts);
	r->count++;
	r->errors += ret != 0;
	r->total_ns += dur;
	if (r->count == 1 || dur < r->min_ns)
		r->min_ns = dur;
	if (dur > r->max_ns)
		r->max_ns = dur;
	r->hist[dlt_agg_bucket(dur)]++;
	g->calls++;
	if (g->first_ts == 0 || ts < g->first_ts)
		g->first_ts = ts;
	if (ts > g->last_ts)
		g->last_ts = ts;
}

static uint64_t dlt_fold_key(uint16_t api, const uint64_t *v, uint32_t nv)
{
	int k = dlt_agg_key_index ? dlt_agg_key_index(api) : -1;
	return k >= 0 && (uint32_t)k < nv ? v[k] : 0;
}

/* Sums up the ring chunk c into f->agg.  The chunk was written
 * by this process and given back, but it is read as a reader would:
 * nothing in it is trusted to stay within the chunk. */
static void dlt_fold_chunk(struct dlt_writer *w, struct dlt_fold *f,
			   const struct dlt_rec_chunk *c)
{
	uint64_t start = w->hdr->start_monotonic_ns;
	struct dlt_rec_agg *g = dlt_fold_agg(f);
	memset(g, 0, sizeof(*g));
	g->chunk_off = (uint64_t)((const uint8_t *)c - (uint8_t *)w->hdr);
	g->chunk_seq = c->seq;
	g->tid = c->tid;
	g->span_s = 1;
	f->last = 0;
	f->hi = 0;
	if (++f->gen == 0)
		f->gen = 1;
	const uint8_t *p = (const uint8_t *)(c + 1);
	const uint8_t *end = (const uint8_t *)c + c->h.len;
	uint64_t base = 0;
	while (p + 8 <= end) {
		uint64_t word;
		memcpy(&word, p, 8);
		if (word == 0)
			break;
		uint32_t tag =
			(uint32_t)word & ((1u << DLT_ENTRY_TAG_BITS) - 1);
		if (tag == DLT_ENTRY_SKIP) {
			p += 8;
			continue;
		}
		if (tag == DLT_ENTRY_CALL) {
			uint32_t s = dlt_entry_slot(word);
			int64_t dt = dlt_entry_dt(word);
			uint32_t dur = dlt_entry_dur(word);
			base += (uint64_t)dt;
			if (f->slot[s].gen == f->gen &&
			    dur != DLT_ENTRY_DUR_OPEN)
				dlt_fold_call(f, start, f->slot[s].api,
					      f->slot[s].key, base, dur, 0);
			p += 8;
			continue;
		}
		const struct dlt_rec_hdr *h = (const void *)p;
		if (tag != 0 || h->len < sizeof(*h) ||
		    h->len > (uint64_t)(end - p))
			break;
		if (h->type == DLT_REC_API_DEF &&
		    h->len >= sizeof(struct dlt_rec_api_def)) {
			const struct dlt_rec_api_def *d = (const void *)h;
			uint32_t nv = (h->len - sizeof(*d)) / 8;
			uint64_t key = dlt_fold_key(h->flags, d->v, nv);
			uint32_t s = d->slot & (DLT_ENTRY_SLOTS - 1);
			f->slot[s].gen = f->gen;
			f->slot[s].api = h->flags;
			f->slot[s].key = key;
			base = h->ts;
			if (d->dur != DLT_DUR_OPEN)
				dlt_fold_call(f, start, h->flags, key, h->ts,
					      dlt_dur_ns(d->dur), d->ret);
		} else if (h->type == DLT_REC_API_CALL &&
			   h->len >= sizeof(struct dlt_rec_api_call)) {
			const struct dlt_rec_api_call *a = (const void *)h;
			uint32_t nv = (h->len - sizeof(*a)) / 8;
			if (a->dur != DLT_DUR_OPEN)
				dlt_fold_call(f, start, h->flags,
					      dlt_fold_key(h->flags, a->v, nv),
					      h->ts, dlt_dur_ns(a->dur),
					      a->ret);
		}
		p += h->len;
	}
}

static uint32_t dlt_agg_len(const struct dlt_rec_agg *g)
{
	return (uint32_t)(sizeof(*g) + g->n * sizeof(struct dlt_agg_row));
}

/* The AGG made in g written at a, reserved for it, and committed. */
static void dlt_agg_put(struct dlt_rec_agg *a, const struct dlt_rec_agg *g,
			uint64_t ts)
{
	uint32_t len = dlt_agg_len(g);
	memcpy((uint8_t *)a + sizeof(a->h), (const uint8_t *)g + sizeof(a->h),
	       len - sizeof(a->h));
	a->h.ts = ts;
	dlt_rec_commit(a, DLT_REC_AGG, 0, len);
}

/* The pages of a chunk given back (MADV_DONTNEED) made present and
 * writable in one system call: summing it up, zeroing it and filling it
 * again would otherwise take two faults a page (a read, then a write).
 * Kernels before 5.14 refuse it; the faults then happen. */
static void dlt_ring_populate(struct dlt_rec_chunk *c, uint32_t clen)
{
	uintptr_t a = (uintptr_t)c & ~(uintptr_t)4095;
	uintptr_t b = ((uintptr_t)c + clen + 4095) & ~(uintptr_t)4095;
	(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
}

/* ---- the queue of ring chunks given back (under w->lock) ------------- */

static int dlt_ring_push(struct dlt_writer *w, uint64_t off)
{
	if (w->ring_q == NULL) {
		uint64_t cap = w->max_size / DLT_CHUNK_FIRST + 1;
		void *p = mmap(NULL, cap * sizeof(uint64_t),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		w->ring_q = p;
		w->ring_qcap = (uint32_t)cap;
	}
	if (w->ring_n == w->ring_qcap)
		return -1;
	w->ring_q[(w->ring_head + w->ring_n) % w->ring_qcap] = off;
	w->ring_n++;
	return 0;
}

static uint64_t dlt_ring_pop(struct dlt_writer *w)
{
	if (w->ring_n == 0)
		return 0;
	uint64_t off = w->ring_q[w->ring_head];
	w->ring_head = (w->ring_head + 1) % w->ring_qcap;
	w->ring_n--;
	return off;
}

void dlt_ring_retired(struct dlt_writer *w, const struct dlt_tls *t)
{
	uint64_t off = (uint64_t)(t->chunk - (uint8_t *)w->hdr);
	dlt_spin_lock(&w->lock);
	/* A queue that cannot be made: the chunk is never used again. */
	(void)dlt_ring_push(w, off);
	dlt_spin_unlock(&w->lock);
}

uint64_t dlt_ring_take(struct dlt_writer *w, uint64_t off, uint64_t clen,
		       uint64_t limit)
{
	if (w->ring_bytes + clen <= w->ring_max && off + clen <= limit)
		return 0;
	return dlt_ring_pop(w);
}

/* The biggest AGG: a chunk taken from the ring for other records holds its
 * own AGG first. */
#define DLT_AGG_MAX_LEN               \
	(sizeof(struct dlt_rec_agg) + \
	 DLT_AGG_MAX_ROWS * sizeof(struct dlt_agg_row))

uint64_t dlt_ring_take_for(struct dlt_writer *w, uint64_t need)
{
	/* Small chunks (a thread's first ones) are passed over, to the back
	 * of the queue: a few tries, then nothing. */
	for (uint32_t k = 0; k < 4 && w->ring_n > 0; k++) {
		uint64_t off = dlt_ring_pop(w);
		uint32_t clen =
			((struct dlt_rec_hdr *)((uint8_t *)w->hdr + off))->len;
		if (clen >= sizeof(struct dlt_rec_chunk) + DLT_AGG_MAX_LEN +
				    need &&
		    w->ring_bytes - clen >= w->ring_min) {
			w->ring_bytes -= clen;
			return off;
		}
		(void)dlt_ring_push(w, off);
	}
	return 0;
}

void dlt_ring_lost(struct dlt_writer *w, int calls, uint32_t n)
{
	_Atomic uint32_t *c =
		(_Atomic uint32_t *)(calls ? &w->hdr->lost_calls
					   : &w->hdr->lost_records);
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
	if (calls || atomic_exchange(&w->said_full, 1))
		return;
	static const char msg[] =
		"dltrace: the trace reached DLTRACE_MAX_SIZE; records other "
		"than calls are counted, not written, from now on: ";
	struct iovec v[3] = {{(void *)msg, sizeof(msg) - 1},
			     {w->path, strlen(w->path)},
			     {(void *)"\n", 1}};
	ssize_t r = writev(2, v, 3);
	(void)r;
}

/* The ring chunk at off, taken off the queue, summed up into t's scratch
 * (its pages made present first); NULL when t has none: the chunk goes
 * back to the queue (and to the ring's bytes, stolen says it had left). */
static struct dlt_fold *dlt_ring_sum(struct dlt_writer *w, struct dlt_tls *t,
				     struct dlt_rec_chunk *c, int stolen)
{
	struct dlt_fold *f = dlt_fold_get(t);
	if (f == NULL) {
		dlt_spin_lock(&w->lock);
		if (dlt_ring_push(w, (uint64_t)((uint8_t *)c -
						(uint8_t *)w->hdr)) == 0 &&
		    stolen)
			w->ring_bytes += c->h.len;
		dlt_spin_unlock(&w->lock);
		return NULL;
	}
	dlt_ring_populate(c, c->h.len);
	dlt_fold_chunk(w, f, c);
	return f;
}

/* c made t's anew: its CHUNK record with the next seq and flags (the
 * writer kind added). */
static void dlt_chunk_renew(struct dlt_writer *w, const struct dlt_tls *t,
			    struct dlt_rec_chunk *c, uint16_t flags)
{
	c->h.ts = dlt_now_ns();
	c->tid = t->tid;
	c->seq = atomic_fetch_add(&w->chunk_seq, 1);
	flags |= (uint16_t)(w->kind >= 0 ? w->kind : dlt_writer_kind_self);
	dlt_rec_commit(c, DLT_REC_CHUNK, flags, c->h.len);
}

uint8_t *dlt_ring_reuse(struct dlt_writer *w, struct dlt_tls *t, uint64_t off)
{
	struct dlt_rec_chunk *c =
		(struct dlt_rec_chunk *)((uint8_t *)w->hdr + off);
	uint32_t clen = c->h.len;
	struct dlt_fold *f = dlt_ring_sum(w, t, c, 0);
	if (f == NULL)
		return NULL;
	dlt_stage(1);
	/* The sum is on disk before the chunk changes: a process killed
	 * from here on leaves the sum, which tells readers to skip the
	 * chunk, or the chunk itself. */
	const struct dlt_rec_agg *g = dlt_fold_agg(f);
	struct dlt_rec_agg *a =
		g->calls ? dlt_rec_reserve(w, t->rare, dlt_agg_len(g)) : NULL;
	if (a)
		dlt_agg_put(a, g, dlt_now_ns());
	else if (g->calls)
		dlt_ring_lost(w, 1, g->calls);
	dlt_stage(2);
	/* Zeroed before its new CHUNK record: a reader never takes the old
	 * records for the new chunk's.  In two halves for the crash test. */
	uint32_t half = (clen - (uint32_t)sizeof(*c)) / 2 & ~7u;
	memset(c + 1, 0, half);
	dlt_stage(3);
	memset((uint8_t *)(c + 1) + half, 0, clen - sizeof(*c) - half);
	dlt_stage(4);
	dlt_chunk_renew(w, t, c, DLT_CHUNK_F_RING);
	dlt_stage(5);
	return (uint8_t *)c;
}

uint8_t *dlt_ring_steal(struct dlt_writer *w, struct dlt_tls *t, uint64_t off)
{
	struct dlt_rec_chunk *c =
		(struct dlt_rec_chunk *)((uint8_t *)w->hdr + off);
	struct dlt_fold *f = dlt_ring_sum(w, t, c, 1);
	if (f == NULL)
		return NULL;
	/* The chunk's sums go into the chunk itself, its first record: a
	 * process killed between the zeroing and that record loses this
	 * chunk's sums (never counts them twice). */
	memset(c + 1, 0, c->h.len - sizeof(*c));
	dlt_chunk_renew(w, t, c, 0);
	if (dlt_fold_agg(f)->calls)
		dlt_agg_put((struct dlt_rec_agg *)(void *)(c + 1),
			    dlt_fold_agg(f), c->h.ts);
	return (uint8_t *)c;
}

void dlt_ring_release(struct dlt_writer *w, struct dlt_tls *t)
{
	dlt_tls_release(w, t);
	if (t->fold) {
		munmap(t->fold, sizeof(struct dlt_fold));
		t->fold = NULL;
	}
}
