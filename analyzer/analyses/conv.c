#include "conv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "model.h"

/* ---- names ------------------------------------------------------------- */

enum dlt_conv_kind dlt_conv_api(uint16_t api, int *dir)
{
	/* Every API_CALL of a trace is asked about: the roles come from an
	 * index by id. */
	uint32_t roles = dlt_api_roles(api);
	if (dir)
		*dir = roles & DLT_ROLE_CONV_BWD_FILTER ? DLT_CONV_BWD_FILTER
		       : roles & DLT_ROLE_CONV_BWD_DATA ? DLT_CONV_BWD_DATA
							: DLT_CONV_FWD;
	if (roles & DLT_ROLE_CONV_PREF)
		return DLT_CONV_PREF;
	if (roles & DLT_ROLE_CONV_HEUR)
		return DLT_CONV_HEUR;
	if (roles & DLT_ROLE_CONV_FIND)
		return DLT_CONV_FIND;
	if (roles & DLT_ROLE_CONV_EXEC)
		return DLT_CONV_EXEC;
	return DLT_CONV_NONE;
}

const char *dlt_conv_dir_name(int dir)
{
	static const char *const names[] = {"forward", "backward-data",
					    "backward-filter"};
	return dir >= 0 && dir < DLT_CONV_NDIRS ? names[dir] : "unknown";
}

/* The enums have kept their numbering since cuDNN 7 (docs/library-facts.md §2).
 */
const char *dlt_conv_algo_name(int dir, int algo)
{
	static const char *const fwd[] = {
		"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM",
		"GEMM",		 "DIRECT",
		"FFT",		 "FFT_TILING",
		"WINOGRAD",	 "WINOGRAD_NONFUSED"};
	static const char *const bwd_data[] = {"ALGO_0",   "ALGO_1",
					       "FFT",	   "FFT_TILING",
					       "WINOGRAD", "WINOGRAD_NONFUSED"};
	static const char *const bwd_filter[] = {
		"ALGO_0",    "ALGO_1",	 "FFT",
		"ALGO_3",    "WINOGRAD", "WINOGRAD_NONFUSED",
		"FFT_TILING"};
	switch (dir) {
	case DLT_CONV_FWD:
		return algo >= 0 && algo < 8 ? fwd[algo] : NULL;
	case DLT_CONV_BWD_DATA:
		return algo >= 0 && algo < 6 ? bwd_data[algo] : NULL;
	case DLT_CONV_BWD_FILTER:
		return algo >= 0 && algo < 7 ? bwd_filter[algo] : NULL;
	}
	return NULL;
}

const char *dlt_cudnn_dtype_name(int dt)
{
	static const char *const names[] = {
		"FLOAT",  "DOUBLE",  "HALF",	 "INT8",    "INT32",
		"INT8x4", "UINT8",   "UINT8x4",	 "INT8x32", "BFLOAT16",
		"INT64",  "BOOLEAN", "FP8_E4M3", "FP8_E5M2"};
	return dt >= 0 && dt < (int)(sizeof(names) / sizeof(names[0]))
		       ? names[dt]
		       : NULL;
}

static size_t dlt_put_dims(char *buf, size_t cap, size_t at, const char *key,
			   const int32_t *v, int n, int max)
{
	if (n < 0)
		n = 0;
	if (n > max)
		n = max;
	if (at < cap)
		at += (size_t)snprintf(buf + at, cap - at, "%s%s=[",
				       at ? " " : "", key);
	for (int i = 0; i < n && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "%s%" PRId32,
				       i ? "," : "", v[i]);
	if (at < cap)
		at += (size_t)snprintf(buf + at, cap - at, "]");
	return at;
}

