/* Faults in the traced process: for each, tests/fixtures/fx_faults.c runs
 * plainly and under dltrace, the program's own output and exit status must
 * be those of the plain run (dltrace may add its one "tracing turned off"
 * line per process), and the trace written up to the fault must read back
 * without a problem and hold the records written before it.
 *
 *   test_faults [SUITE...]   dir fsize nofile closefds spawn static signals
 *                            threads dlcycles exit sigkill fallbacks
 *
 * DLT_FAULTS_REPS (sigkill repetitions, default 8), DLT_FAULTS_SCALE (a
 * factor on the counts of the signals, spawn and dlcycles suites, default
 * 1) and DLT_FAULTS_SEED make the long runs of scripts/faults-long.sh. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_paths.h"
#include "fx_faults.h"
#include "testutil.h"
#include "writer.h"

#define RUN_MS 60000

/* API ids as traces store them (API_CALL flags). */
enum {
#define DLT_API(id, fam, name, ...) API_##name = id,
#include "dltrace/apis.def"
#undef DLT_API
};

static unsigned long env_num(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);
	if (v == NULL || *v == '\0')
		return dflt;
	unsigned long n = strtoul(v, NULL, 10);
	return n ? n : dflt;
}

static unsigned long scale(unsigned long n)
{
	return n * env_num("DLT_FAULTS_SCALE", 1);
}

static char *numstr(unsigned long n)
{
	return tu_strfmt("%lu", n);
}

/* ---- mark series ---------------------------------------------------------
 */

/* The seq values seen for one mark id. */
struct series {
	uint8_t *seen;
	uint64_t cap;
	uint64_t count, dups, top; /* top: highest seq + 1 */
};

struct tally {
	struct series s[64];
	uint64_t total, bad_sum, bad_id;
};

static void tally_add(struct tally *t, const struct tu_mark *m)
{
	t->total++;
	if (m->id >= 64) {
		t->bad_id++;
		return;
	}
	if (m->aux != fx_mark_sum(m->id, m->value)) {
		t->bad_sum++;
		return;
	}
	struct series *s = &t->s[m->id];
	if (m->value >= s->cap) {
		uint64_t cap = s->cap ? s->cap : 4096;
		while (cap <= m->value)
			cap *= 2;
		uint8_t *n = realloc(s->seen, cap);
		if (n == NULL)
			abort();
		memset(n + s->cap, 0, cap - s->cap);
		s->seen = n;
		s->cap = cap;
	}
	if (s->seen[m->value]) {
		s->dups++;
		return;
	}
	s->seen[m->value] = 1;
	s->count++;
	if (m->value + 1 > s->top)
		s->top = m->value + 1;
}

static void tally_trace(struct tally *t, const struct tu_trace *tr)
{
	for (size_t i = 0; i < tr->nmarks; i++)
		tally_add(t, &tr->marks[i]);
}

static void tally_free(struct tally *t)
{
	for (int i = 0; i < 64; i++)
		free(t->s[i].seen);
	memset(t, 0, sizeof(*t));
}

/* No mark is torn, misplaced or written twice. */
static void expect_sound(const char *what, const struct tally *t)
{
	uint64_t dups = 0;
	for (int i = 0; i < 64; i++)
		dups += t->s[i].dups;
	TU_CHECK(t->bad_sum == 0 && t->bad_id == 0 && dups == 0,
		 "%s: of %llu marks, %llu fail their checksum, %llu have a bad "
		 "id, %llu are duplicates",
		 what, (unsigned long long)t->total,
		 (unsigned long long)t->bad_sum, (unsigned long long)t->bad_id,
		 (unsigned long long)dups);
}

/* Series id is exactly 0..n-1. */
static void expect_exact(const char *what, const struct tally *t, uint32_t id,
			 uint64_t n)
{
	const struct series *s = &t->s[id];
	TU_CHECK(s->count == n && s->top == n,
		 "%s: mark %u: %llu of %llu written, highest seq %lld", what,
		 id, (unsigned long long)s->count, (unsigned long long)n,
		 (long long)s->top - 1);
}

/* Series id is 0..k-1 for some k, without a gap; returns k. */
static uint64_t expect_prefix(const char *what, const struct tally *t,
			      uint32_t id)
{
	const struct series *s = &t->s[id];
	TU_CHECK(s->count == s->top,
		 "%s: mark %u: %llu marks but the highest seq is %lld: records "
		 "before the last are missing",
		 what, id, (unsigned long long)s->count, (long long)s->top - 1);
	return s->count;
}

/* ---- traces --------------------------------------------------------------
 */

/* Every trace in the set read without a problem. */
static void expect_readable(const char *what, const struct tu_traceset *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->t[i].nproblems; k++)
			TU_CHECK(0, "%s: %s: %s", what, s->t[i].path,
				 s->t[i].problems[k]);
}

/* The chunk that ends at alloc_cursor ends at its last record, and the
 * file ends there too, or (by_process) was never grown: a file still at
 * its start size is left so by its process (issue 31: the cut cost a
 * short process more than the 12 KiB it gives back; the launcher's
 * compaction cuts it). */
static void expect_cut_by(const char *what, const char *path, int by_process)
{
	struct tu_layout l;
	int r = tu_trace_layout(path, &l);
	TU_CHECK(r == 0 && l.last_unused == 0 &&
			 (l.size == l.cursor ||
			  (by_process && l.size == DLT_FILE_START &&
			   l.cursor < l.size)),
		 "%s: %s is not cut: %llu bytes, alloc_cursor %llu, %llu bytes "
		 "after the last record of the last chunk",
		 what, path, (unsigned long long)l.size,
		 (unsigned long long)l.cursor,
		 (unsigned long long)l.last_unused);
}

/* As its process left it. */
static void expect_cut(const char *what, const char *path)
{
	expect_cut_by(what, path, 1);
}

/* After the launcher's or dltrace-analyze's compaction. */
static void expect_compacted(const char *what, const char *path)
{
	expect_cut_by(what, path, 0);
}

/* The one trace of the set holding marks of id (NULL, and a failed check,
 * unless exactly one does). */
static const struct tu_trace *
trace_with(const char *what, const struct tu_traceset *s, uint32_t id)
{
	const struct tu_trace *t;
	size_t n = tu_traceset_with_mark(s, id, &t);
	TU_CHECK(n == 1, "%s: %zu traces hold mark %u, expected 1", what, n,
		 id);
	if (n != 1)
		tu_traceset_dump(s);
	return n == 1 ? t : NULL;
}

/* How often dltrace said it turned tracing off. */
static size_t off_lines(const struct tu_proc *p)
{
	return tu_count_lines(p->err, "dltrace: tracing turned off");
}

/* Counts records of one type (and, for API_CALL, one API id) in a trace;
 * for DLOPEN, LIB_LOAD with DLT_LIB_DLOPEN and LIB_UNLOAD, only those of
 * the library whose base name is name. */
struct rec_count {
	struct dlt_trace *tr;
	uint16_t type;
	int api; /* -1: any */
	const char *name;
	uint64_t n;
};

static int count_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct rec_count *c = ctx;
	if (v->rec->type != c->type)
		return 0;
	if (c->api >= 0 && v->rec->flags != (uint16_t)c->api)
		return 0;
	const char *s = NULL;
	if (c->type == DLT_REC_DLOPEN)
		s = dlt_trace_str(
			c->tr, ((const struct dlt_rec_dlopen *)v->rec)->name);
	else if (c->type == DLT_REC_LIB_LOAD &&
		 (v->rec->flags & DLT_LIB_DLOPEN))
		s = dlt_trace_str(
			c->tr, ((const struct dlt_rec_lib_load *)v->rec)->path);
	if (c->name && c->type != DLT_REC_LIB_UNLOAD) {
		const char *b = s ? strrchr(s, '/') : NULL;
		if (b == NULL || strcmp(b + 1, c->name) != 0)
			return 0;
	}
	c->n++;
	return 0;
}

static uint64_t count_records(const char *path, uint16_t type, int api,
			      const char *name)
{
	char err[512];
	struct rec_count c = {NULL, type, api, name, 0};
	c.tr = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK(c.tr != NULL, "%s does not open: %s", path, err);
	if (c.tr == NULL)
		return 0;
	dlt_trace_foreach(c.tr, count_rec, &c);
	dlt_trace_close(c.tr);
	return c.n;
}

/* "KEY VALUE" from a report file written by the fixture; -1 if absent. */
static long long report_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	char line[256];
	long long v = -1;
	size_t kl = strlen(key);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ' ')
			v = strtoll(line + kl + 1, NULL, 10);
	fclose(f);
	return v;
}

/* ---- one fixture run, plain and traced -------------------------------------
 */

struct pair {
	char *scratch; /* removed at the end unless a check failed */
	char *dir;     /* the trace directory */
	struct tu_proc plain, traced;
	struct tu_traceset set;
};

static void pair_init(struct pair *p, const char *tag)
{
	memset(p, 0, sizeof(*p));
	p->scratch = tu_tmpdir(tag);
	TU_CHECK_FATAL(p->scratch != NULL, "no scratch directory");
	p->dir = tu_strfmt("%s/trace", p->scratch);
}

/* Runs cmd plainly and under `dltrace -o dir`, compares the two and loads
 * the traces.  plain_cmd, if not NULL, is what the plain run runs instead
 * (where an argument names a path of that run). */
static void pair_run(struct pair *p, const char *what, const char *const cmd[],
		     const char *const plain_cmd[])
{
	tu_run(&p->plain, plain_cmd ? plain_cmd : cmd, NULL, RUN_MS);
	tu_run_traced(&p->traced, p->dir, cmd, NULL, RUN_MS);
	tu_expect_same_launched(what, &p->plain, &p->traced, 1);
	tu_traceset_load(p->dir, &p->set);
	expect_readable(what, &p->set);
}

static void pair_free(struct pair *p)
{
	tu_traceset_free(&p->set);
	tu_proc_free(&p->plain);
	tu_proc_free(&p->traced);
	tu_rmtree(p->scratch);
	free(p->scratch);
	free(p->dir);
}

/* ---- suite: dir -----------------------------------------------------------
 */

/* The launcher makes a missing directory (with its parents); LD_PRELOAD
 * alone only its last part, and otherwise says once that it cannot trace. */
