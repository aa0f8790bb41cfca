#include "gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "status.h"
#include "units.h"

#define DLT_RTLD_DEEPBIND 0x8 /* glibc's value, whatever host reads it */

/* What a thread is in the middle of: an API_CALL whose follow-up record
 * (the ALGO_RESULT of a selection or an execution) comes next in the same
 * thread, and an API_ENTER not yet closed by its API_CALL.  Records of one
 * thread are in file order, since a thread fills its chunks in turn. */
struct dlt_gpu_tid {
	uint32_t tid;
	bool have_call;
	struct dlt_call_info call;
	bool open;
	struct dlt_gpu_open enter;
};

void dlt_gpu_init(struct dlt_gpu *g)
{
	memset(g, 0, sizeof(*g));
	dlt_conv_init(&g->conv);
}

void dlt_gpu_free(struct dlt_gpu *g)
{
	free(g->fams);
	free(g->loaded);
	free(g->statics);
	free(g->errs);
	free(g->opens);
	free(g->deep);
	free(g->tids);
	dlt_gpu_calls_free(&g->run);
	dlt_conv_free(&g->conv);
	dlt_arena_free(g->arena);
	memset(g, 0, sizeof(*g));
}

static void *dlt_gpu_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 8;
	return dlt_xrealloc(arr, *cap, size);
}

static const char *dlt_gpu_str(struct dlt_gpu *g, struct dlt_trace *t,
			       uint32_t id)
{
	return dlt_arena_strdup(&g->arena, dlt_trace_str(t, id));
}