const char *dlt_conv_problem_str(const struct dlt_rec_conv_problem *p,
				 char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	buf[0] = '\0';
	size_t at = 0;
	at = dlt_put_dims(buf, cap, at, "x", p->x, p->nb_dims, 8);
	at = dlt_put_dims(buf, cap, at, "w", p->w, p->nb_dims, 8);
	at = dlt_put_dims(buf, cap, at, "y", p->y, p->nb_dims, 8);
	at = dlt_put_dims(buf, cap, at, "pad", p->pad, p->conv_dims, 6);
	at = dlt_put_dims(buf, cap, at, "stride", p->stride, p->conv_dims, 6);
	at = dlt_put_dims(buf, cap, at, "dilation", p->dilation, p->conv_dims,
			  6);
	const char *dt = dlt_cudnn_dtype_name(p->data_type);
	if (at < cap) {
		if (dt)
			at += (size_t)snprintf(buf + at, cap - at, " %s", dt);
		else
			at += (size_t)snprintf(buf + at, cap - at,
					       " dtype=%" PRId32, p->data_type);
	}
	if (at < cap && p->groups > 1)
		snprintf(buf + at, cap - at, " groups=%" PRId32, p->groups);
	return buf;
}

/* ---- timing ------------------------------------------------------------ */

void dlt_timing_add(struct dlt_timing *t, uint64_t ts, int32_t status,
		    bool have_dur, uint64_t dur_ns)
{
	if (t->count == 0 || ts < t->first_ts)
		t->first_ts = ts;
	if (ts > t->last_ts)
		t->last_ts = ts;
	t->count++;
	if (status != 0) {
		t->failed++;
		t->last_error = status;
	}
	if (have_dur && dur_ns != UINT64_MAX) {
		if (t->timed == 0 || dur_ns < t->min_ns)
			t->min_ns = dur_ns;
		if (dur_ns > t->max_ns)
			t->max_ns = dur_ns;
		t->timed++;
		t->total_ns += dur_ns;
	}
}

void dlt_timing_merge(struct dlt_timing *dst, const struct dlt_timing *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0 || src->first_ts < dst->first_ts)
		dst->first_ts = src->first_ts;
	if (src->last_ts > dst->last_ts)
		dst->last_ts = src->last_ts;
	if (src->timed) {
		if (dst->timed == 0 || src->min_ns < dst->min_ns)
			dst->min_ns = src->min_ns;
		if (src->max_ns > dst->max_ns)
			dst->max_ns = src->max_ns;
	}
	dst->count += src->count;
	dst->failed += src->failed;
	dst->timed += src->timed;
	dst->total_ns += src->total_ns;
	if (src->failed)
		dst->last_error = src->last_error;
}

double dlt_timing_mean_us(const struct dlt_timing *t)
{
	if (t->timed == 0)
		return -1.0;
	return (double)t->total_ns / (double)t->timed / 1000.0;
}

/* ---- the set ----------------------------------------------------------- */

struct dlt_conv_bx {
	uint64_t desc;
	struct dlt_timing t;
};

void dlt_conv_init(struct dlt_conv_set *s)
{
	memset(s, 0, sizeof(*s));
}

void dlt_conv_free(struct dlt_conv_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].exec);
		free(s->e[i].plans);
		free(s->e[i].recent);
	}
	free(s->e);
	free(s->slots);
	free(s->shapes);
	free(s->bx);
	memset(s, 0, sizeof(*s));
}

static size_t dlt_conv_hash(uint64_t problem, int dir, size_t mask)
{
	uint64_t h = (problem ^ (uint64_t)(dir + 1)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 29) & mask;
}

static void dlt_conv_rehash(struct dlt_conv_set *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 64;
	free(s->slots);
	s->slots = dlt_xcalloc(n, sizeof(*s->slots));
	s->nslots = n;
	for (size_t i = 0; i < s->n; i++) {
		size_t j = dlt_conv_hash(s->e[i].problem, s->e[i].dir, n - 1);
		while (s->slots[j])
			j = (j + 1) & (n - 1);
		s->slots[j] = i + 1; /* 0 marks an empty slot */
	}
}