static void test_dir_missing(void)
{
	struct pair p;
	pair_init(&p, "dirmissing");
	free(p.dir);
	p.dir = tu_strfmt("%s/not/yet/there", p.scratch);
	char *fx = tu_fx("fx_faults");
	const char *cmd[] = {fx, "marks", "5000", NULL};
	pair_run(&p, "dltrace -o a missing directory", cmd, NULL);
	TU_CHECK(off_lines(&p.traced) == 0, "tracing turned off:\n%s",
		 p.traced.err);
	struct tally t = {0};
	const struct tu_trace *tr =
		trace_with("missing -o", &p.set, FX_ID_MAIN);
	if (tr)
		tally_trace(&t, tr);
	expect_sound("missing -o", &t);
	expect_exact("missing -o", &t, FX_ID_MAIN, 5000);
	tally_free(&t);

	char *deep = tu_strfmt("%s/also/not/there", p.scratch);
	for (int no_audit = 0; no_audit < 2; no_audit++) {
		const char **env = tu_preload_env(deep, NULL, no_audit);
		struct tu_proc pre;
		tu_run(&pre, cmd, env, RUN_MS);
		char *what = tu_strfmt("LD_PRELOAD, DLTRACE_DIR missing with "
				       "its parent%s",
				       no_audit ? ", DLTRACE_AUDIT=0" : "");
		tu_expect_same_run(what, &p.plain, &pre, 1);
		TU_CHECK(off_lines(&pre) == 1 && tu_contains(pre.err, deep),
			 "%s: expected one \"tracing turned off\" line naming "
			 "%s:\n%s",
			 what, deep, pre.err);
		TU_CHECK(access(deep, F_OK) != 0, "%s: %s was created", what,
			 deep);
		free(what);
		free(env);
		tu_proc_free(&pre);
	}
	free(deep);
	free(fx);
	pair_free(&p);
}

/* The program removes the trace directory while it runs, then writes more
 * than the space dltrace has already mapped.  The trace (kept alive by a
 * hard link the test makes before the removal) holds everything up to the
 * point where dltrace needed the directory again. */
static void test_dir_deleted(void)
{
	struct pair p;
	pair_init(&p, "dirdeleted");
	char *fx = tu_fx("fx_faults");
	char *lib = tu_fx("llp/libdlt_b.so");
	char *keep = tu_strfmt("%s/keep", p.scratch);
	char *go = tu_strfmt("%s/go", p.scratch);
	char *pdir = tu_strfmt("%s/plain-dir", p.scratch);
	mkdir(keep, 0755);
	mkdir(pdir, 0755);
	mkdir(p.dir, 0755);
	const unsigned long n = 20000, m = 100000;
	char *ns = numstr(n), *ms = numstr(m);
	const char *pcmd[] = {fx, "deldir", pdir, go, ns, ms, lib, NULL};
	const char *cmd[] = {fx, "deldir", p.dir, go, ns, ms, lib, NULL};
	int fd = open(go, O_WRONLY | O_CREAT, 0644);
	close(fd);
	tu_run(&p.plain, pcmd, NULL, RUN_MS);
	unlink(go);

	const char **argv = tu_launcher_argv(p.dir, NULL, cmd);
	TU_CHECK_FATAL(tu_proc_start(&p.traced, argv, NULL) == 0,
		       "cannot start");
	free(argv);
	char line[256] = "";
	int r = tu_proc_readline(&p.traced, line, sizeof(line), 30000);
	TU_CHECK(r == 1 && strncmp(line, "phase1 ", 7) == 0,
		 "no phase1 line: \"%s\"", line);
	char **paths;
	size_t nt = tu_list_traces(p.dir, &paths);
	for (size_t i = 0; i < nt; i++) {
		char *to = tu_strfmt("%s/%s", keep, strrchr(paths[i], '/') + 1);
		TU_CHECK(link(paths[i], to) == 0, "link %s: %s", paths[i],
			 strerror(errno));
		free(to);
	}
	tu_free_list(paths);
	fd = open(go, O_WRONLY | O_CREAT, 0644);
	close(fd);
	tu_proc_wait(&p.traced, RUN_MS);
	tu_expect_same_launched("trace directory removed", &p.plain, &p.traced,
				1);
	TU_CHECK(tu_contains(p.plain.out, "removed yes\n"),
		 "fixture broken: %s", p.plain.out);
	TU_CHECK(access(p.dir, F_OK) != 0, "%s still exists", p.dir);
	TU_CHECK(off_lines(&p.traced) == 1 &&
			 tu_contains(p.traced.err, "cannot grow"),
		 "expected one \"tracing turned off: cannot grow\" line:\n%s",
		 p.traced.err);

	tu_traceset_load(keep, &p.set);
	expect_readable("removed directory", &p.set);
	TU_CHECK(p.set.n == 1, "%zu traces kept, expected 1", p.set.n);
	struct tally t = {0};
	if (p.set.n == 1)
		tally_trace(&t, &p.set.t[0]);
	expect_sound("removed directory", &t);
	expect_exact("removed directory, before", &t, FX_ID_MAIN, n);
	uint64_t k = expect_prefix("removed directory, after", &t, FX_ID_AFTER);
	TU_CHECK(k < m,
		 "all %llu marks after the removal were recorded: the "
		 "trace never needed to grow",
		 (unsigned long long)k);
	printf("\n    removed directory: %lu marks before, %llu of %lu after "
	       "the removal recorded, then tracing stopped\n",
	       n, (unsigned long long)k, m);
	tally_free(&t);
	free(ns);
	free(ms);
	free(pdir);
	free(go);
	free(keep);
	free(lib);
	free(fx);
	pair_free(&p);
}

/* ---- suite: fsize --------------------------------------------------------
 */

#define FSIZE_LIMIT (3u << 20)

/* The limit comes while the program writes marks: dltrace stops at it
 * without a SIGXFSZ, and the program's own write past it goes as in a
 * plain run (EFBIG and its own SIGXFSZ, or death by SIGXFSZ). */
static void check_fsize(const char *how)
{
	struct pair p;
	pair_init(&p, "fsize");
	char *fx = tu_fx("fx_faults");
	char *limit = numstr(FSIZE_LIMIT);
	const unsigned long n = 200000;
	char *ns = numstr(n);
	char *own_p = tu_strfmt("%s/own-plain", p.scratch);
	char *own_t = tu_strfmt("%s/own-traced", p.scratch);
	const char *pcmd[] = {fx, "fsize", limit, ns, how, own_p, NULL};
	const char *cmd[] = {fx, "fsize", limit, ns, how, own_t, NULL};
	char *what = tu_strfmt("RLIMIT_FSIZE, SIGXFSZ %s", how);
	pair_run(&p, what, cmd, pcmd);
	int dflt = strcmp(how, "default") == 0;
	TU_CHECK(dflt ? (WIFSIGNALED(p.plain.status) &&
			 WTERMSIG(p.plain.status) == SIGXFSZ)
		      : tu_exit_code(p.plain.status) == 0,
		 "%s: fixture broken: plain run %s", what,
		 tu_status_str(p.plain.status));
	TU_CHECK(tu_contains(p.traced.out, "SIGXFSZ so far 0\n"),
		 "%s: a SIGXFSZ reached the program while dltrace wrote:\n%s",
		 what, p.traced.out);
	TU_CHECK(off_lines(&p.traced) == 1 &&
			 tu_contains(p.traced.err, "cannot grow") &&
			 tu_contains(p.traced.err, "File too large"),
		 "%s: expected one line \"tracing turned off: cannot grow ... "
		 "(File too large)\":\n%s",
		 what, p.traced.err);
	struct tally t = {0};
	const struct tu_trace *tr = trace_with(what, &p.set, FX_ID_MAIN);
	/* The launcher, not under the limit, may add a chunk for the exit
	 * status. */
	if (tr) {
		tally_trace(&t, tr);
		TU_CHECK(tu_file_size(tr->path) <=
				 FSIZE_LIMIT + DLT_CHUNK_FIRST,
			 "%s: the trace is %llu bytes, over the limit", what,
			 (unsigned long long)tu_file_size(tr->path));
	}
	expect_sound(what, &t);
	uint64_t k = expect_prefix(what, &t, FX_ID_MAIN);
	TU_CHECK(k > 0 && k < n, "%s: %llu of %lu marks recorded", what,
		 (unsigned long long)k, n);
	printf("\n    %s: %llu of %lu marks recorded, trace %llu bytes\n", what,
	       (unsigned long long)k, n,
	       (unsigned long long)(tr ? tu_file_size(tr->path) : 0));
	tally_free(&t);

	/* Under LD_PRELOAD the program's own death by SIGXFSZ is seen as
	 * it is, without the launcher between. */
	if (dflt) {
		char *pdir = tu_strfmt("%s/preload", p.scratch);
		const char **env = tu_preload_env(pdir, NULL, 0);
		struct tu_proc pre;
		tu_run(&pre, cmd, env, RUN_MS);
		tu_expect_same_run("RLIMIT_FSIZE under LD_PRELOAD", &p.plain,
				   &pre, 1);
		TU_CHECK(off_lines(&pre) == 1, "LD_PRELOAD: %zu lines:\n%s",
			 off_lines(&pre), pre.err);
		tu_proc_free(&pre);
		free(env);
		free(pdir);
	}
	free(what);
	free(own_p);
	free(own_t);
	free(ns);
	free(limit);
	free(fx);
	pair_free(&p);
}

static void test_fsize_catch(void)
{
	check_fsize("catch");
}

static void test_fsize_default(void)
{
	check_fsize("default");
}

/* A limit inherited through exec.  Lower than what a new trace starts
 * with (DLT_FILE_START): the new image runs untraced and says so once.
 * Higher: it is traced until its trace reaches the limit, then says so
 * once; what it recorded is a readable prefix, within the limit. */
static void check_fsize_inherited(unsigned limit)
{
	struct pair p;
	pair_init(&p, "fsize-exec");
	char *fx = tu_fx("fx_faults");
	char *ls = numstr(limit);
	const char *cmd[] = {fx, "fsize-exec", ls, fx, "marks", "3000", NULL};
	char *what = tu_strfmt("RLIMIT_FSIZE %u inherited through exec", limit);
	pair_run(&p, what, cmd, NULL);
	TU_CHECK(tu_contains(p.plain.out, "marks 3000\n"), "fixture broken");
	TU_CHECK(off_lines(&p.traced) == 1,
		 "%s: expected one \"tracing turned off\" line:\n%s", what,
		 p.traced.err);
	/* The first image's trace (made before the limit was set) records
	 * the exec; the new image's stays within the limit. */
	size_t execs = 0, marked = 0;
	struct tally t = {0};
	for (size_t i = 0; i < p.set.n; i++) {
		execs += p.set.t[i].nrec[DLT_REC_EXEC];
		TU_CHECK(p.set.t[i].hdr.exec_seq == 0 ||
				 tu_file_size(p.set.t[i].path) <= limit,
			 "%s: %s is %llu bytes", what, p.set.t[i].path,
			 (unsigned long long)tu_file_size(p.set.t[i].path));
		if (p.set.t[i].nmarks) {
			marked++;
			tally_trace(&t, &p.set.t[i]);
		}
	}
	TU_CHECK(execs == 1, "%s: %zu EXEC records, expected 1", what, execs);
	if (limit < DLT_FILE_START) {
		TU_CHECK(marked == 0, "%s: marks written over the limit", what);
	} else {
		TU_CHECK(marked == 1, "%s: %zu traces hold marks", what,
			 marked);
		expect_sound(what, &t);
		uint64_t k = expect_prefix(what, &t, FX_ID_MAIN);
		TU_CHECK(k > 0 && k < 3000, "%s: %llu of 3000 marks", what,
			 (unsigned long long)k);
	}
	tally_free(&t);
	free(what);
	free(ls);
	free(fx);
	pair_free(&p);
}

