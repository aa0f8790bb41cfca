/* cuDNN 7 and 9 interposed (issue 3): the fake cuDNN's programs print every
 * selection, candidate, plan and execution; the trace must hold the same
 * problems, candidates and plans, in order, linked and through dlopen.
 *
 *   test_gpu_cudnn [SUITE...]   gpu_cudnn */
#define _GNU_SOURCE

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "fake_api.h"
#include "fake_paths.h"
#include "gpuutil.h"
#include "testutil.h"

/* ---- suite gpu_cudnn: legacy selection, backend plans ---------------------
 */

struct fx_problem {
	int n, c, h, w, k, r, s, pad, stride;
	int y[4];
};

/* "problem N: n=8 c=3 ..." */
static int parse_problem(const char *line, struct fx_problem *p)
{
	int idx;
	memset(p, 0, sizeof(*p));
	return sscanf(line,
		      "problem %d: n=%d c=%d h=%d w=%d k=%d r=%d s=%d pad=%d "
		      "stride=%d",
		      &idx, &p->n, &p->c, &p->h, &p->w, &p->k, &p->r, &p->s,
		      &p->pad, &p->stride) == 10;
}

/* The CONV_PROBLEM of p: NCHW float cross-correlation, as fx_cudnn sets it
 * up.  legacy: written from descriptors (filter format NCHW, default
 * math) rather than from a backend graph (both -1). */
static uint64_t find_problem(const char *what, const struct tu_trace *g,
			     const struct fx_problem *p, int legacy)
{
	int want_x[4] = {p->n, p->c, p->h, p->w};
	int want_w[4] = {p->k, p->c, p->r, p->s};
	size_t n = 0;
	uint64_t id = 0;
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_CONV_PROBLEM)
			continue;
		const struct dlt_rec_conv_problem *c = (const void *)h;
		int ok = c->nb_dims == 4 && c->conv_dims == 2 &&
			 memcmp(c->x, want_x, sizeof(want_x)) == 0 &&
			 memcmp(c->w, want_w, sizeof(want_w)) == 0 &&
			 memcmp(c->y, p->y, sizeof(p->y)) == 0;
		if (!ok)
			continue;
		n++;
		id = c->id;
		TU_CHECK(c->pad[0] == p->pad && c->pad[1] == p->pad &&
				 c->stride[0] == p->stride &&
				 c->stride[1] == p->stride &&
				 c->dilation[0] == 1 && c->dilation[1] == 1 &&
				 c->groups == 1 &&
				 c->mode == CUDNN_CROSS_CORRELATION &&
				 c->data_type == CUDNN_DATA_FLOAT &&
				 c->compute_type == CUDNN_DATA_FLOAT,
			 "%s: CONV_PROBLEM x=%dx%dx%dx%d: pad %d,%d stride "
			 "%d,%d dilation %d,%d groups %d mode %d type %d "
			 "compute %d; expected pad %d stride %d, float "
			 "cross-correlation",
			 what, p->n, p->c, p->h, p->w, c->pad[0], c->pad[1],
			 c->stride[0], c->stride[1], c->dilation[0],
			 c->dilation[1], c->groups, c->mode, c->data_type,
			 c->compute_type, p->pad, p->stride);
		if (legacy)
			TU_CHECK(c->format == CUDNN_TENSOR_NCHW &&
					 c->math_type == CUDNN_DEFAULT_MATH,
				 "%s: CONV_PROBLEM format %d math %d", what,
				 c->format, c->math_type);
		else
			TU_CHECK(c->format == -1 && c->math_type == -1,
				 "%s: backend CONV_PROBLEM format %d math %d, "
				 "expected -1 -1",
				 what, c->format, c->math_type);
	}
	TU_CHECK(n == 1,
		 "%s: %zu CONV_PROBLEM records for x=%dx%dx%dx%d "
		 "w=%dx%dx%dx%d y=%dx%dx%dx%d, expected 1",
		 what, n, p->n, p->c, p->h, p->w, p->k, p->c, p->r, p->s,
		 p->y[0], p->y[1], p->y[2], p->y[3]);
	return id;
}

enum { EV_SEL, EV_PREF, EV_RUN };

struct lev {
	int kind;
	uint16_t api;
	int status;
	int n;
	int algo[8], st[8];
	double t[8];
	unsigned long long mem[8];
	int choice, pref, ex;
	int problem;
	char line[256];
};

static const char *dir_word(const char *d)
{
	return strcmp(d, "fwd") == 0	    ? "Forward"
	       : strcmp(d, "bwd_data") == 0 ? "BackwardData"
					    : "BackwardFilter";
}