static long dlt_conv_lookup(const struct dlt_conv_set *s, uint64_t problem,
			    int dir)
{
	if (s->nslots == 0)
		return -1;
	size_t j = dlt_conv_hash(problem, dir, s->nslots - 1);
	while (s->slots[j]) {
		const struct dlt_conv_entry *e = &s->e[s->slots[j] - 1];
		if (e->problem == problem && e->dir == dir)
			return (long)(s->slots[j] - 1);
		j = (j + 1) & (s->nslots - 1);
	}
	return -1;
}

const struct dlt_conv_entry *dlt_conv_find(const struct dlt_conv_set *s,
					   uint64_t problem, int dir)
{
	long i = dlt_conv_lookup(s, problem, dir);
	return i < 0 ? NULL : &s->e[i];
}

struct dlt_conv_entry *dlt_conv_entry(struct dlt_conv_set *s, uint64_t problem,
				      int dir)
{
	long i = dlt_conv_lookup(s, problem, dir);
	if (i >= 0)
		return &s->e[i];
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->e = dlt_xrealloc(s->e, s->cap, sizeof(*s->e));
	}
	struct dlt_conv_entry *e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->problem = problem;
	e->dir = dir;
	if (s->n * 2 > s->nslots) {
		dlt_conv_rehash(s);
	} else {
		size_t j = dlt_conv_hash(problem, dir, s->nslots - 1);
		while (s->slots[j])
			j = (j + 1) & (s->nslots - 1);
		s->slots[j] = s->n;
	}
	return e;
}

void dlt_conv_on_problem(struct dlt_conv_set *s,
			 const struct dlt_rec_conv_problem *p)
{
	for (size_t i = 0; i < s->nshapes; i++)
		if (s->shapes[i].id == p->id)
			return;
	if (s->nshapes == s->capshapes) {
		s->capshapes = s->capshapes ? s->capshapes * 2 : 16;
		s->shapes = dlt_xrealloc(s->shapes, s->capshapes, sizeof(*p));
	}
	s->shapes[s->nshapes++] = *p;
}

void dlt_call_info_of(const struct dlt_rec_api_call *r,
		      struct dlt_call_info *out)
{
	memset(out, 0, sizeof(*out));
	out->api = r->h.flags;
	out->ret = r->ret;
	out->ts = r->h.ts;
	out->dur_ns = dlt_dur_ns(r->dur);
	size_t n = (r->h.len - sizeof(*r)) / 8;
	out->nv = (uint32_t)(n < 4 ? n : 4);
	memcpy(out->v, r->v, out->nv * sizeof(out->v[0]));
}

/* A role value of a call, -1 when it has none. */
static int64_t dlt_call_val(const struct dlt_call_info *c,
			    enum dlt_role_value rv)
{
	uint64_t v;
	if (c == NULL ||
	    !dlt_role_val(dlt_api_by_id(c->api), rv, c->v, c->nv, &v))
		return -1;
	return (int64_t)v;
}

void dlt_conv_on_selection(struct dlt_conv_set *s,
			   const struct dlt_rec_algo_result *r, uint32_t n,
			   uint32_t tid, const struct dlt_call_info *call)
{
	int dir = 0;
	enum dlt_conv_kind kind = dlt_conv_api(r->h.flags, &dir);
	struct dlt_conv_entry *e = dlt_conv_entry(s, r->problem, dir);
	struct dlt_conv_sel sel;
	memset(&sel, 0, sizeof(sel));
	sel.valid = true;
	sel.api = r->h.flags;
	sel.kind = kind;
	sel.status = r->status;
	sel.ts = r->h.ts;
	sel.tid = tid;
	sel.requested = -1;
	sel.workspace = -1;
	if (call) {
		sel.have_call = true;
		sel.call_ns = call->dur_ns;
		if (kind == DLT_CONV_HEUR)
			sel.requested =
				dlt_call_val(call, DLT_RV_CONV_HEUR_requested);
		if (kind == DLT_CONV_FIND) {
			sel.requested =
				dlt_call_val(call, DLT_RV_CONV_FIND_requested);
			sel.workspace =
				dlt_call_val(call, DLT_RV_CONV_FIND_workspace);
		}
	}
	sel.n = n < DLT_CONV_MAX_CANDS ? n : DLT_CONV_MAX_CANDS;
	for (uint32_t i = 0; i < sel.n; i++) {
		const struct dlt_algo_cand *c = &r->c[i];
		sel.c[i] = (struct dlt_conv_cand){c->algo,	  c->status,
						  c->time_ms,	  c->memory,
						  c->determinism, c->math_type};
	}
	e->nsel++;
	sel.seq = e->nsel;
	if (e->recent == NULL)
		e->recent = dlt_xcalloc(DLT_CONV_KEEP_SELS, sizeof(*e->recent));
	e->recent[sel.seq % DLT_CONV_KEEP_SELS] = sel;
	bool failed = sel.status != 0 || dlt_conv_best(&sel) < 0;
	if (failed) {
		e->nsel_failed++;
		if (!e->last_failed.valid || sel.ts >= e->last_failed.ts)
			e->last_failed = sel;
	}
	if (!e->last.valid || sel.ts >= e->last.ts)
		e->last = sel;
}