static void test_fsize_inherited(void)
{
	check_fsize_inherited(8192);
	check_fsize_inherited(65536);
}

/* The launcher under the same limit as its command adds the exit status
 * if the trace has room, and never a second "turned off" line. */
static void test_fsize_launcher(void)
{
	struct pair p;
	pair_init(&p, "fsize-launcher");
	char *fx = tu_fx("fx_faults");
	char *limit = numstr(FSIZE_LIMIT);
	const char *pcmd[] = {fx,      "fsize-exec", limit, fx,
			      "marks", "200000",     NULL};
	const char *cmd[] = {fx,      "fsize-exec", limit, DLT_TEST_LAUNCHER,
			     "-o",    p.dir,	    "--",  fx,
			     "marks", "200000",	    NULL};
	tu_run(&p.plain, pcmd, NULL, RUN_MS);
	tu_run(&p.traced, cmd, NULL, RUN_MS);
	tu_expect_same_run("dltrace itself under RLIMIT_FSIZE", &p.plain,
			   &p.traced, 1);
	TU_CHECK(off_lines(&p.traced) == 1,
		 "%zu \"tracing turned off\" lines, expected 1:\n%s",
		 off_lines(&p.traced), p.traced.err);
	tu_traceset_load(p.dir, &p.set);
	expect_readable("launcher under RLIMIT_FSIZE", &p.set);
	struct tally t = {0};
	const struct tu_trace *tr =
		trace_with("launcher under RLIMIT_FSIZE", &p.set, FX_ID_MAIN);
	if (tr) {
		tally_trace(&t, tr);
		TU_CHECK(tu_file_size(tr->path) <= FSIZE_LIMIT,
			 "the trace is %llu bytes, over the limit",
			 (unsigned long long)tu_file_size(tr->path));
	}
	expect_sound("launcher under RLIMIT_FSIZE", &t);
	uint64_t k =
		expect_prefix("launcher under RLIMIT_FSIZE", &t, FX_ID_MAIN);
	TU_CHECK(k > 0 && k < 200000, "%llu marks recorded",
		 (unsigned long long)k);
	tally_free(&t);
	free(limit);
	free(fx);
	pair_free(&p);
}

/* ---- suite: nofile ---------------------------------------------------------
 */

/* Every descriptor in use: the program sees the same count and the same
 * errors as without dltrace (which keeps none open), and the trace holds
 * what was written before dltrace needed one. */
static void test_nofile(void)
{
	struct pair p;
	pair_init(&p, "nofile");
	char *fx = tu_fx("fx_faults");
	char *lib = tu_fx("llp/libdlt_b.so");
	const char *cmd[] = {fx, "nofile", "64", "100000", lib, NULL};
	pair_run(&p, "RLIMIT_NOFILE exhausted", cmd, NULL);
	TU_CHECK(tu_contains(p.plain.out, "then Too many open files") &&
			 tu_contains(p.plain.out, "dlopen failed") &&
			 tu_contains(p.plain.out, "back: dlopen ok"),
		 "fixture broken:\n%s", p.plain.out);
	/* Tracing is off for good once the program could not grow its trace:
	 * one line, and the child forked later does not try again. */
	size_t off = off_lines(&p.traced);
	TU_CHECK(off == 1 && tu_contains(p.traced.err, "Too many open files"),
		 "%zu \"tracing turned off\" lines, expected 1 naming the "
		 "error:\n%s",
		 off, p.traced.err);
	struct tally t = {0};
	const struct tu_trace *tr =
		trace_with("RLIMIT_NOFILE", &p.set, FX_ID_MAIN);
	if (tr)
		tally_trace(&t, tr);
	expect_sound("RLIMIT_NOFILE", &t);
	uint64_t k = expect_prefix("RLIMIT_NOFILE", &t, FX_ID_MAIN);
	uint64_t k2 = expect_prefix("RLIMIT_NOFILE, after", &t, FX_ID_AFTER);
	TU_CHECK(k > 0, "no mark recorded before dltrace needed a descriptor");
	printf("\n    RLIMIT_NOFILE: %llu of 100000 marks recorded before "
	       "dltrace needed a descriptor, %llu after; %zu stderr lines\n",
	       (unsigned long long)k, (unsigned long long)k2, off);
	tally_free(&t);
	free(lib);
	free(fx);
	pair_free(&p);
}

/* ---- suite: closefds -------------------------------------------------------
 */

static void check_closefds(const char *how)
{
	struct pair p;
	pair_init(&p, "closefds");
	char *fx = tu_fx("fx_faults");
	char *tp = tu_strfmt("%s/own-plain", p.scratch);
	char *tt = tu_strfmt("%s/own-traced", p.scratch);
	const unsigned long n = 200000;
	char *ns = numstr(n);
	const char *pcmd[] = {fx, "closefds", how, ns, tp, NULL};
	const char *cmd[] = {fx, "closefds", how, ns, tt, NULL};
	char *what = tu_strfmt("descriptors closed (%s)", how);
	pair_run(&p, what, cmd, pcmd);
	TU_CHECK(tu_exit_code(p.plain.status) == 0 &&
			 tu_contains(p.plain.out, ": ok\n"),
		 "%s: fixture broken: %s\n%s%s", what,
		 tu_status_str(p.plain.status), p.plain.out, p.plain.err);
	/* The mapping outlives any descriptor: tracing goes on. */
	TU_CHECK(off_lines(&p.traced) == 0, "%s: tracing turned off:\n%s", what,
		 p.traced.err);
	struct tally t = {0};
	const struct tu_trace *tr = trace_with(what, &p.set, FX_ID_MAIN);
	if (tr)
		tally_trace(&t, tr);
	expect_sound(what, &t);
	expect_exact(what, &t, FX_ID_MAIN, n);
	tu_expect_healthy(what, p.dir);
	tally_free(&t);
	free(what);
	free(ns);
	free(tp);
	free(tt);
	free(fx);
	pair_free(&p);
}

static void test_close_loop(void)
{
	check_closefds("loop");
}

static void test_close_range(void)
{
	check_closefds("close_range");
}

static void test_close_dup2(void)
{
	check_closefds("dup2");
}

static void test_python_close_fds(void)
{
	const char *why = tu_python_skip("subprocess");
	if (why) {
		tu_skip("%s", why);
		return;
	}
	struct pair p;
	pair_init(&p, "pyclosefds");
	char *fx = tu_fx("fx_faults");
	const char *cmd[] = {tu_python(), "-c",
			     "import subprocess, sys\n"
			     "r = subprocess.run([sys.argv[1], 'marks', "
			     "'5000'], close_fds=True)\n"
			     "sys.exit(r.returncode + 3)\n",
			     fx, NULL};
	pair_run(&p, "python3 subprocess close_fds=True", cmd, NULL);
	TU_CHECK(tu_exit_code(p.plain.status) == 3 &&
			 tu_contains(p.plain.out, "marks 5000\n"),
		 "fixture broken: %s\n%s", tu_status_str(p.plain.status),
		 p.plain.err);
	TU_CHECK(off_lines(&p.traced) == 0, "tracing turned off:\n%s",
		 p.traced.err);
	struct tally t = {0};
	const struct tu_trace *tr =
		trace_with("python3 subprocess", &p.set, FX_ID_MAIN);
	if (tr) {
		tally_trace(&t, tr);
		/* The child's trace hangs off Python's. */
		size_t parents = 0;
		for (size_t i = 0; i < p.set.n; i++)
			parents += p.set.t[i].hdr.trace_id ==
					   tr->hdr.parent_trace_id &&
				   &p.set.t[i] != tr;
		TU_CHECK(parents == 1,
			 "the child's trace names parent %016llx, which is "
			 "not one of the %zu traces",
			 (unsigned long long)tr->hdr.parent_trace_id, p.set.n);
		/* Python >= 3.10 starts it with vfork and exec: a child
		 * process.  Python 3.9 (Debian 11, Ubuntu 20.04) forks, then
		 * execs: the forked image's trace is the FORK child of
		 * Python's, and this one its EXEC successor. */
		const struct tu_trace *pt = NULL;
		for (size_t i = 0; i < p.set.n; i++)
			if (p.set.t[i].hdr.trace_id == tr->hdr.parent_trace_id)
				pt = &p.set.t[i];
		TU_CHECK(tr->hdr.parent_kind == DLT_PARENT_FORK ||
				 (tr->hdr.parent_kind == DLT_PARENT_EXEC &&
				  pt && pt->hdr.parent_kind == DLT_PARENT_FORK),
			 "the child's trace has parent kind %u, expected FORK "
			 "(or EXEC of a FORK child)",
			 tr->hdr.parent_kind);
	}
	expect_sound("python3 subprocess", &t);
	expect_exact("python3 subprocess", &t, FX_ID_MAIN, 5000);
	tally_free(&t);
	free(fx);
	pair_free(&p);
}

/* ---- suite: spawn ----------------------------------------------------------
 */