static struct dlt_gpu_tid *dlt_gpu_thread(struct dlt_gpu *g, uint32_t tid)
{
	/* Records come a chunk, that is a thread, at a time. */
	if (g->last_tid < g->ntids && g->tids[g->last_tid].tid == tid)
		return &g->tids[g->last_tid];
	for (size_t i = 0; i < g->ntids; i++)
		if (g->tids[i].tid == tid)
			return &g->tids[g->last_tid = i];
	g->tids =
		dlt_gpu_grow(g->tids, &g->captids, g->ntids, sizeof(*g->tids));
	g->last_tid = g->ntids;
	struct dlt_gpu_tid *th = &g->tids[g->ntids++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	return th;
}

static size_t dlt_nvals(const struct dlt_rec_hdr *h, size_t fixed)
{
	return (h->len - fixed) / 8;
}

static void dlt_gpu_on_family(struct dlt_gpu *g, struct dlt_trace *t,
			      const struct dlt_rec_family *r)
{
	struct dlt_gpu_family *f;
	if (r->source != DLT_FAMSRC_CALL) {
		/* Versions of what was loaded: shown, never judged as if the
		 * library had been used. */
		g->loaded = dlt_gpu_grow(g->loaded, &g->caploaded, g->nloaded,
					 sizeof(*g->loaded));
		f = &g->loaded[g->nloaded++];
		f->family = r->h.flags;
		f->source = r->source;
		f->path = dlt_gpu_str(g, t, r->path);
		f->api = 0;
		f->kdrv = dlt_gpu_str(g, t, r->kdrv);
		memcpy(f->v, r->v, sizeof(f->v));
		f->ts = r->h.ts;
		return;
	}
	g->fams =
		dlt_gpu_grow(g->fams, &g->capfams, g->nfams, sizeof(*g->fams));
	f = &g->fams[g->nfams++];
	f->source = DLT_FAMSRC_CALL;
	f->family = r->h.flags;
	f->path = dlt_gpu_str(g, t, r->path);
	f->api = (uint16_t)r->api;
	f->kdrv = dlt_gpu_str(g, t, r->kdrv);
	memcpy(f->v, r->v, sizeof(f->v));
	f->ts = r->h.ts;
	if (f->family == DLT_FAM_CUDNN && g->conv.cudnn_version == 0 &&
	    f->v[DLT_FV_CUDNN_version] > 0)
		g->conv.cudnn_version = f->v[DLT_FV_CUDNN_version];
}

static void dlt_gpu_add_static(struct dlt_gpu *g, const char *object,
			       const char *via, uint64_t ts)
{
	if (object == NULL)
		return;
	for (size_t i = 0; i < g->nstatics; i++)
		if (strcmp(g->statics[i].object, object) == 0)
			return;
	g->statics = dlt_gpu_grow(g->statics, &g->capstatics, g->nstatics,
				  sizeof(*g->statics));
	g->statics[g->nstatics++] =
		(struct dlt_gpu_static){dlt_arena_strdup(&g->arena, object),
					dlt_arena_strdup(&g->arena, via), ts};
}

/* libcuda.so, libcuda.so.1 ...: the driver library itself. */
static bool dlt_is_libcuda(const char *name)
{
	const char *b = dlt_basename(name);
	return b && strncmp(b, "libcuda.so", 10) == 0;
}

static void dlt_gpu_on_dlopen(struct dlt_gpu *g, struct dlt_trace *t,
			      const struct dlt_rec_dlopen *r)
{
	const char *name = dlt_trace_str(t, r->name);
	const char *caller = dlt_trace_str(t, r->caller_obj);
	/* Older traces have no STATIC_RUNTIME record for an object that
	 * opens the driver itself; the open says the same. */
	if (name && caller && dlt_is_libcuda(name) &&
	    strncmp(dlt_basename(caller), "libcudart", 9) != 0)
		dlt_gpu_add_static(g, caller, name, r->h.ts);
	if ((r->mode & DLT_RTLD_DEEPBIND) == 0)
		return;
	for (size_t i = 0; i < g->ndeep; i++) {
		struct dlt_gpu_deepbind *d = &g->deep[i];
		if (strcmp(d->name ? d->name : "", name ? name : "") == 0 &&
		    strcmp(d->caller ? d->caller : "", caller ? caller : "") ==
			    0) {
			d->count++;
			return;
		}
	}
	g->deep =
		dlt_gpu_grow(g->deep, &g->capdeep, g->ndeep, sizeof(*g->deep));
	g->deep[g->ndeep++] = (struct dlt_gpu_deepbind){
		dlt_arena_strdup(&g->arena, name),
		dlt_arena_strdup(&g->arena, caller), r->mode, 1, r->h.ts};
}

static void dlt_gpu_on_error(struct dlt_gpu *g,
			     const struct dlt_rec_api_call *r, uint32_t tid)
{
	uint16_t api = r->h.flags;
	for (size_t i = 0; i < g->nerrs; i++) {
		struct dlt_gpu_err *e = &g->errs[i];
		if (e->api != api || e->status != r->ret)
			continue;
		e->count++;
		if (r->h.ts < e->first_ts) {
			e->first_ts = r->h.ts;
			e->first_tid = tid;
		}
		if (r->h.ts > e->last_ts)
			e->last_ts = r->h.ts;
		return;
	}
	g->errs =
		dlt_gpu_grow(g->errs, &g->caperrs, g->nerrs, sizeof(*g->errs));
	struct dlt_gpu_err *e = &g->errs[g->nerrs++];
	memset(e, 0, sizeof(*e));
	e->api = api;
	e->status = r->ret;
	e->count = 1;
	e->first_ts = e->last_ts = r->h.ts;
	e->first_tid = tid;
	size_t n = dlt_nvals(&r->h, sizeof(*r));
	e->nv = (uint32_t)(n < DLT_GPU_ERR_VALS ? n : DLT_GPU_ERR_VALS);
	memcpy(e->v, r->v, e->nv * sizeof(e->v[0]));
}

/* ---- the whole run's calls (format 2.6) -------------------------------- */

/* Distinct API ids and threads kept: a damaged trace could name every
 * uint16_t, and a thread id per AGG. */
#define DLT_GPU_STATS_MAX 1024
#define DLT_GPU_AGG_THREADS_MAX 4096

uint64_t dlt_hist_quantile(const uint64_t hist[DLT_AGG_HIST], double q,
			   uint64_t min_ns, uint64_t max_ns)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < DLT_AGG_HIST; i++)
		n += hist[i];
	if (n == 0)
		return 0;
	if (!(q > 0))
		return min_ns;
	double target = (q < 1 ? q : 1) * (double)n;
	uint64_t below = 0;
	unsigned b = 0;
	for (; b < DLT_AGG_HIST - 1; b++) {
		if ((double)(below + hist[b]) >= target && hist[b])
			break;
		below += hist[b];
	}
	if (hist[b] == 0)
		return max_ns; /* only past the last call: rounding */
	/* The bucket's bounds; the last has none above, the first none
	 * below but 1 ns (a log scale has no 0). */
	double lo = b == 0 ? 1.0 : ldexp(1.0, (int)b + 6);
	double hi =
		b == DLT_AGG_HIST - 1 ? ldexp(1.0, 30) : ldexp(1.0, (int)b + 7);
	/* The fastest and slowest calls narrow the bucket they fall in: a
	 * run of calls of one duration then reads as that duration. */
	if (b == DLT_AGG_HIST - 1 && max_ns != UINT64_MAX &&
	    (double)max_ns > hi)
		hi = (double)max_ns;
	if ((double)min_ns >= lo && (double)min_ns <= hi)
		lo = (double)min_ns;
	if ((double)max_ns >= lo && (double)max_ns <= hi)
		hi = (double)max_ns;
	double f = (target - (double)below) / (double)hist[b];
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	/* A slowest call near 2^64 ns (a damaged trace) is clamped. */
	return dlt_units_u64(lo * pow(hi / lo, f) + 0.5);
}

