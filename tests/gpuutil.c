#define _GNU_SOURCE
#include "gpuutil.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apinames.h"
#include "fake_paths.h"

/* ---- running programs plainly and traced ------------------------------ */

const char *tg_base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

int tg_run_traced(struct tu_proc *p, const char *dir, const char *const cmd[],
		  const char *const env[])
{
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	int r = tu_run(p, argv, env, TG_RUN_MS);
	free(argv);
	return r;
}

/* Runs cmd plainly and under `dltrace -o dir`; the runs must match and the
 * plain one must exit with want_exit (-1: any). */
void tg_run_pair(const char *what, const char *const cmd[],
		 const char *const env[], const char *dir, int want_exit,
		 struct tu_proc *plain, struct tu_proc *traced)
{
	tu_run(plain, cmd, env, TG_RUN_MS);
	TU_CHECK(want_exit < 0 || tu_exit_code(plain->status) == want_exit,
		 "%s: fixture broken: plain run %s, expected exit %d\n%s%s",
		 what, tu_status_str(plain->status), want_exit, plain->out,
		 plain->err);
	tg_run_traced(traced, dir, cmd, env);
	tu_expect_same_run(what, plain, traced, 1);
}

/* Copies src into dst, cut to fit. */
void tg_set_line(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

uint64_t tg_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tg_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

const char *tg_api_name(uint16_t id)
{
	const struct dlt_api_desc *a = dlt_api_by_id(id);
	return a ? a->name : "?";
}

uint16_t tg_api_id(const char *name)
{
	const struct dlt_api_desc *a = dlt_api_by_name(name);
	TU_CHECK_FATAL(a != NULL, "%s is not in apis.def", name);
	return a->id;
}

size_t tg_call_nv(const struct dlt_rec_hdr *h)
{
	return (h->len - sizeof(struct dlt_rec_api_call)) / 8;
}

/* API_CALL records of one API, in order. */
size_t tg_calls(const struct tu_trace *g, uint16_t id,
		const struct dlt_rec_api_call **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_API_CALL || h->flags != id)
			continue;
		if (out && n < max)
			out[n] = (const void *)h;
		n++;
	}
	return n;
}

size_t tg_count(const struct tu_trace *g, uint16_t type)
{
	size_t n = 0;
	for (size_t i = 0; i < g->nrecs; i++)
		n += g->recs[i].h->type == type;
	return n;
}