static uint16_t sel_api(const char *dir, const char *method)
{
	char name[128];
	if (strcmp(method, "get_v7") == 0)
		snprintf(name, sizeof(name),
			 "cudnnGetConvolution%sAlgorithm_v7", dir_word(dir));
	else if (strcmp(method, "find") == 0)
		snprintf(name, sizeof(name), "cudnnFindConvolution%sAlgorithm",
			 dir_word(dir));
	else if (strncmp(method, "findex", 6) == 0)
		snprintf(name, sizeof(name),
			 "cudnnFindConvolution%sAlgorithmEx", dir_word(dir));
	else
		snprintf(name, sizeof(name), "cudnnGetConvolution%sAlgorithm",
			 dir_word(dir));
	return tg_api_id(name);
}

static uint16_t exec_api(const char *dir)
{
	char name[64];
	snprintf(name, sizeof(name), "cudnnConvolution%s", dir_word(dir));
	return tg_api_id(name);
}

/* What fx_cudnn's legacy mode printed, as the records it implies. */
static size_t legacy_events(const char *out, struct lev **res,
			    struct fx_problem probs[3], size_t *nprobs)
{
	size_t n = 0, cap = 256;
	struct lev *v = calloc(cap, sizeof(*v));
	*nprobs = 0;
	int cur = -1;
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		char line[1024];
		snprintf(line, sizeof(line), "%.*s",
			 (int)(nl ? (size_t)(nl - l) : strlen(l)), l);
		l = nl ? nl + 1 : NULL;
		struct fx_problem p;
		if (parse_problem(line, &p)) {
			if (*nprobs < 3) {
				probs[*nprobs] = p;
				cur = (int)(*nprobs)++;
			}
			continue;
		}
		if (cur >= 0 && sscanf(line, "  y status=%*d dims=%dx%dx%dx%d",
				       &probs[cur].y[0], &probs[cur].y[1],
				       &probs[cur].y[2], &probs[cur].y[3]) == 4)
			continue;
		char d[32], m[64], third[64];
		if (cur < 0 ||
		    sscanf(line, "  %31s %63s %63s", d, m, third) < 2)
			continue;
		if (strcmp(d, "fwd") && strcmp(d, "bwd_data") &&
		    strcmp(d, "bwd_filter"))
			continue;
		if (n + 2 >= cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
		}
		const char *choice = strstr(line, " choice=");
		if (choice) {
			int ch = atoi(choice + 8);
			const char *rs = strstr(line, " run status=");
			int runst = rs ? atoi(rs + 12) : -1;
			if (strcmp(m, "prefer") == 0) {
				struct lev *e = &v[n++];
				memset(e, 0, sizeof(*e));
				e->kind = EV_PREF;
				e->api = sel_api(d, m);
				e->status = atoi(strstr(line, " status=") + 8);
				e->choice = e->status == 0 ? ch : -1;
				e->pref = strcmp(third, "no_workspace") == 0 ? 0
					  : strcmp(third, "prefer_fastest") == 0
						  ? 1
						  : 2;
				e->problem = cur;
				tg_set_line(e->line, sizeof(e->line), line);
			}
			if (ch >= 0) {
				struct lev *e = &v[n++];
				memset(e, 0, sizeof(*e));
				e->kind = EV_RUN;
				e->api = exec_api(d);
				e->status = runst;
				e->choice = ch;
				e->problem = cur;
				tg_set_line(e->line, sizeof(e->line), line);
			}
			continue;
		}
		const char *st = strstr(line, " status=");
		const char *nn = strstr(line, " n=");
		if (st == NULL || nn == NULL)
			continue;
		struct lev *e = &v[n++];
		memset(e, 0, sizeof(*e));
		e->kind = EV_SEL;
		e->api = sel_api(d, m);
		e->ex = strncmp(m, "findex", 6) == 0;
		e->status = atoi(st + 8);
		e->n = atoi(nn + 3);
		e->problem = cur;
		tg_set_line(e->line, sizeof(e->line), line);
		const char *c = strchr(nn, ':');
		for (int i = 0; c && e->status == 0 && i < e->n && i < 8; i++) {
			int used = 0;
			if (sscanf(c + 1, " %d/%d/%lf/%llu%n", &e->algo[i],
				   &e->st[i], &e->t[i], &e->mem[i], &used) != 4)
				break;
			c += used; /* the scan started at c + 1 */
		}
	}
	*res = v;
	return n;
}

#define MIB (1024ull * 1024ull)

/* fx_cudnn legacy7/legacy9: every selection call's ALGO_RESULT with every
 * candidate, every execution's with the algorithm run, every API_CALL, in
 * the order the program printed them.  Returns the problem ids. */
