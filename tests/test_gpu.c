/* End-to-end tests of the GPU library interposition (issue 3) and of the
 * hang post-mortem (issue 5).  Programs that drive the fake CUDA runtime
 * and driver, cuDNN 7 and 9 and NCCL (tests/fakes/) print every status
 * they get; each runs plainly and under dltrace, and the trace must hold,
 * record for record, what the program printed: the calls with their API
 * ids, statuses and values, the libraries and their versions, cuDNN's
 * problems, candidates and plans, NCCL's communicators.  Then ranks that
 * hang (the fake NCCL, Debian's python3-torch) are killed and
 * `dltrace-analyze hangs` must say who waited where, and who never came.
 *
 *   test_gpu [SUITE...]   gpu_cuda gpu_cudnn gpu_nccl gpu_dlerror
 *                         gpu_compact gpu_real hang_nccl hang_mismatch
 *                         hang_timeout hang_torch */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apinames.h"
#include "fake_api.h"
#include "fake_paths.h"
#include "testutil.h"
#include "writer.h"

#define RUN_MS 60000

/* ---- running programs plainly and traced ------------------------------ */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

static int run_traced(struct tu_proc *p, const char *dir,
		      const char *const cmd[], const char *const env[])
{
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	int r = tu_run(p, argv, env, RUN_MS);
	free(argv);
	return r;
}

/* env plus LD_PRELOAD=libdltrace.so and DLTRACE_DIR=dir; caller frees. */
static const char **preload_env(const char *dir, const char *const env[],
				char *buf1, char *buf2, size_t cap)
{
	size_t n = 0;
	while (env && env[n])
		n++;
	const char **e = calloc(n + 3, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		e[i] = env[i];
	snprintf(buf1, cap, "LD_PRELOAD=%s", DLT_TEST_LIB);
	snprintf(buf2, cap, "DLTRACE_DIR=%s", dir);
	e[n] = buf1;
	e[n + 1] = buf2;
	e[n + 2] = NULL;
	return e;
}

/* Runs cmd plainly and under `dltrace -o dir`; the runs must match and the
 * plain one must exit with want_exit (-1: any). */
static void run_pair(const char *what, const char *const cmd[],
		     const char *const env[], const char *dir, int want_exit,
		     struct tu_proc *plain, struct tu_proc *traced)
{
	tu_run(plain, cmd, env, RUN_MS);
	TU_CHECK(want_exit < 0 || tu_exit_code(plain->status) == want_exit,
		 "%s: fixture broken: plain run %s, expected exit %d\n%s%s",
		 what, tu_status_str(plain->status), want_exit, plain->out,
		 plain->err);
	run_traced(traced, dir, cmd, env);
	tu_expect_same_run(what, plain, traced, 1);
}

/* Copies src into dst, cut to fit. */
static void set_line(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- traces: every record, in file order ------------------------------- */

struct grec {
	const struct dlt_rec_hdr *h; /* a copy: the reader's is transient */
	uint32_t tid;
	uint32_t writer;
};

struct gtrace {
	char *path;
	struct dlt_trace *t;
	struct dlt_file_header hdr;
	struct grec *r;
	size_t n, cap;
	char exe[1024]; /* from the PROC record */
};

static int gt_add(void *ctx, const struct dlt_rec_view *v)
{
	struct gtrace *g = ctx;
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->r = realloc(g->r, g->cap * sizeof(*g->r));
		if (g->r == NULL)
			abort();
	}
	struct dlt_rec_hdr *h = malloc(v->rec->len);
	if (h == NULL)
		abort();
	memcpy(h, v->rec, v->rec->len);
	g->r[g->n++] = (struct grec){h, v->tid, v->writer};
	if (v->rec->type == DLT_REC_PROC) {
		const struct dlt_rec_proc *p = (const void *)v->rec;
		snprintf(g->exe, sizeof(g->exe), "%s",
			 dlt_trace_strz(g->t, p->exe));
	}
	return 0;
}

/* Reads every record of a trace; a problem is a test failure unless quiet
 * (a trace polled while its process runs). */
static int gt_read(struct gtrace *g, const char *path, int quiet)
{
	memset(g, 0, sizeof(*g));
	char err[512];
	g->path = strdup(path);
	g->t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK(quiet || g->t != NULL, "trace %s does not open: %s", path,
		 err);
	if (g->t == NULL)
		return -1;
	g->hdr = *dlt_trace_header(g->t);
	dlt_trace_foreach(g->t, gt_add, g);
	for (size_t i = 0; !quiet && i < dlt_trace_problem_count(g->t); i++)
		TU_CHECK(0, "%s: reader problem: %s", path,
			 dlt_trace_problem(g->t, i));
	return 0;
}

static void gt_close(struct gtrace *g)
{
	if (g->t)
		dlt_trace_close(g->t);
	for (size_t i = 0; i < g->n; i++)
		free((void *)g->r[i].h);
	free(g->r);
	free(g->path);
	memset(g, 0, sizeof(*g));
}

struct gset {
	struct gtrace *t;
	size_t n;
};

static size_t gs_read(const char *dir, struct gset *s, int quiet)
{
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	s->t = calloc(n + 1, sizeof(*s->t));
	s->n = 0;
	for (size_t i = 0; i < n; i++)
		if (gt_read(&s->t[s->n], paths[i], quiet) == 0)
			s->n++;
	tu_free_list(paths);
	return s->n;
}

static size_t gs_load(const char *dir, struct gset *s)
{
	return gs_read(dir, s, 0);
}

static void gs_free(struct gset *s)
{
	for (size_t i = 0; i < s->n; i++)
		gt_close(&s->t[i]);
	free(s->t);
	memset(s, 0, sizeof(*s));
}

/* The one trace in dir of a process that ran a program of this base name
 * (the launcher's traced child, not a shell in between). */
static struct gtrace *gs_only(struct gset *s, const char *exe)
{
	struct gtrace *found = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(base_name(s->t[i].exe), exe) == 0) {
			found = &s->t[i];
			n++;
		}
	TU_CHECK(n == 1, "%zu traces of %s, expected 1", n, exe);
	return n == 1 ? found : NULL;
}

static const char *gt_str(const struct gtrace *g, uint32_t id)
{
	return dlt_trace_strz(g->t, id);
}

static const char *api_name(uint16_t id)
{
	const struct dlt_api_desc *a = dlt_api_by_id(id);
	return a ? a->name : "?";
}

static uint16_t api_id(const char *name)
{
	const struct dlt_api_desc *a = dlt_api_by_name(name);
	TU_CHECK_FATAL(a != NULL, "%s is not in apis.def", name);
	return a->id;
}

static size_t call_nv(const struct dlt_rec_hdr *h)
{
	return (h->len - sizeof(struct dlt_rec_api_call)) / 8;
}

/* API_CALL records of one API, in order. */
static size_t gt_calls(const struct gtrace *g, uint16_t id,
		       const struct dlt_rec_api_call **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type != DLT_REC_API_CALL || h->flags != id)
			continue;
		if (out && n < max)
			out[n] = (const void *)h;
		n++;
	}
	return n;
}

static size_t gt_count(const struct gtrace *g, uint16_t type)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += g->r[i].h->type == type;
	return n;
}

/* Prints the API records of a trace, for failure messages. */
static void gt_dump_calls(const struct gtrace *g)
{
	fprintf(stderr, "    API records of %s:\n", g->path);
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type == DLT_REC_API_CALL) {
			const struct dlt_rec_api_call *c = (const void *)h;
			fprintf(stderr, "      %u CALL  %s ret=%d", g->r[i].tid,
				api_name(h->flags), c->ret);
			for (size_t k = 0; k < call_nv(h); k++)
				fprintf(stderr, " %lld", (long long)c->v[k]);
			fprintf(stderr, "\n");
		} else if (h->type == DLT_REC_API_ENTER) {
			fprintf(stderr, "      %u ENTER %s\n", g->r[i].tid,
				api_name(h->flags));
		}
	}
}

/* ---- what a program printed, against its API_CALL records ---------------
 *
 * The fake programs print "name[(detail)] rc=N [(text)] key=value ...".
 * Each line whose name is an interposed function (pnccl names and the
 * base names of versioned driver functions mapped to what dltrace
 * records) must have an API_CALL, in the same order, with that status,
 * and, for each key that is one of the API's value labels, that value. */

struct ecall {
	const struct dlt_api_desc *api;
	int ret;
	int nkv;
	char key[8][24];
	long long val[8];
	char line[200];
};

static const struct dlt_api_desc *api_of_printed(const char *line)
{
	char name[96];
	size_t n = strcspn(line, " (");
	if (n == 0 || n >= sizeof(name))
		return NULL;
	memcpy(name, line, n);
	name[n] = '\0';
	const char *nm = name;
	if (strncmp(nm, "pnccl", 5) == 0)
		nm++;
	static const char *const alias[][2] = {
		{"cuMemAlloc", "cuMemAlloc_v2"},
		{"cuMemFree", "cuMemFree_v2"},
		{"cuCtxCreate", "cuCtxCreate_v2"}};
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strcmp(nm, alias[i][0]) == 0)
			nm = alias[i][1];
	return dlt_api_by_name(nm);
}

static size_t parse_calls(const char *out, struct ecall **res)
{
	size_t n = 0, cap = 64;
	struct ecall *v = calloc(cap, sizeof(*v));
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		l = nl ? nl + 1 : NULL;
		const char *rc = strstr(line, " rc=");
		const struct dlt_api_desc *a = rc ? api_of_printed(line) : NULL;
		if (a == NULL)
			continue;
		if (n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
		}
		struct ecall *e = &v[n++];
		memset(e, 0, sizeof(*e));
		e->api = a;
		set_line(e->line, sizeof(e->line), line);
		char *end;
		e->ret = (int)strtol(rc + 4, &end, 10);
		char *save = NULL;
		for (char *tok = strtok_r(end, " ", &save); tok && e->nkv < 8;
		     tok = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(tok, '=');
			if (eq == NULL || eq == tok || eq - tok >= 24)
				continue;
			char *vend;
			long long val = strtoll(eq + 1, &vend, 10);
			if (vend == eq + 1 || *vend != '\0')
				continue;
			snprintf(e->key[e->nkv], sizeof(e->key[0]), "%.*s",
				 (int)(eq - tok), tok);
			e->val[e->nkv++] = val;
		}
	}
	*res = v;
	return n;
}

static int label_index(const struct dlt_api_desc *a, const char *key)
{
	for (size_t i = 0; dlt_api_value_name(a, i); i++)
		if (strcmp(dlt_api_value_name(a, i), key) == 0)
			return (int)i;
	return -1;
}

/* Whether API_CALL record i ran inside another API_CALL of its thread (the
 * runtime calling the driver): the program did not make that call. */
static int nested_call(const struct gtrace *g, size_t i)
{
	const struct dlt_rec_api_call *c = (const void *)g->r[i].h;
	uint64_t s = c->h.ts, e = s + dlt_dur_ns(c->dur);
	for (size_t k = 0; k < g->n; k++) {
		const struct dlt_rec_hdr *h = g->r[k].h;
		if (k == i || h->type != DLT_REC_API_CALL ||
		    g->r[k].tid != g->r[i].tid)
			continue;
		const struct dlt_rec_api_call *o = (const void *)h;
		uint64_t os = o->h.ts, oe = os + dlt_dur_ns(o->dur);
		if (os <= s && e <= oe && (os < s || e < oe))
			return 1;
	}
	return 0;
}

/* The printed calls of out against the API_CALL records of thread tid.
 * Returns the number of calls compared. */
static size_t expect_calls(const char *what, const struct gtrace *g,
			   uint32_t tid, const char *out)
{
	struct ecall *e;
	size_t ne = parse_calls(out, &e);
	uint32_t wanted[65536 / 32] = {0};
	for (size_t i = 0; i < ne; i++)
		wanted[e[i].api->id / 32] |= 1u << (e[i].api->id % 32);
	size_t k = 0, bad = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type != DLT_REC_API_CALL || g->r[i].tid != tid ||
		    !(wanted[h->flags / 32] & (1u << (h->flags % 32))) ||
		    nested_call(g, i))
			continue;
		const struct dlt_rec_api_call *c = (const void *)h;
		if (k >= ne) {
			TU_CHECK(0, "%s: extra API_CALL %s ret=%d in the trace",
				 what, api_name(h->flags), c->ret);
			bad++;
			k++;
			continue;
		}
		const struct ecall *x = &e[k++];
		int ok = h->flags == x->api->id && c->ret == x->ret;
		for (int q = 0; ok && q < x->nkv; q++) {
			int li = label_index(x->api, x->key[q]);
			if (li < 0)
				continue;
			ok = (size_t)li < call_nv(h) &&
			     (long long)c->v[li] == x->val[q];
		}
		TU_CHECK(ok,
			 "%s: record %zu is API_CALL %s ret=%d; the program "
			 "printed \"%s\"",
			 what, k, api_name(h->flags), c->ret, x->line);
		bad += !ok;
	}
	TU_CHECK(k == ne,
		 "%s: %zu API_CALL records, the program printed %zu "
		 "calls (first unmatched: \"%s\")",
		 what, k, ne, k < ne ? e[k].line : "-");
	if (bad || k != ne)
		gt_dump_calls(g);
	free(e);
	return ne;
}

/* Every API_CALL of a function that writes API_ENTER follows its own
 * API_ENTER in the same thread, whose values start the call's values, and
 * every API_ENTER is matched (nothing left in flight).  A function whose
 * values are known before the call (apinames' once) is one API_CALL,
 * written when the call starts and closed when it returns: its API_ENTER
 * exists only when the thread changed chunks during the call.  need:
 * functions that must have been seen so. */
static void expect_enter_pairs(const char *what, const struct gtrace *g,
			       const char *const need[])
{
	size_t *open = calloc(g->n + 1, sizeof(*open));
	size_t nopen = 0, pairs = 0;
	uint16_t seen[64];
	size_t nseen = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type == DLT_REC_API_ENTER) {
			open[nopen++] = i;
			continue;
		}
		if (h->type != DLT_REC_API_CALL)
			continue;
		const struct dlt_api_desc *a = dlt_api_by_id(h->flags);
		if (a == NULL || !a->enter)
			continue;
		size_t q = nopen;
		while (q-- > 0) {
			const struct grec *o = &g->r[open[q]];
			if (o->tid == g->r[i].tid && o->h->flags == h->flags)
				break;
		}
		if (q == (size_t)-1 && a->once) {
			/* Closed in place: its start is its own ts. */
			int dup = 0;
			for (size_t s = 0; s < nseen; s++)
				dup |= seen[s] == h->flags;
			if (!dup && nseen < 64)
				seen[nseen++] = h->flags;
			pairs++;
			continue;
		}
		if (q == (size_t)-1) {
			TU_CHECK(0,
				 "%s: API_CALL %s has no API_ENTER before "
				 "it in thread %u",
				 what, a->name, g->r[i].tid);
			continue;
		}
		const struct dlt_rec_api_enter *en =
			(const void *)g->r[open[q]].h;
		const struct dlt_rec_api_call *c = (const void *)h;
		size_t env = (en->h.len - sizeof(*en)) / 8;
		int ok = env <= call_nv(h) && en->h.ts <= c->h.ts + 1000;
		for (size_t k = 0; ok && k < env; k++)
			ok = en->v[k] == c->v[k];
		TU_CHECK(ok,
			 "%s: API_ENTER of %s (%zu values) does not match "
			 "its API_CALL",
			 what, a->name, env);
		open[q] = open[--nopen];
		pairs++;
		int dup = 0;
		for (size_t s = 0; s < nseen; s++)
			dup |= seen[s] == h->flags;
		if (!dup && nseen < 64)
			seen[nseen++] = h->flags;
	}
	for (size_t q = 0; q < nopen; q++)
		TU_CHECK(0, "%s: API_ENTER %s in thread %u never returned",
			 what, api_name(g->r[open[q]].h->flags),
			 g->r[open[q]].tid);
	for (const char *const *n = need; n && *n; n++) {
		uint16_t id = api_id(*n);
		int found = 0;
		for (size_t s = 0; s < nseen; s++)
			found |= seen[s] == id;
		TU_CHECK(found, "%s: no API_ENTER/API_CALL pair of %s", what,
			 *n);
	}
	free(open);
}

/* ---- LIB_FAMILY -----------------------------------------------------------
 */

/* The LIB_FAMILY records written after a first call (not those of the
 * versions at load, test_tree.c's). */