uint64_t dlt_call_stats_quantile(const struct dlt_call_stats *s, double q)
{
	return dlt_hist_quantile(s->hist, q, s->timed ? s->min_ns : 0,
				 s->timed ? s->max_ns : UINT64_MAX);
}

/* The figures of one API, made on its first call; NULL past the cap. */
static struct dlt_call_stats *dlt_gpu_stats(struct dlt_gpu_calls *c,
					    uint16_t api)
{
	if (api < DLT_GPU_API_MAX && c->slot[api])
		return &c->api[c->slot[api] - 1];
	if (api >= DLT_GPU_API_MAX)
		for (size_t i = 0; i < c->napi; i++)
			if (c->api[i].api == api)
				return &c->api[i];
	if (c->napi == DLT_GPU_STATS_MAX)
		return NULL;
	c->api = dlt_gpu_grow(c->api, &c->capapi, c->napi, sizeof(*c->api));
	struct dlt_call_stats *st = &c->api[c->napi++];
	memset(st, 0, sizeof(*st));
	st->api = api;
	st->min_ns = UINT64_MAX;
	if (api < DLT_GPU_API_MAX)
		c->slot[api] = (uint16_t)c->napi;
	return st;
}

static void dlt_gpu_count(struct dlt_gpu *g, uint16_t api, uint64_t calls,
			  uint64_t errors)
{
	g->api_calls += calls;
	if (api < DLT_GPU_API_MAX) {
		g->calls[api] += calls;
		g->errors[api] += errors;
	}
}

/* An individual call's duration in the same figures an AGG row has. */
static void dlt_gpu_stats_call(struct dlt_gpu *g,
			       const struct dlt_rec_api_call *r)
{
	struct dlt_call_stats *st = dlt_gpu_stats(&g->run, r->h.flags);
	if (st == NULL)
		return;
	st->calls++;
	st->errors += r->ret != 0;
	/* 0xfffffffe says "longer still", and before format 1.2 so did
	 * DLT_DUR_OPEN: no duration to count. */
	if (r->dur >= 0xfffffffeu)
		return;
	uint64_t ns = dlt_dur_ns(r->dur);
	st->timed++;
	st->total_ns += ns;
	if (ns < st->min_ns)
		st->min_ns = ns;
	if (ns > st->max_ns)
		st->max_ns = ns;
	st->hist[dlt_agg_bucket(ns)]++;
}