static void check_legacy(const char *what, const struct tu_trace *g,
			 const char *out, uint64_t ids[3])
{
	struct lev *ev;
	struct fx_problem probs[3];
	size_t nprobs;
	size_t ne = legacy_events(out, &ev, probs, &nprobs);
	TU_CHECK(nprobs == 3 && ne >= 3 * 9 * 2,
		 "%s: fixture output has %zu problems and %zu events", what,
		 nprobs, ne);
	for (size_t i = 0; i < nprobs; i++)
		ids[i] = find_problem(what, g, &probs[i], 1);
	TU_CHECK(tg_count(g, DLT_REC_CONV_PROBLEM) == 3,
		 "%s: %zu CONV_PROBLEM records, expected one per problem", what,
		 tg_count(g, DLT_REC_CONV_PROBLEM));

	/* ALGO_RESULT records, one per event, in order. */
	size_t k = 0, bad = 0;
	for (size_t i = 0; i < g->nrecs && bad < 5; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_ALGO_RESULT)
			continue;
		const struct dlt_rec_algo_result *r = (const void *)h;
		if (k >= ne) {
			TU_CHECK(0, "%s: extra ALGO_RESULT %s", what,
				 tg_api_name(h->flags));
			bad++;
			continue;
		}
		const struct lev *e = &ev[k++];
		int ok = h->flags == e->api && r->status == e->status &&
			 r->problem == ids[e->problem];
		if (ok && e->kind == EV_SEL && e->status == 0) {
			ok = r->n == (uint32_t)e->n;
			for (int c = 0; ok && c < e->n && c < 8; c++) {
				double dt = r->c[c].time_ms - e->t[c];
				ok = r->c[c].algo == e->algo[c] &&
				     r->c[c].status == e->st[c] &&
				     r->c[c].memory == e->mem[c] &&
				     dt < 0.0006 && dt > -0.0006;
			}
		} else if (ok && e->kind != EV_SEL) {
			ok = e->choice >= 0
				     ? r->n == 1 && r->c[0].algo == e->choice
				     : r->n == 0;
		}
		if (!ok) {
			bad++;
			TU_CHECK(0,
				 "%s: ALGO_RESULT #%zu is %s status %d, %u "
				 "candidates (first algo %d status %d), "
				 "problem %016llx; the program printed "
				 "\"%s\"",
				 what, k, tg_api_name(h->flags), r->status,
				 r->n, r->n ? r->c[0].algo : -1,
				 r->n ? r->c[0].status : -1,
				 (unsigned long long)r->problem, e->line);
		}
	}
	TU_CHECK(k == ne,
		 "%s: %zu ALGO_RESULT records for %zu printed "
		 "selections and executions",
		 what, k, ne);

	/* API_CALL records of the convolution functions, in order. */
	k = 0;
	bad = 0;
	for (size_t i = 0; i < g->nrecs && bad < 5; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_API_CALL || h->flags < 82 ||
		    h->flags > 96)
			continue;
		const struct dlt_rec_api_call *c = (const void *)h;
		if (k >= ne) {
			TU_CHECK(0, "%s: extra API_CALL %s", what,
				 tg_api_name(h->flags));
			bad++;
			continue;
		}
		const struct lev *e = &ev[k++];
		/* The values of the three directions have the same names;
		 * a failed call has not written what it would have
		 * returned. */
		const char *wname[3];
		uint64_t want[3];
		size_t nw = 0;
		if (e->kind == EV_SEL) {
			wname[nw] = "requested";
			want[nw++] = 8;
			if (e->status == 0) {
				wname[nw] = "returned";
				want[nw++] = (uint64_t)e->n;
			}
			if (e->status == 0 && e->ex) {
				wname[nw] = "workspace";
				want[nw++] = MIB;
			}
		} else if (e->kind == EV_PREF) {
			wname[nw] = "preference";
			want[nw++] = (uint64_t)e->pref;
			wname[nw] = "limit";
			want[nw++] = MIB;
			if (e->status == 0) {
				wname[nw] = "algo";
				want[nw++] = (uint64_t)(int64_t)e->choice;
			}
		} else {
			wname[nw] = "algo";
			want[nw++] = (uint64_t)e->choice;
			wname[nw] = "workspace";
			want[nw++] = 64 * MIB;
		}
		int ok = h->flags == e->api && c->ret == e->status;
		for (size_t q = 0; ok && q < nw; q++) {
			size_t at = tg_value_index(h->flags, wname[q]);
			ok = at < tg_call_nv(h) && c->v[at] == want[q];
		}
		if (!ok) {
			bad++;
			TU_CHECK(0,
				 "%s: API_CALL #%zu is %s ret=%d v=%lld,%lld; "
				 "the program printed \"%s\"",
				 what, k, tg_api_name(h->flags), c->ret,
				 tg_call_nv(h) > 0 ? (long long)c->v[0] : -1,
				 tg_call_nv(h) > 1 ? (long long)c->v[1] : -1,
				 e->line);
		}
	}
	TU_CHECK(k == ne,
		 "%s: %zu API_CALL records of convolution functions "
		 "for %zu printed selections and executions",
		 what, k, ne);
	/* One cudnnCreate and one cudnnDestroy: the front library's calls
	 * into its sub-libraries are not the program's. */
	TU_CHECK(tg_calls(g, tg_api_id("cudnnCreate"), NULL, 0) == 1 &&
			 tg_calls(g, tg_api_id("cudnnDestroy"), NULL, 0) == 1,
		 "%s: %zu cudnnCreate and %zu cudnnDestroy records, expected 1 "
		 "each",
		 what, tg_calls(g, tg_api_id("cudnnCreate"), NULL, 0),
		 tg_calls(g, tg_api_id("cudnnDestroy"), NULL, 0));
	static const char *const need[] = {
		"cudnnCreate", "cudnnFindConvolutionForwardAlgorithm",
		"cudnnFindConvolutionBackwardDataAlgorithmEx",
		"cudnnFindConvolutionBackwardFilterAlgorithm", NULL};
	tg_expect_enter_pairs(what, g, need);
	if (bad)
		tg_dump_calls(g);
	free(ev);
}