static const struct dlt_rec_family *gt_family(const struct gtrace *g, int fam,
					      size_t *count)
{
	const struct dlt_rec_family *f = NULL;
	*count = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type == DLT_REC_LIB_FAMILY && h->flags == fam &&
		    ((const struct dlt_rec_family *)(const void *)h)->source ==
			    DLT_FAMSRC_CALL) {
			(*count)++;
			f = (const void *)h;
		}
	}
	return f;
}

/* A value a test expects, by its index name (DLT_FV_..., DLT_V_...); a
 * list ends with WANT_END. */
struct want {
	int slot;
	int64_t value;
};
#define WANT_END      \
	{             \
		-1, 0 \
	}

/* One LIB_FAMILY of this family, from want_path, first found by
 * first_api, with these slots (the others not checked). */
static void expect_family(const char *what, const struct gtrace *g, int fam,
			  const char *want_path, const char *first_api,
			  const struct want *want)
{
	size_t n;
	const struct dlt_rec_family *f = gt_family(g, fam, &n);
	TU_CHECK(n == 1, "%s: %zu LIB_FAMILY records of %s, expected 1", what,
		 n, dlt_family_name(fam));
	if (f == NULL)
		return;
	const char *path = gt_str(g, f->path);
	TU_CHECK(tu_same_file(path, want_path),
		 "%s: LIB_FAMILY %s path %s, expected %s", what,
		 dlt_family_name(fam), path, want_path);
	if (first_api)
		TU_CHECK(f->api == api_id(first_api),
			 "%s: LIB_FAMILY %s first found by %s, expected %s",
			 what, dlt_family_name(fam), api_name((uint16_t)f->api),
			 first_api);
	for (const struct want *w = want; w->slot >= 0; w++)
		TU_CHECK(f->v[w->slot] == w->value,
			 "%s: LIB_FAMILY %s %s = %lld, expected %lld", what,
			 dlt_family_name(fam),
			 dlt_family_slot_name(fam, (size_t)w->slot),
			 (long long)f->v[w->slot], (long long)w->value);
}

/* Where an API's value of this name is in its records; past the last
 * value when it has none. */
static size_t value_index(uint16_t api, const char *value)
{
	const struct dlt_api_desc *a = dlt_api_by_id(api);
	if (a == NULL)
		return SIZE_MAX;
	size_t i = 0;
	while (i < a->nvalues && strcmp(a->values[i], value) != 0)
		i++;
	return i;
}

static void expect_no_note(const char *what, const struct gtrace *g,
			   const char *text)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type != DLT_REC_NOTE)
			continue;
		const struct dlt_rec_note *r = (const void *)h;
		const char *s = gt_str(g, r->text);
		TU_CHECK(!tu_contains(s, text), "%s: NOTE \"%s\"", what, s);
	}
}

static char *fake_file(const char *dir, const char *name)
{
	return tu_strfmt("%s/%s", dir, name);
}

/* ---- suite gpu_cuda: runtime and driver ------------------------------------
 */

/* Versions the fakes are told to report: same major as the build's, so the
 * runtime accepts the driver, and different from the defaults. */
#define RT_VER (DLT_FAKE_CUDART_MAJOR * 1000 + 20)
#define DRV_VER (DLT_FAKE_CUDART_MAJOR * 1000 + 50)

static char env_llp_cuda[4200], env_rt_ver[64], env_drv_ver[64];

static const char *const *cuda_env(void)
{
	snprintf(env_llp_cuda, sizeof(env_llp_cuda), "LD_LIBRARY_PATH=%s",
		 DLT_FAKE_CUDA_DIR);
	snprintf(env_rt_ver, sizeof(env_rt_ver), "FAKE_CUDART_VERSION=%d",
		 RT_VER);
	snprintf(env_drv_ver, sizeof(env_drv_ver),
		 "FAKE_CUDA_DRIVER_VERSION=%d", DRV_VER);
	static const char *env[4];
	env[0] = env_llp_cuda;
	env[1] = env_rt_ver;
	env[2] = env_drv_ver;
	env[3] = NULL;
	return env;
}

/* The nth API_CALL of name has these values (the others not checked). */
static void expect_values(const char *what, const struct gtrace *g,
			  const char *name, size_t nth, const struct want *want)
{
	const struct dlt_rec_api_call *c[64];
	size_t k = gt_calls(g, api_id(name), c, 64);
	TU_CHECK(nth < k, "%s: no API_CALL #%zu of %s (%zu of them)", what, nth,
		 name, k);
	if (nth >= k || nth >= 64)
		return;
	const struct dlt_api_desc *a = dlt_api_by_name(name);
	for (const struct want *w = want; w->slot >= 0; w++) {
		TU_CHECK(call_nv(&c[nth]->h) > (size_t)w->slot,
			 "%s: %s has %zu values, no %s", what, name,
			 call_nv(&c[nth]->h),
			 dlt_api_value_name(a, (size_t)w->slot));
		if (call_nv(&c[nth]->h) <= (size_t)w->slot)
			continue;
		TU_CHECK((int64_t)c[nth]->v[w->slot] == w->value,
			 "%s: %s #%zu %s is %lld, expected %lld", what, name,
			 nth, dlt_api_value_name(a, (size_t)w->slot),
			 (long long)c[nth]->v[w->slot], (long long)w->value);
	}
}

static void expect_static_runtimes(const char *what, const struct gtrace *g,
				   const char *want_object)
{
	size_t n = 0, good = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type != DLT_REC_STATIC_RUNTIME)
			continue;
		const struct dlt_rec_static_rt *r = (const void *)h;
		const char *obj = gt_str(g, r->object);
		n++;
		good += want_object && tu_same_file(obj, want_object);
		TU_CHECK(want_object != NULL,
			 "%s: STATIC_RUNTIME record names %s (symbol %s), "
			 "expected none",
			 what, obj, gt_str(g, r->symbol));
	}
	if (want_object)
		TU_CHECK(n == 1 && good == 1,
			 "%s: %zu STATIC_RUNTIME records, %zu naming %s; "
			 "expected exactly one naming it",
			 what, n, good, want_object);
}

static void check_cuda_run(const char *what, const char *prog, int dlopen_path)
{
	const char *cmd[] = {prog, NULL};
	char *dir = tu_tmpdir("cuda");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc plain, traced;
	run_pair(what, cmd, cuda_env(), dir, 0, &plain, &traced);
	char want_line[64];
	snprintf(want_line, sizeof(want_line), "version=%d\n", RT_VER);
	TU_CHECK(tu_contains(plain.out, want_line),
		 "%s: fixture did not report runtime %d:\n%s", what, RT_VER,
		 plain.out);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, base_name(prog));
	if (g) {
		size_t n = expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 25, "%s: only %zu calls compared", what, n);
		static const char *const need[] = {
			"cudaEventSynchronize", "cudaStreamSynchronize",
			"cudaDeviceSynchronize", NULL};
		expect_enter_pairs(what, g, need);
		char *rt =
			fake_file(DLT_FAKE_CUDART_DIR, DLT_FAKE_CUDART_SONAME);
		/* The driver API version only when the driver was loaded
		 * by then (the shim never loads it to ask). */
		const struct want v[] = {
			{DLT_FV_CUDART_runtime_version, RT_VER},
			{DLT_FV_CUDART_runtime_status, 0},
			WANT_END};
		expect_family(what, g, DLT_FAM_CUDART, rt,
			      "cudaRuntimeGetVersion", v);
		free(rt);
		const struct want malloc_v[] = {{DLT_V_cudaMalloc_size, 4096},
						WANT_END};
		expect_values(what, g, "cudaMalloc", 0, malloc_v);
		/* cudaMemcpyHostToDevice, then DeviceToHost */
		const struct want h2d[] = {{DLT_V_cudaMemcpy_bytes, 4096},
					   {DLT_V_cudaMemcpy_kind, 1},
					   WANT_END},
				  d2h[] = {{DLT_V_cudaMemcpy_bytes, 4096},
					   {DLT_V_cudaMemcpy_kind, 2},
					   WANT_END};
		expect_values(what, g, "cudaMemcpy", 0, h2d);
		expect_values(what, g, "cudaMemcpy", 1, d2h);
		/* The runtime opening the driver is not a static runtime. */
		expect_static_runtimes(what, g, NULL);
		if (dlopen_path) {
			/* The driver functions the program took through
			 * cudaGetDriverEntryPoint{,ByVersion}. */
			char *drv =
				fake_file(DLT_FAKE_CUDA_DIR, "libcuda.so.1");
			const struct want dv[] = {
				{DLT_FV_CUDA_driver_version, DRV_VER},
				{DLT_FV_CUDA_driver_status, 0},
				WANT_END};
			/* The runtime's own driver calls are recorded too
			 * (it reaches the driver first, via cuGetProcAddress).
			 */
			expect_family(what, g, DLT_FAM_CUDA, drv, NULL, dv);
			free(drv);
			const struct dlt_rec_api_call *allocs[16];
			size_t na = gt_calls(g, api_id("cuMemAlloc_v2"), allocs,
					     16);
			int found256 = 0;
			for (size_t q = 0; q < na && q < 16; q++)
				found256 |=
					allocs[q]
						->v[DLT_V_cuMemAlloc_v2_size] ==
					256;
			TU_CHECK(
				found256,
				"%s: no API_CALL of cuMemAlloc_v2 of 256 bytes",
				what);
			TU_CHECK(gt_calls(g, api_id("cuMemFree_v2"), NULL, 0) >=
					 2,
				 "%s: cuMemFree_v2 of the program and of the "
				 "runtime not both recorded",
				 what);
		}
	}
	gs_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
}

static void test_cuda_direct(void)
{
	check_cuda_run("runtime, linked", DLT_FAKE_FX_CUDA_DIRECT, 0);
}

static void test_cuda_dlopen(void)
{
	check_cuda_run("runtime, dlopen(RTLD_LOCAL) + dlsym",
		       DLT_FAKE_FX_CUDA_DLOPEN, 1);
}

/* The driver taken the way a static runtime takes it: dlopen of
 * libcuda.so.1 and a dlsym of cuGetProcAddress_v2 from the program, every
 * other function through cuGetProcAddress, which is asked for itself. */
static void test_cuda_getprocaddress(void)
{
	const char *what = "driver through cuGetProcAddress";
	char *fx = tu_strfmt("%s/fx_gpu", DLT_TEST_FX_GPU);
	const char *cmd[] = {fx, "driver", NULL};
	char *dir = tu_tmpdir("cuda-gpa");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *env[] = {cuda_env()[2], NULL};
	struct tu_proc plain, traced;
	run_pair(what, cmd, env, dir, 0, &plain, &traced);
	TU_CHECK(tu_contains(traced.out,
			     "cuGetProcAddress for itself twice: same\n"),
		 "%s: cuGetProcAddress asked for itself gave another "
		 "function:\n%s",
		 what, traced.out);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_gpu");
	if (g) {
		size_t n = expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 30, "%s: only %zu calls compared", what, n);
		static const char *const need[] = {"cuInit", "cuCtxCreate_v2",
						   "cuDevicePrimaryCtxRetain",
						   "cuCtxSynchronize", NULL};
		expect_enter_pairs(what, g, need);
		static const char *const names[] = {"cuGetProcAddress_v2",
						    "cuGetProcAddress",
						    "cuInit",
						    "cuDriverGetVersion",
						    "cuMemAlloc_v2",
						    "cuLaunchKernel",
						    "cuModuleLoadData",
						    "cuMemFree_v2"};
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			TU_CHECK(gt_calls(g, api_id(names[i]), NULL, 0) > 0,
				 "%s: no API_CALL of %s", what, names[i]);
		char *drv = fake_file(DLT_FAKE_CUDA_DIR, "libcuda.so.1");
		const struct want v[] = {{DLT_FV_CUDA_driver_version, DRV_VER},
					 {DLT_FV_CUDA_driver_status, 0},
					 WANT_END};
		expect_family(what, g, DLT_FAM_CUDA, drv, "cuGetProcAddress_v2",
			      v);
		free(drv);
		/* The program fetched the driver itself: it would carry a
		 * static runtime. */
		expect_static_runtimes(what, g, fx);
		expect_no_note(what, g, "further copy");
	}
	gs_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* The runtime reaches every driver function through cuGetProcAddress
 * (docs/library-facts.md §1); what it calls there (cuInit, context creation,
 * allocations, launches) must be in the trace: a hang in cuInit inside the
 * runtime's lazy initialisation is one of the things to see. */
static void test_cuda_runtime_driver_calls(void)
{
	const char *what = "driver calls made by the runtime";
	const char *cmd[] = {DLT_FAKE_FX_CUDA_DIRECT, NULL};
	char *dir = tu_tmpdir("cuda-rt-drv");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc p;
	run_traced(&p, dir, cmd, cuda_env());
	TU_CHECK(tu_exit_code(p.status) == 0, "%s: %s\n%s", what,
		 tu_status_str(p.status), p.err);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_cuda_direct");
	if (g) {
		static const char *const names[] = {
			"cuGetProcAddress_v2", "cuInit",
			"cuDriverGetVersion",  "cuDevicePrimaryCtxRetain",
			"cuModuleLoadData",    "cuMemAlloc_v2",
			"cuLaunchKernel",      "cuMemFree_v2"};
		size_t missing = 0;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			size_t n = gt_calls(g, api_id(names[i]), NULL, 0);
			TU_CHECK(n > 0,
				 "%s: no API_CALL of %s, which the runtime "
				 "called through the pointer cuGetProcAddress "
				 "gave it",
				 what, names[i]);
			missing += n == 0;
		}
		if (missing == 0) {
			const struct want alloc_v[] = {
				{DLT_V_cuMemAlloc_v2_size, 4096}, WANT_END};
			expect_values(what, g, "cuMemAlloc_v2", 0, alloc_v);
			static const char *const need[] = {"cuInit", NULL};
			expect_enter_pairs(what, g, need);
		}
	}
	gs_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

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
static uint64_t find_problem(const char *what, const struct gtrace *g,
			     const struct fx_problem *p, int legacy)
{
	int want_x[4] = {p->n, p->c, p->h, p->w};
	int want_w[4] = {p->k, p->c, p->r, p->s};
	size_t n = 0;
	uint64_t id = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
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
	return api_id(name);
}