static void dlt_gpu_agg_thread(struct dlt_gpu_calls *c, uint32_t tid,
			       uint64_t last_ts)
{
	if (last_ts > c->individual_from)
		c->individual_from = last_ts;
	for (size_t i = 0; i < c->nthreads; i++)
		if (c->threads[i].tid == tid) {
			if (last_ts > c->threads[i].individual_from)
				c->threads[i].individual_from = last_ts;
			return;
		}
	if (c->nthreads == DLT_GPU_AGG_THREADS_MAX)
		return;
	c->threads = dlt_gpu_grow(c->threads, &c->capthreads, c->nthreads,
				  sizeof(*c->threads));
	c->threads[c->nthreads++] = (struct dlt_agg_thread){tid, last_ts};
}

/* A ring chunk summed up: its calls count as if read one by one. */
static void dlt_gpu_on_agg(struct dlt_gpu *g, const struct dlt_rec_agg *r)
{
	uint64_t room = (r->h.len - sizeof(*r)) / sizeof(r->rows[0]);
	uint32_t n = r->n < room ? r->n : (uint32_t)room;
	g->run.aggs++;
	dlt_gpu_agg_thread(&g->run, r->tid, r->last_ts);
	for (uint32_t i = 0; i < n; i++) {
		const struct dlt_agg_row *row = &r->rows[i];
		if (row->count == 0)
			continue;
		dlt_gpu_count(g, row->api, row->count, row->errors);
		struct dlt_call_stats *st = dlt_gpu_stats(&g->run, row->api);
		if (st == NULL)
			continue;
		st->calls += row->count;
		st->errors += row->errors;
		st->aggregated += row->count;
		uint64_t timed = 0;
		for (unsigned b = 0; b < DLT_AGG_HIST; b++) {
			st->hist[b] += row->hist[b];
			timed += row->hist[b];
		}
		if (timed == 0)
			continue;
		st->timed += timed;
		st->total_ns += row->total_ns;
		if (row->min_ns < st->min_ns)
			st->min_ns = row->min_ns;
		if (row->max_ns > st->max_ns)
			st->max_ns = row->max_ns;
	}
}

static int dlt_call_stats_order(const void *a, const void *b)
{
	const struct dlt_call_stats *x = a, *y = b;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return (x->api > y->api) - (x->api < y->api);
}