/* Prints the API records of a trace, for failure messages. */
void tg_dump_calls(const struct tu_trace *g)
{
	fprintf(stderr, "    API records of %s:\n", g->path);
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type == DLT_REC_API_CALL) {
			const struct dlt_rec_api_call *c = (const void *)h;
			fprintf(stderr, "      %u CALL  %s ret=%d",
				g->recs[i].tid, tg_api_name(h->flags), c->ret);
			for (size_t k = 0; k < tg_call_nv(h); k++)
				fprintf(stderr, " %lld", (long long)c->v[k]);
			fprintf(stderr, "\n");
		} else if (h->type == DLT_REC_API_ENTER) {
			fprintf(stderr, "      %u ENTER %s\n", g->recs[i].tid,
				tg_api_name(h->flags));
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
		tg_set_line(e->line, sizeof(e->line), line);
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
static int nested_call(const struct tu_trace *g, size_t i)
{
	const struct dlt_rec_api_call *c = (const void *)g->recs[i].h;
	uint64_t s = c->h.ts, e = s + dlt_dur_ns(c->dur);
	for (size_t k = 0; k < g->nrecs; k++) {
		const struct dlt_rec_hdr *h = g->recs[k].h;
		if (k == i || h->type != DLT_REC_API_CALL ||
		    g->recs[k].tid != g->recs[i].tid)
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
size_t tg_expect_calls(const char *what, const struct tu_trace *g, uint32_t tid,
		       const char *out)
{
	struct ecall *e;
	size_t ne = parse_calls(out, &e);
	uint32_t wanted[65536 / 32] = {0};
	for (size_t i = 0; i < ne; i++)
		wanted[e[i].api->id / 32] |= 1u << (e[i].api->id % 32);
	size_t k = 0, bad = 0;
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_API_CALL || g->recs[i].tid != tid ||
		    !(wanted[h->flags / 32] & (1u << (h->flags % 32))) ||
		    nested_call(g, i))
			continue;
		const struct dlt_rec_api_call *c = (const void *)h;
		if (k >= ne) {
			TU_CHECK(0, "%s: extra API_CALL %s ret=%d in the trace",
				 what, tg_api_name(h->flags), c->ret);
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
			ok = (size_t)li < tg_call_nv(h) &&
			     (long long)c->v[li] == x->val[q];
		}
		TU_CHECK(ok,
			 "%s: record %zu is API_CALL %s ret=%d; the program "
			 "printed \"%s\"",
			 what, k, tg_api_name(h->flags), c->ret, x->line);
		bad += !ok;
	}
	TU_CHECK(k == ne,
		 "%s: %zu API_CALL records, the program printed %zu "
		 "calls (first unmatched: \"%s\")",
		 what, k, ne, k < ne ? e[k].line : "-");
	if (bad || k != ne)
		tg_dump_calls(g);
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
void tg_expect_enter_pairs(const char *what, const struct tu_trace *g,
			   const char *const need[])
{
	size_t *open = calloc(g->nrecs + 1, sizeof(*open));
	size_t nopen = 0, pairs = 0;
	uint16_t seen[64];
	size_t nseen = 0;
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
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
			const struct tu_rec *o = &g->recs[open[q]];
			if (o->tid == g->recs[i].tid && o->h->flags == h->flags)
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
				 what, a->name, g->recs[i].tid);
			continue;
		}
		const struct dlt_rec_api_enter *en =
			(const void *)g->recs[open[q]].h;
		const struct dlt_rec_api_call *c = (const void *)h;
		size_t env = (en->h.len - sizeof(*en)) / 8;
		int ok = env <= tg_call_nv(h) && en->h.ts <= c->h.ts + 1000;
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
			 what, tg_api_name(g->recs[open[q]].h->flags),
			 g->recs[open[q]].tid);
	for (const char *const *n = need; n && *n; n++) {
		uint16_t id = tg_api_id(*n);
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
const struct dlt_rec_family *tg_family(const struct tu_trace *g, int fam,
				       size_t *count)
{
	const struct dlt_rec_family *f = NULL;
	*count = 0;
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type == DLT_REC_LIB_FAMILY && h->flags == fam &&
		    ((const struct dlt_rec_family *)(const void *)h)->source ==
			    DLT_FAMSRC_CALL) {
			(*count)++;
			f = (const void *)h;
		}
	}
	return f;
}

/* One LIB_FAMILY of this family, from want_path, first found by
 * first_api, with these slots (the others not checked). */
void tg_expect_family(const char *what, const struct tu_trace *g, int fam,
		      const char *want_path, const char *first_api,
		      const struct tg_want *want)
{
	size_t n;
	const struct dlt_rec_family *f = tg_family(g, fam, &n);
	TU_CHECK(n == 1, "%s: %zu LIB_FAMILY records of %s, expected 1", what,
		 n, dlt_family_name(fam));
	if (f == NULL)
		return;
	const char *path = tu_trace_str(g, f->path);
	TU_CHECK(tu_same_file(path, want_path),
		 "%s: LIB_FAMILY %s path %s, expected %s", what,
		 dlt_family_name(fam), path, want_path);
	if (first_api)
		TU_CHECK(f->api == tg_api_id(first_api),
			 "%s: LIB_FAMILY %s first found by %s, expected %s",
			 what, dlt_family_name(fam),
			 tg_api_name((uint16_t)f->api), first_api);
	for (const struct tg_want *w = want; w->slot >= 0; w++)
		TU_CHECK(f->v[w->slot] == w->value,
			 "%s: LIB_FAMILY %s %s = %lld, expected %lld", what,
			 dlt_family_name(fam),
			 dlt_family_slot_name(fam, (size_t)w->slot),
			 (long long)f->v[w->slot], (long long)w->value);
}

/* Where an API's value of this name is in its records; past the last
 * value when it has none. */