static void test_mtfork(void)
{
	struct pair p;
	pair_init(&p, "mtfork");
	char *fx = tu_fx("fx_faults");
	const unsigned long k = scale(40);
	char *ks = numstr(k);
	char *rp = tu_strfmt("%s/report-plain", p.scratch);
	char *rt = tu_strfmt("%s/report-traced", p.scratch);
	const char *pcmd[] = {fx, "mtfork", ks, fx, rp, NULL};
	const char *cmd[] = {fx, "mtfork", ks, fx, rt, NULL};
	pair_run(&p, "fork in a multi-threaded process, vfork, posix_spawn",
		 cmd, pcmd);
	TU_CHECK(tu_exit_code(p.plain.status) == 0 &&
			 tu_contains(p.plain.out,
				     "wrong statuses 0; vfork+exec "
				     "0, vfork+_exit 6, "
				     "posix_spawn 0 status 0\n"),
		 "fixture broken:\n%s%s", p.plain.out, p.plain.err);
	const struct tu_trace *par =
		trace_with("mtfork parent", &p.set, FX_ID_WORKER);
	if (par == NULL)
		goto out;
	struct tally t = {0};
	tally_trace(&t, par);
	expect_sound("mtfork parent", &t);
	uint64_t worker_total = 0;
	for (int i = 0; i < 4; i++) {
		char key[32];
		snprintf(key, sizeof(key), "worker %d", i);
		long long want = report_value(rt, key);
		TU_CHECK(want > 0, "no count for %s in the report", key);
		expect_exact("mtfork worker", &t, FX_ID_WORKER + (uint32_t)i,
			     (uint64_t)want);
		worker_total += (uint64_t)(want > 0 ? want : 0);
	}
	TU_CHECK(t.s[FX_ID_CHILD].count == 0,
		 "the parent's trace holds %llu marks of its children",
		 (unsigned long long)t.s[FX_ID_CHILD].count);
	TU_CHECK(par->nrec[DLT_REC_FORK] == k, "%zu FORK records, expected %lu",
		 par->nrec[DLT_REC_FORK], k);
	/* Nothing the vfork children did is in the parent's trace. */
	TU_CHECK(par->nrec[DLT_REC_EXEC] == 0,
		 "%zu EXEC records in the parent's trace (a vfork child's)",
		 par->nrec[DLT_REC_EXEC]);
	for (size_t i = 0; i < par->nexits; i++)
		TU_CHECK(par->exits[i].status != 6,
			 "the vfork child's _exit(6) is in the parent's trace");
	tally_free(&t);

	/* One trace per forked child, each holding its own mark, hanging off
	 * the parent's, ending with its exit status. */
	uint8_t *seen = calloc(k, 1);
	size_t children = 0, linked = 0, spawned = 0, vforked = 0;
	for (size_t i = 0; i < p.set.n; i++) {
		const struct tu_trace *c = &p.set.t[i];
		if (c == par)
			continue;
		TU_CHECK(c->hdr.parent_trace_id == par->hdr.trace_id,
			 "%s: parent trace %016llx, expected the parent's "
			 "%016llx",
			 c->path, (unsigned long long)c->hdr.parent_trace_id,
			 (unsigned long long)par->hdr.trace_id);
		struct tally ct = {0};
		tally_trace(&ct, c);
		expect_sound(c->path, &ct);
		if (ct.s[FX_ID_CHILD].count == 1 &&
		    ct.s[FX_ID_CHILD].top <= k) {
			uint64_t i_child = ct.s[FX_ID_CHILD].top - 1;
			children++;
			seen[i_child]++;
			linked += c->hdr.parent_kind == DLT_PARENT_FORK;
			int status_ok = 0;
			for (size_t e = 0; e < c->nexits; e++)
				status_ok |=
					c->exits[e].how == DLT_EXIT_NORMAL &&
					c->exits[e].status ==
						(int32_t)(i_child % 5);
			TU_CHECK(status_ok, "%s: no EXIT record with status %d",
				 c->path, (int)(i_child % 5));
			TU_CHECK(ct.total == 1,
				 "%s: %llu marks, expected the child's one",
				 c->path, (unsigned long long)ct.total);
		} else if (ct.s[FX_ID_MAIN].count == 3) {
			/* A child process, not the parent's next image. */
			vforked++;
			TU_CHECK(
				c->hdr.parent_kind == DLT_PARENT_FORK &&
					c->hdr.exec_seq == 0,
				"vfork+exec child: parent kind %u, exec_seq %u",
				c->hdr.parent_kind, c->hdr.exec_seq);
		} else if (ct.s[FX_ID_MAIN].count == 4) {
			spawned++;
			TU_CHECK(c->hdr.parent_kind == DLT_PARENT_FORK,
				 "posix_spawn child: parent kind %u",
				 c->hdr.parent_kind);
		} else {
			TU_CHECK(0, "%s: a trace of no known process", c->path);
		}
		tally_free(&ct);
	}
	size_t once = 0;
	for (uint64_t i = 0; i < k; i++)
		once += seen[i] == 1;
	TU_CHECK(children == k && once == k && linked == k,
		 "%zu child traces (%zu distinct, %zu marked as forked), "
		 "expected %lu",
		 children, once, linked, k);
	TU_CHECK(vforked == 1 && spawned == 1,
		 "%zu vfork+exec and %zu posix_spawn traces, expected 1 each",
		 vforked, spawned);
	TU_CHECK(p.set.n == k + 3, "%zu traces, expected %lu", p.set.n, k + 3);
	printf("\n    %lu forks beside 4 recording threads (%llu marks), "
	       "vfork+exec, vfork+_exit, posix_spawn: %zu traces\n",
	       k, (unsigned long long)worker_total, p.set.n);
	free(seen);
out:
	free(rp);
	free(rt);
	free(ks);
	free(fx);
	pair_free(&p);
}

/* ---- suite: static -------------------------------------------------------
 */

static const char *static_skip(void)
{
	return DLT_TEST_FX_STATIC[0]
		       ? NULL
		       : "the C library's static archive is not installed "
			 "(Debian: libc6-dev), no static fixture";
}

static void test_static_direct(void)
{
	struct pair p;
	pair_init(&p, "static");
	const char *cmd[] = {DLT_TEST_FX_STATIC, NULL};
	pair_run(&p, "dltrace -- a static program", cmd, NULL);
	TU_CHECK(tu_exit_code(p.plain.status) == 4, "fixture broken: %s",
		 tu_status_str(p.plain.status));
	TU_CHECK(off_lines(&p.traced) == 0, "tracing turned off:\n%s",
		 p.traced.err);
	TU_CHECK(p.set.n == 0, "%zu traces of a program with no loader",
		 p.set.n);
	const char **env = tu_preload_env(p.dir, NULL, 0);
	struct tu_proc pre;
	tu_run(&pre, cmd, env, RUN_MS);
	tu_expect_same_run("LD_PRELOAD on a static program", &p.plain, &pre, 1);
	tu_proc_free(&pre);
	free(env);
	pair_free(&p);
}

/* dynamic -> exec static -> exec dynamic: the static image passes the
 * environment on, and the last image's trace names the first as its exec
 * parent. */
static void test_static_chain(void)
{
	struct pair p;
	pair_init(&p, "static-chain");
	char *fx = tu_fx("fx_faults");
	const char *cmd[] = {fx, "exec-static", DLT_TEST_FX_STATIC, fx, NULL};
	pair_run(&p, "exec of a static program", cmd, NULL);
	TU_CHECK(tu_exit_code(p.plain.status) == 0 &&
			 tu_contains(p.plain.out,
				     "static program, 3 arguments\n"
				     "back in a dynamic "
				     "program\n"),
		 "fixture broken:\n%s%s", p.plain.out, p.plain.err);
	TU_CHECK(off_lines(&p.traced) == 0, "tracing turned off:\n%s",
		 p.traced.err);
	const struct tu_trace *a = trace_with("before", &p.set, FX_ID_MAIN);
	const struct tu_trace *b = trace_with("after", &p.set, FX_ID_AFTER);
	TU_CHECK(p.set.n == 2, "%zu traces, expected 2", p.set.n);
	if (a && b) {
		TU_CHECK(a->nrec[DLT_REC_EXEC] == 1,
			 "%zu EXEC records before the static program",
			 a->nrec[DLT_REC_EXEC]);
		TU_CHECK(b->hdr.pid == a->hdr.pid &&
				 b->hdr.parent_kind == DLT_PARENT_EXEC &&
				 b->hdr.parent_trace_id == a->hdr.trace_id &&
				 b->hdr.exec_seq == a->hdr.exec_seq + 1,
			 "after the static program: pid %u kind %u parent "
			 "%016llx exec_seq %u; expected pid %u EXEC %016llx "
			 "%u",
			 b->hdr.pid, b->hdr.parent_kind,
			 (unsigned long long)b->hdr.parent_trace_id,
			 b->hdr.exec_seq, a->hdr.pid,
			 (unsigned long long)a->hdr.trace_id,
			 a->hdr.exec_seq + 1);
	}
	free(fx);
	pair_free(&p);
}

/* ---- suite: signals ------------------------------------------------------
 */

/* Three threads write marks and call the (fake) CUDA driver while a 50 us
 * timer and thread-directed signals run a handler that does the same on
 * whichever thread it lands: every record of every thread and handler is
 * there, once, whole. */
static void test_signals(void)
{
	struct pair p;
	pair_init(&p, "signals");
	char *fx = tu_fx("fx_faults");
	const unsigned long n = scale(400000);
	char *ns = numstr(n);
	const char *drv = DLT_FAKE_CUDA_DIR "/libcuda.so.1";
	char *rp = tu_strfmt("%s/report-plain", p.scratch);
	char *rt = tu_strfmt("%s/report-traced", p.scratch);
	const char *pcmd[] = {fx, "signals", ns, drv, rp, NULL};
	const char *cmd[] = {fx, "signals", ns, drv, rt, NULL};
	pair_run(&p, "signal handlers that record", cmd, pcmd);
	TU_CHECK(tu_exit_code(p.plain.status) == 0, "fixture broken: %s\n%s",
		 tu_status_str(p.plain.status), p.plain.err);
	TU_CHECK(off_lines(&p.traced) == 0, "tracing turned off:\n%s",
		 p.traced.err);
	const struct tu_trace *tr = trace_with("signals", &p.set, FX_ID_MAIN);
	if (tr == NULL)
		goto out;
	struct tally t = {0};
	tally_trace(&t, tr);
	expect_sound("signals", &t);
	expect_exact("signals, main thread", &t, FX_ID_MAIN, n);
	for (uint32_t i = 1; i < FX_SIG_THREADS; i++)
		expect_exact("signals, worker", &t, FX_ID_WORKER + i, n);
	unsigned long long handled = 0, hdrv = 0;
	FILE *f = fopen(rt, "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		unsigned slot;
		unsigned long long total, driver;
		if (sscanf(line, "handler %u %llu %llu", &slot, &total,
			   &driver) != 3 ||
		    slot >= FX_SIG_THREADS)
			continue;
		char *what = tu_strfmt("signals, handler on thread %u", slot);
		expect_exact(what, &t, FX_ID_HANDLER + slot, total);
		free(what);
		handled += total;
		hdrv += driver;
	}
	if (f)
		fclose(f);
	TU_CHECK(handled > 100,
		 "only %llu handler runs: the test tested "
		 "little",
		 handled);
	long long main_drv = report_value(rt, "main_driver");
	uint64_t ver = count_records(tr->path, DLT_REC_API_CALL,
				     API_cuDriverGetVersion, NULL);
	uint64_t cnt = count_records(tr->path, DLT_REC_API_CALL,
				     API_cuDeviceGetCount, NULL);
	TU_CHECK(main_drv > 0 && ver == (uint64_t)main_drv,
		 "%llu cuDriverGetVersion calls recorded, the main thread "
		 "made %lld",
		 (unsigned long long)ver, main_drv);
	/* A handler's call made while its thread is inside a driver call is
	 * part of that call: recorded at most once each. */
	TU_CHECK(cnt > 0 && cnt <= hdrv,
		 "%llu cuDeviceGetCount calls recorded, the handlers made %llu",
		 (unsigned long long)cnt, hdrv);
	printf("\n    %d threads x %lu marks, %llu handler runs on them (all "
	       "recorded), %llu of %llu driver calls from handlers "
	       "recorded\n",
	       FX_SIG_THREADS, n, handled, (unsigned long long)cnt, hdrv);
	tally_free(&t);
out:
	free(rp);
	free(rt);
	free(ns);
	free(fx);
	pair_free(&p);
}