const struct dlt_conv_sel *dlt_conv_sel_by_seq(const struct dlt_conv_entry *e,
					       uint64_t seq)
{
	if (seq == 0 || e->recent == NULL)
		return NULL;
	const struct dlt_conv_sel *s = &e->recent[seq % DLT_CONV_KEEP_SELS];
	return s->valid && s->seq == seq ? s : NULL;
}

static struct dlt_conv_exec *dlt_conv_exec_of(struct dlt_conv_entry *e,
					      int32_t algo, uint64_t sel_seq)
{
	for (size_t i = 0; i < e->nexec; i++)
		if (e->exec[i].algo == algo && e->exec[i].sel_seq == sel_seq)
			return &e->exec[i];
	if (e->nexec == e->capexec) {
		e->capexec = e->capexec ? e->capexec * 2 : 4;
		e->exec = dlt_xrealloc(e->exec, e->capexec, sizeof(*e->exec));
	}
	struct dlt_conv_exec *x = &e->exec[e->nexec++];
	memset(x, 0, sizeof(*x));
	x->algo = algo;
	x->sel_seq = sel_seq;
	return x;
}

void dlt_conv_on_exec(struct dlt_conv_set *s,
		      const struct dlt_rec_algo_result *r, uint32_t n,
		      const struct dlt_call_info *call)
{
	int dir = 0;
	dlt_conv_api(r->h.flags, &dir);
	int32_t algo = n > 0 ? r->c[0].algo : -1;
	if (algo < 0 && call)
		algo = (int32_t)dlt_call_val(call, DLT_RV_CONV_EXEC_algo);
	struct dlt_conv_entry *e = dlt_conv_entry(s, r->problem, dir);
	/* The selection read last for this problem is the one in force. */
	struct dlt_conv_exec *x = dlt_conv_exec_of(e, algo, e->nsel);
	dlt_timing_add(&x->t, call ? call->ts : r->h.ts, r->status,
		       call != NULL, call ? call->dur_ns : 0);
}

static struct dlt_bk_plan *dlt_conv_add_plan(struct dlt_conv_entry *e)
{
	if (e->nplans >= DLT_BK_MAX_PLANS) {
		e->plans_dropped++;
		return NULL;
	}
	if (e->nplans == e->capplans) {
		e->capplans = e->capplans ? e->capplans * 2 : 8;
		e->plans =
			dlt_xrealloc(e->plans, e->capplans, sizeof(*e->plans));
	}
	struct dlt_bk_plan *p = &e->plans[e->nplans++];
	memset(p, 0, sizeof(*p));
	return p;
}