/* The API_CALLs of the main thread as text (values that are addresses
 * left out), to compare two runs of one program. */
static char *calls_text(const struct tu_trace *g)
{
	size_t cap = 4096, len = 0;
	char *s = malloc(cap);
	s[0] = '\0';
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_API_CALL || g->recs[i].tid != g->hdr.pid)
			continue;
		const struct dlt_rec_api_call *c = (const void *)h;
		const struct dlt_api_desc *a = dlt_api_by_id(h->flags);
		char line[512];
		int l = snprintf(line, sizeof(line), "%s ret=%d",
				 tg_api_name(h->flags), c->ret);
		for (size_t k = 0; a && k < tg_call_nv(h); k++) {
			char buf[32];
			const char *lab =
				dlt_api_value_label(a, k, buf, sizeof(buf));
			if (dlt_label_is_handle(lab))
				continue;
			l += snprintf(line + l, sizeof(line) - (size_t)l,
				      " %s=%lld", lab, (long long)c->v[k]);
		}
		while (len + (size_t)l + 2 > cap) {
			cap *= 2;
			s = realloc(s, cap);
		}
		memcpy(s + len, line, (size_t)l);
		len += (size_t)l;
		s[len++] = '\n';
		s[len] = '\0';
	}
	return s;
}

static void expect_same_calls(const char *what, const struct tu_trace *a,
			      const struct tu_trace *b)
{
	char *ta = calls_text(a), *tb = calls_text(b);
	TU_CHECK(strcmp(ta, tb) == 0 && ta[0],
		 "%s: the API_CALL records differ between the linked and the "
		 "dlopen run.\n--- linked:\n%.3000s--- dlopen:\n%.3000s",
		 what, ta, tb);
	free(ta);
	free(tb);
}

static const char *const cudnn9_env[] = {"FAKE_CUDNN_VERSION=91902",
					 "FAKE_CUDNN_CUDART=12080", NULL};

/* Runs one fx_cudnn mode plainly and traced and checks it; keeps the
 * trace open in *s (caller frees) and returns the program's trace. */
static struct tu_trace *cudnn_run(const char *what, const char *const cmd[],
				  const char *const env[], int want_exit,
				  char **dir, struct tu_proc *traced,
				  struct tu_traceset *s)
{
	*dir = tu_tmpdir("cudnn");
	TU_CHECK_FATAL(*dir != NULL, "no scratch directory");
	struct tu_proc plain;
	tg_run_pair(what, cmd, env, *dir, want_exit, &plain, traced);
	tu_proc_free(&plain);
	tu_traceset_read(*dir, s, 0);
	return tu_traceset_only(s, tg_base_name(cmd[0]));
}

static void cudnn_done(char *dir, struct tu_proc *traced, struct tu_traceset *s)
{
	tu_traceset_free(s);
	tu_proc_free(traced);
	tu_rmtree(dir);
	free(dir);
}

static uint64_t legacy9_ids[3];