/* ---- suite: threads -------------------------------------------------------
 */

/* The most mappings of its trace a process can hold (tracer/file.c): one,
 * of the whole file, however many threads record. */
static long long max_trace_maps(long long live_threads)
{
	(void)live_threads;
	return 1;
}

static void check_threads(const char *lib)
{
	struct pair p;
	pair_init(&p, "threads");
	char *fx = tu_fx("fx_faults");
	/* Not scaled: every thread leaves a 4 KiB chunk (two with the
	 * library) in the trace, 4-8 MiB for 1000 threads. */
	const unsigned long n = 1000;
	char *ns = numstr(n);
	char *rp = tu_strfmt("%s/report-plain", p.scratch);
	char *rt = tu_strfmt("%s/report-traced", p.scratch);
	const char *pcmd[] = {fx, "threads", ns, lib ? lib : "-", rp, NULL};
	const char *cmd[] = {fx, "threads", ns, lib ? lib : "-", rt, NULL};
	char *what = tu_strfmt("%lu threads%s", n,
			       lib ? ", each loading a library" : "");
	pair_run(&p, what, cmd, pcmd);
	TU_CHECK(tu_exit_code(p.plain.status) == 0, "fixture broken: %s",
		 tu_status_str(p.plain.status));
	TU_CHECK(off_lines(&p.traced) == 0, "tracing turned off:\n%s",
		 p.traced.err);
	const struct tu_trace *tr = trace_with(what, &p.set, FX_ID_THREAD);
	struct tally t = {0};
	if (tr)
		tally_trace(&t, tr);
	expect_sound(what, &t);
	expect_exact(what, &t, FX_ID_THREAD, 2 * n);
	/* Each thread's chunks (one per copy of the library) are given back
	 * when it ends, their pages dropped: what stays mapped (the one
	 * mapping of the file) and resident does not grow with the number of
	 * threads. */
	long long maps = report_value(rt, "end_trace_maps");
	long long live = report_value(rt, "end_threads");
	long long rss0 = report_value(rt, "start_rss_kb");
	long long rss1 = report_value(rt, "end_rss_kb");
	long long prss = report_value(rp, "end_rss_kb") -
			 report_value(rp, "start_rss_kb");
	TU_CHECK(maps >= 0 && maps <= max_trace_maps(live),
		 "%s: %lld mappings of the trace remain at the end (%lld "
		 "threads alive, at most %lld by design)",
		 what, maps, live, max_trace_maps(live));
	TU_CHECK(rss1 - rss0 <= prss + 8192,
		 "%s: resident memory grew by %lld KiB (%lld KiB without "
		 "dltrace)",
		 what, rss1 - rss0, prss);
	uint64_t size = tr ? tu_file_size(tr->path) : 0;
	printf("\n    %s: %llu marks, trace %llu KiB, %lld trace mappings "
	       "left, resident memory +%lld KiB (+%lld KiB plain)\n",
	       what, (unsigned long long)t.s[FX_ID_THREAD].count,
	       (unsigned long long)(size >> 10), maps, rss1 - rss0, prss);
	tu_expect_healthy(what, p.dir);
	tally_free(&t);
	free(what);
	free(rp);
	free(rt);
	free(ns);
	free(fx);
	pair_free(&p);
}

static void test_threads(void)
{
	check_threads(NULL);
}

static void test_threads_dlopen(void)
{
	char *lib = tu_fx("llp/libdlt_b.so");
	check_threads(lib);
	free(lib);
}

/* ---- suite: dlcycles -------------------------------------------------------
 */

static void test_dlcycles(void)
{
	struct pair p;
	pair_init(&p, "dlcycles");
	char *fx = tu_fx("fx_faults");
	char *lib = tu_fx("llp/libdlt_b.so");
	/* 2000 here, 10000 and more in scripts/faults-long.sh: a cycle
	 * costs about 0.7 ms on this kind of machine with or without dltrace
	 * (mmap and munmap of the library). */
	const unsigned long n = scale(2000);
	char *ns = numstr(n);
	char *rp = tu_strfmt("%s/report-plain", p.scratch);
	char *rt = tu_strfmt("%s/report-traced", p.scratch);
	const char *pcmd[] = {fx, "dlcycles", ns, lib, rp, NULL};
	const char *cmd[] = {fx, "dlcycles", ns, lib, rt, NULL};
	char *what = tu_strfmt("%lu dlopen/dlclose cycles", n);
	pair_run(&p, what, cmd, pcmd);
	TU_CHECK(tu_exit_code(p.plain.status) == 0, "fixture broken: %s",
		 tu_status_str(p.plain.status));
	TU_CHECK(off_lines(&p.traced) == 0, "tracing turned off:\n%s",
		 p.traced.err);
	TU_CHECK(p.set.n == 1, "%zu traces, expected 1", p.set.n);
	if (p.set.n != 1)
		goto out;
	const char *path = p.set.t[0].path;
	uint64_t opens = count_records(path, DLT_REC_DLOPEN, -1, "libdlt_b.so");
	uint64_t loads =
		count_records(path, DLT_REC_LIB_LOAD, -1, "libdlt_b.so");
	uint64_t unloads = count_records(path, DLT_REC_LIB_UNLOAD, -1, NULL);
	TU_CHECK(opens == n && loads == n && unloads >= n,
		 "%s: %llu DLOPEN, %llu LIB_LOAD and %llu LIB_UNLOAD records",
		 what, (unsigned long long)opens, (unsigned long long)loads,
		 (unsigned long long)unloads);
	uint64_t size = tu_file_size(path);
	long long r10 = report_value(rt, "tenth_rss_kb");
	long long r100 = report_value(rt, "end_rss_kb");
	long long p10 = report_value(rp, "tenth_rss_kb");
	long long p100 = report_value(rp, "end_rss_kb");
	long long maps = report_value(rt, "end_trace_maps");
	long long live = report_value(rt, "end_threads");
	/* Strings are written once; each cycle costs its records only.
	 * Memory: at most the chunks live at the end (one per copy of the
	 * library, both maybe new since the first tenth) on top of what the
	 * program itself grew by. */
	TU_CHECK(size <= 2 * (1u << 20) + (uint64_t)n * 1024,
		 "%s: the trace is %llu bytes", what, (unsigned long long)size);
	TU_CHECK(r100 - r10 <= (p100 - p10) + 2 * (DLT_CHUNK_BIG >> 10) + 512 &&
			 maps >= 0 && maps <= max_trace_maps(live),
		 "%s: resident memory grew by %lld KiB over the last nine "
		 "tenths (%lld KiB without dltrace), %lld trace mappings",
		 what, r100 - r10, p100 - p10, maps);
	printf("\n    %s: trace %llu KiB (%llu bytes a cycle), resident "
	       "memory +%lld KiB over the last nine tenths (+%lld plain), %lld "
	       "trace mappings at the end\n",
	       what, (unsigned long long)(size >> 10),
	       (unsigned long long)(size / n), r100 - r10, p100 - p10, maps);
	tu_expect_healthy(what, p.dir);
out:
	free(what);
	free(rp);
	free(rt);
	free(ns);
	free(lib);
	free(fx);
	pair_free(&p);
}

/* ---- suite: exit --------------------------------------------------------
 */

static int has_exit(const struct tu_trace *t, uint16_t how, int32_t status)
{
	for (size_t i = 0; i < t->nexits; i++)
		if (t->exits[i].how == how && t->exits[i].status == status)
			return 1;
	return 0;
}

static void test_exit_thread(void)
{
	struct pair p;
	pair_init(&p, "exit-thread");
	char *fx = tu_fx("fx_faults");
	const char *cmd[] = {fx, "exit-thread", "7", NULL};
	pair_run(&p, "_exit from a thread", cmd, NULL);
	TU_CHECK(tu_exit_code(p.plain.status) == 7, "fixture broken: %s",
		 tu_status_str(p.plain.status));
	const struct tu_trace *tr =
		trace_with("_exit from a thread", &p.set, FX_ID_WORKER);
	if (tr) {
		struct tally t = {0};
		tally_trace(&t, tr);
		expect_sound("_exit", &t);
		expect_exact("_exit, the thread", &t, FX_ID_WORKER, 20000);
		expect_prefix("_exit, the main thread", &t, FX_ID_MAIN);
		TU_CHECK(has_exit(tr, DLT_EXIT_UNDERSCORE, 7),
			 "no EXIT record for _exit(7)");
		TU_CHECK(has_exit(tr, DLT_EXIT_REAPED, 7 << 8),
			 "no REAPED record with exit status 7");
		tally_free(&t);
	}
	free(fx);
	pair_free(&p);
}

static void test_abort(void)
{
	struct pair p;
	pair_init(&p, "abort");
	char *fx = tu_fx("fx_faults");
	const char *cmd[] = {fx, "abort", "5000", NULL};
	pair_run(&p, "abort()", cmd, NULL);
	TU_CHECK(WIFSIGNALED(p.plain.status) &&
			 WTERMSIG(p.plain.status) == SIGABRT,
		 "fixture broken: %s", tu_status_str(p.plain.status));
	const struct tu_trace *tr = trace_with("abort", &p.set, FX_ID_MAIN);
	if (tr) {
		struct tally t = {0};
		tally_trace(&t, tr);
		expect_sound("abort", &t);
		expect_exact("abort, the main thread", &t, FX_ID_MAIN, 5000);
		expect_prefix("abort, the other thread", &t, FX_ID_WORKER);
		int reaped = 0;
		for (size_t i = 0; i < tr->nexits; i++)
			reaped |= tr->exits[i].how == DLT_EXIT_REAPED &&
				  WIFSIGNALED(tr->exits[i].status) &&
				  WTERMSIG(tr->exits[i].status) == SIGABRT;
		TU_CHECK(reaped, "no REAPED record with SIGABRT");
		tally_free(&t);
	}
	char *pdir = tu_strfmt("%s/preload", p.scratch);
	const char **env = tu_preload_env(pdir, NULL, 0);
	struct tu_proc pre;
	tu_run(&pre, cmd, env, RUN_MS);
	tu_expect_same_run("abort() under LD_PRELOAD", &p.plain, &pre, 1);
	tu_proc_free(&pre);
	free(env);
	free(pdir);
	free(fx);
	pair_free(&p);
}