static uint16_t exec_api(const char *dir)
{
	char name[64];
	snprintf(name, sizeof(name), "cudnnConvolution%s", dir_word(dir));
	return api_id(name);
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
				set_line(e->line, sizeof(e->line), line);
			}
			if (ch >= 0) {
				struct lev *e = &v[n++];
				memset(e, 0, sizeof(*e));
				e->kind = EV_RUN;
				e->api = exec_api(d);
				e->status = runst;
				e->choice = ch;
				e->problem = cur;
				set_line(e->line, sizeof(e->line), line);
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
		set_line(e->line, sizeof(e->line), line);
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
static void check_legacy(const char *what, const struct gtrace *g,
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
	TU_CHECK(gt_count(g, DLT_REC_CONV_PROBLEM) == 3,
		 "%s: %zu CONV_PROBLEM records, expected one per problem", what,
		 gt_count(g, DLT_REC_CONV_PROBLEM));

	/* ALGO_RESULT records, one per event, in order. */
	size_t k = 0, bad = 0;
	for (size_t i = 0; i < g->n && bad < 5; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type != DLT_REC_ALGO_RESULT)
			continue;
		const struct dlt_rec_algo_result *r = (const void *)h;
		if (k >= ne) {
			TU_CHECK(0, "%s: extra ALGO_RESULT %s", what,
				 api_name(h->flags));
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
				 what, k, api_name(h->flags), r->status, r->n,
				 r->n ? r->c[0].algo : -1,
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
	for (size_t i = 0; i < g->n && bad < 5; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type != DLT_REC_API_CALL || h->flags < 82 ||
		    h->flags > 96)
			continue;
		const struct dlt_rec_api_call *c = (const void *)h;
		if (k >= ne) {
			TU_CHECK(0, "%s: extra API_CALL %s", what,
				 api_name(h->flags));
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
			size_t at = value_index(h->flags, wname[q]);
			ok = at < call_nv(h) && c->v[at] == want[q];
		}
		if (!ok) {
			bad++;
			TU_CHECK(0,
				 "%s: API_CALL #%zu is %s ret=%d v=%lld,%lld; "
				 "the program printed \"%s\"",
				 what, k, api_name(h->flags), c->ret,
				 call_nv(h) > 0 ? (long long)c->v[0] : -1,
				 call_nv(h) > 1 ? (long long)c->v[1] : -1,
				 e->line);
		}
	}
	TU_CHECK(k == ne,
		 "%s: %zu API_CALL records of convolution functions "
		 "for %zu printed selections and executions",
		 what, k, ne);
	/* One cudnnCreate and one cudnnDestroy: the front library's calls
	 * into its sub-libraries are not the program's. */
	TU_CHECK(gt_calls(g, api_id("cudnnCreate"), NULL, 0) == 1 &&
			 gt_calls(g, api_id("cudnnDestroy"), NULL, 0) == 1,
		 "%s: %zu cudnnCreate and %zu cudnnDestroy records, expected 1 "
		 "each",
		 what, gt_calls(g, api_id("cudnnCreate"), NULL, 0),
		 gt_calls(g, api_id("cudnnDestroy"), NULL, 0));
	static const char *const need[] = {
		"cudnnCreate", "cudnnFindConvolutionForwardAlgorithm",
		"cudnnFindConvolutionBackwardDataAlgorithmEx",
		"cudnnFindConvolutionBackwardFilterAlgorithm", NULL};
	expect_enter_pairs(what, g, need);
	if (bad)
		gt_dump_calls(g);
	free(ev);
}

/* The API_CALLs of the main thread as text (values that are addresses
 * left out), to compare two runs of one program. */
static char *calls_text(const struct gtrace *g)
{
	size_t cap = 4096, len = 0;
	char *s = malloc(cap);
	s[0] = '\0';
	for (size_t i = 0; i < g->n; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
		if (h->type != DLT_REC_API_CALL || g->r[i].tid != g->hdr.pid)
			continue;
		const struct dlt_rec_api_call *c = (const void *)h;
		const struct dlt_api_desc *a = dlt_api_by_id(h->flags);
		char line[512];
		int l = snprintf(line, sizeof(line), "%s ret=%d",
				 api_name(h->flags), c->ret);
		for (size_t k = 0; a && k < call_nv(h); k++) {
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

static void expect_same_calls(const char *what, const struct gtrace *a,
			      const struct gtrace *b)
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
static struct gtrace *cudnn_run(const char *what, const char *const cmd[],
				const char *const env[], int want_exit,
				char **dir, struct tu_proc *traced,
				struct gset *s)
{
	*dir = tu_tmpdir("cudnn");
	TU_CHECK_FATAL(*dir != NULL, "no scratch directory");
	struct tu_proc plain;
	run_pair(what, cmd, env, *dir, want_exit, &plain, traced);
	tu_proc_free(&plain);
	gs_load(*dir, s);
	return gs_only(s, base_name(cmd[0]));
}

static void cudnn_done(char *dir, struct tu_proc *traced, struct gset *s)
{
	gs_free(s);
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
	struct gset s1, s2;
	struct gtrace *g1 = cudnn_run("cuDNN 9 legacy, linked", linked,
				      cudnn9_env, 0, &d1, &t1, &s1);
	struct gtrace *g2 = cudnn_run("cuDNN 9 legacy, dlopen", dl, cudnn9_env,
				      0, &d2, &t2, &s2);
	char *lib = fake_file(DLT_FAKE_CUDNN9_DIR, "libcudnn.so.9");
	/* graph and ops export a version word; cnn exports none (as 9.19). */
	const struct want v[] = {{DLT_FV_CUDNN_version, 91902},
				 {DLT_FV_CUDNN_cudart_version, 12080},
				 {DLT_FV_CUDNN_sublib1_check, 0},
				 {DLT_FV_CUDNN_sublib2_check, 0},
				 WANT_END};
	uint64_t ids2[3];
	if (g1) {
		check_legacy("cuDNN 9 legacy, linked", g1, t1.out, legacy9_ids);
		expect_family("cuDNN 9 legacy, linked", g1, DLT_FAM_CUDNN, lib,
			      "cudnnCreate", v);
	}
	if (g2) {
		check_legacy("cuDNN 9 legacy, dlopen", g2, t2.out, ids2);
		expect_family("cuDNN 9 legacy, dlopen", g2, DLT_FAM_CUDNN, lib,
			      "cudnnCreate", v);
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
	struct gset s1, s2;
	struct gtrace *g1 =
		cudnn_run("cuDNN 7, linked", linked, env, 0, &d1, &t1, &s1);
	struct gtrace *g2 =
		cudnn_run("cuDNN 7, dlopen", dl, env, 0, &d2, &t2, &s2);
	char *lib = fake_file(DLT_FAKE_CUDNN7_DIR, "libcudnn.so.7");
	/* No sub-library version checks before 8.0. */
	const int64_t A = DLT_VERSION_ABSENT;
	const struct want v[] = {{DLT_FV_CUDNN_version, 7602},
				 {DLT_FV_CUDNN_cudart_version, 10020},
				 {DLT_FV_CUDNN_sublib1_check, A},
				 {DLT_FV_CUDNN_sublib2_check, A},
				 {DLT_FV_CUDNN_sublib3_check, A},
				 {DLT_FV_CUDNN_sublib4_check, A},
				 {DLT_FV_CUDNN_sublib5_check, A},
				 {DLT_FV_CUDNN_sublib6_check, A},
				 WANT_END};
	uint64_t ids1[3], ids2[3];
	if (g1) {
		check_legacy("cuDNN 7, linked", g1, t1.out, ids1);
		expect_family("cuDNN 7, linked", g1, DLT_FAM_CUDNN, lib,
			      "cudnnCreate", v);
		/* The preference forms (gone since 8.0). */
		TU_CHECK(gt_calls(g1,
				  api_id("cudnnGetConvolutionForwardAlgorithm"),
				  NULL, 0) == 9,
			 "cuDNN 7: not 9 preference-form selections");
	}
	if (g2) {
		check_legacy("cuDNN 7, dlopen", g2, t2.out, ids2);
		expect_family("cuDNN 7, dlopen", g2, DLT_FAM_CUDNN, lib,
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
	struct gset s;
	struct gtrace *g = cudnn_run("cuDNN 7, failing algorithms", cmd, env, 1,
				     &d, &t, &s);
	if (g) {
		uint64_t ids[3];
		check_legacy("cuDNN 7, failing algorithms", g, t.out, ids);
		size_t nsup7 = 0, alloc5 = 0, failed_runs = 0;
		uint16_t fwd7 =
			api_id("cudnnGetConvolutionForwardAlgorithm_v7");
		uint16_t bwdd =
			api_id("cudnnFindConvolutionBackwardDataAlgorithm");
		for (size_t i = 0; i < g->n; i++) {
			const struct dlt_rec_hdr *h = g->r[i].h;
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
				       strncmp(api_name(h->flags),
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
	struct gset s;
	struct gtrace *g =
		cudnn_run("cuDNN 9, ops skew", cmd, env, 1, &d, &t, &s);
	if (g) {
		TU_CHECK(tu_contains(t.out, "cudnnCreate status=1002"),
			 "ops skew: fixture did not fail cudnnCreate:\n%s",
			 t.out);
		const struct dlt_rec_api_call *c[2];
		size_t n = gt_calls(g, api_id("cudnnCreate"), c, 2);
		TU_CHECK(
			n == 1 &&
				c[0]->ret ==
					CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH,
			"ops skew: %zu cudnnCreate records, ret %d", n,
			n ? c[0]->ret : -1);
		char *lib = fake_file(DLT_FAKE_CUDNN9_DIR, "libcudnn.so.9");
		/* graph agrees, ops does not */
		const struct want v[] = {{DLT_FV_CUDNN_version, 91900},
					 {DLT_FV_CUDNN_sublib1_check, 0},
					 {DLT_FV_CUDNN_sublib2_check, 1002},
					 WANT_END};
		expect_family("cuDNN 9, ops skew", g, DLT_FAM_CUDNN, lib,
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
			set_line(v[n - 1].line, sizeof(v[0].line), line);
		} else if (sscanf(line,
				  "  engine %d status=%d knob status=%d cfg "
				  "status=%d plan status=%d",
				  &gi, &e, &k, &c, &st) == 5) {
			int knob = 1 + gi % 3;
			v[n++] = (struct bev){2, gi, e, -1, cur, ""};
			set_line(v[n - 1].line, sizeof(v[0].line), line);
			if (e == 0) {
				v[n++] = (struct bev){3, gi, c, knob, cur, ""};
				set_line(v[n - 1].line, sizeof(v[0].line),
					 line);
			}
			if (e == 0 && c == 0) {
				v[n++] = (struct bev){5, gi, st, knob, cur, ""};
				set_line(v[n - 1].line, sizeof(v[0].line),
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
				set_line(v[n - 1].line, sizeof(v[0].line),
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
static void check_backend(const char *what, const struct gtrace *g,
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
	uint16_t exec_id = api_id("cudnnBackendExecute");
	for (size_t i = 0; i < g->n && bad < 5; i++) {
		const struct dlt_rec_hdr *h = g->r[i].h;
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
			ok = c->ret == e->status && call_nv(h) >= 1 &&
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
					call_nv(h)
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
			 gt_count(g, DLT_REC_BK_FINALIZE) == want_fin &&
			 plans_failed == want_failed,
		 "%s: %zu executions, %zu BK_FINALIZE (%zu failed plans); the "
		 "program made %zu, %zu (%zu)",
		 what, execs, gt_count(g, DLT_REC_BK_FINALIZE), plans_failed,
		 want_exec, want_fin, want_failed);
	static const char *const need[] = {"cudnnBackendExecute", NULL};
	expect_enter_pairs(what, g, need);
	free(ev);
}

static void backend_case(const char *what, const char *const cmd[],
			 const char *const env[], int want_failed_plans)
{
	char *d;
	struct tu_proc t;
	struct gset s;
	struct gtrace *g = cudnn_run(what, cmd, env, 0, &d, &t, &s);
	if (g) {
		uint64_t ids[3];
		check_backend(what, g, t.out, ids);
		/* The same convolution, the same id, whichever API. */
		TU_CHECK(legacy9_ids[0] == 0 ||
				 memcmp(ids, legacy9_ids, sizeof(ids)) == 0,
			 "%s: problem ids differ from the legacy API's", what);
		size_t failed = 0;
		for (size_t i = 0; i < g->n; i++) {
			const struct dlt_rec_hdr *h = g->r[i].h;
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

/* ---- suite gpu_nccl -------------------------------------------------------
 */

static char env_nccl_dir[4200];

static const char *const *nccl_env(const char *rdv, const char *extra)
{
	snprintf(env_nccl_dir, sizeof(env_nccl_dir), "FAKE_NCCL_DIR=%s", rdv);
	static const char *env[4];
	env[0] = env_nccl_dir;
	env[1] = "FAKE_NCCL_VERSION=22810";
	env[2] = extra;
	env[3] = NULL;
	return env;
}

static uint64_t first_value(const struct gtrace *g, const char *api, size_t i)
{
	const struct dlt_rec_api_call *c[1];
	if (gt_calls(g, api_id(api), c, 1) == 0 || call_nv(&c[0]->h) <= i)
		return 0;
	return c[0]->v[i];
}

static void expect_nccl_family(const char *what, const struct gtrace *g,
			       const char *first_api)
{
	char *lib = fake_file(DLT_FAKE_NCCL_DIR, "libnccl.so.2");
	const struct want v[] = {{DLT_FV_NCCL_version, 22810},
				 {DLT_FV_NCCL_status, 0},
				 WANT_END};
	expect_family(what, g, DLT_FAM_NCCL, lib, first_api, v);
	free(lib);
}

static void test_nccl_single(void)
{
	const char *what = "NCCL, one rank, linked";
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	const char *cmd[] = {DLT_FAKE_FX_NCCL, NULL};
	struct tu_proc plain, traced;
	run_pair(what, cmd, nccl_env(rdv, NULL), dir, 0, &plain, &traced);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_nccl");
	if (g) {
		size_t n = expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 15, "%s: only %zu calls compared", what, n);
		static const char *const need[] = {
			"ncclCommInitRank", "ncclAllReduce",   "ncclSend",
			"ncclGroupEnd",	    "ncclCommDestroy", NULL};
		expect_enter_pairs(what, g, need);
		expect_nccl_family(what, g, "ncclGetUniqueId");
		uint64_t h = first_value(g, "ncclGetUniqueId",
					 DLT_V_ncclGetUniqueId_id_hash);
		TU_CHECK(h != 0 && first_value(
					   g, "ncclCommInitRank",
					   DLT_V_ncclCommInitRank_id_hash) == h,
			 "%s: ncclCommInitRank id_hash %llx, ncclGetUniqueId "
			 "%llx",
			 what,
			 (unsigned long long)first_value(
				 g, "ncclCommInitRank",
				 DLT_V_ncclCommInitRank_id_hash),
			 (unsigned long long)h);
	}
	gs_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_expect_healthy(what, dir);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

/* ---- findings ------------------------------------------------------------ */

static double jnum(const struct tu_json *o, const char *key, double dflt)
{
	const struct tu_json *v = tu_jget(o, key);
	return v && v->type == TU_JNUM ? v->num : dflt;
}

/* Both strings there and equal. */
static int same_str(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* `dltrace-analyze CMD --json` (check or hangs) on every trace in dir,
 * parsed, every finding documented; *rc gets its exit status (0 or 1),
 * *text (when not NULL) the output. */
static struct tu_json *analyze_json(const char *cmd, const char *dir, int *rc,
				    char **text)
{
	struct tu_proc p;
	int r = tu_analyze_dir(&p, cmd, "--json", dir);
	*rc = tu_exit_code(p.status);
	TU_CHECK(r == 0 && (*rc == 0 || *rc == 1),
		 "dltrace-analyze %s --json: %s\n%s", cmd,
		 r ? "timed out" : tu_status_str(p.status), p.err);
	char err[256];
	struct tu_json *j = tu_json_parse(p.out, err, sizeof(err));
	TU_CHECK(j != NULL, "%s --json output is not JSON (%s):\n%.3000s", cmd,
		 err, p.out);
	const struct tu_json *fs = tu_jget(j, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++)
		tu_expect_documented(tu_jat(fs, i));
	if (text)
		*text = strdup(p.out);
	tu_proc_free(&p);
	return j;
}

/* Findings of this code; up to max of them in out. */
static size_t findings(const struct tu_json *j, const char *code,
		       const struct tu_json **out, size_t max)
{
	const struct tu_json *fs = tu_jget(j, "findings");
	size_t n = 0;
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const char *c = tu_jstr(tu_jat(fs, i), "code");
		if (c && strcmp(c, code) == 0) {
			if (n < max)
				out[n] = tu_jat(fs, i);
			n++;
		}
	}
	return n;
}

/* Three ranks of one communicator, each under its own dltrace, with a
 * split: each trace holds its rank's calls, and the ranks agree on the id
 * hash, which is the one rank 0's ncclGetUniqueId produced. */
static void test_nccl_ranks(void)
{
	enum { N = 3 };
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl-ranks");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	struct tu_proc plain[N], traced[N];
	for (int pass = 0; pass < 2; pass++) {
		char *idfile = tu_strfmt("%s/id-%d", rdv, pass);
		char rank[N][8];
		const char *cmd[N][9];
		for (int r = 0; r < N; r++) {
			snprintf(rank[r], sizeof(rank[r]), "%d", r);
			const char *c[] = {
				DLT_FAKE_FX_NCCL, "--nranks", "3",
				"--rank",	  rank[r],    "--id-file",
				idfile,		  "--split",  NULL};
			memcpy(cmd[r], c, sizeof(c));
			const char **argv =
				pass ? tu_launcher_argv(dir, NULL, cmd[r])
				     : NULL;
			struct tu_proc *p = pass ? &traced[r] : &plain[r];
			TU_CHECK_FATAL(tu_proc_start(p, pass ? argv : cmd[r],
						     nccl_env(rdv, NULL)) == 0,
				       "cannot start rank %d", r);
			free(argv);
		}
		for (int r = 0; r < N; r++)
			tu_proc_wait(pass ? &traced[r] : &plain[r], RUN_MS);
		free(idfile);
	}
	struct gset s;
	gs_load(dir, &s);
	TU_CHECK(s.n == N, "%zu traces for %d ranks", s.n, N);
	uint64_t hash0 = 0, hash[N] = {0};
	for (int r = 0; r < N; r++) {
		char what[64];
		snprintf(what, sizeof(what), "NCCL rank %d of 3", r);
		TU_CHECK(tu_exit_code(plain[r].status) == 0,
			 "%s: fixture broken: %s\n%s", what,
			 tu_status_str(plain[r].status), plain[r].err);
		tu_expect_same_run(what, &plain[r], &traced[r], 1);
		struct gtrace *g = NULL;
		for (size_t i = 0; i < s.n; i++)
			if (s.t[i].hdr.ppid == (uint32_t)traced[r].pid)
				g = &s.t[i];
		TU_CHECK(g != NULL, "%s: no trace", what);
		if (g == NULL)
			continue;
		expect_calls(what, g, g->hdr.pid, traced[r].out);
		static const char *const need[] = {"ncclCommInitRank",
						   "ncclCommSplit", NULL};
		expect_enter_pairs(what, g, need);
		expect_nccl_family(what, g,
				   r == 0 ? "ncclGetUniqueId"
					  : "ncclCommInitRank");
		hash[r] = first_value(g, "ncclCommInitRank",
				      DLT_V_ncclCommInitRank_id_hash);
		if (r == 0)
			hash0 = first_value(g, "ncclGetUniqueId",
					    DLT_V_ncclGetUniqueId_id_hash);
	}
	TU_CHECK(hash0 != 0 && hash[0] == hash0 && hash[1] == hash0 &&
			 hash[2] == hash0,
		 "id hashes: ncclGetUniqueId %llx, ncclCommInitRank of ranks "
		 "0-2: %llx %llx %llx",
		 (unsigned long long)hash0, (unsigned long long)hash[0],
		 (unsigned long long)hash[1], (unsigned long long)hash[2]);
	/* ncclCommSplit is a split, not an init of (comm, color, key). */
	tu_expect_healthy("3 ranks and a split", dir);
	int rc;
	struct tu_json *j = analyze_json("check", dir, &rc, NULL);
	const struct tu_json *f[2] = {NULL, NULL};
	TU_CHECK(findings(j, "MISSING_RANK", f, 2) == 0,
		 "MISSING_RANK for a job whose every rank is traced: %s",
		 tu_jstr(f[0], "message"));
	tu_json_free(j);
	gs_free(&s);
	for (int r = 0; r < N; r++) {
		tu_proc_free(&plain[r]);
		tu_proc_free(&traced[r]);
	}
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

static void test_nccl_all(void)
{
	const char *what = "NCCL, ncclCommInitAll";
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl-all");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	const char *cmd[] = {DLT_FAKE_FX_NCCL, "--all", NULL};
	struct tu_proc plain, traced;
	run_pair(what, cmd, nccl_env(rdv, NULL), dir, 0, &plain, &traced);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_nccl");
	if (g) {
		expect_calls(what, g, g->hdr.pid, traced.out);
		static const char *const need[] = {"ncclCommInitAll", NULL};
		expect_enter_pairs(what, g, need);
		const struct want ndev[] = {{DLT_V_ncclCommInitAll_ndev, 2},
					    WANT_END};
		expect_values(what, g, "ncclCommInitAll", 0, ndev);
		expect_nccl_family(what, g, "ncclCommInitAll");
	}
	gs_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_expect_healthy(what, dir);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

static void test_nccl_dlopen(void)
{
	const char *what = "NCCL through dlopen(RTLD_LOCAL) + dlsym";
	char *fx = tu_strfmt("%s/fx_gpu", DLT_TEST_FX_GPU);
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl-dl");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	const char *cmd[] = {fx, "nccl-dl", NULL};
	struct tu_proc plain, traced;
	run_pair(what, cmd, nccl_env(rdv, NULL), dir, 0, &plain, &traced);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_gpu");
	if (g) {
		size_t n = expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n == 8, "%s: %zu calls compared, expected 8", what, n);
		static const char *const need[] = {"ncclCommInitRank",
						   "ncclAllReduce", NULL};
		expect_enter_pairs(what, g, need);
		expect_nccl_family(what, g, "ncclGetUniqueId");
		expect_no_note(what, g, "further copy");
	}
	gs_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_expect_healthy(what, dir);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
	free(fx);
}

/* ---- suite gpu_dlerror -------------------------------------------------- */

/* A failed dlopen, then the first call into the runtime (the wrapper finds
 * its real function and notes the library), then dlerror(): the program
 * must read its own error, under dltrace as without it. */
static void dlerror_case(const char *what, const char *const env[], int healthy)
{
	char *fx = tu_strfmt("%s/fx_gpu_rt", DLT_TEST_FX_GPU);
	const char *cmd[] = {fx, "dlerror", NULL};
	char *dir = tu_tmpdir("dlerror");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc plain, traced, pre;
	run_pair(what, cmd, env, dir, 0, &plain, &traced);
	TU_CHECK(tu_contains(plain.out,
			     "dlerror: libdlt_gpu_nonexistent.so: cannot open "
			     "shared object file"),
		 "%s: fixture broken:\n%s", what, plain.out);
	char b1[4200], b2[4200];
	const char **penv = preload_env(dir, env, b1, b2, sizeof(b1));
	tu_run(&pre, cmd, penv, RUN_MS);
	free(penv);
	char *w2 = tu_strfmt("%s, LD_PRELOAD", what);
	tu_expect_same_run(w2, &plain, &pre, 1);
	free(w2);
	/* The failed dlopen is one the program carried on from. */
	if (healthy)
		tu_expect_healthy(what, dir);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_proc_free(&pre);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

static void test_dlerror_driver_found(void)
{
	const char *const env[] = {cuda_env()[0], NULL};
	dlerror_case("dlerror around the first runtime call", env, 1);
}

static void test_dlerror_no_driver(void)
{
	const char *const env[] = {"FAKE_CUDART_DRIVER=libcuda-absent.so.1",
				   NULL};
	dlerror_case("dlerror around the first runtime call, no driver", env,
		     0);
}

/* ---- suite gpu_compact: repeated calls as 8-byte entries ---------------- */

/* The launches of fx_gpu_rt, in the order the trace gives them. */
struct launch_scan {
	uint16_t rt_id, drv_id;
	uint64_t kernel0; /* the first launch's kernel: the others follow */
	uint64_t n, ok, failed, compact, drv, bad_order, bad_kernel;
	uint64_t last_ts, backwards;
};

static int launch_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct launch_scan *l = ctx;
	if (v->rec->type != DLT_REC_API_CALL)
		return 0;
	const struct dlt_rec_api_call *c = (const void *)v->rec;
	if (c->h.flags == l->drv_id) {
		l->drv++;
		return 0;
	}
	if (c->h.flags != l->rt_id || c->h.len < sizeof(*c) + 8)
		return 0;
	/* The kernels are consecutive bytes: call i launches kernel0 + i % 3.
	 */
	if (l->n == 0)
		l->kernel0 = c->v[DLT_V_cudaLaunchKernel_func];
	if (c->v[DLT_V_cudaLaunchKernel_func] != l->kernel0 + l->n % 3)
		l->bad_kernel++;
	if (c->h.ts < l->last_ts)
		l->backwards++;
	l->last_ts = c->h.ts;
	l->n++;
	l->compact += v->compact;
	if (c->ret == 0)
		l->ok++;
	else
		l->failed++;
	return 0;
}

/* The launches in path; a problem the reader reports fails the test. */
static void scan_launches(const char *path, struct launch_scan *l)
{
	memset(l, 0, sizeof(*l));
	l->rt_id = api_id("cudaLaunchKernel");
	l->drv_id = api_id("cuLaunchKernel");
	char err[512];
	struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "%s does not open: %s", path, err);
	dlt_trace_foreach(t, launch_rec, l);
	size_t problems = dlt_trace_problem_count(t);
	for (size_t i = 0; i < problems; i++)
		fprintf(stderr, "    %s: %s\n", path, dlt_trace_problem(t, i));
	dlt_trace_close(t);
	TU_CHECK(problems == 0, "%s: %zu reader problems", path, problems);
}

/* The one trace in tdir (its list, for tu_free_list), scanned. */
static char **scan_only_trace(const char *tdir, struct launch_scan *l)
{
	char **paths;
	size_t nt = tu_list_traces(tdir, &paths);
	TU_CHECK_FATAL(nt == 1, "%zu traces, expected 1", nt);
	scan_launches(paths[0], l);
	return paths;
}

/* 30,000 launches of three kernels in turn, the last 1,000 failing: each
 * launch reads back as its API_CALL, in order, with its kernel, and those
 * that returned 0 after the first of their kind in a chunk were 8-byte
 * entries (the runtime's launch, recorded after the driver's launch it
 * made, starts before it: entries go back in time too). */
static void test_compact_calls(void)
{
	const long n = 30000, fail_from = 29001;
	char *fx = tu_strfmt("%s/fx_gpu_rt", DLT_TEST_FX_GPU);
	char *dir = tu_tmpdir("compact");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *counter = tu_strfmt("%s/counter", dir);
	char *tdir = tu_strfmt("%s/trace", dir);
	char *ns = tu_strfmt("%ld", n);
	char *fail =
		tu_strfmt("FAKE_CUDA_FAIL=cudaLaunchKernel:98@%ld", fail_from);
	const char *cmd[] = {fx, "launches", ns, counter, NULL};
	const char *env[] = {cuda_env()[0], fail, NULL};
	struct tu_proc p;
	run_traced(&p, tdir, cmd, env);
	char *want =
		tu_strfmt("launches=%ld failed=%ld\n", n, n - fail_from + 1);
	TU_CHECK(tu_exit_code(p.status) == 0 && tu_contains(p.out, want),
		 "fx_gpu_rt launches under dltrace: %s\n%s%s",
		 tu_status_str(p.status), p.out, p.err);
	struct launch_scan l;
	char **paths = scan_only_trace(tdir, &l);
	TU_CHECK(l.n == (uint64_t)n && l.ok == (uint64_t)fail_from - 1 &&
			 l.failed == (uint64_t)(n - fail_from + 1),
		 "%llu launches read (%llu returned 0, %llu failed), expected "
		 "%ld (%ld, %ld)",
		 (unsigned long long)l.n, (unsigned long long)l.ok,
		 (unsigned long long)l.failed, n, fail_from - 1,
		 n - fail_from + 1);
	TU_CHECK(l.bad_kernel == 0 && l.backwards == 0,
		 "%llu launches with the wrong kernel, %llu earlier than the "
		 "one before",
		 (unsigned long long)l.bad_kernel,
		 (unsigned long long)l.backwards);
	/* Each launch that worked made one driver launch; the failing ones
	 * fail before the driver. */
	TU_CHECK(l.drv == (uint64_t)fail_from - 1,
		 "%llu driver launches, expected %ld",
		 (unsigned long long)l.drv, fail_from - 1);
	/* An API_DEF per kind, per chunk: a thread's chunks grow to 64 KiB,
	 * so fewer than 64 chunks hold these calls, each with at most 6
	 * definitions (three kernels, driver launches of three kinds). */
	TU_CHECK(l.compact + 64 * 3 >= l.ok,
		 "only %llu of %llu launches that returned 0 were compact "
		 "entries",
		 (unsigned long long)l.compact, (unsigned long long)l.ok);
	/* 8 bytes a call (two per launch), and a 40-byte record per failure;
	 * the rest (definitions, the process, its libraries, unfilled chunk
	 * ends) is bounded apart from n. */
	uint64_t size = tu_file_size(paths[0]);
	uint64_t calls = 16 * (uint64_t)(fail_from - 1) +
			 40 * (uint64_t)(n - fail_from + 1);
	TU_CHECK(size <= calls + 256 * 1024,
		 "the trace is %llu bytes for %llu bytes of calls",
		 (unsigned long long)size, (unsigned long long)calls);
	printf("\n    %ld launches: %llu compact, trace %llu bytes (%.1f per "
	       "call)\n",
	       n, (unsigned long long)l.compact, (unsigned long long)size,
	       (double)size / (double)(2 * n));
	tu_free_list(paths);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(want);
	free(fail);
	free(ns);
	free(tdir);
	free(counter);
	free(dir);
	free(fx);
}

static int64_t read_counter(const char *path)
{
	int64_t v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = -1;
	if (fd >= 0)
		close(fd);
	return v;
}

/* A program in a loop of launches is killed with SIGKILL (under LD_PRELOAD:
 * no launcher cleans up after it).  Every launch that had returned before
 * the kill is in the trace; the file is at most its data, the unfilled
 * chunks of its one recording thread (one per copy of the library) and one
 * growth step; dltrace-analyze compact then leaves the data and the same
 * launches. */
static void test_compact_sigkill(void)
{
	char *fx = tu_strfmt("%s/fx_gpu_rt", DLT_TEST_FX_GPU);
	char *dir = tu_tmpdir("compact-kill");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *counter = tu_strfmt("%s/counter", dir);
	char *tdir = tu_strfmt("%s/trace", dir);
	mkdir(tdir, 0755);
	const char *cmd[] = {fx, "launches", "2000000000", counter, NULL};
	char b1[4200], b2[4200];
	const char *base[] = {cuda_env()[0], NULL};
	const char **env = preload_env(tdir, base, b1, b2, sizeof(b1));
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, cmd, env) == 0, "cannot start");
	free(env);
	/* Killed once it made a number of calls that depends on nothing but
	 * a random draw: mid-chunk, mid-growth or anywhere. */
	struct timespec seed;
	clock_gettime(CLOCK_REALTIME, &seed);
	srand((unsigned)(seed.tv_nsec ^ getpid()));
	int64_t goal = 50000 + rand() % 400000, seen = -1;
	for (int i = 0; i < 60000 && seen < goal; i++) {
		seen = read_counter(counter);
		if (seen < goal)
			usleep(500);
	}
	TU_CHECK(kill(p.pid, SIGKILL) == 0,
		 "the program ended before the kill");
	tu_proc_wait(&p, 30000);
	int64_t done = read_counter(counter);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL &&
			 done >= goal,
		 "%s, %lld calls made (the kill was due at %lld)",
		 tu_status_str(p.status), (long long)done, (long long)goal);
	struct launch_scan l;
	char **paths = scan_only_trace(tdir, &l);
	/* The counter is stored after the call returned, so every call it
	 * counts was committed before; one more may have been. */
	TU_CHECK(l.n >= (uint64_t)done && l.n <= (uint64_t)done + 1 &&
			 l.bad_kernel == 0 && l.failed == 0,
		 "%llu launches in the trace (%llu with the wrong kernel, %llu "
		 "failed), %lld had returned",
		 (unsigned long long)l.n, (unsigned long long)l.bad_kernel,
		 (unsigned long long)l.failed, (long long)done);
	struct tu_layout lay;
	int lr = tu_trace_layout(paths[0], &lay);
	TU_CHECK(lr == 0, "%s: bad layout", paths[0]);
	uint64_t size = lay.size, data = lay.data;
	TU_CHECK(data > 0 && size <= data + 2 * DLT_CHUNK_BIG + DLT_STEP_MAX,
		 "after SIGKILL: %llu bytes of file for %llu of data",
		 (unsigned long long)size, (unsigned long long)data);
	const char *cargv[] = {DLT_TEST_ANALYZE, "compact", tdir, NULL};
	struct tu_proc c;
	tu_run(&c, cargv, NULL, RUN_MS);
	TU_CHECK(tu_exit_code(c.status) == 0 && tu_contains(c.out, "compacted"),
		 "dltrace-analyze compact: %s\n%s%s", tu_status_str(c.status),
		 c.out, c.err);
	struct launch_scan after;
	scan_launches(paths[0], &after);
	uint64_t csize = tu_file_size(paths[0]);
	TU_CHECK(after.n == l.n && after.drv == l.drv &&
			 csize <= data + 2 * DLT_CHUNK_BIG,
		 "after compact: %llu launches (%llu before), %llu bytes for "
		 "%llu of data",
		 (unsigned long long)after.n, (unsigned long long)l.n,
		 (unsigned long long)csize, (unsigned long long)data);
	printf("\n    killed after %lld calls: trace %llu bytes, %llu of data; "
	       "compacted to %llu\n",
	       (long long)done, (unsigned long long)size,
	       (unsigned long long)data, (unsigned long long)csize);
	tu_proc_free(&c);
	tu_free_list(paths);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(tdir);
	free(counter);
	free(dir);
	free(fx);
}

static const struct tu_test compact_tests[] = {
	{"repeated calls as 8-byte entries, read back call for call",
	 test_compact_calls},
	{"SIGKILL in a loop of calls, then compact", test_compact_sigkill},
	{NULL, NULL}};

/* ---- suite gpu_real: the real libraries in /usr/local/cuda --------------- */

static const char *real_skip(void)
{
	static char why[512];
	if (DLT_TEST_REAL_FX[0] == '\0') {
		snprintf(why, sizeof(why),
			 "fx_real was not built: no real CUDA runtime, cuDNN "
			 "and NCCL (headers and libraries) in %s at configure "
			 "time",
			 DLT_TEST_REAL_LIBDIR);
		return why;
	}
	DIR *d = opendir(DLT_TEST_REAL_LIBDIR);
	int found = 0;
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		found |= strncmp(e->d_name, "libcudart.so", 12) == 0;
	if (d)
		closedir(d);
	if (!found || access(DLT_TEST_REAL_FX, X_OK) != 0) {
		snprintf(why, sizeof(why), "no %s/libcudart.so* here",
			 DLT_TEST_REAL_LIBDIR);
		return why;
	}
	return NULL;
}

/* The row of the libs table for the loaded file whose name starts with
 * prefix (libcudart.so. and not libcudart_static ...). */
static const struct tu_json *real_lib_row(const struct tu_json *root,
					  const char *prefix)
{
	const struct tu_json *procs = tu_jget(root, "processes");
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *libs =
			tu_jget(tu_jat(procs, i), "libraries");
		for (size_t k = 0; k < tu_jlen(libs); k++) {
			const char *path = tu_jstr(tu_jat(libs, k), "path");
			if (path && strncmp(base_name(path), prefix,
					    strlen(prefix)) == 0)
				return tu_jat(libs, k);
		}
	}
	return NULL;
}

static long long printed(const char *out, const char *prefix)
{
	char buf[64];
	const char *v = tu_line_value(out, prefix, buf, sizeof(buf));
	return v ? atoll(v) : -999999;
}

static void test_real(void)
{
	const char *what = "real CUDA runtime, cuDNN and NCCL";
	const char *cmd[] = {DLT_TEST_REAL_FX, NULL};
	char *dir = tu_tmpdir("real");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc plain, traced;
	tu_run(&plain, cmd, NULL, RUN_MS);
	run_traced(&traced, dir, cmd, NULL);
	/* NCCL's own warnings carry the pid: stdout and status only. */
	tu_expect_same_run(what, &plain, &traced, 0);
	TU_CHECK_FATAL(tu_exit_code(plain.status) == 0, "fx_real: %s\n%s%s",
		       tu_status_str(plain.status), plain.out, plain.err);
	long long count_rc = printed(plain.out, "cudaGetDeviceCount rc=");
	long long drv = printed(plain.out, "cudaDriverGetVersion rc=0 "
					   "version=");
	char buf[64];
	const char *rv = tu_line_value(
		plain.out, "cudaRuntimeGetVersion rc=", buf, sizeof(buf));
	long long rt = rv && strstr(rv, "version=")
			       ? atoll(strstr(rv, "version=") + 8)
			       : -1;
	long long cudnn_v = printed(plain.out, "cudnnGetVersion=");
	long long cudnn_rt = printed(plain.out, "cudnnGetCudartVersion=");
	long long create = printed(plain.out, "cudnnCreate rc=");
	long long nccl_v = printed(plain.out, "ncclGetVersion rc=0 version=");
	long long init = printed(plain.out, "ncclCommInitRank rc=");
	printf("\n    real libraries: cudaGetDeviceCount %lld, driver %lld, "
	       "runtime %lld, cuDNN %lld (its runtime %lld), cudnnCreate "
	       "%lld, NCCL %lld, ncclCommInitRank(nranks=1) %lld\n",
	       count_rc, drv, rt, cudnn_v, cudnn_rt, create, nccl_v, init);

	/* What this project's machines say without a GPU (docs/library-facts.md
	 * §2), where there is no NVIDIA driver. */
	int no_driver = access("/proc/driver/nvidia/version", F_OK) != 0;
	if (no_driver) {
		TU_CHECK(count_rc == 35 && create == 1001,
			 "without a driver: cudaGetDeviceCount %lld (expected "
			 "35), cudnnCreate %lld (expected 1001)",
			 count_rc, create);
	} else {
		tu_skip_part("the statuses of a machine without a driver "
			     "(35, 1001): an NVIDIA driver is loaded here");
	}
	TU_CHECK(cudnn_v == 91900 && cudnn_rt == 13010 && nccl_v == 22809,
		 "this machine's libraries: cuDNN %lld, its runtime %lld, "
		 "NCCL %lld; the issue's are 91900, 13010, 22809",
		 cudnn_v, cudnn_rt, nccl_v);

	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_real");
	struct tu_json *j = tu_libs_json(dir);
	if (g) {
		size_t n = expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 6, "%s: %zu calls compared, expected 6 or more",
			 what, n);
		const struct dlt_rec_api_call *c[2];
		TU_CHECK(gt_calls(g, api_id("cudaGetDeviceCount"), c, 2) == 1 &&
				 c[0]->ret == count_rc,
			 "%s: cudaGetDeviceCount not recorded with %lld", what,
			 count_rc);
		TU_CHECK(gt_calls(g, api_id("cudnnCreate"), c, 2) == 1 &&
				 c[0]->ret == create,
			 "%s: cudnnCreate not recorded with %lld", what,
			 create);
		static const struct {
			int fam;
			const char *prefix;
		} fams[] = {{DLT_FAM_CUDART, "libcudart.so."},
			    {DLT_FAM_CUDNN, "libcudnn.so."},
			    {DLT_FAM_NCCL, "libnccl.so."}};
		for (size_t i = 0; i < 3; i++) {
			const struct tu_json *row =
				j ? real_lib_row(j, fams[i].prefix) : NULL;
			const char *path = tu_jstr(row, "path");
			TU_CHECK(path != NULL, "%s: no %s* in the libs table",
				 what, fams[i].prefix);
			char *inreal = tu_strfmt("%s/%s", DLT_TEST_REAL_LIBDIR,
						 base_name(path ? path : "-"));
			TU_CHECK(path && tu_same_file(path, inreal),
				 "%s: %s resolved to %s, not in %s", what,
				 fams[i].prefix, path ? path : "-",
				 DLT_TEST_REAL_LIBDIR);
			struct want want[3] = {WANT_END, WANT_END, WANT_END};
			if (fams[i].fam == DLT_FAM_CUDART) {
				want[0] = (struct want){
					DLT_FV_CUDART_runtime_version, rt};
				(void)drv; /* only if the driver was loaded */
			} else if (fams[i].fam == DLT_FAM_CUDNN) {
				want[0] = (struct want){DLT_FV_CUDNN_version,
							cudnn_v};
				want[1] = (struct want){
					DLT_FV_CUDNN_cudart_version, cudnn_rt};
			} else {
				want[0] = (struct want){DLT_FV_NCCL_version,
							nccl_v};
				want[1] = (struct want){DLT_FV_NCCL_status, 0};
			}
			expect_family(what, g, fams[i].fam, path ? path : "-",
				      NULL, want);
			size_t nf;
			const struct dlt_rec_family *f =
				gt_family(g, fams[i].fam, &nf);
			if (f)
				printf("    LIB_FAMILY %s: %s "
				       "v=[%lld,%lld,%lld,"
				       "%lld,%lld,%lld]\n",
				       dlt_family_name(fams[i].fam),
				       gt_str(g, f->path), (long long)f->v[0],
				       (long long)f->v[1], (long long)f->v[2],
				       (long long)f->v[3], (long long)f->v[4],
				       (long long)f->v[5]);
			free(inreal);
		}
		for (size_t i = 0; i < g->n; i++)
			if (g->r[i].h->type == DLT_REC_STATIC_RUNTIME) {
				const struct dlt_rec_static_rt *r =
					(const void *)g->r[i].h;
				printf("    STATIC_RUNTIME %s (%s)\n",
				       gt_str(g, r->object),
				       gt_str(g, r->symbol));
			}
	}
	tu_json_free(j);
	gs_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
}

/* ---- hangs: helpers ------------------------------------------------------ */

/* `dltrace-analyze hangs --json` on every trace in dir, parsed; *rc gets
 * its exit status. */
static struct tu_json *hangs_json(const char *dir, int *rc, char **text)
{
	return analyze_json("hangs", dir, rc, text);
}

/* The findings of `hangs --json` are check's: each one is in `check
 * --json` over the same traces with the same process, message, fix and
 * evidence. */
static void expect_hangs_as_check(const char *dir, const struct tu_json *hj)
{
	struct tu_proc p;
	int r = tu_analyze_dir(&p, "check", "--json", dir);
	char err[256];
	struct tu_json *cj =
		r == 0 ? tu_json_parse(p.out, err, sizeof(err)) : NULL;
	TU_CHECK(cj != NULL, "check --json on %s: %s\n%s", dir,
		 tu_status_str(p.status), p.err);
	const struct tu_json *hf = tu_jget(hj, "findings");
	const struct tu_json *cf = tu_jget(cj, "findings");
	for (size_t i = 0; cj && i < tu_jlen(hf); i++) {
		const struct tu_json *h = tu_jat(hf, i), *same = NULL;
		for (size_t k = 0; k < tu_jlen(cf) && !same; k++) {
			const struct tu_json *c = tu_jat(cf, k);
			if (!same_str(tu_jstr(c, "code"), tu_jstr(h, "code")) ||
			    jnum(c, "pid", -1) != jnum(h, "pid", -2) ||
			    !same_str(tu_jstr(c, "message"),
				      tu_jstr(h, "message")))
				continue;
			same = c;
		}
		TU_CHECK(same != NULL, "hangs finding %s not in check: %s",
			 tu_jstr(h, "code"), tu_jstr(h, "message"));
		if (same == NULL)
			continue;
		const struct tu_json *he = tu_jget(h, "evidence");
		const struct tu_json *ce = tu_jget(same, "evidence");
		TU_CHECK(same_str(tu_jstr(h, "fix"), tu_jstr(same, "fix")) &&
				 same_str(tu_jstr(h, "severity"),
					  tu_jstr(same, "severity")) &&
				 he && ce && he->n == ce->n,
			 "%s: hangs and check differ in severity, fix or "
			 "evidence",
			 tu_jstr(h, "code"));
		for (size_t k = 0; he && ce && k < he->n && k < ce->n; k++)
			TU_CHECK(strcmp(he->keys[k], ce->keys[k]) == 0 &&
					 he->items[k]->type ==
						 ce->items[k]->type,
				 "%s: evidence key %s in hangs, %s in check",
				 tu_jstr(h, "code"), he->keys[k], ce->keys[k]);
	}
	/* And the other way: check's job findings are all in hangs, so an
	 * empty hangs list must mean an empty one in check too. */
	static const char *const job[] = {"INIT_HANG", "MISSING_RANK",
					  "RANK_MISMATCH", "STALL"};
	size_t in_hangs = 0, in_check = 0;
	for (size_t k = 0; k < 4; k++) {
		for (size_t i = 0; i < tu_jlen(hf); i++)
			in_hangs += same_str(tu_jstr(tu_jat(hf, i), "code"),
					     job[k]);
		for (size_t i = 0; i < tu_jlen(cf); i++)
			in_check += same_str(tu_jstr(tu_jat(cf, i), "code"),
					     job[k]);
	}
	TU_CHECK(cj == NULL || in_hangs == in_check,
		 "%zu job findings in hangs, %zu in check", in_hangs, in_check);
	tu_json_free(cj);
	tu_proc_free(&p);
}

static int missing_is(const struct tu_json *f, const int *want, size_t n)
{
	const struct tu_json *m =
		tu_jget(tu_jget(f, "evidence"), "missing_ranks");
	if (tu_jlen(m) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (tu_jat(m, i)->type != TU_JNUM ||
		    (int)tu_jat(m, i)->num != want[i])
			return 0;
	return 1;
}

/* ---- hangs: waiting for a state, not for a time ---------------------------
 */

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The traces of a job can be read while it runs.  A test that needs a hang
 * to have reached some state before it kills the job polls for that state
 * (every 100 ms, up to a minute) instead of sleeping for a time that a
 * loaded machine may not honour.  Returns 1 once done() says so. */
static int poll_traces(const char *dir, int (*done)(struct gset *, void *),
		       void *ctx)
{
	uint64_t until = mono_ms() + 60000;
	for (;;) {
		struct gset s;
		gs_read(dir, &s, 1);
		int ok = done(&s, ctx);
		gs_free(&s);
		if (ok)
			return 1;
		if (mono_ms() > until)
			return 0;
		sleep_ms(100);
	}
}

/* Calls of api in flight in g (shown as API_ENTER); *tid gets the thread
 * of the last one. */
static size_t gt_in_flight(const struct gtrace *g, const char *api,
			   uint32_t *tid)
{
	uint16_t id = api_id(api);
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->r[i].h->type == DLT_REC_API_ENTER &&
		    g->r[i].h->flags == id) {
			n++;
			if (tid)
				*tid = g->r[i].tid;
		}
	return n;
}

/* STALL records of thread tid (0: any thread) in system call nr. */
static size_t gt_stalls(const struct gtrace *g, uint32_t tid, int32_t nr)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (g->r[i].h->type != DLT_REC_STALL)
			continue;
		const struct dlt_rec_stall *st = (const void *)g->r[i].h;
		n += (tid == 0 || st->tid == tid) && st->syscall == nr;
	}
	return n;
}

/* Traces number system calls as x86-64 does, on every machine (format.h);
 * poll is ppoll on AArch64. */
enum { SYS_POLL = 7, SYS_PPOLL = 271, SYS_FUTEX = 202 };

/* Ranks of fx_nccl stuck in ncclCommInitRank with the watchdog's view of
 * them: the init thread in futex, NCCL's bootstrap thread in poll. */
static int nccl_ranks_stuck(struct gset *s, void *ctx)
{
	size_t want = *(const size_t *)ctx, n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct gtrace *g = &s->t[i];
		uint32_t tid = 0;
		if (strcmp(base_name(g->exe), "fx_nccl") == 0 &&
		    gt_in_flight(g, "ncclCommInitRank", &tid) >= 1 &&
		    gt_stalls(g, tid, SYS_FUTEX) >= 1 &&
		    gt_stalls(g, 0, SYS_POLL) + gt_stalls(g, 0, SYS_PPOLL) >= 1)
			n++;
	}
	return n >= want;
}

/* Starts rank r of an fx_nccl job of nranks (a string) under the
 * launcher, into dir, meeting through idfile. */
static void start_nccl_rank(struct tu_proc *p, const char *dir,
			    const char *idfile, const char *nranks, int r,
			    const char *const *env)
{
	char rank[16];
	snprintf(rank, sizeof(rank), "%d", r);
	const char *cmd[] = {DLT_FAKE_FX_NCCL, "--nranks", nranks,
			     "--rank",	       rank,	   "--id-file",
			     idfile,	       NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	TU_CHECK_FATAL(tu_proc_start(p, argv, env) == 0, "cannot start rank %d",
		       r);
	free(argv);
}

/* ---- suite hang_nccl: 3 of 4 ranks, killed ------------------------------- */

static void test_hang_nccl(void)
{
	enum { STARTED = 3, NRANKS = 4 };
	char *rdv = tu_tmpdir("hang-rdv");
	char *dir = tu_tmpdir("hang-nccl");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	char *idfile = tu_strfmt("%s/id", rdv);
	const char *const *env = nccl_env(rdv, "DLTRACE_STALL_MS=1000");
	const char *env2[] = {env[0], env[1], env[2], "DLTRACE_WATCHDOG=1",
			      NULL};
	struct tu_proc p[STARTED];
	uint64_t spawn[STARTED];
	for (int r = 0; r < STARTED; r++) {
		spawn[r] = realtime_ns();
		start_nccl_rank(&p[r], dir, idfile, "4", r, env2);
	}
	size_t want_stuck = STARTED;
	TU_CHECK(poll_traces(dir, nccl_ranks_stuck, &want_stuck),
		 "after a minute, not every rank shows its init thread "
		 "stalled in futex and its bootstrap thread in poll");
	/* SIGKILL to each launcher's process group: the launcher and the
	 * traced program it started, which is the one that hangs. */
	uint64_t killed_at = realtime_ns();
	for (int r = 0; r < STARTED; r++)
		kill(-p[r].pid, SIGKILL);
	for (int r = 0; r < STARTED; r++) {
		tu_proc_wait(&p[r], 10000);
		TU_CHECK(WIFSIGNALED(p[r].status) &&
				 WTERMSIG(p[r].status) == SIGKILL,
			 "rank %d: launcher %s; output:\n%s%s", r,
			 tu_status_str(p[r].status), p[r].out, p[r].err);
		TU_CHECK(!tu_contains(p[r].out, "ncclCommInitRank rc="),
			 "rank %d: init returned before the kill:\n%s", r,
			 p[r].out);
		TU_CHECK(tu_group_alive(p[r].pid, 3000) == 0,
			 "rank %d: processes of the launcher's group still run",
			 r);
	}

	int rc;
	char *text = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	TU_CHECK(rc == 1, "hangs exit status %d, expected 1 (a hang found)",
		 rc);
	expect_hangs_as_check(dir, j);
	const struct tu_json *ranks = tu_jget(j, "ranks");
	TU_CHECK(tu_jlen(ranks) == STARTED, "%zu ranks in the table",
		 tu_jlen(ranks));
	for (size_t i = 0; i < tu_jlen(ranks); i++) {
		const struct tu_json *row = tu_jat(ranks, i);
		const char *state = tu_jstr(row, "state");
		const char *last = tu_jstr(row, "last_call");
		TU_CHECK(state && strcmp(state, "IN CALL") == 0 && last &&
				 strcmp(last, "ncclCommInitRank") == 0,
			 "rank %g: state %s, last call %s",
			 jnum(row, "rank", -1), state ? state : "null",
			 last ? last : "null");
	}
	const struct tu_json *f[8];
	size_t nmiss = findings(j, "MISSING_RANK", f, 8);
	const int want_missing[] = {3};
	TU_CHECK(nmiss == 1 && missing_is(f[0], want_missing, 1) &&
			 jnum(tu_jget(f[0], "evidence"), "nranks", -1) ==
				 NRANKS,
		 "%zu MISSING_RANK findings; expected one naming rank 3 of 4",
		 nmiss);
	TU_CHECK(findings(j, "RANK_MISMATCH", f, 8) == 0,
		 "RANK_MISMATCH where every rank said 4");
	size_t nhang = findings(j, "INIT_HANG", f, 8);
	TU_CHECK(nhang == STARTED, "%zu INIT_HANG findings, expected %d", nhang,
		 STARTED);
	int seen[STARTED] = {0};
	for (size_t i = 0; i < nhang && i < 8; i++) {
		const struct tu_json *ev = tu_jget(f[i], "evidence");
		int r = (int)jnum(f[i], "rank", -1);
		if (r < 0 || r >= STARTED) {
			TU_CHECK(0, "INIT_HANG of rank %d", r);
			continue;
		}
		seen[r]++;
		const char *call = tu_jstr(ev, "call");
		const char *sc = tu_jstr(ev, "syscall");
		const char *stack = tu_jstr(ev, "stack");
		double in_call = jnum(ev, "in_call_ns", -1);
		double since = jnum(ev, "call_since_unix_ns", 0);
		double most = (double)(killed_at - spawn[r]);
		TU_CHECK(call && strcmp(call, "ncclCommInitRank") == 0,
			 "rank %d: INIT_HANG in %s", r, call ? call : "null");
		TU_CHECK(sc && strcmp(sc, "futex") == 0,
			 "rank %d: blocked in %s, expected a futex wait "
			 "(message: %s)",
			 r, sc ? sc : "nothing", tu_jstr(f[i], "message"));
		/* At least the stall seen before the kill (the threshold,
		 * 1 s); at most the time from the start to the kill. */
		TU_CHECK(in_call >= 1e9 && in_call <= most + 1e6,
			 "rank %d: in ncclCommInitRank for %.2f s, started "
			 "%.2f s before the kill",
			 r, in_call / 1e9, most / 1e9);
		TU_CHECK(since >= (double)spawn[r] - 1e6 &&
				 since <= (double)killed_at,
			 "rank %d: entered init %.3f s after it was started", r,
			 (since - (double)spawn[r]) / 1e9);
		TU_CHECK(tu_contains(stack, "libnccl.so.2"),
			 "rank %d: the waiting thread's stack does not pass "
			 "through libnccl: %s",
			 r, stack ? stack : "null");
		printf("\n    rank %d: %s", r, tu_jstr(f[i], "message"));
	}
	printf("\n");
	for (int r = 0; r < STARTED; r++)
		TU_CHECK(seen[r] == 1, "rank %d has %d INIT_HANG findings", r,
			 seen[r]);
	/* NCCL's bootstrap thread (the fake's helper) waits in poll. */
	size_t nstall = findings(j, "STALL", f, 8);
	size_t polls = 0;
	for (size_t i = 0; i < nstall && i < 8; i++) {
		const char *sc = tu_jstr(tu_jget(f[i], "evidence"), "syscall");
		polls += sc &&
			 (strcmp(sc, "poll") == 0 || strcmp(sc, "ppoll") == 0);
	}
	TU_CHECK(polls == STARTED,
		 "%zu STALL findings in poll, expected one per rank (the "
		 "bootstrap threads)",
		 polls);
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json:\n%s\n", text ? text : "");
	free(text);
	tu_json_free(j);
	for (int r = 0; r < STARTED; r++)
		tu_proc_free(&p[r]);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(idfile);
	free(dir);
	free(rdv);
}

/* What a rank showed live before the kill: the start of its init, and its
 * heartbeat (the header's alive_ns) at the last look. */
struct early_rank {
	uint32_t pid;
	uint64_t call_ts, alive;
};

struct early_poll {
	size_t want, n;
	struct early_rank r[8];
};

/* Ranks of fx_nccl in ncclCommInitRank whose init thread's wait is
 * recorded before the stall threshold (DLT_STALL_EARLY) and whose
 * heartbeat has moved past the call's start. */
static int nccl_ranks_early(struct gset *s, void *ctx)
{
	struct early_poll *ep = ctx;
	ep->n = 0;
	for (size_t i = 0; i < s->n && ep->n < 8; i++) {
		const struct gtrace *g = &s->t[i];
		uint32_t tid = 0;
		if (strcmp(base_name(g->exe), "fx_nccl") != 0 ||
		    gt_in_flight(g, "ncclCommInitRank", &tid) != 1)
			continue;
		uint64_t call_ts = 0;
		int early = 0;
		for (size_t k = 0; k < g->n; k++) {
			const struct dlt_rec_hdr *h = g->r[k].h;
			if (h->type == DLT_REC_API_ENTER && g->r[k].tid == tid)
				call_ts = h->ts;
			if (h->type == DLT_REC_STALL &&
			    (h->flags & DLT_STALL_EARLY) &&
			    ((const struct dlt_rec_stall *)(const void *)h)
					    ->tid == tid)
				early = 1;
		}
		if (early && call_ts && g->hdr.alive_ns > call_ts)
			ep->r[ep->n++] = (struct early_rank){
				g->hdr.pid, call_ts, g->hdr.alive_ns};
	}
	return ep->n >= ep->want;
}

/* Ranks 0 .. started-1 of an fx_nccl job of nranks, default settings,
 * that hangs in ncclCommInitRank since the others never come; returns
 * once each shows its init thread's wait, recorded before the stall
 * threshold, and a heartbeat past the call's start (polled, up to a
 * minute: then a failed check). */
static void start_hung_job(const char *dir, const char *rdv, const char *idfile,
			   const char *nranks, int started, struct tu_proc *p,
			   struct early_poll *ep)
{
	const char *const *env = nccl_env(rdv, NULL);
	for (int r = 0; r < started; r++)
		start_nccl_rank(&p[r], dir, idfile, nranks, r, env);
	memset(ep, 0, sizeof(*ep));
	ep->want = (size_t)started;
	TU_CHECK(poll_traces(dir, nccl_ranks_early, ep),
		 "after a minute, %zu of %d ranks show their init thread's "
		 "wait recorded before the threshold",
		 ep->n, started);
}

/* Every record of the traces of dir and their headers, as dump prints
 * them, but for the sizes (the line with alloc_cursor and file_size).
 * Caller frees. */
static char *dump_but_sizes(const char *dir)
{
	struct tu_proc p;
	tu_analyze_dir(&p, "dump", NULL, dir);
	TU_CHECK(tu_exit_code(p.status) == 0, "dump: %s\n%s",
		 tu_status_str(p.status), p.err);
	char *text = tu_drop_lines(p.out ? p.out : "", "  format ");
	tu_proc_free(&p);
	return text;
}

/* Killed processes leave their traces uncut; `compact` cuts them and
 * keeps everything a reader reads: the run, the heartbeat, the early
 * waits, the versions at load, and what the analysis makes of them. */
static void expect_compact_keeps(const char *dir, const char *hangs_before)
{
	char *before = dump_but_sizes(dir);
	const char *argv[] = {DLT_TEST_ANALYZE, "compact", dir, NULL};
	struct tu_proc c;
	tu_run(&c, argv, NULL, 60000);
	TU_CHECK(tu_exit_code(c.status) == 0 &&
			 tu_count_lines(c.out, "compacted ") > 0,
		 "compact: %s\n%s%s", tu_status_str(c.status), c.out, c.err);
	char *after = dump_but_sizes(dir);
	TU_CHECK(strcmp(before, after) == 0 &&
			 tu_contains(after, "  run_id 0x") &&
			 !tu_contains(after, "  run_id 0x0000000000000000") &&
			 tu_contains(after, "STALL") &&
			 tu_contains(after, "LIB_FAMILY"),
		 "the traces do not read the same after compact (or lack "
		 "what the test is about):\n%s\n---- after:\n%s",
		 before, after);
	int rc;
	char *hangs_after = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &hangs_after);
	TU_CHECK(hangs_before && hangs_after &&
			 strcmp(hangs_before, hangs_after) == 0,
		 "hangs after compact:\n%s\nbefore:\n%s",
		 hangs_after ? hangs_after : "", hangs_before);
	tu_json_free(j);
	free(hangs_after);
	tu_proc_free(&c);
	free(before);
	free(after);
}

/* The issue's case, with default settings: three of four ranks stuck in
 * ncclCommInitRank and killed before the 5 s stall threshold.  The init
 * thread's wait is recorded anyway (inside a traced call for a tick), and
 * how long each rank was inside the call is a bound from its heartbeat:
 * at least the heartbeat seen live before the kill minus the call's
 * start ("inside it for 0.0 ms" before). */
static void test_hang_nccl_early(void)
{
	enum { STARTED = 3 };
	char *rdv = tu_tmpdir("early-rdv");
	char *dir = tu_tmpdir("hang-early");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	char *idfile = tu_strfmt("%s/id", rdv);
	struct tu_proc p[STARTED];
	struct early_poll ep;
	start_hung_job(dir, rdv, idfile, "4", STARTED, p, &ep);
	for (int r = 0; r < STARTED; r++) {
		tu_kill_group(&p[r]);
		TU_CHECK(!tu_contains(p[r].out, "ncclCommInitRank rc="),
			 "rank %d: init returned before the kill:\n%s", r,
			 p[r].out);
	}
	int rc;
	char *text = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	const struct tu_json *f[8];
	size_t nhang = findings(j, "INIT_HANG", f, 8);
	TU_CHECK(nhang == STARTED, "%zu INIT_HANG findings, expected %d", nhang,
		 STARTED);
	for (size_t i = 0; i < nhang && i < 8; i++) {
		const struct tu_json *ev = tu_jget(f[i], "evidence");
		uint32_t pid = (uint32_t)jnum(f[i], "pid", 0);
		const struct early_rank *seen = NULL;
		for (size_t k = 0; k < ep.n; k++)
			if (ep.r[k].pid == pid)
				seen = &ep.r[k];
		const char *sc = tu_jstr(ev, "syscall");
		const char *msg = tu_jstr(f[i], "message");
		double in_call = jnum(ev, "in_call_ns", -1);
		TU_CHECK(seen != NULL, "INIT_HANG of pid %u, not seen live",
			 pid);
		if (seen == NULL)
			continue;
		double bound = (double)(seen->alive - seen->call_ts);
		TU_CHECK(
			in_call >= bound,
			"pid %u: inside ncclCommInitRank for %.3f s by the "
			"analysis; its heartbeat showed %.3f s before the kill",
			pid, in_call / 1e9, bound / 1e9);
		TU_CHECK(sc && strcmp(sc, "futex") == 0,
			 "pid %u: waiting in %s, expected the init thread's "
			 "futex wait (message: %s)",
			 pid, sc ? sc : "nothing", msg);
		TU_CHECK(tu_contains(msg, "at least"),
			 "pid %u: the time inside the call is a lower bound "
			 "and should say so: %s",
			 pid, msg);
		printf("\n    %s", msg);
	}
	printf("\n");
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json:\n%s\n", text ? text : "");
	expect_compact_keeps(dir, text);
	free(text);
	tu_json_free(j);
	for (int r = 0; r < STARTED; r++)
		tu_proc_free(&p[r]);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(idfile);
	free(dir);
	free(rdv);
}

/* `hangs --json DIR` run under another host name (a new UTS namespace):
 * what an analysis on another machine sees. */
static struct tu_json *hangs_json_elsewhere(const char *dir)
{
	const char *argv[] = {"/usr/bin/unshare",
			      "--uts",
			      "/bin/sh",
			      "-c",
			      "hostname dltrace-elsewhere && exec \"$@\"",
			      "sh",
			      DLT_TEST_ANALYZE,
			      "hangs",
			      "--json",
			      dir,
			      NULL};
	struct tu_proc p;
	tu_run(&p, argv, NULL, 60000);
	char err[256];
	struct tu_json *j = tu_json_parse(p.out, err, sizeof(err));
	TU_CHECK(j != NULL, "hangs --json elsewhere: %s, not JSON (%s):\n%s",
		 tu_status_str(p.status), err, p.err);
	tu_proc_free(&p);
	return j;
}

/* A job hung right now: its directory read while it runs.  Two of three
 * ranks wait in ncclCommInitRank; hangs shows each rank's open call, its
 * wait and the time so far (from the heartbeat), and that the processes
 * run; after the kill, that they are gone; on another host name, that it
 * cannot know. */
static void test_hang_live(void)
{
	enum { STARTED = 2 };
	char *rdv = tu_tmpdir("live-rdv");
	char *dir = tu_tmpdir("hang-live");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	char *idfile = tu_strfmt("%s/id", rdv);
	struct tu_proc p[STARTED];
	struct early_poll ep;
	start_hung_job(dir, rdv, idfile, "3", STARTED, p, &ep);
	char *text = NULL;
	int rc;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	const struct tu_json *ranks = tu_jget(j, "ranks");
	TU_CHECK(tu_jlen(ranks) == STARTED, "%zu ranks, expected %d",
		 tu_jlen(ranks), STARTED);
	for (size_t i = 0; i < tu_jlen(ranks); i++) {
		const struct tu_json *row = tu_jat(ranks, i);
		uint32_t pid = (uint32_t)jnum(row, "pid", 0);
		const struct early_rank *seen = NULL;
		for (size_t k = 0; k < ep.n; k++)
			if (ep.r[k].pid == pid)
				seen = &ep.r[k];
		const char *state = tu_jstr(row, "state");
		const char *proc = tu_jstr(row, "process");
		const char *wait = tu_jstr(row, "waiting_in");
		double in_call = jnum(row, "in_call_ns", -1);
		TU_CHECK(state && strcmp(state, "IN CALL") == 0 &&
				 strcmp(tu_jstr(row, "last_call"),
					"ncclCommInitRank") == 0,
			 "pid %u: state %s, call %s", pid, state,
			 tu_jstr(row, "last_call"));
		TU_CHECK(proc && strcmp(proc, "running") == 0,
			 "pid %u runs, hangs says %s", pid, proc);
		TU_CHECK(tu_contains(wait, "futex"),
			 "pid %u: waiting in \"%s\", expected its futex wait",
			 pid, wait);
		/* The heartbeat only moves on: at least what the poll saw. */
		TU_CHECK(seen && in_call >=
					 (double)(seen->alive - seen->call_ts),
			 "pid %u: in the call for %.3f s so far by hangs, %.3f "
			 "s by the heartbeat seen before",
			 pid, in_call / 1e9,
			 seen ? (double)(seen->alive - seen->call_ts) / 1e9
			      : -1.0);
	}
	const struct tu_json *f[8];
	size_t nhang = findings(j, "INIT_HANG", f, 8);
	TU_CHECK(nhang == STARTED, "%zu INIT_HANG findings on the live job",
		 nhang);
	for (size_t i = 0; i < nhang && i < 8; i++)
		TU_CHECK(tu_contains(tu_jstr(f[i], "message"), "so far") &&
				 tu_contains(tu_jstr(f[i], "message"),
					     "running"),
			 "live INIT_HANG: %s", tu_jstr(f[i], "message"));
	const int want_missing[] = {2};
	TU_CHECK(findings(j, "MISSING_RANK", f, 8) == 1 &&
			 missing_is(f[0], want_missing, 1),
		 "the live job's missing rank 2 is not named");
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json on the live job:\n%s\n", text);
	tu_json_free(j);
	free(text);

	/* Under another host name nothing can be known of the processes. */
	if (geteuid() == 0 && access("/usr/bin/unshare", X_OK) == 0) {
		j = hangs_json_elsewhere(dir);
		ranks = tu_jget(j, "ranks");
		TU_CHECK(tu_jlen(ranks) == STARTED,
			 "on another host: %zu ranks, expected %d",
			 tu_jlen(ranks), STARTED);
		for (size_t i = 0; i < tu_jlen(ranks); i++)
			TU_CHECK(tu_contains(
					 tu_jstr(tu_jat(ranks, i), "process"),
					 "unknown"),
				 "on another host: process %s",
				 tu_jstr(tu_jat(ranks, i), "process"));
		tu_json_free(j);
	} else {
		tu_skip_part("hangs under another host name: needs root and "
			     "/usr/bin/unshare for a new UTS namespace");
	}

	for (int r = 0; r < STARTED; r++)
		tu_kill_group(&p[r]);
	j = hangs_json(dir, &rc, NULL);
	ranks = tu_jget(j, "ranks");
	/* Gone, or a zombie its new parent has not reaped yet: not running
	 * either way. */
	TU_CHECK(tu_jlen(ranks) == STARTED, "after SIGKILL: %zu ranks",
		 tu_jlen(ranks));
	for (size_t i = 0; i < tu_jlen(ranks); i++) {
		const char *proc = tu_jstr(tu_jat(ranks, i), "process");
		TU_CHECK(proc && (strcmp(proc, "gone") == 0 ||
				  strcmp(proc, "ended, not yet reaped") == 0),
			 "after SIGKILL: process %s", proc);
	}
	nhang = findings(j, "INIT_HANG", f, 8);
	TU_CHECK(nhang == STARTED, "%zu INIT_HANG findings after the kill",
		 nhang);
	for (size_t i = 0; i < nhang && i < 8; i++)
		TU_CHECK(tu_contains(tu_jstr(f[i], "message"), "at least"),
			 "INIT_HANG after the kill: %s",
			 tu_jstr(f[i], "message"));
	tu_json_free(j);
	for (int r = 0; r < STARTED; r++)
		tu_proc_free(&p[r]);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(idfile);
	free(dir);
	free(rdv);
}

/* fx_nccl's main thread reported waiting in futex. */
static int first_call_stalled(struct gset *s, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(base_name(s->t[i].exe), "fx_nccl") == 0 &&
		    gt_stalls(&s->t[i], s->t[i].hdr.pid, SYS_FUTEX) >= 1)
			return 1;
	return 0;
}

/* fx_nccl's ncclAllReduce is on disk, in flight. */
static int allreduce_in_flight(struct gset *s, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(base_name(s->t[i].exe), "fx_nccl") == 0 &&
		    gt_in_flight(&s->t[i], "ncclAllReduce", NULL) >= 1)
			return 1;
	return 0;
}

/* A rank whose first call into NCCL is the init that hangs (ranks other
 * than 0 never call ncclGetUniqueId), in a process with no launcher
 * variables and no DLTRACE_WATCHDOG: the watchdog must still be running
 * while it waits ("as soon as a GPU library is called", docs/hangs.md). */
static void test_hang_first_call(void)
{
	char *rdv = tu_tmpdir("first-rdv");
	char *dir = tu_tmpdir("hang-first");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	/* The id rank 0 would have published: any 128 bytes do. */
	char *idfile = tu_strfmt("%s/id", rdv);
	unsigned char id[128];
	for (size_t i = 0; i < sizeof(id); i++)
		id[i] = (unsigned char)(i * 37 + (unsigned)getpid());
	FILE *fp = fopen(idfile, "w");
	TU_CHECK_FATAL(fp && fwrite(id, 1, sizeof(id), fp) == sizeof(id) &&
			       fclose(fp) == 0,
		       "cannot write %s", idfile);
	const char *const *env = nccl_env(rdv, "DLTRACE_STALL_MS=1000");
	const char *cmd[] = {DLT_FAKE_FX_NCCL, "--nranks", "2", "--rank", "1",
			     "--id-file",      idfile,	   NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start");
	free(argv);
	/* Killed once the watchdog has reported the wait (or after a
	 * minute: then the checks below say what is missing). */
	poll_traces(dir, first_call_stalled, NULL);
	tu_kill_group(&p);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_nccl");
	if (g) {
		size_t enters = 0, futex = 0;
		for (size_t i = 0; i < g->n; i++) {
			const struct dlt_rec_hdr *h = g->r[i].h;
			enters += h->type == DLT_REC_API_ENTER &&
				  h->flags == api_id("ncclCommInitRank");
			futex += h->type == DLT_REC_STALL &&
				 ((const struct dlt_rec_stall *)(const void *)h)
						 ->tid == g->hdr.pid &&
				 ((const struct dlt_rec_stall *)(const void *)h)
						 ->syscall == SYS_FUTEX;
		}
		TU_CHECK(enters == 1, "%zu API_ENTER of ncclCommInitRank",
			 enters);
		TU_CHECK(futex >= 1,
			 "no STALL of the thread waiting in its first NCCL "
			 "call for a minute (threshold 1 s): the watchdog "
			 "was not running (%zu STALL records in all)",
			 gt_count(g, DLT_REC_STALL));
	}
	gs_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(idfile);
	free(dir);
	free(rdv);
}

/* A collective that never returns (format 1.2: one API_CALL opened before
 * the call, never closed): the reader shows it as the API_ENTER of a call
 * in flight, with the values it was called with, and `hangs` names it. */
static void test_hang_collective(void)
{
	char *rdv = tu_tmpdir("coll-rdv");
	char *dir = tu_tmpdir("hang-coll");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	const char *const *env = nccl_env(rdv, "FAKE_NCCL_ALLREDUCE_HANG=1");
	const char *env2[] = {env[0], env[1], env[2], "DLTRACE_STALL_MS=1000",
			      NULL};
	const char *cmd[] = {DLT_FAKE_FX_NCCL, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env2) == 0, "cannot start");
	free(argv);
	poll_traces(dir, allreduce_in_flight, NULL);
	tu_kill_group(&p);
	TU_CHECK(!tu_contains(p.out, "ncclAllReduce rc="),
		 "ncclAllReduce returned:\n%s", p.out);
	struct gset s;
	gs_load(dir, &s);
	struct gtrace *g = gs_only(&s, "fx_nccl");
	if (g) {
		size_t enters = 0, calls = 0;
		uint64_t count = 0;
		for (size_t i = 0; i < g->n; i++) {
			const struct dlt_rec_hdr *h = g->r[i].h;
			if (h->flags != api_id("ncclAllReduce"))
				continue;
			if (h->type == DLT_REC_API_ENTER) {
				enters++;
				count = ((const struct dlt_rec_api_enter
						  *)(const void *)h)
						->v[DLT_V_ncclAllReduce_count];
			}
			calls += h->type == DLT_REC_API_CALL;
		}
		TU_CHECK(enters == 1 && calls == 0 && count == 1024,
			 "ncclAllReduce: %zu in flight (count %llu), %zu "
			 "returned; expected one in flight with count 1024",
			 enters, (unsigned long long)count, calls);
	}
	gs_free(&s);
	int rc;
	char *text = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	const struct tu_json *ranks = tu_jget(j, "ranks");
	const struct tu_json *row = tu_jlen(ranks) ? tu_jat(ranks, 0) : NULL;
	const char *state = row ? tu_jstr(row, "state") : NULL;
	const char *last = row ? tu_jstr(row, "last_call") : NULL;
	TU_CHECK(state && strcmp(state, "IN CALL") == 0 && last &&
			 strcmp(last, "ncclAllReduce") == 0,
		 "hangs: state %s, last call %s; output:\n%s",
		 state ? state : "null", last ? last : "null",
		 text ? text : "");
	tu_json_free(j);
	free(text);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

/* Ranks of fx_nccl in ncclCommSplit, and fx_nccl traces that ended. */
struct split_state {
	size_t want_in_split, want_ended;
};

static int split_waiting(struct gset *s, void *ctx)
{
	const struct split_state *w = ctx;
	size_t in = 0, ended = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct gtrace *g = &s->t[i];
		if (strcmp(base_name(g->exe), "fx_nccl") != 0)
			continue;
		in += gt_in_flight(g, "ncclCommSplit", NULL) >= 1;
		ended += gt_count(g, DLT_REC_EXIT) >= 1;
	}
	return in >= w->want_in_split && ended >= w->want_ended;
}

/* Three ranks of one communicator; rank 2 never calls ncclCommSplit, so
 * ranks 0 and 1 wait in it for ever.  The split is an init of a
 * communicator (INIT_HANG) whose missing member is rank 2. */
static void test_hang_split(void)
{
	enum { N = 3 };
	char *rdv = tu_tmpdir("split-rdv");
	char *dir = tu_tmpdir("hang-split");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	char *idfile = tu_strfmt("%s/id", rdv);
	const char *const *env = nccl_env(rdv, "DLTRACE_STALL_MS=1000");
	struct tu_proc p[N];
	for (int r = 0; r < N; r++) {
		char rank[8];
		snprintf(rank, sizeof(rank), "%d", r);
		const char *cmd[] = {DLT_FAKE_FX_NCCL,
				     "--nranks",
				     "3",
				     "--rank",
				     rank,
				     "--id-file",
				     idfile,
				     r < 2 ? "--split" : NULL,
				     NULL};
		const char **argv = tu_launcher_argv(dir, NULL, cmd);
		TU_CHECK_FATAL(tu_proc_start(&p[r], argv, env) == 0,
			       "cannot start rank %d", r);
		free(argv);
	}
	tu_proc_wait(&p[2], 60000);
	TU_CHECK(tu_exit_code(p[2].status) == 0, "rank 2: %s\n%s",
		 tu_status_str(p[2].status), p[2].err);
	struct split_state want = {2, 1};
	TU_CHECK(poll_traces(dir, split_waiting, &want),
		 "after a minute, ranks 0 and 1 are not both in ncclCommSplit");
	for (int r = 0; r < 2; r++)
		tu_kill_group(&p[r]);
	int rc;
	char *text = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	expect_hangs_as_check(dir, j);
	const struct tu_json *f[8];
	size_t nhang = findings(j, "INIT_HANG", f, 8);
	TU_CHECK(rc == 1 && nhang == 2,
		 "hangs: exit %d, %zu INIT_HANG findings; expected 2 (ranks 0 "
		 "and 1 in the split)",
		 rc, nhang);
	for (size_t i = 0; i < nhang && i < 8; i++) {
		const struct tu_json *ev = tu_jget(f[i], "evidence");
		const struct tu_json *cv = tu_jget(ev, "call_values");
		int r = (int)jnum(f[i], "rank", -1);
		TU_CHECK(same_str(tu_jstr(ev, "call"), "ncclCommSplit") &&
				 jnum(cv, "color", -1) == r % 2 &&
				 jnum(cv, "key", -1) == r &&
				 jnum(ev, "nranks", -1) == N,
			 "INIT_HANG of rank %d: call %s, color %g, key %g, "
			 "nranks %g",
			 r, tu_jstr(ev, "call"), jnum(cv, "color", -1),
			 jnum(cv, "key", -1), jnum(ev, "nranks", -1));
	}
	size_t nmiss = findings(j, "MISSING_RANK", f, 8);
	const int want_missing[] = {2};
	TU_CHECK(nmiss == 1 && missing_is(f[0], want_missing, 1) &&
			 same_str(tu_jstr(f[0], "severity"), "error") &&
			 tu_contains(tu_jstr(f[0], "message"), "split"),
		 "%zu MISSING_RANK findings; expected one naming rank 2 as "
		 "never in the split",
		 nmiss);
	if (nmiss)
		printf("\n    %s\n", tu_jstr(f[0], "message"));
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json:\n%s\n", text ? text : "");
	free(text);
	tu_json_free(j);
	for (int r = 0; r < N; r++)
		tu_proc_free(&p[r]);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(idfile);
	free(dir);
	free(rdv);
}

/* ---- suite hang_mismatch ---------------------------------------------------
 */

/* Rank 0 says the communicator has 2 ranks, rank 1 says 3: rank 0's init
 * completes, rank 1 gives up waiting; the analysis names the mismatch. */
static void test_hang_mismatch(void)
{
	char *rdv = tu_tmpdir("mismatch-rdv");
	char *dir = tu_tmpdir("mismatch");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	char *idfile = tu_strfmt("%s/id", rdv);
	const char *const *env =
		nccl_env(rdv, "FAKE_NCCL_INIT_TIMEOUT_MS=1500");
	struct tu_proc p[2];
	const char *sizes[2] = {"2", "3"};
	for (int r = 0; r < 2; r++) {
		char rank[8];
		snprintf(rank, sizeof(rank), "%d", r);
		const char *cmd[] = {DLT_FAKE_FX_NCCL, "--nranks", sizes[r],
				     "--rank",	       rank,	   "--id-file",
				     idfile,	       NULL};
		const char **argv = tu_launcher_argv(dir, NULL, cmd);
		TU_CHECK_FATAL(tu_proc_start(&p[r], argv, env) == 0,
			       "cannot start rank %d", r);
		free(argv);
	}
	for (int r = 0; r < 2; r++)
		tu_proc_wait(&p[r], 30000);
	TU_CHECK(tu_exit_code(p[0].status) == 0 &&
			 tu_exit_code(p[1].status) == 1,
		 "rank 0 %s (expected exit 0), rank 1 %s (expected exit 1, "
		 "its init timed out)",
		 tu_status_str(p[0].status), tu_status_str(p[1].status));
	int rc;
	char *text = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	expect_hangs_as_check(dir, j);
	const struct tu_json *f[4];
	size_t n = findings(j, "RANK_MISMATCH", f, 4);
	TU_CHECK(rc == 1 && n >= 1,
		 "hangs: exit %d, %zu RANK_MISMATCH findings; expected one", rc,
		 n);
	if (n)
		TU_CHECK(tu_contains(tu_jstr(f[0], "message"), "disagree"),
			 "RANK_MISMATCH message: %s", tu_jstr(f[0], "message"));
	if (n)
		printf("\n    %s\n", tu_jstr(f[0], "message"));
	else
		fprintf(stderr, "hangs --json:\n%s\n", text ? text : "");
	free(text);
	tu_json_free(j);
	for (int r = 0; r < 2; r++)
		tu_proc_free(&p[r]);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(idfile);
	free(dir);
	free(rdv);
}

/* ---- suite hang_timeout: dltrace --hang-timeout ----------------------------
 */

static void test_hang_timeout(void)
{
	char *rdv = tu_tmpdir("timeout-rdv");
	char *dir = tu_tmpdir("hang-timeout");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	char *idfile = tu_strfmt("%s/id", rdv);
	/* Two of three ranks, started by a shell: a tree to end. */
	const char *cmd[] = {"/bin/sh",
			     "-c",
			     "\"$0\" --nranks 3 --rank 0 --id-file \"$1\" & "
			     "\"$0\" --nranks 3 --rank 1 --id-file \"$1\" & "
			     "wait",
			     DLT_FAKE_FX_NCCL,
			     idfile,
			     NULL};
	const char *opts[] = {"--hang-timeout", "3", NULL};
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	/* The default stall threshold (5 s): the records come from the
	 * snapshot the timeout asks for. */
	const char *env[] = {nccl_env(rdv, NULL)[0], NULL};
	struct tu_proc p;
	uint64_t t0 = realtime_ns();
	tu_run(&p, argv, env, 30000);
	double took = (double)(realtime_ns() - t0) / 1e9;
	free(argv);
	TU_CHECK(!p.timed_out && tu_exit_code(p.status) == 124,
		 "dltrace --hang-timeout 3: %s after %.1f s, expected exit "
		 "124; stderr:\n%s",
		 tu_status_str(p.status), took, p.err);
	TU_CHECK(took < 15, "dltrace --hang-timeout 3 took %.1f s", took);
	TU_CHECK(tu_count_lines(p.err, "dltrace: error INIT_HANG ") == 2,
		 "verdict: expected 2 INIT_HANG lines:\n%s", p.err);
	TU_CHECK(tu_count_lines(p.err, "dltrace: error MISSING_RANK ") == 1 &&
			 tu_contains(p.err, "rank(s) 2 never"),
		 "verdict: expected one MISSING_RANK line naming rank 2:\n%s",
		 p.err);
	TU_CHECK(tu_group_alive(p.pid, 3000) == 0,
		 "processes of the traced tree are still running");

	struct gset s;
	gs_load(dir, &s);
	size_t nccl_traces = 0;
	for (size_t i = 0; i < s.n; i++) {
		struct gtrace *g = &s.t[i];
		if (strcmp(base_name(g->exe), "fx_nccl") != 0)
			continue;
		nccl_traces++;
		/* The thread with ncclCommInitRank in flight, and its
		 * STALL: taken at the snapshot, under the 5 s threshold. */
		uint32_t tid = 0;
		for (size_t k = 0; k < g->n; k++)
			if (g->r[k].h->type == DLT_REC_API_ENTER &&
			    g->r[k].h->flags == api_id("ncclCommInitRank"))
				tid = g->r[k].tid;
		size_t stalls = 0, futex = 0;
		for (size_t k = 0; k < g->n; k++) {
			if (g->r[k].h->type != DLT_REC_STALL)
				continue;
			const struct dlt_rec_stall *st =
				(const void *)g->r[k].h;
			stalls++;
			TU_CHECK(st->dur_ns < 5000000000ull,
				 "%s: a STALL of %.1f s, past the threshold: "
				 "not the snapshot's",
				 g->path, (double)st->dur_ns / 1e9);
			futex += st->tid == tid && st->syscall == SYS_FUTEX;
		}
		TU_CHECK(tid != 0 && stalls > 0 && futex == 1,
			 "%s: %zu STALL records, %zu of the init thread %u in "
			 "futex",
			 g->path, stalls, futex, tid);
	}
	TU_CHECK(nccl_traces == 2, "%zu traces of fx_nccl, expected 2",
		 nccl_traces);
	gs_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(idfile);
	free(dir);
	free(rdv);
}

/* ---- suite hang_quiet: long waits that are no hang ------------------------
 */

/* Traces of programs whose name starts with one of want[] (NULL-ended),
 * each with a STALL record. */
struct quiet_want {
	const char *const *exes;
};

static int quiet_stalled(struct gset *s, void *ctx)
{
	const struct quiet_want *w = ctx;
	for (size_t k = 0; w->exes[k]; k++) {
		int found = 0;
		for (size_t i = 0; i < s->n && !found; i++)
			found = strncmp(base_name(s->t[i].exe), w->exes[k],
					strlen(w->exes[k])) == 0 &&
				gt_count(&s->t[i], DLT_REC_STALL) > 0;
		if (!found)
			return 0;
	}
	return 1;
}

/* A program waits (sleeping in a loop until flag exists) past the stall
 * threshold while every process in exes[] has its wait recorded; then it
 * finishes with status 0.  check and hangs must find nothing to warn
 * about: no STALL, no placeholder rank, and hangs exits 0. */
static void quiet_wait(const char *what, const char *const cmd[],
		       const char *const env[], const char *flag,
		       const char *dir, const char *const exes[])
{
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "%s: cannot start",
		       what);
	free(argv);
	struct quiet_want w = {exes};
	int stalled = poll_traces(dir, quiet_stalled, &w);
	FILE *f = fopen(flag, "w");
	if (f)
		fclose(f);
	tu_proc_wait(&p, 60000);
	TU_CHECK(stalled,
		 "%s: no STALL record in each of the traces after a "
		 "minute: the test proves nothing",
		 what);
	TU_CHECK(tu_exit_code(p.status) == 0, "%s: %s\n%s", what,
		 tu_status_str(p.status), p.err);
	TU_CHECK(!tu_contains(p.err, "dltrace: warning") &&
			 !tu_contains(p.err, "dltrace: error"),
		 "%s: the launcher's verdict warns:\n%s", what, p.err);
	int rc;
	char *text = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	const struct tu_json *fs = tu_jget(j, "findings");
	TU_CHECK(rc == 0, "%s: hangs exits %d on a job that completed", what,
		 rc);
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *fi = tu_jat(fs, i);
		const char *code = tu_jstr(fi, "code");
		const char *sev = tu_jstr(fi, "severity");
		TU_CHECK(!same_str(code, "STALL"),
			 "%s: a STALL finding for a wait that did not matter: "
			 "%s",
			 what, tu_jstr(fi, "message"));
		TU_CHECK(same_str(sev, "info"), "%s: %s %s: %s", what, sev,
			 code, tu_jstr(fi, "message"));
		TU_CHECK(!tu_contains(tu_jstr(fi, "message"), "rank -1"),
			 "%s: a placeholder rank: %s", what,
			 tu_jstr(fi, "message"));
	}
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json:\n%s\n", text ? text : "");
	expect_hangs_as_check(dir, j);
	free(text);
	tu_json_free(j);
	tu_proc_free(&p);
}

static const char quiet_loop[] = "import os, sys, time\n"
				 "while not os.path.exists(sys.argv[1]):\n"
				 "    time.sleep(0.2)\n";

/* A launcher script with the launcher's variables (WORLD_SIZE, no RANK)
 * that waits for its one child. */
static void test_quiet_launcher(void)
{
	char *dir = tu_tmpdir("quiet-launcher");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *flag = tu_strfmt("%s.go", dir);
	const char *cmd[] = {
		"/bin/sh",   "-c",	 "\"$0\" -c \"$1\" \"$2\"; true",
		tu_python(), quiet_loop, flag,
		NULL};
	/* Nothing listens there (the script never rendezvous), but the port
	 * is one no other test of a parallel run is given. */
	int port = tu_free_port();
	TU_CHECK_FATAL(port > 0, "no free port");
	char *port_env = tu_strfmt("MASTER_PORT=%d", port);
	const char *env[] = {"WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", port_env,
			     "DLTRACE_STALL_MS=300", NULL};
	const char *const exes[] = {"dash", "python", NULL};
	const char *const exes_sh[] = {"sh", "python", NULL};
	char sh[1024] = "";
	ssize_t l = readlink("/bin/sh", sh, sizeof(sh) - 1);
	sh[l > 0 ? l : 0] = '\0';
	quiet_wait("launcher script waiting", cmd, env, flag, dir,
		   strstr(sh, "dash") ? exes : exes_sh);
	unlink(flag);
	free(port_env);
	free(flag);
	tu_rmtree(dir);
	free(dir);
}

static const char *python_skip(void)
{
	return tu_python_skip("os");
}

/* ---- suite hang_torch: Debian's python3-torch, gloo, rank 1 absent ----------
 */

static const char *torch_skip(void)
{
	return tu_python_skip("torch.distributed");
}

/* `python3 -c 'import torch, time; time.sleep(...)'`: a framework is
 * loaded, so the watchdog runs and records the sleep; nothing hung. */
static void test_quiet_torch(void)
{
	char *dir = tu_tmpdir("quiet-torch");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *flag = tu_strfmt("%s.go", dir);
	char *script = tu_strfmt("import torch\n%s", quiet_loop);
	const char *cmd[] = {tu_python(), "-c", script, flag, NULL};
	const char *env[] = {"DLTRACE_STALL_MS=300", NULL};
	const char *const exes[] = {"python", NULL};
	quiet_wait("python importing torch and sleeping", cmd, env, flag, dir,
		   exes);
	unlink(flag);
	free(script);
	free(flag);
	tu_rmtree(dir);
	free(dir);
}

static void test_hang_torch(void)
{
	char *dir = tu_tmpdir("hang-torch");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	int port = tu_free_port();
	TU_CHECK_FATAL(port > 0, "no free port");
	char port_env[64];
	snprintf(port_env, sizeof(port_env), "MASTER_PORT=%d", port);
	const char *env[] = {
		"RANK=0", "WORLD_SIZE=2",	   "MASTER_ADDR=127.0.0.1",
		port_env, "DLTRACE_STALL_MS=1000", NULL};
	const char *script = "import datetime\n"
			     "import torch.distributed as dist\n"
			     "print('init', flush=True)\n"
			     "dist.init_process_group('gloo', "
			     "timeout=datetime.timedelta(seconds=300))\n"
			     "print('joined', flush=True)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	uint64_t started_at = realtime_ns();
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start");
	free(argv);
	char line[256] = "";
	int r = tu_proc_readline(&p, line, sizeof(line), 90000);
	if (r != 1 || strcmp(line, "init") != 0)
		kill(-p.pid, SIGKILL);
	TU_CHECK(r == 1 && strcmp(line, "init") == 0,
		 "python did not reach init_process_group (got \"%s\")", line);
	/* Killed once the analysis of the live traces shows rank 0 blocked
	 * for 3 s in the rendezvous: the store polls (sleep, ask, sleep ...),
	 * and only one wait made of all of them gets that long. */
	const double seen = 3e9;
	uint64_t until = mono_ms() + 60000;
	while (r == 1 && mono_ms() < until) {
		int rc0;
		struct tu_json *j0 = hangs_json(dir, &rc0, NULL);
		const struct tu_json *f0[2];
		int ok = findings(j0, "INIT_HANG", f0, 2) == 1 &&
			 jnum(tu_jget(f0[0], "evidence"), "blocked_ns", 0) >=
				 seen;
		tu_json_free(j0);
		if (ok)
			break;
		sleep_ms(200);
	}
	uint64_t killed_at = realtime_ns();
	kill(-p.pid, SIGKILL);
	tu_proc_wait(&p, 10000);
	TU_CHECK(!tu_contains(p.out, "joined"),
		 "rank 0 joined a world of 2 alone:\n%s", p.out);
	TU_CHECK(tu_group_alive(p.pid, 3000) == 0, "python is still running");

	int rc;
	char *text = NULL;
	struct tu_json *j = hangs_json(dir, &rc, &text);
	expect_hangs_as_check(dir, j);
	const struct tu_json *f[8];
	size_t nhang = findings(j, "INIT_HANG", f, 8);
	TU_CHECK(rc == 1 && nhang == 1,
		 "hangs: exit %d, %zu INIT_HANG findings; expected one (rank "
		 "0 in the rendezvous)",
		 rc, nhang);
	if (nhang >= 1) {
		const struct tu_json *ev = tu_jget(f[0], "evidence");
		const char *msg = tu_jstr(f[0], "message");
		const char *stack = tu_jstr(ev, "stack");
		const char *sc = tu_jstr(ev, "syscall");
		TU_CHECK(jnum(f[0], "rank", -1) == 0,
			 "INIT_HANG of rank %g, expected 0",
			 jnum(f[0], "rank", -1));
		TU_CHECK(tu_contains(msg, "rendezvous"),
			 "INIT_HANG does not say rendezvous: %s", msg);
		TU_CHECK(tu_contains(stack, "TCPStore") ||
				 tu_contains(stack, "waitForWorkers"),
			 "the waiting thread's stack does not show the store "
			 "wait: %s",
			 stack ? stack : "null");
		TU_CHECK(sc && (strcmp(sc, "clock_nanosleep") == 0 ||
				strcmp(sc, "nanosleep") == 0 ||
				strcmp(sc, "poll") == 0 ||
				strcmp(sc, "ppoll") == 0),
			 "rank 0 blocked in %s, expected clock_nanosleep or "
			 "poll",
			 sc ? sc : "nothing");
		/* The store sleeps a few milliseconds at a time: a wait of
		 * at least the 1 s threshold is many sleeps taken as one.
		 * Not necessarily the 3 s seen live: on a loaded machine the
		 * loop can fall out of step with the watchdog, and the wait
		 * then starts again.  At most the time from start to kill. */
		double blocked = jnum(ev, "blocked_ns", 0);
		double most = (double)(killed_at - started_at);
		TU_CHECK(blocked >= 1e9 && blocked <= most + 1e6,
			 "rank 0 blocked for %.2f s by the record (threshold "
			 "1 s); %.2f s passed from the start to the kill",
			 blocked / 1e9, most / 1e9);
		printf("\n    %s\n", msg);
	}
	size_t nmiss = findings(j, "MISSING_RANK", f, 8);
	const int want_missing[] = {1};
	TU_CHECK(nmiss == 1 && missing_is(f[0], want_missing, 1),
		 "%zu MISSING_RANK findings; expected one naming rank 1",
		 nmiss);
	if (nmiss)
		printf("    %s\n", tu_jstr(f[0], "message"));
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json:\n%s\n", text ? text : "");
	free(text);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suites
 * ------------------------------------------------------------------ */

static const struct tu_test cuda_tests[] = {
	{"runtime linked: calls, values, versions", test_cuda_direct},
	{"runtime through dlopen + dlsym, driver entry points",
	 test_cuda_dlopen},
	{"driver through cuGetProcAddress, asked for itself, static runtime",
	 test_cuda_getprocaddress},
	{"driver calls the runtime makes through cuGetProcAddress",
	 test_cuda_runtime_driver_calls},
	{NULL, NULL}};

static const struct tu_test cudnn_tests[] = {
	{"cuDNN 9 legacy API, linked and dlopen", test_cudnn_legacy9},
	{"cuDNN 7 with preference forms, linked and dlopen",
	 test_cudnn_legacy7},
	{"failing candidates and executions", test_cudnn_fail_algos},
	{"sub-library version skew", test_cudnn_skew},
	{"backend API: engines, knobs, plans, executions", test_cudnn_backend},
	{NULL, NULL}};

static const struct tu_test nccl_tests[] = {
	{"one rank, linked", test_nccl_single},
	{"three ranks and a split, one id", test_nccl_ranks},
	{"ncclCommInitAll", test_nccl_all},
	{"dlopen + dlsym, pnccl names", test_nccl_dlopen},
	{NULL, NULL}};

static const struct tu_test dlerror_tests[] = {
	{"first runtime call keeps a pending dlerror",
	 test_dlerror_driver_found},
	{"... when the runtime finds no driver", test_dlerror_no_driver},
	{NULL, NULL}};

static const struct tu_test real_tests[] = {
	{"real libraries in " DLT_TEST_REAL_LIBDIR, test_real}, {NULL, NULL}};

static const struct tu_test hang_nccl_tests[] = {
	{"3 of 4 ranks in ncclCommInitRank, SIGKILL", test_hang_nccl},
	{"... killed before the stall threshold, default settings",
	 test_hang_nccl_early},
	{"a job hung right now: its live directory", test_hang_live},
	{"watchdog running when the first NCCL call hangs",
	 test_hang_first_call},
	{"a collective that never returns is in flight", test_hang_collective},
	{"a rank that skips ncclCommSplit", test_hang_split},
	{NULL, NULL}};

static const struct tu_test hang_mismatch_tests[] = {
	{"ranks disagree on nranks", test_hang_mismatch}, {NULL, NULL}};

static const struct tu_test hang_timeout_tests[] = {
	{"dltrace --hang-timeout ends a hung tree", test_hang_timeout},
	{NULL, NULL}};

static const struct tu_test hang_torch_tests[] = {
	{"gloo rendezvous with rank 1 absent, SIGKILL", test_hang_torch},
	{"import torch, then sleep: no finding", test_quiet_torch},
	{NULL, NULL}};

static const struct tu_test hang_quiet_tests[] = {
	{"a launcher script waiting for its child: no finding",
	 test_quiet_launcher},
	{NULL, NULL}};

/* Under qemu-user (scripts/cross-arm64.sh sets DLTRACE_TEST_EMULATED),
 * /proc/self/task/TID/syscall shows the emulator's own system call and
 * registers, not the program's: the watchdog cannot see what a thread
 * waits in there. */
static const char *watchdog_skip(void)
{
	const char *e = getenv("DLTRACE_TEST_EMULATED");
	return e && *e ? "under an emulator, /proc shows the emulator's "
			 "system calls, not the program's"
		       : NULL;
}

static const char *torch_hang_skip(void)
{
	const char *r = watchdog_skip();
	return r ? r : torch_skip();
}

/* The quiet waits need the watchdog to see them, and python3. */
static const char *quiet_skip(void)
{
	const char *r = watchdog_skip();
	return r ? r : python_skip();
}

static const struct tu_suite suites[] = {
	{"gpu_cuda", cuda_tests, NULL},
	{"gpu_cudnn", cudnn_tests, NULL},
	{"gpu_nccl", nccl_tests, NULL},
	{"gpu_dlerror", dlerror_tests, NULL},
	{"gpu_compact", compact_tests, NULL},
	{"gpu_real", real_tests, real_skip},
	{"hang_nccl", hang_nccl_tests, watchdog_skip},
	{"hang_mismatch", hang_mismatch_tests, NULL},
	{"hang_timeout", hang_timeout_tests, watchdog_skip},
	{"hang_torch", hang_torch_tests, torch_hang_skip},
	{"hang_quiet", hang_quiet_tests, quiet_skip},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