void dlt_conv_on_finalize(struct dlt_conv_set *s,
			  const struct dlt_rec_bk_finalize *r, uint32_t nknobs)
{
	/* Only graphs with one convolution are tied to a problem. */
	if (r->problem == 0 || r->op < DLT_BK_OP_CONV_FWD ||
	    r->op > DLT_BK_OP_CONV_BWD_FILTER)
		return;
	struct dlt_conv_entry *e = dlt_conv_entry(s, r->problem, r->op - 1);
	if (r->h.flags != DLT_BK_PLAN_DESC) {
		if (r->status != 0)
			e->other_failures++;
		return;
	}
	struct dlt_bk_plan *p = dlt_conv_add_plan(e);
	if (p == NULL)
		return;
	p->desc = r->desc;
	p->engine = r->engine;
	p->status = r->status;
	p->ts = r->h.ts;
	p->n_knobs = nknobs < DLT_BK_MAX_KNOBS ? nknobs : DLT_BK_MAX_KNOBS;
	memcpy(p->knobs, r->knobs, p->n_knobs * sizeof(p->knobs[0]));
}

void dlt_conv_on_bk_execute(struct dlt_conv_set *s,
			    const struct dlt_call_info *call)
{
	int64_t plan = dlt_call_val(call, DLT_RV_BK_EXECUTE_plan);
	if (plan == -1 || plan == 0)
		return;
	/* A program has a handful of plans: a linear search is enough. */
	struct dlt_conv_bx *b = NULL;
	for (size_t i = 0; i < s->nbx && !b; i++)
		if (s->bx[i].desc == (uint64_t)plan)
			b = &s->bx[i];
	if (b == NULL) {
		if (s->nbx == s->capbx) {
			s->capbx = s->capbx ? s->capbx * 2 : 16;
			s->bx = dlt_xrealloc(s->bx, s->capbx, sizeof(*s->bx));
		}
		b = &s->bx[s->nbx++];
		memset(b, 0, sizeof(*b));
		b->desc = (uint64_t)plan;
	}
	dlt_timing_add(&b->t, call->ts, call->ret, true, call->dur_ns);
}

void dlt_conv_finish(struct dlt_conv_set *s)
{
	/* A plan is executed after it was finalized; the descriptor address
	 * can be reused by a later plan, so the latest finalize before the
	 * first execution wins. */
	for (size_t b = 0; b < s->nbx; b++) {
		struct dlt_bk_plan *best = NULL, *any = NULL;
		for (size_t i = 0; i < s->n; i++) {
			struct dlt_conv_entry *e = &s->e[i];
			for (size_t k = 0; k < e->nplans; k++) {
				struct dlt_bk_plan *p = &e->plans[k];
				if (p->desc != s->bx[b].desc || p->status != 0)
					continue;
				if (any == NULL || p->ts > any->ts)
					any = p;
				if (p->ts <= s->bx[b].t.first_ts &&
				    (best == NULL || p->ts > best->ts))
					best = p;
			}
		}
		if (best == NULL)
			best = any;
		if (best)
			dlt_timing_merge(&best->t, &s->bx[b].t);
	}
	free(s->bx);
	s->bx = NULL;
	s->nbx = s->capbx = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct dlt_conv_entry *e = &s->e[i];
		for (size_t k = 0; k < s->nshapes && !e->has_shape; k++) {
			if (s->shapes[k].id == e->problem) {
				e->shape = s->shapes[k];
				e->has_shape = true;
			}
		}
	}
}

/* ---- merging runs ------------------------------------------------------ */

static bool dlt_plan_same(const struct dlt_bk_plan *a,
			  const struct dlt_bk_plan *b)
{
	if (a->engine != b->engine || a->status != b->status ||
	    a->n_knobs != b->n_knobs)
		return false;
	for (uint32_t i = 0; i < a->n_knobs; i++)
		if (a->knobs[i].type != b->knobs[i].type ||
		    a->knobs[i].value != b->knobs[i].value)
			return false;
	return true;
}