static int dlt_agg_thread_order(const void *a, const void *b)
{
	const struct dlt_agg_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Most calls first, for people; the slots no longer apply. */
static void dlt_gpu_calls_finish(struct dlt_gpu_calls *c)
{
	if (c->napi > 1)
		qsort(c->api, c->napi, sizeof(*c->api), dlt_call_stats_order);
	if (c->nthreads > 1)
		qsort(c->threads, c->nthreads, sizeof(*c->threads),
		      dlt_agg_thread_order);
	memset(c->slot, 0, sizeof(c->slot));
}

void dlt_gpu_calls_take(struct dlt_gpu *g, struct dlt_gpu_calls *out)
{
	*out = g->run;
	memset(&g->run, 0, sizeof(g->run));
}

void dlt_gpu_calls_free(struct dlt_gpu_calls *c)
{
	free(c->api);
	free(c->threads);
	memset(c, 0, sizeof(*c));
}

static void dlt_gpu_on_call(struct dlt_gpu *g, const struct dlt_rec_api_call *r,
			    uint32_t tid)
{
	uint16_t api = r->h.flags;
	dlt_gpu_count(g, api, 1, r->ret != 0);
	dlt_gpu_stats_call(g, r);
	if (r->ret != 0)
		dlt_gpu_on_error(g, r, tid);
	struct dlt_gpu_tid *th = dlt_gpu_thread(g, tid);
	if (th->open && th->enter.api == api)
		th->open = false;
	if (dlt_api_roles(api) & DLT_ROLE_BK_EXECUTE) {
		struct dlt_call_info ci;
		dlt_call_info_of(r, &ci);
		dlt_conv_on_bk_execute(&g->conv, &ci);
		return;
	}
	/* Kept for the ALGO_RESULT that the shim writes right after the
	 * call of a selection or an execution. */
	th->have_call = dlt_conv_api(api, NULL) != DLT_CONV_NONE;
	if (th->have_call)
		dlt_call_info_of(r, &th->call);
}

static void dlt_gpu_on_enter(struct dlt_gpu *g,
			     const struct dlt_rec_api_enter *r, uint32_t tid)
{
	struct dlt_gpu_tid *th = dlt_gpu_thread(g, tid);
	th->open = true;
	th->enter.tid = tid;
	th->enter.api = r->h.flags;
	th->enter.ts = r->h.ts;
	size_t n = dlt_nvals(&r->h, sizeof(*r));
	th->enter.nv =
		(uint32_t)(n < DLT_GPU_OPEN_VALS ? n : DLT_GPU_OPEN_VALS);
	memcpy(th->enter.v, r->v, th->enter.nv * 8);
}

/* The API_CALL that goes with an ALGO_RESULT of the same API. */
static const struct dlt_call_info *dlt_gpu_take_call(struct dlt_gpu_tid *th,
						     uint16_t api)
{
	if (!th->have_call || th->call.api != api)
		return NULL;
	th->have_call = false;
	return &th->call;
}

static void dlt_gpu_on_algo(struct dlt_gpu *g,
			    const struct dlt_rec_algo_result *r, uint32_t tid)
{
	uint64_t room = (r->h.len - sizeof(*r)) / sizeof(r->c[0]);
	uint32_t n = r->n < room ? r->n : (uint32_t)room;
	int dir = 0;
	enum dlt_conv_kind kind = dlt_conv_api(r->h.flags, &dir);
	if (kind == DLT_CONV_NONE)
		return;
	struct dlt_gpu_tid *th = dlt_gpu_thread(g, tid);
	const struct dlt_call_info *call = dlt_gpu_take_call(th, r->h.flags);
	if (kind == DLT_CONV_EXEC) {
		dlt_conv_on_exec(&g->conv, r, n, call);
		return;
	}
	dlt_conv_on_selection(&g->conv, r, n, tid, call);
}

void dlt_gpu_rec(void *ctx, struct dlt_trace *t, const struct dlt_rec_view *v)
{
	struct dlt_gpu *g = ctx;
	const struct dlt_rec_hdr *h = v->rec;
	if (h->ts) {
		if (g->first_ts == 0 || h->ts < g->first_ts)
			g->first_ts = h->ts;
		if (h->ts > g->last_ts)
			g->last_ts = h->ts;
	}
	switch (h->type) {
	case DLT_REC_API_CALL:
		dlt_gpu_on_call(g, (const void *)h, v->tid);
		break;
	case DLT_REC_API_ENTER:
		dlt_gpu_on_enter(g, (const void *)h, v->tid);
		break;
	case DLT_REC_LIB_FAMILY:
		dlt_gpu_on_family(g, t, (const void *)h);
		break;
	case DLT_REC_STATIC_RUNTIME: {
		const struct dlt_rec_static_rt *r = (const void *)h;
		dlt_gpu_add_static(g, dlt_trace_str(t, r->object),
				   dlt_trace_str(t, r->symbol), h->ts);
		break;
	}
	case DLT_REC_DLOPEN:
		dlt_gpu_on_dlopen(g, t, (const void *)h);
		break;
	case DLT_REC_CONV_PROBLEM:
		dlt_conv_on_problem(&g->conv, (const void *)h);
		break;
	case DLT_REC_ALGO_RESULT:
		dlt_gpu_on_algo(g, (const void *)h, v->tid);
		break;
	case DLT_REC_AGG:
		dlt_gpu_on_agg(g, (const void *)h);
		break;
	case DLT_REC_BK_FINALIZE: {
		const struct dlt_rec_bk_finalize *r = (const void *)h;
		uint64_t room = (h->len - sizeof(*r)) / sizeof(r->knobs[0]);
		uint32_t nk = r->n_knobs < room ? r->n_knobs : (uint32_t)room;
		dlt_conv_on_finalize(&g->conv, r, nk);
		break;
	}
	}
}

void dlt_gpu_finish(struct dlt_gpu *g)
{
	size_t n = 0;
	for (size_t i = 0; i < g->ntids; i++)
		n += g->tids[i].open;
	g->opens = dlt_xcalloc(n, sizeof(*g->opens));
	for (size_t i = 0; i < g->ntids; i++)
		if (g->tids[i].open)
			g->opens[g->nopens++] = g->tids[i].enter;
	free(g->tids);
	g->tids = NULL;
	g->ntids = g->captids = 0;
	dlt_gpu_calls_finish(&g->run);
	dlt_conv_finish(&g->conv);
}

struct dlt_process *dlt_process_read_gpu(struct dlt_trace *t, struct dlt_gpu *g)
{
	dlt_gpu_init(g);
	struct dlt_load_hook hook = {dlt_gpu_rec, g};
	struct dlt_process *p = dlt_process_read_hooked(t, &hook);
	dlt_gpu_finish(g);
	return p;
}

const struct dlt_gpu_family *dlt_gpu_family(const struct dlt_gpu *g, int family)
{
	for (size_t i = 0; i < g->nfams; i++)
		if (g->fams[i].family == family)
			return &g->fams[i];
	return NULL;
}

int64_t dlt_gpu_cudnn_version(const struct dlt_gpu *g)
{
	return g->conv.cudnn_version;
}

const char *dlt_gpu_err_str(const struct dlt_gpu *g,
			    const struct dlt_gpu_err *e, char *buf, size_t cap)
{
	const struct dlt_api_desc *a = dlt_api_by_id(e->api);
	char st[96];
	dlt_status_describe(a ? a->family : 0, dlt_gpu_cudnn_version(g),
			    e->status, st, sizeof(st));
	if (a)
		snprintf(buf, cap, "%s returned %s", a->name, st);
	else
		snprintf(buf, cap, "api#%u returned %s", (unsigned)e->api, st);
	return buf;
}

int64_t dlt_gpu_family_version(const struct dlt_gpu_family *f)
{
	switch (f->family) {
	case DLT_FAM_CUDART:
		return f->v[DLT_FV_CUDART_runtime_version];
	case DLT_FAM_CUDA:
		return f->v[DLT_FV_CUDA_driver_version];
	case DLT_FAM_CUDNN:
		return f->v[DLT_FV_CUDNN_version];
	case DLT_FAM_NCCL:
		return f->v[DLT_FV_NCCL_version];
	}
	return 0;
}

const char *dlt_gpu_family_version_str(const struct dlt_gpu_family *f,
				       char *buf, size_t cap)
{
	return dlt_family_version_str((uint32_t)f->family,
				      dlt_gpu_family_version(f), buf, cap);
}

int64_t dlt_gpu_driver_api(const struct dlt_gpu *g)
{
	/* The runtime asks the driver only when it is loaded already; the
	 * driver's own first call always answers.  The runtime's answer
	 * first. */
	static const struct {
		int family, version, status;
	} from[] = {{DLT_FAM_CUDART, DLT_FV_CUDART_driver_version,
		     DLT_FV_CUDART_driver_status},
		    {DLT_FAM_CUDA, DLT_FV_CUDA_driver_version,
		     DLT_FV_CUDA_driver_status}};
	for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++)
		for (size_t i = 0; i < g->nfams; i++) {
			const struct dlt_gpu_family *f = &g->fams[i];
			if (f->family == from[k].family &&
			    f->v[from[k].version] != DLT_VERSION_ABSENT &&
			    f->v[from[k].status] == 0)
				return f->v[from[k].version];
		}
	return -1;
}

const char *dlt_lib_version_str(const struct dlt_process *p,
				const struct dlt_lib *lib, char *buf,
				size_t cap, const char **from)
{
	const struct dlt_reported_version *v = dlt_lib_reported_version(p, lib);
	*from = NULL;
	buf[0] = '\0';
	if (v)
		dlt_family_version_str(v->family, v->version, buf, cap);
	if (buf[0]) {
		/* FILE: the NCCL version string or a name suffix the shim
		 * read, not an answer of the library's. */
		*from = v->source == DLT_FAMSRC_FILE ? "file" : "library";
		return buf;
	}
	dlt_lib_file_version(lib->realpath ? lib->realpath : lib->path, buf,
			     cap);
	if (buf[0])
		*from = "file name";
	return buf;
}