static void test_cudnn_legacy9(void)
{
	const char *linked[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	const char *dl[] = {DLT_FAKE_FX_CUDNN_DL, "legacy9", NULL};
	char *d1, *d2;
	struct tu_proc t1, t2;
	struct tu_traceset s1, s2;
	struct tu_trace *g1 = cudnn_run("cuDNN 9 legacy, linked", linked,
					cudnn9_env, 0, &d1, &t1, &s1);
	struct tu_trace *g2 = cudnn_run("cuDNN 9 legacy, dlopen", dl,
					cudnn9_env, 0, &d2, &t2, &s2);
	char *lib = tg_fake_file(DLT_FAKE_CUDNN9_DIR, "libcudnn.so.9");
	/* graph and ops export a version word; cnn exports none (as 9.19). */
	const struct tg_want v[] = {{DLT_FV_CUDNN_version, 91902},
				    {DLT_FV_CUDNN_cudart_version, 12080},
				    {DLT_FV_CUDNN_sublib1_check, 0},
				    {DLT_FV_CUDNN_sublib2_check, 0},
				    TG_WANT_END};
	uint64_t ids2[3];
	if (g1) {
		check_legacy("cuDNN 9 legacy, linked", g1, t1.out, legacy9_ids);
		tg_expect_family("cuDNN 9 legacy, linked", g1, DLT_FAM_CUDNN,
				 lib, "cudnnCreate", v);
	}
	if (g2) {
		check_legacy("cuDNN 9 legacy, dlopen", g2, t2.out, ids2);
		tg_expect_family("cuDNN 9 legacy, dlopen", g2, DLT_FAM_CUDNN,
				 lib, "cudnnCreate", v);
	}
	if (g1 && g2) {
		expect_same_calls("cuDNN 9 legacy", g1, g2);
		TU_CHECK(memcmp(legacy9_ids, ids2, sizeof(ids2)) == 0,
			 "cuDNN 9 legacy: problem ids differ between runs");
	}
	free(lib);
	tu_expect_healthy("cuDNN 9 legacy, linked", d1);
	tu_expect_healthy("cuDNN 9 legacy, dlopen", d2);
	cudnn_done(d1, &t1, &s1);
	cudnn_done(d2, &t2, &s2);
}

static void test_cudnn_legacy7(void)
{
	const char *linked[] = {DLT_FAKE_FX_CUDNN7, "legacy7", NULL};
	const char *dl[] = {DLT_FAKE_FX_CUDNN7, "legacy7", "--dlopen", NULL};
	const char *env[] = {"FAKE_CUDNN_VERSION=7602",
			     "FAKE_CUDNN_CUDART=10020", NULL};
	char *d1, *d2;
	struct tu_proc t1, t2;
	struct tu_traceset s1, s2;
	struct tu_trace *g1 =
		cudnn_run("cuDNN 7, linked", linked, env, 0, &d1, &t1, &s1);
	struct tu_trace *g2 =
		cudnn_run("cuDNN 7, dlopen", dl, env, 0, &d2, &t2, &s2);
	char *lib = tg_fake_file(DLT_FAKE_CUDNN7_DIR, "libcudnn.so.7");
	/* No sub-library version checks before 8.0. */
	const int64_t A = DLT_VERSION_ABSENT;
	const struct tg_want v[] = {{DLT_FV_CUDNN_version, 7602},
				    {DLT_FV_CUDNN_cudart_version, 10020},
				    {DLT_FV_CUDNN_sublib1_check, A},
				    {DLT_FV_CUDNN_sublib2_check, A},
				    {DLT_FV_CUDNN_sublib3_check, A},
				    {DLT_FV_CUDNN_sublib4_check, A},
				    {DLT_FV_CUDNN_sublib5_check, A},
				    {DLT_FV_CUDNN_sublib6_check, A},
				    TG_WANT_END};
	uint64_t ids1[3], ids2[3];
	if (g1) {
		check_legacy("cuDNN 7, linked", g1, t1.out, ids1);
		tg_expect_family("cuDNN 7, linked", g1, DLT_FAM_CUDNN, lib,
				 "cudnnCreate", v);
		/* The preference forms (gone since 8.0). */
		TU_CHECK(
			tg_calls(g1,
				 tg_api_id(
					 "cudnnGetConvolutionForwardAlgorithm"),
				 NULL, 0) == 9,
			"cuDNN 7: not 9 preference-form selections");
	}
	if (g2) {
		check_legacy("cuDNN 7, dlopen", g2, t2.out, ids2);
		tg_expect_family("cuDNN 7, dlopen", g2, DLT_FAM_CUDNN, lib,
				 "cudnnCreate", v);
	}
	if (g1 && g2)
		expect_same_calls("cuDNN 7", g1, g2);
	free(lib);
	tu_expect_healthy("cuDNN 7, linked", d1);
	tu_expect_healthy("cuDNN 7, dlopen", d2);
	cudnn_done(d1, &t1, &s1);
	cudnn_done(d2, &t2, &s2);
}

/* How many times token appears in the lines of out that start with
 * prefix. */
static size_t printed_cands(const char *out, const char *prefix,
			    const char *token)
{
	size_t n = 0, pl = strlen(prefix);
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (strncmp(l, prefix, pl) == 0)
			for (const char *t = l;
			     (t = strstr(t, token)) && t < l + len; t++)
				n++;
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

/* Candidates that fail on request: the statuses the program saw are the
 * statuses recorded, and so is a failed execution. */
static void test_cudnn_fail_algos(void)
{
	const char *cmd[] = {DLT_FAKE_FX_CUDNN7, "legacy7", NULL};
	const char *env[] = {"FAKE_CUDNN_FAIL_ALGOS=0,fwd/7,bwdd/5:alloc",
			     NULL};
	char *d;
	struct tu_proc t;
	struct tu_traceset s;
	struct tu_trace *g = cudnn_run("cuDNN 7, failing algorithms", cmd, env,
				       1, &d, &t, &s);
	if (g) {
		uint64_t ids[3];
		check_legacy("cuDNN 7, failing algorithms", g, t.out, ids);
		size_t nsup7 = 0, alloc5 = 0, failed_runs = 0;
		uint16_t fwd7 =
			tg_api_id("cudnnGetConvolutionForwardAlgorithm_v7");
		uint16_t bwdd =
			tg_api_id("cudnnFindConvolutionBackwardDataAlgorithm");
		for (size_t i = 0; i < g->nrecs; i++) {
			const struct dlt_rec_hdr *h = g->recs[i].h;
			if (h->type != DLT_REC_ALGO_RESULT)
				continue;
			const struct dlt_rec_algo_result *r = (const void *)h;
			for (uint32_t c = 0; c < r->n; c++) {
				nsup7 +=
					h->flags == fwd7 && r->c[c].algo == 7 &&
					r->c[c].status ==
						DLT_CUDNN7_STATUS_NOT_SUPPORTED;
				alloc5 +=
					h->flags == bwdd && r->c[c].algo == 5 &&
					r->c[c].status ==
						DLT_CUDNN7_STATUS_ALLOC_FAILED;
			}
			failed_runs += r->n == 1 && r->status != 0 &&
				       dlt_api_by_id(h->flags) &&
				       strncmp(tg_api_name(h->flags),
					       "cudnnConvolution", 16) == 0;
		}
		size_t want_nsup7 =
			printed_cands(t.out, "  fwd get_v7 status", " 7/9/");
		size_t want_alloc5 =
			printed_cands(t.out, "  bwd_data find status", " 5/2/");
		TU_CHECK(want_nsup7 > 0 && want_alloc5 > 0 &&
				 nsup7 == want_nsup7 && alloc5 == want_alloc5 &&
				 failed_runs > 0,
			 "failing algorithms: %zu fwd _v7 candidates 7 NOT "
			 "SUPPORTED, %zu bwd-data Find candidates 5 ALLOC "
			 "FAILED (the program saw %zu and %zu), %zu failed "
			 "executions",
			 nsup7, alloc5, want_nsup7, want_alloc5, failed_runs);
	}
	cudnn_done(d, &t, &s);
}

/* cudnn_ops.so.9 of another version: cudnnCreate fails with 1002 and the
 * version check of the ops sub-library says so. */
static void test_cudnn_skew(void)
{
	const char *cmd[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	const char *env[] = {"FAKE_CUDNN_OPS_VERSION=91800", NULL};
	char *d;
	struct tu_proc t;
	struct tu_traceset s;
	struct tu_trace *g =
		cudnn_run("cuDNN 9, ops skew", cmd, env, 1, &d, &t, &s);
	if (g) {
		TU_CHECK(tu_contains(t.out, "cudnnCreate status=1002"),
			 "ops skew: fixture did not fail cudnnCreate:\n%s",
			 t.out);
		const struct dlt_rec_api_call *c[2];
		size_t n = tg_calls(g, tg_api_id("cudnnCreate"), c, 2);
		TU_CHECK(
			n == 1 &&
				c[0]->ret ==
					CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH,
			"ops skew: %zu cudnnCreate records, ret %d", n,
			n ? c[0]->ret : -1);
		char *lib = tg_fake_file(DLT_FAKE_CUDNN9_DIR, "libcudnn.so.9");
		/* graph agrees, ops does not */
		const struct tg_want v[] = {{DLT_FV_CUDNN_version, 91900},
					    {DLT_FV_CUDNN_sublib1_check, 0},
					    {DLT_FV_CUDNN_sublib2_check, 1002},
					    TG_WANT_END};
		tg_expect_family("cuDNN 9, ops skew", g, DLT_FAM_CUDNN, lib,
				 "cudnnCreate", v);
		free(lib);
	}
	cudnn_done(d, &t, &s);
}

/* ---- backend ---- */

struct bev {
	int type; /* 2 engine, 3 engine config, 5 plan, 0 execute */
	int engine, status, knob;
	int problem;
	char line[256];
};

static size_t backend_events(const char *out, struct bev **res,
			     struct fx_problem probs[3], size_t *nprobs)
{
	size_t n = 0, cap = 256;
	struct bev *v = calloc(cap, sizeof(*v));
	int cur = -1;
	*nprobs = 0;
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		char line[1024];
		snprintf(line, sizeof(line), "%.*s",
			 (int)(nl ? (size_t)(nl - l) : strlen(l)), l);
		l = nl ? nl + 1 : NULL;
		struct fx_problem p;
		if (parse_problem(line, &p)) {
			int oh = (p.h + 2 * p.pad - p.r) / p.stride + 1;
			int ow = (p.w + 2 * p.pad - p.s) / p.stride + 1;
			p.y[0] = p.n;
			p.y[1] = p.k;
			p.y[2] = oh;
			p.y[3] = ow;
			if (*nprobs < 3) {
				probs[*nprobs] = p;
				cur = (int)(*nprobs)++;
			}
			continue;
		}
		if (n + 4 >= cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
		}
		int i, e, gi, st, k, c;
		if (sscanf(line,
			   "  heuristic #%d engine status=%d global_index=%d "
			   "plan status=%d",
			   &i, &e, &gi, &st) == 4) {
			v[n++] = (struct bev){5, gi, st, -1, cur, ""};
			tg_set_line(v[n - 1].line, sizeof(v[0].line), line);
		} else if (sscanf(line,
				  "  engine %d status=%d knob status=%d cfg "
				  "status=%d plan status=%d",
				  &gi, &e, &k, &c, &st) == 5) {
			int knob = 1 + gi % 3;
			v[n++] = (struct bev){2, gi, e, -1, cur, ""};
			tg_set_line(v[n - 1].line, sizeof(v[0].line), line);
			if (e == 0) {
				v[n++] = (struct bev){3, gi, c, knob, cur, ""};
				tg_set_line(v[n - 1].line, sizeof(v[0].line),
					    line);
			}
			if (e == 0 && c == 0) {
				v[n++] = (struct bev){5, gi, st, knob, cur, ""};
				tg_set_line(v[n - 1].line, sizeof(v[0].line),
					    line);
			}
		} else if (strstr(line, "variant pack status=") &&
			   strstr(line, "execute:")) {
			const char *x = strstr(line, "execute:") + 8;
			char *end;
			for (long r = strtol(x, &end, 10); end != x;
			     r = strtol(x, &end, 10)) {
				if (n + 1 >= cap) {
					cap *= 2;
					v = realloc(v, cap * sizeof(*v));
				}
				v[n++] = (struct bev){0,  -1,  (int)r,
						      -1, cur, ""};
				tg_set_line(v[n - 1].line, sizeof(v[0].line),
					    line);
				x = end;
			}
		}
	}
	*res = v;
	return n;
}

/* fx_cudnn backend: a BK_FINALIZE for every engine, engine configuration
 * and plan the program finalized (engine, status, knobs, problem), and
 * every cudnnBackendExecute on the plan that finalized last. */
static void check_backend(const char *what, const struct tu_trace *g,
			  const char *out, uint64_t ids[3])
{
	struct bev *ev;
	struct fx_problem probs[3];
	size_t nprobs;
	size_t ne = backend_events(out, &ev, probs, &nprobs);
	TU_CHECK(nprobs == 3 && ne >= 3 * 8,
		 "%s: fixture output has %zu problems and %zu events", what,
		 nprobs, ne);
	for (size_t i = 0; i < nprobs; i++)
		ids[i] = find_problem(what, g, &probs[i], 0);
	size_t bad = 0, execs = 0, plans_failed = 0;
	size_t kx = 0, kf = 0; /* next execute, next finalize event */
	uint64_t last_plan = 0;
	uint16_t exec_id = tg_api_id("cudnnBackendExecute");
	for (size_t i = 0; i < g->nrecs && bad < 5; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		int is_exec =
			h->type == DLT_REC_API_CALL && h->flags == exec_id;
		if (h->type != DLT_REC_BK_FINALIZE && !is_exec)
			continue;
		size_t *k = is_exec ? &kx : &kf;
		while (*k < ne && ((ev[*k].type == 0) != is_exec))
			(*k)++;
		if (*k >= ne) {
			TU_CHECK(0, "%s: extra %s record", what,
				 is_exec ? "cudnnBackendExecute"
					 : "BK_FINALIZE");
			bad++;
			continue;
		}
		const struct bev *e = &ev[(*k)++];
		int ok;
		if (is_exec) {
			const struct dlt_rec_api_call *c = (const void *)h;
			ok = c->ret == e->status && tg_call_nv(h) >= 1 &&
			     c->v[DLT_V_cudnnBackendExecute_plan] ==
				     last_plan &&
			     last_plan != 0;
			execs++;
			if (!ok)
				TU_CHECK(
					0,
					"%s: cudnnBackendExecute ret=%d plan "
					"%llx, the last plan that finalized "
					"is %llx; the program printed \"%s\"",
					what, c->ret,
					tg_call_nv(h)
						? (unsigned long long)c->v
							  [DLT_V_cudnnBackendExecute_plan]
						: 0ull,
					(unsigned long long)last_plan, e->line);
		} else {
			const struct dlt_rec_bk_finalize *r = (const void *)h;
			ok = h->flags == e->type && r->engine == e->engine &&
			     r->status == e->status &&
			     r->problem == ids[e->problem] &&
			     r->op == DLT_BK_OP_CONV_FWD;
			if (ok && e->knob >= 0)
				ok = r->n_knobs == 1 &&
				     r->knobs[0].type ==
					     CUDNN_KNOB_TYPE_TILE_SIZE &&
				     r->knobs[0].value == e->knob;
			else if (ok)
				ok = r->n_knobs == 0;
			if (h->flags == 5 && r->status == 0)
				last_plan = r->desc;
			plans_failed += h->flags == 5 && r->status != 0;
			if (!ok)
				TU_CHECK(0,
					 "%s: BK_FINALIZE type %u engine %d "
					 "status %d %u knobs problem %016llx; "
					 "the program printed \"%s\" (type "
					 "%d)",
					 what, h->flags, r->engine, r->status,
					 r->n_knobs,
					 (unsigned long long)r->problem,
					 e->line, e->type);
		}
		bad += !ok;
	}
	size_t want_exec = 0, want_fin = 0, want_failed = 0;
	for (size_t i = 0; i < ne; i++) {
		want_exec += ev[i].type == 0;
		want_fin += ev[i].type != 0;
		want_failed += ev[i].type == 5 && ev[i].status != 0;
	}
	TU_CHECK(execs == want_exec &&
			 tg_count(g, DLT_REC_BK_FINALIZE) == want_fin &&
			 plans_failed == want_failed,
		 "%s: %zu executions, %zu BK_FINALIZE (%zu failed plans); the "
		 "program made %zu, %zu (%zu)",
		 what, execs, tg_count(g, DLT_REC_BK_FINALIZE), plans_failed,
		 want_exec, want_fin, want_failed);
	static const char *const need[] = {"cudnnBackendExecute", NULL};
	tg_expect_enter_pairs(what, g, need);
	free(ev);
}

static void backend_case(const char *what, const char *const cmd[],
			 const char *const env[], int want_failed_plans)
{
	char *d;
	struct tu_proc t;
	struct tu_traceset s;
	struct tu_trace *g = cudnn_run(what, cmd, env, 0, &d, &t, &s);
	if (g) {
		uint64_t ids[3];
		check_backend(what, g, t.out, ids);
		/* The same convolution, the same id, whichever API. */
		TU_CHECK(legacy9_ids[0] == 0 ||
				 memcmp(ids, legacy9_ids, sizeof(ids)) == 0,
			 "%s: problem ids differ from the legacy API's", what);
		size_t failed = 0;
		for (size_t i = 0; i < g->nrecs; i++) {
			const struct dlt_rec_hdr *h = g->recs[i].h;
			failed += h->type == DLT_REC_BK_FINALIZE &&
				  h->flags == 5 &&
				  ((const struct dlt_rec_bk_finalize
					    *)(const void *)h)
						  ->status ==
					  CUDNN_STATUS_NOT_SUPPORTED;
		}
		TU_CHECK(want_failed_plans ? failed >= 3 : failed == 0,
			 "%s: %zu plans failed to finalize with "
			 "NOT_SUPPORTED",
			 what, failed);
	}
	if (want_failed_plans == 0)
		tu_expect_healthy(what, d);
	cudnn_done(d, &t, &s);
}

static void test_cudnn_backend(void)
{
	const char *linked[] = {DLT_FAKE_FX_CUDNN, "backend", NULL};
	const char *dl[] = {DLT_FAKE_FX_CUDNN, "backend", "--dlopen", NULL};
	backend_case("cuDNN backend, linked", linked, NULL, 0);
	backend_case("cuDNN backend, dlopen", dl, NULL, 0);
	const char *bad[] = {"FAKE_CUDNN_BAD_ENGINES=0,1,6,7,8", NULL};
	backend_case("cuDNN backend, failing engines", linked, bad, 1);
}

/* ---- suites ------------------------------------------------------------- */

static const struct tu_test cudnn_tests[] = {
	{"cuDNN 9 legacy API, linked and dlopen", test_cudnn_legacy9},
	{"cuDNN 7 with preference forms, linked and dlopen",
	 test_cudnn_legacy7},
	{"failing candidates and executions", test_cudnn_fail_algos},
	{"sub-library version skew", test_cudnn_skew},
	{"backend API: engines, knobs, plans, executions", test_cudnn_backend},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"gpu_cudnn", cudnn_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