void dlt_conv_merge(struct dlt_conv_set *dst, const struct dlt_conv_set *src)
{
	if (dst->cudnn_version == 0)
		dst->cudnn_version = src->cudnn_version;
	for (size_t i = 0; i < src->n; i++) {
		const struct dlt_conv_entry *se = &src->e[i];
		struct dlt_conv_entry *de =
			dlt_conv_entry(dst, se->problem, se->dir);
		if (!de->has_shape && se->has_shape) {
			de->shape = se->shape;
			de->has_shape = true;
		}
		de->nsel += se->nsel;
		de->nsel_failed += se->nsel_failed;
		/* Clocks of different processes do not compare: the first
		 * process's selection stands for the run. */
		if (!de->last.valid)
			de->last = se->last;
		if (!de->last_failed.valid)
			de->last_failed = se->last_failed;
		/* Selections of other processes are not kept: executions
		 * merge per algorithm. */
		for (size_t k = 0; k < se->nexec; k++)
			dlt_timing_merge(
				&dlt_conv_exec_of(de, se->exec[k].algo, 0)->t,
				&se->exec[k].t);
		de->other_failures += se->other_failures;
		de->plans_dropped += se->plans_dropped;
		for (size_t k = 0; k < se->nplans; k++) {
			const struct dlt_bk_plan *sp = &se->plans[k];
			struct dlt_bk_plan *dp = NULL;
			for (size_t m = 0; m < de->nplans && !dp; m++)
				if (dlt_plan_same(&de->plans[m], sp))
					dp = &de->plans[m];
			if (dp) {
				dlt_timing_merge(&dp->t, &sp->t);
				continue;
			}
			dp = dlt_conv_add_plan(de);
			if (dp)
				*dp = *sp;
		}
	}
}

/* ---- what was chosen ---------------------------------------------------- */

int dlt_conv_best(const struct dlt_conv_sel *sel)
{
	if (!sel->valid || sel->status != 0)
		return -1;
	int first = -1, fastest = -1;
	for (uint32_t i = 0; i < sel->n; i++) {
		const struct dlt_conv_cand *c = &sel->c[i];
		if (c->status != 0 || c->algo < 0)
			continue;
		if (first < 0)
			first = (int)i;
		if (c->time_ms >= 0 &&
		    (fastest < 0 || c->time_ms < sel->c[fastest].time_ms))
			fastest = (int)i;
	}
	return fastest >= 0 ? fastest : first;
}

static void dlt_knobs_str(const struct dlt_bk_plan *p, char *buf, size_t cap)
{
	size_t at = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < p->n_knobs && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at,
				       "%sk%" PRId64 "=%" PRId64, i ? "," : "",
				       p->knobs[i].type, p->knobs[i].value);
}

static double dlt_sel_time(const struct dlt_conv_sel *sel, int32_t algo)
{
	if (!sel->valid)
		return -1.0;
	for (uint32_t i = 0; i < sel->n; i++)
		if (sel->c[i].algo == algo && sel->c[i].status == 0)
			return sel->c[i].time_ms;
	return -1.0;
}

static int dlt_int_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

static int dlt_conv_str_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void dlt_executed_set(const struct dlt_conv_entry *e, char *buf,
			     size_t cap)
{
	int32_t algos[64];
	size_t n = 0, at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < e->nexec && n < 64; i++) {
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			seen = algos[k] == e->exec[i].algo;
		if (!seen)
			algos[n++] = e->exec[i].algo;
	}
	if (n > 1)
		qsort(algos, n, sizeof(algos[0]), dlt_int_cmp);
	for (size_t i = 0; i < n && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "%s%" PRId32,
				       i ? "," : "", algos[i]);
	char plans[32][96];
	size_t np = 0;
	for (size_t i = 0; i < e->nplans && np < 32; i++) {
		const struct dlt_bk_plan *p = &e->plans[i];
		if (p->t.count == 0)
			continue;
		char knobs[80];
		dlt_knobs_str(p, knobs, sizeof(knobs));
		char key[96];
		snprintf(key, sizeof(key), "e%" PRId32 "[%s]", p->engine,
			 knobs);
		bool seen = false;
		for (size_t k = 0; k < np && !seen; k++)
			seen = strcmp(plans[k], key) == 0;
		if (!seen)
			snprintf(plans[np++], sizeof(plans[0]), "%s", key);
	}
	if (np > 1)
		qsort(plans, np, sizeof(plans[0]), dlt_conv_str_cmp);
	for (size_t i = 0; i < np && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "%s%s",
				       at ? ";" : "", plans[i]);
}