/* ---- suite: sigkill --------------------------------------------------------
 */

/* The traced program's pid: the launcher's only child. */
static pid_t child_of(pid_t launcher)
{
	char path[64], buf[64] = "";
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)launcher,
		 (int)launcher);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return (pid_t)atoi(buf);
}

/* The last complete "progress ..." line of out. */
static int last_progress(const char *out, unsigned long long v[])
{
	int found = 0;
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		if (nl == NULL)
			break;
		unsigned long long a[FX_KILL_THREADS];
		if (sscanf(l, "progress %llu %llu %llu %llu", &a[0], &a[1],
			   &a[2], &a[3]) == FX_KILL_THREADS) {
			memcpy(v, a, sizeof(a));
			found = 1;
		}
		l = nl + 1;
	}
	return found;
}

struct kill_figures {
	unsigned reps, early, traces, empty;
	unsigned long long marks, promised;
};

/* One run killed after delay_us (counted from its start if early, from
 * its "ready" line if not). */
static void kill_once(unsigned long delay_us, int early,
		      struct kill_figures *fig)
{
	char *dir = tu_tmpdir("sigkill");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *fx = tu_fx("fx_faults");
	char *lib = tu_fx("llp/libdlt_b.so");
	const char *cmd[] = {fx, "killme", lib, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	/* What is killed is the subject here, not the size limit: the
	 * program writes marks as fast as it can (5 million in 0.28 s has
	 * been seen), which filled the default 256 MiB before some kills, and
	 * the marks past it were rightly counted as lost, not written.  Given
	 * to the launcher here: the suite's children inherit no DLTRACE_
	 * variable of the test's own environment (tu_build_env). */
	static const char *const env[] = {"DLTRACE_MAX_SIZE=8G", NULL};
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start");
	free(argv);
	pid_t pid = 0;
	if (!early) {
		char line[256] = "";
		int r = tu_proc_readline(&p, line, sizeof(line), 30000);
		int ipid = 0;
		char mark[8] = "";
		if (r == 1)
			sscanf(line, "ready %d mark=%7s", &ipid, mark);
		pid = ipid;
		TU_CHECK(pid > 0 && strcmp(mark, "yes") == 0,
			 "killme did not start traced: \"%s\"", line);
	}
	struct timespec d = {(time_t)(delay_us / 1000000),
			     (long)(delay_us % 1000000) * 1000};
	nanosleep(&d, NULL);
	/* The launcher forks its command at once, but a loaded machine may
	 * not run it for a while: wait as long as the suite waits for any
	 * line (30 s), not a guess at the scheduler (1 s here once failed
	 * under a parallel ctest). */
	for (int i = 0; i < 150000 && pid <= 0; i++) {
		pid = child_of(p.pid);
		if (pid <= 0)
			usleep(200);
	}
	TU_CHECK(pid > 0 && kill(pid, SIGKILL) == 0, "cannot kill pid %d",
		 (int)pid);
	tu_proc_wait(&p, 30000);
	TU_CHECK(tu_exit_code(p.status) == 128 + SIGKILL,
		 "dltrace %s after its command was killed; stderr:\n%s",
		 tu_status_str(p.status), p.err);

	char *what = tu_strfmt("SIGKILL %s +%lu us", early ? "at start" : "",
			       delay_us);
	/* A process killed between making its file and its first write
	 * leaves it empty (the header is that first write): the readers say
	 * so and read the rest.  Only the one killed while it started can. */
	char **paths = NULL;
	size_t np = tu_list_traces(dir, &paths);
	for (size_t i = 0; i < np; i++)
		if (tu_file_size(paths[i]) == 0) {
			TU_CHECK(early, "%s: %s is empty", what, paths[i]);
			fig->empty++;
			unlink(paths[i]);
		}
	tu_free_list(paths);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	expect_readable(what, &s);
	unsigned long long v[FX_KILL_THREADS] = {0};
	int have = last_progress(p.out, v);
	struct tally t = {0};
	for (size_t i = 0; i < s.n; i++)
		if (s.t[i].hdr.pid == (uint32_t)pid) {
			tally_trace(&t, &s.t[i]);
			/* A mark past the size limit is counted, not written:
			 * the test's limit is never reached, so none is. */
			TU_CHECK(s.t[i].hdr.lost_records == 0,
				 "%s: %u records lost to the size limit", what,
				 s.t[i].hdr.lost_records);
		}
	expect_sound(what, &t);
	/* Every mark the program had finished writing when it last said so
	 * is in the trace, and nothing is missing before the last one. */
	for (uint32_t i = 0; i < FX_KILL_THREADS; i++) {
		uint64_t k = expect_prefix(what, &t, FX_ID_WORKER + i);
		TU_CHECK(!have || k >= v[i],
			 "%s: worker %u had finished %llu marks, %llu in the "
			 "trace",
			 what, i, v[i], (unsigned long long)k);
		fig->marks += k;
		fig->promised += have ? v[i] : 0;
	}
	fig->reps++;
	fig->early += early != 0;
	fig->traces += (unsigned)s.n;
	if (CU_get_number_of_failures() > 0)
		tu_traceset_dump(&s);
	tally_free(&t);
	tu_traceset_free(&s);
	free(what);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(lib);
	free(fx);
}

static void test_sigkill_random(void)
{
	unsigned long reps = env_num("DLT_FAULTS_REPS", 8);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	unsigned seed = (unsigned)env_num(
		"DLT_FAULTS_SEED", (unsigned long)(now.tv_nsec ^ getpid()));
	srand(seed);
	printf("\n    seed %u (DLT_FAULTS_SEED), %lu repetitions\n", seed,
	       reps);
	struct kill_figures fig = {0};
	for (unsigned long r = 0; r < reps; r++) {
		/* One in four dies while it starts (inside the loader, the
		 * audit module or the first records); the others while their
		 * threads write, load libraries and fork. */
		int early = r % 4 == 0;
		unsigned long delay = early ? (unsigned long)(rand() % 20000)
					    : (unsigned long)(rand() % 300000);
		kill_once(delay, early, &fig);
		if (CU_get_number_of_failures() > 0)
			break;
	}
	printf("    %u runs killed (%u while starting), %u traces, all read "
	       "cleanly (%u empty: killed before the first write); %llu marks "
	       "read back, %llu of them promised by the program before the "
	       "kill\n",
	       fig.reps, fig.early, fig.traces, fig.empty, fig.marks,
	       fig.promised);
}

/* ---- suites ---------------------------------------------------------------
 */

static const struct tu_test dir_tests[] = {
	{"output directory missing", test_dir_missing},
	{"output directory removed while the program runs", test_dir_deleted},
	{NULL, NULL}};

static const struct tu_test fsize_tests[] = {
	{"RLIMIT_FSIZE reached, SIGXFSZ caught", test_fsize_catch},
	{"RLIMIT_FSIZE reached, SIGXFSZ default", test_fsize_default},
	{"RLIMIT_FSIZE inherited through exec", test_fsize_inherited},
	{"dltrace itself under RLIMIT_FSIZE", test_fsize_launcher},
	{NULL, NULL}};

static const struct tu_test nofile_tests[] = {
	{"RLIMIT_NOFILE exhausted", test_nofile}, {NULL, NULL}};

static const struct tu_test closefds_tests[] = {
	{"close() of every descriptor", test_close_loop},
	{"close_range(3, ~0U, 0)", test_close_range},
	{"dup2 onto every low descriptor", test_close_dup2},
	{"python3 subprocess close_fds=True", test_python_close_fds},
	{NULL, NULL}};

/* Under qemu-user (scripts/cross-arm64.sh sets DLTRACE_TEST_EMULATED), a
 * program cannot install a seccomp filter, and some calls behave as the
 * emulator makes them. */
static const char *emulated(void)
{
	const char *e = getenv("DLTRACE_TEST_EMULATED");
	return e && *e ? "a seccomp filter cannot be installed under an "
			 "emulator"
		       : NULL;
}

/* The shim's posix_spawn is the C library's current one: a script without
 * "#!" fails with ENOEXEC as it does plainly (the shim once called the
 * 2.2.5 compatibility version, which runs such a script with /bin/sh). */
static void test_spawn_noexec(void)
{
	struct pair p;
	pair_init(&p, "noexec");
	char *fx = tu_fx("fx_faults");
	char *script = tu_strfmt("%s/noshebang", p.scratch);
	FILE *f = fopen(script, "w");
	TU_CHECK_FATAL(f && fputs("echo the script ran\n", f) >= 0 &&
			       fclose(f) == 0 && chmod(script, 0755) == 0,
		       "cannot write %s", script);
	const char *cmd[] = {fx, "spawn-noexec", script, NULL};
	pair_run(&p, "posix_spawn of a script without #!", cmd, NULL);
	/* qemu-user runs such a script itself: there only the comparison
	 * with the plain run holds. */
	TU_CHECK(emulated() || (tu_contains(p.plain.out,
					    "posix_spawn 8 posix_spawnp 8") &&
				!tu_contains(p.plain.out, "the script ran")),
		 "plainly: %s", p.plain.out);
	TU_CHECK(strcmp(p.plain.out, p.traced.out) == 0,
		 "plainly:\n%sunder dltrace:\n%s", p.plain.out, p.traced.out);
	free(script);
	free(fx);
	pair_free(&p);
}

/* ---- suite: fallbacks ------------------------------------------------------
 */

/* Older kernels and network file systems refuse calls that the writer or
 * the C library use where they can: O_TMPFILE and linkat (NFS, Lustre),
 * MADV_POPULATE_WRITE (Linux < 5.14), fallocate, close_range (< 5.9),
 * clone3 and the pidfd calls (< 5.3), statx, getrandom, rseq, open file
 * description locks (< 3.15; the writer's lock is then flock's).  fx_deny
 * makes them fail for the whole tree (a seccomp filter); the program's
 * output and status must be a plain run's under the same filter, the trace
 * whole, and tracing never turned off. */
static void deny_pair(struct pair *p, const char *what, const char *cases,
		      const char *const cmd[])
{
	char *deny = tu_fx("fx_deny");
	const char *pargv[32] = {deny, cases, "--"};
	size_t n = 3;
	for (size_t i = 0; cmd[i] && n < 31; i++)
		pargv[n++] = cmd[i];
	pargv[n] = NULL;
	const char **largv = tu_launcher_argv(p->dir, NULL, cmd);
	const char *targv[40] = {deny, cases, "--"};
	n = 3;
	for (size_t i = 0; largv[i] && n < 39; i++)
		targv[n++] = largv[i];
	targv[n] = NULL;
	tu_run(&p->plain, pargv, NULL, RUN_MS);
	tu_run(&p->traced, targv, NULL, RUN_MS);
	free(largv);
	TU_CHECK(tu_exit_code(p->plain.status) != 70,
		 "%s: the seccomp filter was not installed:\n%s", what,
		 p->plain.err);
	tu_expect_same_launched(what, &p->plain, &p->traced, 1);
	TU_CHECK(off_lines(&p->traced) == 0, "%s: tracing turned off:\n%s",
		 what, p->traced.err);
	tu_traceset_load(p->dir, &p->set);
	expect_readable(what, &p->set);
	free(deny);
}

/* Marks enough to grow the trace file several times; every trace cut to
 * its last record at the end. */
static void check_fallback_marks(const char *cases)
{
	struct pair p;
	pair_init(&p, "fallback");
	char *fx = tu_fx("fx_faults");
	const unsigned long n = 100000;
	char *ns = numstr(n);
	const char *cmd[] = {fx, "marks", ns, NULL};
	char *what = tu_strfmt("%lu marks with %s refused", n, cases);
	deny_pair(&p, what, cases, cmd);
	const struct tu_trace *tr = trace_with(what, &p.set, FX_ID_MAIN);
	if (tr) {
		struct tally t = {0};
		tally_trace(&t, tr);
		expect_sound(what, &t);
		expect_exact(what, &t, FX_ID_MAIN, n);
		tally_free(&t);
	}
	for (size_t i = 0; i < p.set.n; i++)
		expect_cut(what, p.set.t[i].path);
	free(what);
	free(ns);
	free(fx);
	pair_free(&p);
}

static void test_fallback_tmpfile(void)
{
	check_fallback_marks("tmpfile");
}

static void test_fallback_linkat(void)
{
	check_fallback_marks("linkat");
}

static void test_fallback_populate(void)
{
	check_fallback_marks("populate");
}

static void test_fallback_fallocate(void)
{
	check_fallback_marks("fallocate");
}

/* Without open file description locks the writer holds flock's: the
 * launcher still tells that the process has ended and compacts its trace,
 * which the process had cut itself. */
static void test_fallback_ofdlock(void)
{
	check_fallback_marks("ofdlock");
}

/* Threads, fork, vfork and posix_spawn without clone3, the pidfd calls,
 * statx, getrandom and rseq: the C library falls back, the trees' traces
 * are whole. */
static void test_fallback_newer_calls(void)
{
	struct pair p;
	pair_init(&p, "fallback-new");
	char *fx = tu_fx("fx_faults");
	const unsigned long k = scale(10);
	char *ks = numstr(k);
	char *rp = tu_strfmt("%s/report", p.scratch);
	const char *cmd[] = {fx, "mtfork", ks, fx, rp, NULL};
	deny_pair(&p, "fork, vfork, posix_spawn and threads",
		  "clone3,pidfd,statx,getrandom,rseq", cmd);
	TU_CHECK(tu_exit_code(p.plain.status) == 0 &&
			 tu_contains(p.plain.out, "wrong statuses 0"),
		 "fixture broken:\n%s%s", p.plain.out, p.plain.err);
	/* The parent, one trace per fork, the vfork+exec and the spawn. */
	TU_CHECK(p.set.n == k + 3, "%zu traces, expected %lu", p.set.n, k + 3);
	free(rp);
	free(ks);
	free(fx);
	pair_free(&p);
}

/* Python closes descriptors with close_range where the kernel has it. */
static void test_fallback_close_range(void)
{
	struct pair p;
	pair_init(&p, "fallback-cr");
	const char *cmd[] = {
		tu_python(), "-c",
		"import subprocess, sys\n"
		"r = subprocess.run(['/bin/sh', '-c', 'echo child'],"
		" close_fds=True, capture_output=True, text=True)\n"
		"print(r.returncode, r.stdout.strip())\n",
		NULL};
	deny_pair(&p, "python3 subprocess with close_range refused",
		  "close_range", cmd);
	TU_CHECK(tu_contains(p.plain.out, "0 child"), "plainly: %s",
		 p.plain.out);
	pair_free(&p);
}

static const struct tu_test fallback_tests[] = {
	{"O_TMPFILE refused (NFS): the program's own calls",
	 test_fallback_tmpfile},
	{"linkat of /proc/self/fd refused: the program's own calls",
	 test_fallback_linkat},
	{"MADV_POPULATE_WRITE refused (Linux < 5.14)", test_fallback_populate},
	{"fallocate refused", test_fallback_fallocate},
	{"open file description locks refused (Linux < 3.15)",
	 test_fallback_ofdlock},
	{"clone3, pidfd, statx, getrandom, rseq refused",
	 test_fallback_newer_calls},
	{"close_range refused (Linux < 5.9)", test_fallback_close_range},
	{NULL, NULL}};

static const struct tu_test spawn_tests[] = {
	{"fork with threads running, vfork, posix_spawn", test_mtfork},
	{"posix_spawn of a script without #!: ENOEXEC as plainly",
	 test_spawn_noexec},
	{NULL, NULL}};

static const struct tu_test static_tests[] = {
	{"dltrace -- a static program", test_static_direct},
	{"exec through a static program", test_static_chain},
	{NULL, NULL}};

static const struct tu_test signals_tests[] = {
	{"handlers that record while threads record", test_signals},
	{NULL, NULL}};

static const struct tu_test threads_tests[] = {
	{"1000 threads created and ended", test_threads},
	{"1000 threads, each loading a library", test_threads_dlopen},
	{NULL, NULL}};

static const struct tu_test dlcycles_tests[] = {
	{"dlopen/dlclose cycles (2000; DLT_FAULTS_SCALE=5: 10000)",
	 test_dlcycles},
	{NULL, NULL}};

/* ---- suite: ends --------------------------------------------------------
 *
 * A trace holds what was recorded: its file is cut to its last record when
 * its process ends, whichever way (tracer/chunks.c, dlt_writer_cut), and
 * the launcher compacts the traces of processes killed before it ends.
 * Under LD_PRELOAD alone nothing cleans up after the process: what is
 * seen is what the process did itself. */

/* Loads the traces of dir: none with a reader problem. */
static void load_clean(const char *what, const char *dir,
		       struct tu_traceset *set)
{
	tu_traceset_load(dir, set);
	expect_readable(what, set);
}

/* fx_faults ends by how; its trace must be cut, and hold the record of
 * that end (exit_how, status) inside the cut file: each end records first
 * and cuts after. */
static void check_end(const char *how, size_t want_traces, uint16_t exit_how,
		      int32_t status)
{
	char *scratch = tu_tmpdir("end");
	TU_CHECK_FATAL(scratch != NULL, "no scratch directory");
	char *dir = tu_strfmt("%s/trace", scratch);
	char *fx = tu_fx("fx_faults");
	const char *cmd[] = {fx, "end", how, "3000", NULL};
	char *what = tu_strfmt("end by %s", how);
	struct tu_proc plain, pre;
	tu_run(&plain, cmd, NULL, RUN_MS);
	const char **env = tu_preload_env(dir, NULL, 0);
	tu_run(&pre, cmd, env, RUN_MS);
	free(env);
	tu_expect_same_run(what, &plain, &pre, 1);
	struct tu_traceset set;
	load_clean(what, dir, &set);
	TU_CHECK(set.n == want_traces, "%s: %zu traces, expected %zu", what,
		 set.n, want_traces);
	for (size_t i = 0; i < set.n; i++)
		expect_cut(what, set.t[i].path);
	const struct tu_trace *tr = trace_with(what, &set, FX_ID_MAIN);
	if (tr) {
		struct tally t = {0};
		tally_trace(&t, tr);
		expect_sound(what, &t);
		expect_exact(what, &t, FX_ID_MAIN, 3000);
		tally_free(&t);
		/* Under LD_PRELOAD no launcher adds a REAPED record. */
		TU_CHECK(tr->nexits == 1 && tr->exits[0].how == exit_how &&
				 tr->exits[0].status == status,
			 "%s: %zu EXIT records, the first how %u status %d; "
			 "expected how %u status %d",
			 what, tr->nexits, tr->nexits ? tr->exits[0].how : 0,
			 tr->nexits ? tr->exits[0].status : 0, exit_how,
			 status);
	}
	tu_traceset_free(&set);
	tu_proc_free(&plain);
	tu_proc_free(&pre);
	tu_rmtree(scratch);
	free(what);
	free(fx);
	free(dir);
	free(scratch);
}

static void test_end_kinds(void)
{
	check_end("return", 1, DLT_EXIT_MAIN, 0);
	check_end("exit", 1, DLT_EXIT_NORMAL, 3);
	check_end("_exit", 1, DLT_EXIT_UNDERSCORE, 4);
	check_end("abort", 1, DLT_EXIT_ABORT, SIGABRT);
	check_end("assert", 1, DLT_EXIT_ABORT, SIGABRT);
	/* The image before the exec, and /bin/true's. */
	check_end("exec", 2, DLT_EXIT_EXEC, 0);
}

/* The header's alloc_cursor of path, 0 while it cannot be read. */
static uint64_t cursor_of(const char *path)
{
	uint64_t cur = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &cur, sizeof(cur),
			     offsetof(struct dlt_file_header, alloc_cursor)) !=
			       (ssize_t)sizeof(cur))
		cur = 0;
	if (fd >= 0)
		close(fd);
	return cur;
}