size_t tg_value_index(uint16_t api, const char *value)
{
	const struct dlt_api_desc *a = dlt_api_by_id(api);
	if (a == NULL)
		return SIZE_MAX;
	size_t i = 0;
	while (i < a->nvalues && strcmp(a->values[i], value) != 0)
		i++;
	return i;
}

void tg_expect_no_note(const char *what, const struct tu_trace *g,
		       const char *text)
{
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_NOTE)
			continue;
		const struct dlt_rec_note *r = (const void *)h;
		const char *s = tu_trace_str(g, r->text);
		TU_CHECK(!tu_contains(s, text), "%s: NOTE \"%s\"", what, s);
	}
}

char *tg_fake_file(const char *dir, const char *name)
{
	return tu_strfmt("%s/%s", dir, name);
}

/* The nth API_CALL of name has these values (the others not checked). */
void tg_expect_values(const char *what, const struct tu_trace *g,
		      const char *name, size_t nth, const struct tg_want *want)
{
	const struct dlt_rec_api_call *c[64];
	size_t k = tg_calls(g, tg_api_id(name), c, 64);
	TU_CHECK(nth < k, "%s: no API_CALL #%zu of %s (%zu of them)", what, nth,
		 name, k);
	if (nth >= k || nth >= 64)
		return;
	const struct dlt_api_desc *a = dlt_api_by_name(name);
	for (const struct tg_want *w = want; w->slot >= 0; w++) {
		TU_CHECK(tg_call_nv(&c[nth]->h) > (size_t)w->slot,
			 "%s: %s has %zu values, no %s", what, name,
			 tg_call_nv(&c[nth]->h),
			 dlt_api_value_name(a, (size_t)w->slot));
		if (tg_call_nv(&c[nth]->h) <= (size_t)w->slot)
			continue;
		TU_CHECK((int64_t)c[nth]->v[w->slot] == w->value,
			 "%s: %s #%zu %s is %lld, expected %lld", what, name,
			 nth, dlt_api_value_name(a, (size_t)w->slot),
			 (long long)c[nth]->v[w->slot], (long long)w->value);
	}
}

/* ---- findings ------------------------------------------------------------ */

double tg_jnum(const struct tu_json *o, const char *key, double dflt)
{
	const struct tu_json *v = tu_jget(o, key);
	return v && v->type == TU_JNUM ? v->num : dflt;
}

/* Both strings there and equal. */
int tg_same_str(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* `dltrace-analyze CMD --json` (check or hangs) on every trace in dir,
 * parsed, every finding documented; *rc gets its exit status (0 or 1),
 * *text (when not NULL) the output. */
struct tu_json *tg_analyze_json(const char *cmd, const char *dir, int *rc,
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
size_t tg_findings(const struct tu_json *j, const char *code,
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

/* ---- the fakes' environments --------------------------------------------- */

static char env_llp_cuda[4200], env_rt_ver[64], env_drv_ver[64];

const char *const *tg_cuda_env(void)
{
	snprintf(env_llp_cuda, sizeof(env_llp_cuda), "LD_LIBRARY_PATH=%s",
		 DLT_FAKE_CUDA_DIR);
	snprintf(env_rt_ver, sizeof(env_rt_ver), "FAKE_CUDART_VERSION=%d",
		 TG_RT_VER);
	snprintf(env_drv_ver, sizeof(env_drv_ver),
		 "FAKE_CUDA_DRIVER_VERSION=%d", TG_DRV_VER);
	static const char *env[4];
	env[0] = env_llp_cuda;
	env[1] = env_rt_ver;
	env[2] = env_drv_ver;
	env[3] = NULL;
	return env;
}

static char env_nccl_dir[4200];

const char *const *tg_nccl_env(const char *rdv, const char *extra)
{
	snprintf(env_nccl_dir, sizeof(env_nccl_dir), "FAKE_NCCL_DIR=%s", rdv);
	static const char *env[4];
	env[0] = env_nccl_dir;
	env[1] = "FAKE_NCCL_VERSION=22810";
	env[2] = extra;
	env[3] = NULL;
	return env;
}

const char *tg_watchdog_skip(void)
{
	const char *e = getenv("DLTRACE_TEST_EMULATED");
	return e && *e ? "under an emulator, /proc shows the emulator's "
			 "system calls, not the program's"
		       : NULL;
}