void dlt_conv_choice(const struct dlt_conv_entry *e, struct dlt_conv_choice *c)
{
	memset(c, 0, sizeof(*c));
	c->mean_us = -1.0;
	c->select_ms = -1.0;
	dlt_executed_set(e, c->executed_set, sizeof(c->executed_set));
	/* Executions of one algorithm after different selections count
	 * together. */
	struct dlt_timing best_t;
	int32_t best_algo = -1;
	memset(&best_t, 0, sizeof(best_t));
	for (size_t i = 0; i < e->nexec; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = e->exec[k].algo == e->exec[i].algo;
		if (seen)
			continue;
		struct dlt_timing t;
		memset(&t, 0, sizeof(t));
		for (size_t k = i; k < e->nexec; k++)
			if (e->exec[k].algo == e->exec[i].algo)
				dlt_timing_merge(&t, &e->exec[k].t);
		if (best_algo < 0 || t.count > best_t.count) {
			best_t = t;
			best_algo = e->exec[i].algo;
		}
	}
	const struct dlt_bk_plan *bp = NULL;
	for (size_t i = 0; i < e->nplans; i++)
		if (e->plans[i].t.count > 0 &&
		    (bp == NULL || e->plans[i].t.count > bp->t.count))
			bp = &e->plans[i];
	if (bp && (best_algo < 0 || bp->t.count > best_t.count)) {
		c->known = c->backend = c->executed = true;
		c->id = bp->engine;
		dlt_knobs_str(bp, c->knobs, sizeof(c->knobs));
		c->count = bp->t.count;
		c->mean_us = dlt_timing_mean_us(&bp->t);
		return;
	}
	if (best_algo >= 0 || e->nexec > 0) {
		c->known = c->executed = true;
		c->id = best_algo;
		c->count = best_t.count;
		c->mean_us = dlt_timing_mean_us(&best_t);
		c->select_ms = dlt_sel_time(&e->last, best_algo);
		return;
	}
	int b = dlt_conv_best(&e->last);
	if (b >= 0) {
		c->known = true;
		c->id = e->last.c[b].algo;
		c->select_ms = e->last.c[b].time_ms;
		return;
	}
	for (size_t i = 0; i < e->nplans; i++) {
		if (e->plans[i].status == 0) {
			c->known = c->backend = true;
			c->id = e->plans[i].engine;
			dlt_knobs_str(&e->plans[i], c->knobs, sizeof(c->knobs));
			return;
		}
	}
}

const char *dlt_conv_choice_str(const struct dlt_conv_entry *e,
				const struct dlt_conv_choice *c, char *buf,
				size_t cap)
{
	if (!c->known) {
		snprintf(buf, cap, "none");
	} else if (c->backend) {
		snprintf(buf, cap, "engine %" PRId32 "%s%s", c->id,
			 c->knobs[0] ? " knobs " : "", c->knobs);
	} else {
		const char *n = dlt_conv_algo_name(e->dir, c->id);
		snprintf(buf, cap, "algo %" PRId32 "%s%s%s", c->id,
			 n ? " (" : "", n ? n : "", n ? ")" : "");
	}
	return buf;
}

bool dlt_conv_choice_same(const struct dlt_conv_choice *a,
			  const struct dlt_conv_choice *b)
{
	if (a->known != b->known || a->executed != b->executed)
		return false;
	if (!a->known)
		return true;
	if (a->executed)
		return strcmp(a->executed_set, b->executed_set) == 0;
	return a->backend == b->backend && a->id == b->id &&
	       strcmp(a->knobs, b->knobs) == 0;
}