/* The trace in dir of process pid, polled until its writer has handed out
 * at least bytes (or 30 s passed); NULL if it never showed. */
static char *wait_trace(const char *dir, int pid, uint64_t bytes)
{
	char *tag = tu_strfmt(".%d.", pid);
	char *found = NULL;
	for (int i = 0; i < 60000 && found == NULL; i++) {
		char **paths;
		tu_list_traces(dir, &paths);
		for (char **p = paths; *p && found == NULL; p++)
			if (strstr(*p, tag) && cursor_of(*p) >= bytes)
				found = strdup(*p);
		tu_free_list(paths);
		if (found == NULL)
			usleep(500);
	}
	free(tag);
	return found;
}

/* A process of the launcher's tree is killed with SIGKILL while it records
 * (its file then holds a growth step and an unfilled chunk beyond its
 * data); when the command ends, the launcher compacts it. */
static void test_end_launcher(void)
{
	char *scratch = tu_tmpdir("end-launcher");
	TU_CHECK_FATAL(scratch != NULL, "no scratch directory");
	char *dir = tu_strfmt("%s/trace", scratch);
	char *fx = tu_fx("fx_faults");
	char *script = tu_strfmt("'%s' marks 1000000000 & echo child $!; "
				 "wait $!; echo waited",
				 fx);
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, NULL) == 0, "cannot start");
	free(argv);
	char line[256] = "";
	int child = 0;
	if (tu_proc_readline(&p, line, sizeof(line), 30000) == 1)
		sscanf(line, "child %d", &child);
	char *path = child > 0 ? wait_trace(dir, child, 1u << 20) : NULL;
	if (child > 0)
		kill(child, SIGKILL);
	tu_proc_wait(&p, 60000);
	TU_CHECK_FATAL(path != NULL, "no trace of the child %d grew: %s", child,
		       line);
	TU_CHECK(tu_exit_code(p.status) == 0 && tu_contains(p.out, "waited"),
		 "the launcher's command: %s\n%s%s", tu_status_str(p.status),
		 p.out, p.err);
	struct tu_traceset set;
	load_clean("a killed child, after the launcher", dir, &set);
	for (size_t i = 0; i < set.n; i++)
		expect_compacted("after the launcher", set.t[i].path);
	const struct tu_trace *tr =
		trace_with("the killed child", &set, FX_ID_MAIN);
	if (tr) {
		struct tally t = {0};
		tally_trace(&t, tr);
		expect_sound("the killed child", &t);
		uint64_t k = expect_prefix("the killed child", &t, FX_ID_MAIN);
		TU_CHECK(k > 0, "no mark of the killed child");
		tally_free(&t);
	}
	tu_traceset_free(&set);
	tu_proc_free(&p);
	tu_rmtree(scratch);
	free(path);
	free(script);
	free(fx);
	free(dir);
	free(scratch);
}

/* dltrace-analyze compact on a directory a process is still writing into:
 * the live trace is left alone (the process goes on, untouched), the trace
 * of a process killed earlier is compacted; once the live one is killed
 * too, the next compact takes it. */
static void run_compact(const char *dir, struct tu_proc *c)
{
	const char *argv[] = {DLT_TEST_ANALYZE, "compact", dir, NULL};
	tu_run(c, argv, NULL, RUN_MS);
	TU_CHECK(tu_exit_code(c->status) == 0, "compact: %s\n%s%s",
		 tu_status_str(c->status), c->out, c->err);
}

static int start_marks(struct tu_proc *p, const char *dir, const char *fx)
{
	const char *cmd[] = {fx, "marks", "1000000000", NULL};
	const char **env = tu_preload_env(dir, NULL, 0);
	int r = tu_proc_start(p, cmd, env);
	free(env);
	return r;
}

static void test_compact_live(void)
{
	char *scratch = tu_tmpdir("compact-live");
	TU_CHECK_FATAL(scratch != NULL, "no scratch directory");
	char *dir = tu_strfmt("%s/trace", scratch);
	mkdir(dir, 0755);
	char *fx = tu_fx("fx_faults");
	struct tu_proc dead, live, c;
	TU_CHECK_FATAL(start_marks(&dead, dir, fx) == 0, "cannot start");
	char *dead_path = wait_trace(dir, dead.pid, 1u << 20);
	kill(dead.pid, SIGKILL);
	tu_proc_wait(&dead, 30000);
	TU_CHECK_FATAL(dead_path != NULL, "the first process left no trace");
	struct tu_layout before;
	tu_trace_layout(dead_path, &before);
	TU_CHECK_FATAL(start_marks(&live, dir, fx) == 0, "cannot start");
	char *live_path = wait_trace(dir, live.pid, 1u << 20);
	TU_CHECK_FATAL(live_path != NULL, "the second process left no trace");
	for (int round = 0; round < 5; round++) {
		run_compact(dir, &c);
		char *kept = tu_strfmt("kept %s: its process is still running",
				       live_path);
		TU_CHECK(tu_contains(c.out, kept), "round %d: %s", round,
			 c.out);
		free(kept);
		if (round == 0) {
			char *done = tu_strfmt("compacted %s", dead_path);
			TU_CHECK(tu_contains(c.out, done), "%s", c.out);
			free(done);
			expect_compacted("the killed trace, compacted",
					 dead_path);
		}
		tu_proc_free(&c);
	}
	/* Still recording: neither SIGBUS nor anything else came. */
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	TU_CHECK(waitid(P_PID, (id_t)live.pid, &si,
			WEXITED | WNOHANG | WNOWAIT) == 0 &&
			 si.si_pid == 0,
		 "the live process ended while compact ran (%d, status %d)",
		 (int)si.si_pid, si.si_status);
	uint64_t grew = cursor_of(live_path);
	kill(live.pid, SIGKILL);
	tu_proc_wait(&live, 30000);
	TU_CHECK(WIFSIGNALED(live.status) && WTERMSIG(live.status) == SIGKILL,
		 "the live process: %s", tu_status_str(live.status));
	run_compact(dir, &c);
	expect_compacted("the second trace, compacted after the kill",
			 live_path);
	tu_proc_free(&c);
	struct tu_traceset set;
	load_clean("compacted traces", dir, &set);
	TU_CHECK(set.n == 2,
		 "%zu compacted traces, expected the killed "
		 "process's and the live one's",
		 set.n);
	for (size_t i = 0; i < set.n; i++) {
		struct tally t = {0};
		tally_trace(&t, &set.t[i]);
		expect_sound(set.t[i].path, &t);
		TU_CHECK(expect_prefix(set.t[i].path, &t, FX_ID_MAIN) > 0,
			 "%s: no marks", set.t[i].path);
		tally_free(&t);
	}
	printf("\n    killed trace %llu -> %llu bytes; live trace reached %llu "
	       "bytes while compact ran\n",
	       (unsigned long long)before.size,
	       (unsigned long long)tu_file_size(dead_path),
	       (unsigned long long)grew);
	tu_traceset_free(&set);
	tu_proc_free(&dead);
	tu_proc_free(&live);
	tu_rmtree(scratch);
	free(live_path);
	free(dead_path);
	free(fx);
	free(dir);
	free(scratch);
}

/* ---- suite: enospc -----------------------------------------------------
 *
 * A trace directory on a file system that fills up (a 1 MiB tmpfs): the
 * writer's growth fails with ENOSPC and tracing stops with one line; the
 * program never sees a SIGBUS and runs as it does untraced. */

static char enospc_dir[4096];

static const char *enospc_skip(void)
{
	static char why[256];
	char *scratch = tu_tmpdir("enospc");
	if (scratch == NULL)
		return "no scratch directory";
	snprintf(enospc_dir, sizeof(enospc_dir), "%s/fs", scratch);
	free(scratch);
	mkdir(enospc_dir, 0755);
	if (mount("dltrace-enospc", enospc_dir, "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=1m") != 0) {
		snprintf(why, sizeof(why),
			 "cannot mount a small tmpfs here (%s; needs root)",
			 strerror(errno));
		return why;
	}
	return NULL;
}

static void test_enospc(void)
{
	char *fx = tu_fx("fx_faults");
	const char *cmd[] = {fx, "marks", "200000", NULL};
	struct tu_proc plain, pre;
	tu_run(&plain, cmd, NULL, RUN_MS);
	const char **env = tu_preload_env(enospc_dir, NULL, 0);
	tu_run(&pre, cmd, env, RUN_MS);
	free(env);
	tu_expect_same_run("a full file system", &plain, &pre, 1);
	TU_CHECK(off_lines(&pre) == 1 && tu_contains(pre.err, "cannot grow") &&
			 tu_contains(pre.err, "No space left on device"),
		 "expected one line \"tracing turned off: cannot grow ... (No "
		 "space left on device)\":\n%s",
		 pre.err);
	struct tu_traceset set;
	load_clean("a full file system", enospc_dir, &set);
	const struct tu_trace *tr =
		trace_with("a full file system", &set, FX_ID_MAIN);
	if (tr) {
		struct tally t = {0};
		tally_trace(&t, tr);
		expect_sound("a full file system", &t);
		uint64_t k =
			expect_prefix("a full file system", &t, FX_ID_MAIN);
		TU_CHECK(k > 1000 && k < 200000, "%llu of 200000 marks",
			 (unsigned long long)k);
		expect_cut("a full file system", tr->path);
		printf("\n    1 MiB file system: %llu of 200000 marks, trace "
		       "%llu bytes\n",
		       (unsigned long long)k,
		       (unsigned long long)tu_file_size(tr->path));
		tally_free(&t);
	}
	tu_traceset_free(&set);
	tu_proc_free(&plain);
	tu_proc_free(&pre);
	umount2(enospc_dir, MNT_DETACH);
	free(fx);
}

static const struct tu_test exit_tests[] = {
	{"_exit from a thread", test_exit_thread},
	{"abort()", test_abort},
	{NULL, NULL}};

static const struct tu_test ends_tests[] = {
	{"the file is cut at return, exit, _exit, abort, assert, exec, "
	 "after the end's record",
	 test_end_kinds},
	{"the launcher compacts a killed child's trace", test_end_launcher},
	{"compact leaves a live trace alone", test_compact_live},
	{NULL, NULL}};

static const struct tu_test enospc_tests[] = {
	{"the file system fills up", test_enospc}, {NULL, NULL}};

static const struct tu_test sigkill_tests[] = {
	{"SIGKILL at random moments", test_sigkill_random}, {NULL, NULL}};

static const struct tu_suite suites[] = {
	{"dir", dir_tests, NULL},
	{"fsize", fsize_tests, NULL},
	{"nofile", nofile_tests, NULL},
	{"closefds", closefds_tests, NULL},
	{"spawn", spawn_tests, NULL},
	{"fallbacks", fallback_tests, emulated},
	{"static", static_tests, static_skip},
	{"signals", signals_tests, NULL},
	{"threads", threads_tests, NULL},
	{"dlcycles", dlcycles_tests, NULL},
	{"exit", exit_tests, NULL},
	{"ends", ends_tests, NULL},
	{"enospc", enospc_tests, enospc_skip},
	{"sigkill", sigkill_tests, NULL},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
