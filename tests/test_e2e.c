/* End-to-end tests: fixture programs run plainly and under dltrace (the
 * launcher, or LD_PRELOAD of libdltrace.so), then their traces are read with
 * analyzer/reader/reader.h and `dltrace-analyze libs --json`.
 *
 *   test_e2e [SUITE...]   resolution privacy dlerror sigkill load fork
 *                         unwritable exit_status torch */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define RUN_TIMEOUT_MS 60000

/* ---- libs --json helpers --------------------------------------------------
 */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

static int jbool(const struct tu_json *o, const char *key, int dflt)
{
	const struct tu_json *v = tu_jget(o, key);
	return v && v->type == TU_JBOOL ? v->b : dflt;
}

/* Library rows (of any process) whose requested name, loaded_as or path has
 * this base name.  Returns how many; rows[] gets up to max of them. */
static size_t find_libs(const struct tu_json *root, const char *name,
			const struct tu_json **rows, size_t max)
{
	size_t n = 0;
	const struct tu_json *procs = tu_jget(root, "processes");
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *libs =
			tu_jget(tu_jat(procs, i), "libraries");
		for (size_t k = 0; k < tu_jlen(libs); k++) {
			const struct tu_json *l = tu_jat(libs, k);
			const char *cands[] = {tu_jstr(l, "requested"),
					       tu_jstr(l, "loaded_as"),
					       tu_jstr(l, "path")};
			int hit = 0;
			for (int c = 0; c < 3; c++)
				hit |= cands[c] &&
				       strcmp(base_name(cands[c]), name) == 0;
			if (hit) {
				if (n < max)
					rows[n] = l;
				n++;
			}
		}
	}
	return n;
}

static void print_lib(const struct tu_json *l)
{
	fprintf(stderr,
		"    library row: path=%s loaded_as=%s requested=%s "
		"requester=%s found_via=%s failed=%d error=%s\n",
		tu_jstr(l, "path"), tu_jstr(l, "loaded_as"),
		tu_jstr(l, "requested"), tu_jstr(l, "requester"),
		tu_jstr(l, "found_via"), jbool(l, "failed", -1),
		tu_jstr(l, "error"));
	const struct tu_json *tried = tu_jget(l, "tried");
	for (size_t i = 0; i < tu_jlen(tried); i++)
		fprintf(stderr, "      tried %s via %s\n",
			tu_jstr(tu_jat(tried, i), "path"),
			tu_jstr(tu_jat(tried, i), "via"));
}

/* A loaded library's row: where it came from, who asked, and the search
 * that found it. */
static void expect_lib_row(const char *what, const struct tu_json *l,
			   const char *want_path, const char *want_via,
			   const char *want_requester)
{
	const char *path = tu_jstr(l, "path");
	const char *via = tu_jstr(l, "found_via");
	const char *req = tu_jstr(l, "requester");
	int ok = 1;
#define ROW_CHECK(c, ...)                 \
	do {                              \
		ok &= !!(c);              \
		TU_CHECK(c, __VA_ARGS__); \
	} while (0)
	ROW_CHECK(!jbool(l, "failed", 1), "%s: row not marked failed:false",
		  what);
	ROW_CHECK(tu_same_file(path, want_path), "%s: path %s, expected %s",
		  what, path ? path : "null", want_path);
	ROW_CHECK(via && strcmp(via, want_via) == 0,
		  "%s: found_via %s, expected %s", what, via ? via : "null",
		  want_via);
	ROW_CHECK(tu_same_file(req, want_requester),
		  "%s: requester %s, expected %s", what, req ? req : "null",
		  want_requester);
	const struct tu_json *tried = tu_jget(l, "tried");
	size_t nt = tu_jlen(tried);
	ROW_CHECK(nt > 0, "%s: empty tried list", what);
	if (nt > 0) {
		const struct tu_json *last = tu_jat(tried, nt - 1);
		const char *tp = tu_jstr(last, "path");
		const char *tv = tu_jstr(last, "via");
		ROW_CHECK(tu_same_file(tp, want_path),
			  "%s: tried list ends in %s, expected %s", what,
			  tp ? tp : "null", want_path);
		ROW_CHECK(tv && strcmp(tv, want_via) == 0,
			  "%s: last tried path came via %s, expected %s", what,
			  tv ? tv : "null", want_via);
	}
#undef ROW_CHECK
	if (!ok)
		print_lib(l);
}

/* ---- DLOPEN records --------------------------------------------------------
 */

struct dlopen_scan {
	struct dlt_trace *tr;
	const char *name;
	const char *want_caller;
	size_t n, good_caller;
	int mode;
	char caller[1024];
};

static int scan_dlopen(void *ctx, const struct dlt_rec_view *v)
{
	struct dlopen_scan *d = ctx;
	if (v->rec->type != DLT_REC_DLOPEN)
		return 0;
	const struct dlt_rec_dlopen *r = (const void *)v->rec;
	const char *nm = dlt_trace_str(d->tr, r->name);
	if (nm == NULL || strcmp(nm, d->name) != 0)
		return 0;
	d->n++;
	d->mode = r->mode;
	const char *co = dlt_trace_str(d->tr, r->caller_obj);
	if (tu_same_file(co, d->want_caller))
		d->good_caller++;
	else
		snprintf(d->caller, sizeof(d->caller), "%s",
			 co ? co : "(none)");
	return 0;
}

/* The shim saw dlopen(name, want_mode) exactly once, called from the
 * object want_caller (its return address, not the shim's). */
static void expect_dlopen_record(const char *what, const char *dir,
				 const char *name, const char *want_caller,
				 int want_mode)
{
	struct dlopen_scan d;
	memset(&d, 0, sizeof(d));
	d.name = name;
	d.want_caller = want_caller;
	char **paths;
	tu_list_traces(dir, &paths);
	for (char **p = paths; *p; p++) {
		char err[512];
		d.tr = dlt_trace_open(*p, err, sizeof(err));
		if (d.tr == NULL)
			continue;
		dlt_trace_foreach(d.tr, scan_dlopen, &d);
		dlt_trace_close(d.tr);
	}
	tu_free_list(paths);
	TU_CHECK(d.n == 1,
		 "%s: %zu DLOPEN records for \"%s\", expected 1 "
		 "(is dlopen interposed?)",
		 what, d.n, name);
	TU_CHECK(d.n == 0 || d.good_caller == d.n,
		 "%s: dlopen(\"%s\") recorded with caller object %s, expected "
		 "%s",
		 what, name, d.caller, want_caller);
	TU_CHECK(d.n == 0 || d.mode == want_mode,
		 "%s: dlopen(\"%s\") recorded with mode 0x%x, expected 0x%x",
		 what, name, (unsigned)d.mode, (unsigned)want_mode);
}

static int json_array_has(const struct tu_json *a, const char *s)
{
	for (size_t i = 0; i < tu_jlen(a); i++) {
		const struct tu_json *e = tu_jat(a, i);
		if (e->type == TU_JSTR && strcmp(e->str, s) == 0)
			return 1;
	}
	return 0;
}

/* ---- suite: resolution (docs/library-facts.md §1) -----------------------
 */

enum trace_how { VIA_LAUNCHER, VIA_PRELOAD, VIA_PRELOAD_NO_AUDIT };

/* Runs loader args plainly and traced; the plain run must load want_b (a
 * fixture path) and print want_value, the traced run must do the same, and
 * the trace must say how libdlt_b.so was found. */
static void check_resolution(const char *what, const char *mode,
			     const char *target, const char *llp,
			     const char *want_b, int want_value,
			     const char *want_via, const char *want_requester,
			     enum trace_how how)
{
	char *loader = tu_fx("fx_loader");
	char *b = tu_fx(want_b);
	char *llp_env = llp ? tu_strfmt("LD_LIBRARY_PATH=%s", llp) : NULL;
	const char *cmd[] = {loader, mode, target, NULL};
	const char *env[] = {llp_env, NULL};
	char *dir = tu_tmpdir("resolution");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");

	struct tu_proc plain, traced;
	tu_run(&plain, cmd, env, RUN_TIMEOUT_MS);
	/* The fixture itself: without dltrace the loader must pick want_b. */
	char got[4096], want_line[64];
	const char *gotp = tu_line_value(
		plain.out,
		strcmp(mode, "direct") == 0 ? "main: got " : "a: got ", got,
		sizeof(got));
	snprintf(want_line, sizeof(want_line), "value %d\n", want_value);
	TU_CHECK(tu_exit_code(plain.status) == 0 && gotp &&
			 tu_same_file(gotp, b) &&
			 tu_contains(plain.out, want_line),
		 "%s: fixture broken: plain run %s, expected it to load %s "
		 "(value %d); output:\n%s%s",
		 what, tu_status_str(plain.status), b, want_value, plain.out,
		 plain.err);

	if (how == VIA_LAUNCHER) {
		tu_run_traced(&traced, dir, cmd, env, RUN_TIMEOUT_MS);
	} else {
		const char **penv =
			tu_preload_env(dir, env, how == VIA_PRELOAD_NO_AUDIT);
		tu_run(&traced, cmd, penv, RUN_TIMEOUT_MS);
		free(penv);
	}
	tu_expect_same_run(what, &plain, &traced, 1);
	/* The wrapper saw the call, and saw it come from the real caller. */
	expect_dlopen_record(what, dir, "libdlt_b.so", want_requester,
			     RTLD_NOW);

	if (how != VIA_PRELOAD_NO_AUDIT) {
		/* Without the audit module the search is not observed; with it,
		 * the trace must say which rule found libdlt_b.so. */
		struct tu_json *j = tu_libs_json(dir);
		if (j) {
			const struct tu_json *rows[8];
			size_t n = find_libs(j, "libdlt_b.so", rows, 8);
			TU_CHECK(n == 1,
				 "%s: %zu rows for libdlt_b.so, "
				 "expected 1",
				 what, n);
			for (size_t i = 0; i < n && i < 8; i++) {
				expect_lib_row(what, rows[i], b, want_via,
					       want_requester);
				const struct tu_json *mode =
					tu_jget(rows[i], "dlopen_mode");
				TU_CHECK(json_array_has(mode, "RTLD_NOW"),
					 "%s: dlopen_mode of libdlt_b.so does "
					 "not hold RTLD_NOW",
					 what);
			}
			const struct tu_json *req =
				n ? tu_jget(rows[0], "requested") : NULL;
			TU_CHECK(req && req->type == TU_JSTR &&
					 strcmp(req->str, "libdlt_b.so") == 0,
				 "%s: requested is %s, expected libdlt_b.so",
				 what,
				 req && req->type == TU_JSTR ? req->str : "?");
			tu_json_free(j);
		}
	}
	/* A library found by its requester's own rule is a healthy load;
	 * LD_LIBRARY_PATH's copy over the requester's RUNPATH copy is not
	 * (LIB_SHADOWED). */
	if (!(strcmp(want_via, "LD_LIBRARY_PATH") == 0 && llp &&
	      strcmp(mode, "via-lib") == 0))
		tu_expect_healthy(what, dir);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
	free(llp_env);
	free(b);
	free(loader);
}

static void test_runpath(void)
{
	char *a = tu_fx("runpath/libdlt_a.so");
	/* Control: a naive wrapper does break this fixture, so a traced run
	 * that matches the plain one shows dltrace's wrapper is not naive. */
	char *loader = tu_fx("fx_loader");
	char *naive = tu_fx("libdlt_naive.so");
	char *pre = tu_strfmt("LD_PRELOAD=%s", naive);
	const char *cmd[] = {loader, "via-lib", a, NULL};
	const char *env[] = {pre, NULL};
	struct tu_proc p;
	tu_run(&p, cmd, env, RUN_TIMEOUT_MS);
	TU_CHECK(tu_contains(p.out, "a: dlopen libdlt_b.so failed"),
		 "control: under a naive dlopen wrapper the fixture still "
		 "found libdlt_b.so, so it cannot tell a wrapper that changes "
		 "the caller:\n%s",
		 p.out);
	tu_proc_free(&p);
	free(pre);
	free(naive);
	free(loader);
	check_resolution("RUNPATH via dltrace", "via-lib", a, NULL,
			 "runpath/sub/libdlt_b.so", 2, "RUNPATH", a,
			 VIA_LAUNCHER);
	free(a);
}

static void test_runpath_preload(void)
{
	char *a = tu_fx("runpath/libdlt_a.so");
	check_resolution("RUNPATH via LD_PRELOAD", "via-lib", a, NULL,
			 "runpath/sub/libdlt_b.so", 2, "RUNPATH", a,
			 VIA_PRELOAD);
	check_resolution("RUNPATH via LD_PRELOAD, DLTRACE_AUDIT=0", "via-lib",
			 a, NULL, "runpath/sub/libdlt_b.so", 2, "RUNPATH", a,
			 VIA_PRELOAD_NO_AUDIT);
	free(a);
}

static void test_ld_library_path(void)
{
	char *loader = tu_fx("fx_loader");
	char *llp = tu_fx("llp");
	check_resolution("LD_LIBRARY_PATH", "direct", "libdlt_b.so", llp,
			 "llp/libdlt_b.so", 1, "LD_LIBRARY_PATH", loader,
			 VIA_LAUNCHER);
	free(llp);
	free(loader);
}

/* pytorch#80637: a RUNPATH library's own copy is shadowed by
 * LD_LIBRARY_PATH.  Whatever glibc picks, dltrace must pick the same and
 * say why; glibc 2.36 picks the LD_LIBRARY_PATH copy. */
static void test_runpath_shadowed(void)
{
	char *a = tu_fx("runpath/libdlt_a.so");
	char *llp = tu_fx("llp");
	check_resolution("RUNPATH shadowed by LD_LIBRARY_PATH", "via-lib", a,
			 llp, "llp/libdlt_b.so", 1, "LD_LIBRARY_PATH", a,
			 VIA_LAUNCHER);
	free(llp);
	free(a);
}

/* The modern wheels' answer: DT_RPATH is searched before LD_LIBRARY_PATH. */
static void test_rpath_wins(void)
{
	char *a = tu_fx("rpath/libdlt_a.so");
	char *llp = tu_fx("llp");
	check_resolution("RPATH before LD_LIBRARY_PATH", "via-lib", a, llp,
			 "rpath/sub/libdlt_b.so", 3, "RPATH", a, VIA_LAUNCHER);
	free(llp);
	free(a);
}

/* The real path a trace gives a library is realpath(3)'s, whatever links
 * lead to it: the audit module resolves it link by link itself (issue 31),
 * through directory links relative and absolute, a link to a link, a
 * target with "..", and a soname link as the last component. */
/* symlink(target, dir/name): 0 on success. */
static int link_in(const char *target, const char *dir, const char *name)
{
	char at[PATH_MAX];
	snprintf(at, sizeof(at), "%s/%s", dir, name);
	return symlink(target, at);
}

static void test_real_paths(void)
{
	char *dir = tu_tmpdir("realpaths");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *maze = tu_strfmt("%s/maze", dir);
	char *top = tu_strfmt("%s/real", maze);
	char *real = tu_strfmt("%s/real/lib", maze);
	char *out = tu_strfmt("%s/out", dir);
	char *b = tu_fx("llp/libdlt_b.so");
	char *file = tu_strfmt("%s/libdlt_b.so.1.2", real);
	int made = mkdir(maze, 0755) == 0 && mkdir(top, 0755) == 0 &&
		   mkdir(real, 0755) == 0 && mkdir(out, 0755) == 0 &&
		   tu_copy_file(b, file) == 0 &&
		   link_in("libdlt_b.so.1.2", real, "libdlt_b.so") == 0 &&
		   link_in("real", maze, "lnk") == 0 &&
		   link_in(real, maze, "abs") == 0 &&
		   link_in("lnk/lib", maze, "chain") == 0 &&
		   link_in("real/lib/../lib", maze, "up") == 0;
	TU_CHECK_FATAL(made, "cannot build the links: %s", strerror(errno));
	const char *via[] = {"lnk/lib/libdlt_b.so", "abs/libdlt_b.so",
			     "chain/./libdlt_b.so", "up/libdlt_b.so",
			     "lnk/../real/lib/libdlt_b.so.1.2"};
	char want[PATH_MAX];
	char *loader = tu_fx("fx_loader");
	for (size_t i = 0; i < sizeof(via) / sizeof(via[0]); i++) {
		char *path = tu_strfmt("%s/%s", maze, via[i]);
		TU_CHECK_FATAL(realpath(path, want) != NULL, "realpath %s",
			       path);
		const char *cmd[] = {loader, "direct", path, NULL};
		struct tu_proc p;
		tu_rmtree(out);
		mkdir(out, 0755);
		tu_run_traced(&p, out, cmd, NULL, RUN_TIMEOUT_MS);
		TU_CHECK(tu_exit_code(p.status) == 0, "%s: %s\n%s", via[i],
			 tu_status_str(p.status), p.err);
		struct tu_json *j = tu_libs_json(out);
		const struct tu_json *rows[4];
		size_t n = j ? find_libs(j, base_name(path), rows, 4) : 0;
		const char *got = n == 1 ? tu_jstr(rows[0], "path") : NULL;
		TU_CHECK(got && strcmp(got, want) == 0,
			 "%s: %zu rows, real path %s, realpath(3) says %s",
			 via[i], n, got ? got : "-", want);
		tu_json_free(j);
		tu_proc_free(&p);
		free(path);
	}
	free(loader);
	free(file);
	free(b);
	free(out);
	free(real);
	free(top);
	free(maze);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite: dlerror ---------------------------------------------------------
 */

static void test_dlerror(void)
{
	char *fx = tu_fx("fx_dlerror");
	char *lib = tu_fx("llp/libdlt_b.so");
	const char *cmd[] = {fx, lib, NULL};
	char *dir = tu_tmpdir("dlerror");
	char *dir2 = tu_tmpdir("dlerror-noaudit");
	TU_CHECK_FATAL(dir && dir2, "no scratch directory");

	struct tu_proc plain, traced, pre;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(
		tu_exit_code(plain.status) == 0 &&
			tu_contains(
				plain.out,
				"dlerror after failed dlopen: "
				"libdlt_nonexistent_xyz.so: cannot open shared "
				"object file"),
		"fixture broken: %s\n%s", tu_status_str(plain.status),
		plain.out);
	tu_run_traced(&traced, dir, cmd, NULL, RUN_TIMEOUT_MS);
	tu_expect_same_run("dlerror under dltrace", &plain, &traced, 1);
	const char **penv = tu_preload_env(dir2, NULL, 1);
	tu_run(&pre, cmd, penv, RUN_TIMEOUT_MS);
	free(penv);
	tu_expect_same_run("dlerror under LD_PRELOAD, DLTRACE_AUDIT=0", &plain,
			   &pre, 1);

	struct tu_json *j = tu_libs_json(dir);
	if (j) {
		const char *names[] = {
			"libdlt_nonexistent_xyz.so",
			"/nonexistent-dltrace-dir/libdlt_missing_abs.so"};
		/* What dlerror() told the program about each failure. */
		const char *lines[] = {"dlerror after failed dlopen: ",
				       "dlerror after failed abs dlopen: "};
		for (int i = 0; i < 2; i++) {
			char said[1024];
			const char *want = tu_line_value(plain.out, lines[i],
							 said, sizeof(said));
			const struct tu_json *rows[8];
			size_t n = find_libs(j, base_name(names[i]), rows, 8);
			size_t failed = 0;
			const struct tu_json *f = NULL;
			for (size_t k = 0; k < n && k < 8; k++)
				if (jbool(rows[k], "failed", 0)) {
					failed++;
					f = rows[k];
				}
			TU_CHECK(failed == 1,
				 "%zu failed rows for %s (of %zu rows), "
				 "expected 1",
				 failed, names[i], n);
			if (f == NULL || want == NULL)
				continue;
			const char *req = tu_jstr(f, "requested");
			const char *err = tu_jstr(f, "error");
			TU_CHECK(req && strcmp(req, names[i]) == 0,
				 "failed row requested=%s, expected %s",
				 req ? req : "null", names[i]);
			TU_CHECK(err && strcmp(err, want) == 0,
				 "failed row for %s has error \"%s\"; the "
				 "program was told \"%s\"",
				 names[i], err ? err : "null", want);
			TU_CHECK(tu_jstr(f, "path") == NULL,
				 "failed row for %s has a path %s", names[i],
				 tu_jstr(f, "path"));
		}
		tu_json_free(j);
	}
	/* Failed dlopens of libraries the program carries on without. */
	tu_expect_healthy("failed dlopens, program carries on", dir);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_proc_free(&pre);
	tu_rmtree(dir);
	tu_rmtree(dir2);
	free(dir);
	free(dir2);
	free(lib);
	free(fx);
}

/* ---- suite: SIGKILL while many threads record -------------------------------
 */

#define MARK_THREADS 32u
#define MARK_COUNT 100000u

struct mark_tally {
	uint8_t *seen; /* MARK_THREADS * MARK_COUNT flags */
	uint64_t count[MARK_THREADS];
	uint64_t max_seq[MARK_THREADS];
	uint64_t total, bad_sum, bad_id, dup;
};

/* A mark as fx_marks writes it: 0 with its sequence number in *seq, -1
 * for a thread id or sequence number out of range, -2 for a bad checksum. */
static int mark_decode(const struct dlt_rec_mark *m, uint32_t threads,
		       uint64_t count, uint64_t *seq)
{
	*seq = m->value & 0xffffffffu;
	if (m->id >= threads || (m->value >> 32) != m->id || *seq >= count)
		return -1;
	if (m->aux != ((uint32_t)(m->value * 2654435761u) ^ m->id))
		return -2;
	return 0;
}

static int tally_mark(void *ctx, const struct dlt_rec_view *v)
{
	struct mark_tally *t = ctx;
	if (v->rec->type != DLT_REC_MARK)
		return 0;
	const struct dlt_rec_mark *m = (const void *)v->rec;
	t->total++;
	uint64_t seq;
	int bad = mark_decode(m, MARK_THREADS, MARK_COUNT, &seq);
	if (bad) {
		t->bad_id += bad == -1;
		t->bad_sum += bad == -2;
		return 0;
	}
	uint8_t *s = &t->seen[(size_t)m->id * MARK_COUNT + seq];
	if (*s) {
		t->dup++;
		return 0;
	}
	*s = 1;
	t->count[m->id]++;
	if (seq > t->max_seq[m->id] || t->count[m->id] == 1)
		t->max_seq[m->id] = seq;
	return 0;
}

/* Reads every trace in dir into a tally; any problem the reader reports is
 * a failed check: the writer never claims a chunk beyond the file's end, so
 * even a SIGKILL leaves a trace that reads without a complaint. */
static void tally_dir(const char *dir, struct mark_tally *t)
{
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK(n > 0, "no trace in %s", dir);
	for (size_t i = 0; i < n; i++) {
		char err[512];
		struct dlt_trace *tr =
			dlt_trace_open(paths[i], err, sizeof(err));
		TU_CHECK(tr != NULL, "%s does not open: %s", paths[i], err);
		if (tr == NULL)
			continue;
		dlt_trace_foreach(tr, tally_mark, t);
		for (size_t k = 0; k < dlt_trace_problem_count(tr); k++) {
			TU_CHECK(0, "%s: reader problem: %s", paths[i],
				 dlt_trace_problem(tr, k));
		}
		dlt_trace_close(tr);
	}
	tu_free_list(paths);
}

/* Per thread: seq values exactly 0..k-1; returns threads that finished. */
static unsigned check_tally(const struct mark_tally *t, int require_all)
{
	TU_CHECK(t->bad_sum == 0 && t->bad_id == 0 && t->dup == 0,
		 "%llu marks with a bad checksum, %llu with a bad id/value, "
		 "%llu duplicates (of %llu)",
		 (unsigned long long)t->bad_sum, (unsigned long long)t->bad_id,
		 (unsigned long long)t->dup, (unsigned long long)t->total);
	unsigned finished = 0, empty = 0, gaps = 0;
	for (unsigned i = 0; i < MARK_THREADS; i++) {
		if (t->count[i] == 0) {
			empty++;
			continue;
		}
		if (t->max_seq[i] + 1 != t->count[i]) {
			gaps++;
			fprintf(stderr,
				"    thread %u: %llu marks, highest seq "
				"%llu\n",
				i, (unsigned long long)t->count[i],
				(unsigned long long)t->max_seq[i]);
		}
		if (t->count[i] == MARK_COUNT)
			finished++;
	}
	TU_CHECK(empty == 0, "%u threads left no mark at all", empty);
	TU_CHECK(gaps == 0, "%u threads have gaps in their sequence", gaps);
	if (require_all)
		TU_CHECK(finished == MARK_THREADS &&
				 t->total ==
					 (uint64_t)MARK_THREADS * MARK_COUNT,
			 "%u of %u threads finished, %llu marks in all",
			 finished, MARK_THREADS, (unsigned long long)t->total);
	return finished;
}

/* Where the writer has handed out chunks up to (header.alloc_cursor) in the
 * trace of pid, or 0 while there is none. */
static uint64_t trace_progress(const char *dir, int pid)
{
	char **paths;
	tu_list_traces(dir, &paths);
	char *tag = tu_strfmt(".%d.", pid);
	uint64_t best = 0;
	for (char **p = paths; *p; p++) {
		if (!tu_contains(base_name(*p), tag))
			continue;
		int fd = open(*p, O_RDONLY | O_CLOEXEC);
		uint64_t cur = 0;
		if (fd >= 0 &&
		    pread(fd, &cur, sizeof(cur),
			  offsetof(struct dlt_file_header, alloc_cursor)) ==
			    (ssize_t)sizeof(cur) &&
		    cur > best)
			best = cur;
		if (fd >= 0)
			close(fd);
	}
	free(tag);
	tu_free_list(paths);
	return best;
}

static void test_sigkill(void)
{
	char *fx = tu_fx("fx_marks");
	char *dir = tu_tmpdir("sigkill");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char threads[16], count[16];
	snprintf(threads, sizeof(threads), "%u", MARK_THREADS);
	snprintf(count, sizeof(count), "%u", MARK_COUNT);
	/* Little work between marks: the threads record as fast as they
	 * can.  The kill comes when the trace has grown to a random fraction
	 * (5-60 %) of what the whole run writes, whatever the machine's
	 * speed; not every thread can have finished by then (checked). */
	const char *cmd[] = {fx, threads, count, "50", NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, NULL) == 0, "cannot start");
	free(argv);
	char line[256] = "";
	int r = tu_proc_readline(&p, line, sizeof(line), 30000);
	int pid = 0;
	char mark[8] = "";
	if (r == 1)
		sscanf(line, "ready %d mark=%7s", &pid, mark);
	if (pid <= 0) {
		tu_proc_wait(&p, 10000);
		TU_CHECK_FATAL(0, "fx_marks did not get ready (%s): %s\n%s",
			       tu_status_str(p.status), line, p.err);
	}
	if (strcmp(mark, "yes") != 0)
		kill(pid, SIGKILL);
	TU_CHECK_FATAL(strcmp(mark, "yes") == 0,
		       "dltrace_mark not found by dlsym(RTLD_DEFAULT) in the "
		       "traced program");
	struct timespec seed;
	clock_gettime(CLOCK_REALTIME, &seed);
	srand((unsigned)(seed.tv_nsec ^ getpid()));
	uint64_t whole = (uint64_t)MARK_THREADS * MARK_COUNT *
			 sizeof(struct dlt_rec_mark);
	unsigned pct = 5 + (unsigned)(rand() % 56);
	uint64_t goal = DLT_DATA_OFFSET + whole / 100 * pct;
	uint64_t seen = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 30000 && seen < goal; i++) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)p.pid, &si,
			   WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    si.si_pid != 0)
			break; /* the launcher is gone */
		seen = trace_progress(dir, pid);
		if (seen < goal)
			usleep(500);
	}
	int killed = kill(pid, SIGKILL) == 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TU_CHECK(killed && seen >= goal,
		 "the trace of pid %d reached %llu bytes, the kill was due at "
		 "%llu",
		 pid, (unsigned long long)seen, (unsigned long long)goal);
	tu_proc_wait(&p, 30000);
	TU_CHECK(tu_exit_code(p.status) == 128 + SIGKILL,
		 "dltrace exit status %s after its child was killed, expected "
		 "%d; stderr:\n%s",
		 tu_status_str(p.status), 128 + SIGKILL, p.err);

	struct mark_tally *t = calloc(1, sizeof(*t));
	t->seen = calloc((size_t)MARK_THREADS * MARK_COUNT, 1);
	tally_dir(dir, t);
	unsigned finished = check_tally(t, 0);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 +
		  (t1.tv_nsec - t0.tv_nsec) / 1000000;
	printf("\n    killed at %u %% of the trace (%ld ms): %llu marks, "
	       "%u of %u threads finished\n",
	       pct, ms, (unsigned long long)t->total, finished, MARK_THREADS);
	TU_CHECK(finished < MARK_THREADS,
		 "every thread had finished before the kill: the test did not "
		 "test anything");
	free(t->seen);
	free(t);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

static void test_marks_complete(void)
{
	char *fx = tu_fx("fx_marks");
	char *dir = tu_tmpdir("marks");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char threads[16], count[16];
	snprintf(threads, sizeof(threads), "%u", MARK_THREADS);
	snprintf(count, sizeof(count), "%u", MARK_COUNT);
	const char *cmd[] = {fx, threads, count, "0", NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, 60000);
	TU_CHECK(tu_exit_code(p.status) == 0 && tu_contains(p.out, "done\n") &&
			 tu_contains(p.out, "mark=yes"),
		 "fx_marks under dltrace: %s\n%s%s", tu_status_str(p.status),
		 p.out, p.err);
	struct mark_tally *t = calloc(1, sizeof(*t));
	t->seen = calloc((size_t)MARK_THREADS * MARK_COUNT, 1);
	tally_dir(dir, t);
	check_tally(t, 1);
	free(t->seen);
	free(t);
	tu_proc_free(&p);
	tu_expect_healthy("32 threads of marks", dir);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- suite: load ---------------------------------------------------------
 *
 * LOAD_THREADS threads record marks as fast as they can for
 * DLT_LOAD_SECONDS (default 3; scripts/load.sh runs 60) and the program is
 * then killed.  The trace must read to its end without a single problem,
 * every thread's marks must come in order with consecutive sequence
 * numbers from 0, all in chunks of one thread id, and the launcher must
 * have added the SIGKILL.  DLT_LOAD_MAX_SIZE, if set, is passed on as
 * DLTRACE_MAX_SIZE. */

#define LOAD_THREADS 64u

struct load_tally {
	uint64_t next[LOAD_THREADS]; /* seq expected next */
	uint32_t tid[LOAD_THREADS];
	uint64_t marks, bad, out_of_order, wrong_tid, reaped_kill;
	uint64_t first_bad_off;
	uint64_t first_ts, last_ts; /* of the marks */
};

static int load_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct load_tally *t = ctx;
	if (v->rec->type == DLT_REC_EXIT) {
		const struct dlt_rec_exit *e = (const void *)v->rec;
		t->reaped_kill += e->h.flags == DLT_EXIT_REAPED &&
				  WIFSIGNALED(e->status) &&
				  WTERMSIG(e->status) == SIGKILL;
		return 0;
	}
	if (v->rec->type != DLT_REC_MARK)
		return 0;
	const struct dlt_rec_mark *m = (const void *)v->rec;
	t->marks++;
	if (t->first_ts == 0 || m->h.ts < t->first_ts)
		t->first_ts = m->h.ts;
	if (m->h.ts > t->last_ts)
		t->last_ts = m->h.ts;
	uint64_t seq;
	if (mark_decode(m, LOAD_THREADS, UINT64_MAX, &seq) != 0) {
		if (t->bad++ == 0)
			t->first_bad_off = v->offset;
		return 0;
	}
	if (t->next[m->id] == 0 && seq == 0)
		t->tid[m->id] = v->tid;
	else if (v->tid != t->tid[m->id])
		t->wrong_tid++;
	if (seq != t->next[m->id]) {
		if (t->out_of_order++ == 0)
			t->first_bad_off = v->offset;
		fprintf(stderr,
			"    thread %u: seq %llu at offset %llu, expected "
			"%llu\n",
			m->id, (unsigned long long)seq,
			(unsigned long long)v->offset,
			(unsigned long long)t->next[m->id]);
	}
	t->next[m->id] = seq + 1;
	return 0;
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void test_load(void)
{
	const char *s = getenv("DLT_LOAD_SECONDS");
	double secs = s && *s ? atof(s) : 3.0;
	const char *ms = getenv("DLT_LOAD_MAX_SIZE");
	char *fx = tu_fx("fx_marks");
	char *dir = tu_tmpdir("load");
	TU_CHECK_FATAL(dir != NULL && secs > 0, "no scratch directory");
	char threads[16];
	snprintf(threads, sizeof(threads), "%u", LOAD_THREADS);
	/* Sequence numbers have 32 bits: more marks than any run writes. */
	const char *cmd[] = {fx, threads, "4294967295", "0", NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	char *max_env = ms ? tu_strfmt("DLTRACE_MAX_SIZE=%s", ms) : NULL;
	const char *env[] = {max_env, NULL};
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start");
	free(argv);
	free(max_env);
	char line[256] = "";
	int pid = 0;
	char mark[8] = "";
	if (tu_proc_readline(&p, line, sizeof(line), 30000) == 1)
		sscanf(line, "ready %d mark=%7s", &pid, mark);
	if (pid <= 0 || strcmp(mark, "yes") != 0) {
		if (pid > 0)
			kill(pid, SIGKILL);
		tu_proc_wait(&p, 10000);
		TU_CHECK_FATAL(0,
			       "fx_marks did not get ready with marks (%s): "
			       "%s\n%s",
			       tu_status_str(p.status), line, p.err);
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct timespec nap = {(time_t)secs,
			       (long)((secs - (double)(time_t)secs) * 1e9)};
	while (nanosleep(&nap, &nap) != 0)
		;
	TU_CHECK_FATAL(kill(pid, SIGKILL) == 0,
		       "fx_marks (pid %d) is gone "
		       "before the kill",
		       pid);
	double ran = secs_since(&t0);
	tu_proc_wait(&p, 600000);
	TU_CHECK(tu_exit_code(p.status) == 128 + SIGKILL,
		 "dltrace exit status %s after its child was killed; "
		 "stderr:\n%s",
		 tu_status_str(p.status), p.err);

	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK_FATAL(n == 1, "%zu traces in %s, expected 1", n, dir);
	struct timespec v0;
	clock_gettime(CLOCK_MONOTONIC, &v0);
	char err[512];
	struct dlt_trace *tr = dlt_trace_open(paths[0], err, sizeof(err));
	TU_CHECK_FATAL(tr != NULL, "%s does not open: %s", paths[0], err);
	struct load_tally *t = calloc(1, sizeof(*t));
	dlt_trace_foreach(tr, load_rec, t);
	double vsecs = secs_since(&v0);
	struct dlt_trace_stats st;
	dlt_trace_stats(tr, &st);
	uint64_t cursor = dlt_trace_header(tr)->alloc_cursor;
	for (size_t k = 0; k < dlt_trace_problem_count(tr); k++)
		TU_CHECK(0, "%s: reader problem: %s", paths[0],
			 dlt_trace_problem(tr, k));
	dlt_trace_close(tr);

	unsigned silent = 0;
	for (unsigned i = 0; i < LOAD_THREADS; i++)
		silent += t->next[i] == 0;
	TU_CHECK(t->bad == 0 && t->out_of_order == 0 && t->wrong_tid == 0,
		 "%llu corrupt marks, %llu out of order, %llu in another "
		 "thread's chunk (first at offset %llu)",
		 (unsigned long long)t->bad,
		 (unsigned long long)t->out_of_order,
		 (unsigned long long)t->wrong_tid,
		 (unsigned long long)t->first_bad_off);
	TU_CHECK(silent == 0, "%u of %u threads left no mark", silent,
		 LOAD_THREADS);
	TU_CHECK(t->reaped_kill == 1,
		 "%llu launcher records of the SIGKILL, expected 1",
		 (unsigned long long)t->reaped_kill);
	/* Recording stops early when the trace reaches its size limit. */
	int limit = tu_contains(p.err, "trace size limit reached");
	double span = (double)(t->last_ts - t->first_ts) / 1e9;
	printf("\n    %u threads for %.1f s, then SIGKILL: %llu marks over "
	       "%.1f s (%.1f M/s), %llu records, %llu chunks, trace %.1f MiB "
	       "(alloc_cursor %llu)%s; validated in %.2f s (%.0f MiB/s)\n",
	       LOAD_THREADS, ran, (unsigned long long)t->marks, span,
	       span > 0 ? (double)t->marks / span / 1e6 : 0.0,
	       (unsigned long long)st.records, (unsigned long long)st.chunks,
	       (double)st.bytes / 1048576.0, (unsigned long long)cursor,
	       limit ? ", size limit reached" : "", vsecs,
	       (double)st.bytes / 1048576.0 / vsecs);
	free(t);
	tu_free_list(paths);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- suite: fork and exec
 * ------------------------------------------------------ */

static const struct tu_trace *only_trace_with(const struct tu_traceset *s,
					      uint32_t id)
{
	const struct tu_trace *t;
	size_t n = tu_traceset_with_mark(s, id, &t);
	TU_CHECK(n == 1, "mark %u is in %zu traces, expected exactly 1", id, n);
	return n == 1 ? t : NULL;
}

static void test_fork_exec(void)
{
	char *fx = tu_fx("fx_fork");
	char *dir = tu_tmpdir("fork");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {fx, NULL};
	struct tu_proc p;
	tu_run(&p, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0,
		 "fixture broken: plain run %s\n%s", tu_status_str(p.status),
		 p.out);
	tu_proc_free(&p);
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	int parent = 0, c1 = 0, c2 = 0, c3 = 0;
	char buf[512];
	const char *last = tu_line_value(p.out, "parent ", buf, sizeof(buf));
	if (last)
		sscanf(last, "%d child1 %d child2 %d child3 %d", &parent, &c1,
		       &c2, &c3);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 0 && c3 > 0,
		       "fx_fork under dltrace: %s\n%s%s",
		       tu_status_str(p.status), p.out, p.err);

	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	size_t before = CU_get_number_of_failures();
	const struct tu_trace *t1 = only_trace_with(&s, 1);
	const struct tu_trace *t2 = only_trace_with(&s, 2);
	const struct tu_trace *t3 = only_trace_with(&s, 3);
	const struct tu_trace *t4 = only_trace_with(&s, 4);
	const struct tu_trace *t5 = only_trace_with(&s, 5);
	if (t1 && t5)
		TU_CHECK(t1 == t5, "the parent's marks 1 and 5 are in two "
				   "traces");
	if (t1) {
		TU_CHECK(t1->hdr.pid == (uint32_t)parent,
			 "parent trace pid %u, expected %d", t1->hdr.pid,
			 parent);
		TU_CHECK(!tu_trace_has_mark(t1, 2) &&
				 !tu_trace_has_mark(t1, 3) &&
				 !tu_trace_has_mark(t1, 4),
			 "the parent's trace holds a child's marks");
	}
	if (t1 && t2) {
		TU_CHECK(t2->hdr.pid == (uint32_t)c1 &&
				 t2->hdr.ppid == (uint32_t)parent,
			 "forked child trace: pid %u ppid %u, expected %d %d",
			 t2->hdr.pid, t2->hdr.ppid, c1, parent);
		TU_CHECK(t2->hdr.parent_kind == DLT_PARENT_FORK &&
				 t2->hdr.parent_trace_id == t1->hdr.trace_id,
			 "forked child trace: parent_kind %u parent_trace_id "
			 "%016llx, expected FORK and %016llx",
			 t2->hdr.parent_kind,
			 (unsigned long long)t2->hdr.parent_trace_id,
			 (unsigned long long)t1->hdr.trace_id);
	}
	if (t1 && t3)
		TU_CHECK(t3->hdr.pid == (uint32_t)c2 &&
				 t3->hdr.parent_kind == DLT_PARENT_FORK &&
				 t3->hdr.parent_trace_id == t1->hdr.trace_id,
			 "second child before exec: pid %u kind %u parent "
			 "%016llx, expected %d FORK %016llx",
			 t3->hdr.pid, t3->hdr.parent_kind,
			 (unsigned long long)t3->hdr.parent_trace_id, c2,
			 (unsigned long long)t1->hdr.trace_id);
	if (t3 && t4)
		TU_CHECK(t4->hdr.pid == (uint32_t)c2 &&
				 t4->hdr.parent_kind == DLT_PARENT_EXEC &&
				 t4->hdr.parent_trace_id == t3->hdr.trace_id &&
				 t4->hdr.exec_seq > t3->hdr.exec_seq,
			 "second child after exec: pid %u kind %u parent "
			 "%016llx exec_seq %u, expected %d EXEC %016llx and "
			 "exec_seq > %u",
			 t4->hdr.pid, t4->hdr.parent_kind,
			 (unsigned long long)t4->hdr.parent_trace_id,
			 t4->hdr.exec_seq, c2,
			 (unsigned long long)t3->hdr.trace_id,
			 t3->hdr.exec_seq);
	if (t1) {
		int seen[3] = {0, 0, 0};
		int want[3] = {c1, c2, c3};
		for (size_t k = 0; k < t1->nforks; k++)
			for (int c = 0; c < 3; c++)
				seen[c] += t1->forks[k] == (uint32_t)want[c];
		TU_CHECK(t1->nforks == 3 && seen[0] == 1 && seen[1] == 1 &&
				 seen[2] == 1,
			 "parent trace has %zu FORK records; expected one each "
			 "for %d %d %d",
			 t1->nforks, c1, c2, c3);
	}
	if (t3)
		TU_CHECK(t3->nrec[DLT_REC_EXEC] == 1,
			 "second child before exec: %zu EXEC records, expected "
			 "1",
			 t3->nrec[DLT_REC_EXEC]);
	/* The third child recorded nothing before its exec: it has no trace
	 * of its own, and /bin/true's trace names the parent's as the trace
	 * it was forked from (docs/design.md, "fork"). */
	size_t true_traces = 0, true_linked = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.t[i].hdr.pid == (uint32_t)c3) {
			true_traces++;
			true_linked +=
				t1 &&
				s.t[i].hdr.parent_kind == DLT_PARENT_FORK &&
				s.t[i].hdr.parent_trace_id ==
					t1->hdr.trace_id &&
				s.t[i].hdr.exec_seq == 0;
		}
	TU_CHECK(true_traces == 1 && true_linked == 1,
		 "%zu traces for pid %d (/bin/true after fork+exec), %zu "
		 "naming the parent's trace as FORK parent; expected 1 and 1",
		 true_traces, c3, true_linked);
	/* Every mark's aux is the pid that wrote it; file names and ids;
	 * every trace says which program it is (a child's trace made by a
	 * record with strings lost its own once). */
	for (size_t i = 0; i < s.n; i++) {
		const struct tu_trace *t = &s.t[i];
		TU_CHECK(t->exe[0] == '/', "%s: PROC exe is \"%s\"", t->path,
			 t->exe);
		for (size_t k = 0; k < t->nmarks; k++)
			TU_CHECK(t->marks[k].aux == t->hdr.pid,
				 "%s: mark %u written by pid %u in the trace "
				 "of pid %u",
				 t->path, t->marks[k].id, t->marks[k].aux,
				 t->hdr.pid);
		char *tag = tu_strfmt(".%u.%u", t->hdr.pid, t->hdr.exec_seq);
		const char *at = strstr(base_name(t->path), tag);
		char next = at ? at[strlen(tag)] : '\0';
		TU_CHECK(at && (next == '.' || next == '-'),
			 "%s: name does not carry pid %u and exec_seq %u",
			 t->path, t->hdr.pid, t->hdr.exec_seq);
		free(tag);
		for (size_t k = 0; k < i; k++)
			TU_CHECK(s.t[k].hdr.trace_id != t->hdr.trace_id,
				 "%s and %s share trace id %016llx",
				 s.t[k].path, t->path,
				 (unsigned long long)t->hdr.trace_id);
	}
	if (CU_get_number_of_failures() != before)
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_expect_healthy("fork and exec", dir);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- suite: unwritable output directory
 * ---------------------------------------- */

/* A path that cannot be a directory, even for root. */
static char *unwritable_under_file(const char *scratch)
{
	char *file = tu_strfmt("%s/plain-file", scratch);
	FILE *f = fopen(file, "w");
	if (f)
		fclose(f);
	char *p = tu_strfmt("%s/sub", file);
	free(file);
	return p;
}

static void expect_turned_off(const char *what, const struct tu_proc *plain,
			      const struct tu_proc *traced)
{
	tu_expect_same_run(what, plain, traced, 1);
	size_t n = tu_count_lines(traced->err, "dltrace: tracing turned off");
	TU_CHECK(n == 1,
		 "%s: %zu \"dltrace: tracing turned off\" lines, expected "
		 "exactly 1; stderr:\n%s",
		 what, n, traced->err);
}

static void test_unwritable_preload(void)
{
	char *fx = tu_fx("fx_hello");
	char *scratch = tu_tmpdir("unwritable");
	TU_CHECK_FATAL(scratch != NULL, "no scratch directory");
	char *under_file = unwritable_under_file(scratch);
	const char *dirs[] = {"/proc/dltrace-nope", under_file};
	const char *cmd[] = {fx, NULL};
	struct tu_proc plain;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(plain.status) == 3, "fixture broken: %s",
		 tu_status_str(plain.status));
	for (int i = 0; i < 2; i++) {
		for (int no_audit = 0; no_audit < 2; no_audit++) {
			const char **env =
				tu_preload_env(dirs[i], NULL, no_audit);
			struct tu_proc traced;
			tu_run(&traced, cmd, env, RUN_TIMEOUT_MS);
			char *what = tu_strfmt(
				"LD_PRELOAD, DLTRACE_DIR=%s%s", dirs[i],
				no_audit ? ", DLTRACE_AUDIT=0" : "");
			expect_turned_off(what, &plain, &traced);
			free(what);
			tu_proc_free(&traced);
			free(env);
		}
	}
	tu_proc_free(&plain);
	tu_rmtree(scratch);
	free(scratch);
	free(under_file);
	free(fx);
}

/* LD_PRELOAD alone, with a DLTRACE_DIR not made yet: the process makes it
 * (a mkdir only when creating the trace says it is missing, issue 31),
 * and its run and trace are as with the directory there. */
static void test_preload_makes_dir(void)
{
	char *fx = tu_fx("fx_hello");
	char *scratch = tu_tmpdir("makes-dir");
	TU_CHECK_FATAL(scratch != NULL, "no scratch directory");
	const char *cmd[] = {fx, NULL};
	struct tu_proc plain;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	for (int no_audit = 0; no_audit < 2; no_audit++) {
		char *dir = tu_strfmt("%s/new-%d", scratch, no_audit);
		const char **env = tu_preload_env(dir, NULL, no_audit);
		struct tu_proc traced;
		tu_run(&traced, cmd, env, RUN_TIMEOUT_MS);
		char *what =
			tu_strfmt("LD_PRELOAD, DLTRACE_DIR=%s (missing)%s", dir,
				  no_audit ? ", DLTRACE_AUDIT=0" : "");
		tu_expect_same_run(what, &plain, &traced, 1);
		struct tu_traceset s;
		tu_traceset_load(dir, &s);
		TU_CHECK(s.n == 1 && s.t[0].hdr.pid == (uint32_t)traced.pid,
			 "%s: %zu traces in the directory, expected the "
			 "process's one",
			 what, s.n);
		tu_traceset_free(&s);
		tu_proc_free(&traced);
		free(env);
		free(what);
		free(dir);
	}
	tu_proc_free(&plain);
	tu_rmtree(scratch);
	free(scratch);
	free(fx);
}

static void test_unwritable_launcher(void)
{
	char *fx = tu_fx("fx_hello");
	char *scratch = tu_tmpdir("unwritable");
	TU_CHECK_FATAL(scratch != NULL, "no scratch directory");
	char *under_file = unwritable_under_file(scratch);
	/* A directory whose traces' paths would pass the writer's 1 KiB. */
	char longdir[1200];
	int ln = snprintf(longdir, sizeof(longdir), "%s", scratch);
	while (ln < 960)
		ln += snprintf(longdir + ln, sizeof(longdir) - (size_t)ln,
			       "/%.100s",
			       "a-directory-name-of-a-hundred-bytes-"
			       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			       "aaaaaaaaaaaaaaaaaaaaaaaaaa");
	const char *dirs[] = {"/proc/dltrace-nope", under_file, longdir};
	const char *cmd[] = {fx, NULL};
	struct tu_proc plain;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	for (int i = 0; i < 3; i++) {
		struct tu_proc traced;
		tu_run_traced(&traced, dirs[i], cmd, NULL, RUN_TIMEOUT_MS);
		char *what = tu_strfmt("dltrace -o %s", dirs[i]);
		/* The program runs unchanged; dltrace says once that it does
		 * not trace, naming the directory. */
		tu_expect_same_run(what, &plain, &traced, 1);
		size_t off = tu_count_lines(traced.err,
					    "dltrace: tracing turned off");
		TU_CHECK(off <= 1, "%s: %zu \"tracing turned off\" lines:\n%s",
			 what, off, traced.err);
		TU_CHECK(tu_contains(traced.err, dirs[i]) ||
				 tu_contains(traced.err, "dltrace-nope"),
			 "%s: stderr does not name the directory:\n%s", what,
			 traced.err);
		free(what);
		tu_proc_free(&traced);
	}
	tu_proc_free(&plain);
	tu_rmtree(scratch);
	free(scratch);
	free(under_file);
	free(fx);
}

/* ---- suite: exit status
 * ------------------------------------------------------- */

/* The direct child's trace: the one whose ppid is the launcher, holding the
 * status the launcher reaped. */
static const struct tu_trace *reaped_trace(const struct tu_traceset *s,
					   pid_t launcher, int32_t *status)
{
	const struct tu_trace *found = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->t[i].nexits; k++)
			if (s->t[i].exits[k].how == DLT_EXIT_REAPED) {
				n++;
				found = &s->t[i];
				*status = s->t[i].exits[k].status;
			}
	TU_CHECK(n == 1, "%zu REAPED exit records, expected 1", n);
	if (found)
		TU_CHECK(found->hdr.ppid == (uint32_t)launcher,
			 "REAPED record in the trace of pid %u (ppid %u), not "
			 "of the launcher's child (launcher %d)",
			 found->hdr.pid, found->hdr.ppid, (int)launcher);
	return n == 1 ? found : NULL;
}

static void test_exit_code(void)
{
	char *dir = tu_tmpdir("exit");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {"sh", "-c", "exit 7", NULL}; /* found on PATH */
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 7,
		 "dltrace -- sh -c 'exit 7': %s; stderr:\n%s",
		 tu_status_str(p.status), p.err);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	int32_t st = -1;
	size_t before = CU_get_number_of_failures();
	if (reaped_trace(&s, p.pid, &st))
		TU_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7,
			 "reaped status recorded as %s", tu_status_str(st));
	if (CU_get_number_of_failures() != before)
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

static void test_exit_signal(void)
{
	char *fx = tu_fx("fx_selfkill");
	char *dir = tu_tmpdir("exit-signal");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {fx, NULL};
	struct tu_proc plain, p;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(WIFSIGNALED(plain.status) && WTERMSIG(plain.status) == SIGTERM,
		 "fixture broken: %s", tu_status_str(plain.status));
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 128 + SIGTERM,
		 "dltrace -- fx_selfkill: %s, expected exit %d; stderr:\n%s",
		 tu_status_str(p.status), 128 + SIGTERM, p.err);
	TU_CHECK(strcmp(plain.out, p.out) == 0, "stdout differs:\n%s---\n%s",
		 plain.out, p.out);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	int32_t st = -1;
	size_t before = CU_get_number_of_failures();
	if (reaped_trace(&s, p.pid, &st))
		TU_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
			 "reaped status recorded as %s", tu_status_str(st));
	if (CU_get_number_of_failures() != before)
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* A plain exit code comes through, the program's own stderr is kept, and
 * dltrace's verdict follows on lines of its own. */
static void test_exit_verdict(void)
{
	char *fx = tu_fx("fx_hello");
	char *dir = tu_tmpdir("verdict");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {fx, NULL};
	struct tu_proc plain, p;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	tu_expect_same_run("dltrace -- fx_hello", &plain, &p, 1);
	TU_CHECK(tu_count_lines(p.err, "dltrace: ") >= 1,
		 "no verdict line on stderr:\n%s", p.err);
	TU_CHECK(tu_count_lines(p.err, "dltrace: tracing turned off") == 0,
		 "tracing turned off in a writable directory:\n%s", p.err);
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK(n >= 1, "no trace written in %s", dir);
	tu_free_list(paths);
	tu_proc_free(&plain);
	tu_proc_free(&p);
	tu_expect_healthy("fx_hello", dir);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- suite: real PyTorch ----------------------------------------------------
 */

static const char *torch_skip(void)
{
	return tu_python_skip("torch");
}

/* DT_NEEDED names of an ELF64 file; NULL-terminated, caller frees. */
static char **elf_needed(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	const uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	char **out = NULL;
	const Elf64_Ehdr *eh = (const void *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
		goto done;
	const Elf64_Phdr *ph = (const void *)(m + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;
	size_t ndyn = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC &&
		    ph[i].p_offset + ph[i].p_filesz <= size) {
			dyn = (const void *)(m + ph[i].p_offset);
			ndyn = ph[i].p_filesz / sizeof(*dyn);
		}
	uint64_t strtab = 0, strsz = 0;
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
		if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
	}
	uint64_t stroff = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && strtab >= ph[i].p_vaddr &&
		    strtab < ph[i].p_vaddr + ph[i].p_filesz)
			stroff = strtab - ph[i].p_vaddr + ph[i].p_offset;
	if (stroff == 0 || stroff + strsz > size)
		goto done;
	size_t n = 0;
	out = calloc(ndyn + 1, sizeof(*out));
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_NEEDED && dyn[i].d_un.d_val < strsz)
			out[n++] = strndup((const char *)m + stroff +
						   dyn[i].d_un.d_val,
					   strsz - dyn[i].d_un.d_val);
done:
	munmap((void *)m, size);
	return out;
}

static int lib_matches(const struct tu_json *l, const char *name)
{
	const char *c[] = {tu_jstr(l, "requested"), tu_jstr(l, "soname"),
			   tu_jstr(l, "loaded_as"), tu_jstr(l, "path")};
	for (int i = 0; i < 4; i++)
		if (c[i] && strcmp(base_name(c[i]), name) == 0)
			return 1;
	return 0;
}

static int lib_resolved(const struct tu_json *l)
{
	const char *via = tu_jstr(l, "found_via");
	const char *path = tu_jstr(l, "path");
	return !jbool(l, "failed", 1) && path && access(path, F_OK) == 0 &&
	       via && strcmp(via, "UNKNOWN") != 0;
}

static void test_import_torch(void)
{
	char *dir = tu_tmpdir("torch");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {tu_python(), "-c", "import torch", NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, 110000);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 0,
		       "dltrace python3 -c 'import torch': %s; stderr:\n%s",
		       tu_status_str(p.status), p.err);
	struct tu_json *j = tu_libs_json(dir);
	TU_CHECK_FATAL(j != NULL, "no libs --json output");
	/* The process that loaded libtorch_cpu. */
	const struct tu_json *procs = tu_jget(j, "processes"), *libs = NULL,
			     *cpu = NULL;
	for (size_t i = 0; i < tu_jlen(procs) && !cpu; i++) {
		const struct tu_json *ls =
			tu_jget(tu_jat(procs, i), "libraries");
		for (size_t k = 0; k < tu_jlen(ls); k++) {
			const char *path = tu_jstr(tu_jat(ls, k), "path");
			if (path && strncmp(base_name(path), "libtorch_cpu.so",
					    15) == 0) {
				cpu = tu_jat(ls, k);
				libs = ls;
				break;
			}
		}
	}
	TU_CHECK(cpu != NULL, "libtorch_cpu.so is in no process's libraries");
	if (cpu) {
		if (!lib_resolved(cpu))
			print_lib(cpu);
		TU_CHECK(lib_resolved(cpu),
			 "libtorch_cpu.so is not resolved "
			 "(path %s, found_via %s)",
			 tu_jstr(cpu, "path"), tu_jstr(cpu, "found_via"));
		const struct tu_json *tried = tu_jget(cpu, "tried");
		size_t nt = tu_jlen(tried);
		TU_CHECK(nt > 0 && tu_same_file(tu_jstr(tu_jat(tried, nt - 1),
							"path"),
						tu_jstr(cpu, "path")),
			 "libtorch_cpu.so: tried list does not end in its "
			 "path");
		char **needed = elf_needed(tu_jstr(cpu, "path"));
		TU_CHECK(needed && needed[0],
			 "cannot read the DT_NEEDED list of %s",
			 tu_jstr(cpu, "path"));
		size_t missing = 0, unresolved = 0, total = 0;
		for (char **nd = needed; nd && *nd; nd++) {
			total++;
			const struct tu_json *row = NULL;
			for (size_t k = 0; k < tu_jlen(libs) && !row; k++)
				if (lib_matches(tu_jat(libs, k), *nd) &&
				    !jbool(tu_jat(libs, k), "failed", 1))
					row = tu_jat(libs, k);
			if (row == NULL) {
				missing++;
				fprintf(stderr, "    dependency %s: no row\n",
					*nd);
			} else if (!lib_resolved(row)) {
				unresolved++;
				print_lib(row);
			}
			free(*nd);
		}
		free(needed);
		TU_CHECK(missing == 0 && unresolved == 0,
			 "libtorch_cpu.so's %zu dependencies: %zu not listed, "
			 "%zu without a resolved path and rule",
			 total, missing, unresolved);
		printf("\n    libtorch_cpu.so: %s via %s, %zu dependencies "
		       "resolved\n",
		       tu_jstr(cpu, "path"), tu_jstr(cpu, "found_via"), total);
	}
	tu_json_free(j);
	tu_proc_free(&p);
	tu_expect_healthy("import torch", dir);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suites
 * ----------------------------------------------------------------------- */

/* ---- suite: privacy -----------------------------------------------------
 */

static int file_has(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	size_t cap = 1 << 20, n = 0, got;
	char *buf = malloc(cap);
	int hit = 0;
	size_t nl = strlen(needle);
	/* Chunks overlap by the needle's length so a match is never split. */
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (memmem(buf, n, needle, nl)) {
			hit = 1;
			break;
		}
		if (n > nl) {
			memmove(buf, buf + n - nl, nl);
			n = nl;
		}
	}
	free(buf);
	fclose(f);
	return hit;
}

/* A trace gets attached to bug reports: a variable off the allow-list, a
 * secret-looking one on it, and redacted arguments must not be anywhere in
 * its bytes, while allow-listed variables are. */
static void test_privacy(void)
{
	char *dir = tu_tmpdir("privacy");
	char *fx = tu_fx("fx_hello");
	const char *cmd[] = {DLT_TEST_LAUNCHER,	 "-o", dir,
			     "--redact-argv",	 "--", fx,
			     "argv-secret-4f1c", NULL};
	const char *env[] = {"DLT_PRIV_SECRET=envsecret-91ab",
			     "TORCH_HUB_TOKEN=tokensecret-77cd",
			     "NCCL_DEBUG=WARN", NULL};
	struct tu_proc p;
	tu_run(&p, cmd, env, 30000);
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK(n >= 1, "no trace in %s", dir);
	mode_t um = umask(0);
	umask(um);
	for (size_t i = 0; i < n; i++) {
		TU_CHECK(file_has(paths[i], "envsecret-91ab") == 0,
			 "%s: a variable off the allow-list is in the trace",
			 paths[i]);
		TU_CHECK(file_has(paths[i], "tokensecret-77cd") == 0,
			 "%s: the value of TORCH_HUB_TOKEN is in the trace",
			 paths[i]);
		TU_CHECK(file_has(paths[i], "argv-secret-4f1c") == 0,
			 "%s: a redacted argument is in the trace", paths[i]);
		TU_CHECK(file_has(paths[i], "NCCL_DEBUG") == 1 &&
				 file_has(paths[i], "TORCH_HUB_TOKEN") == 1 &&
				 file_has(paths[i], "<redacted>") == 1,
			 "%s: allow-listed variables were not recorded (the "
			 "test would prove nothing)",
			 paths[i]);
		struct stat st;
		TU_CHECK(stat(paths[i], &st) == 0 &&
				 (st.st_mode & 0777 & ~(0666 & ~um)) == 0,
			 "%s: mode %o is wider than the umask allows", paths[i],
			 (unsigned)(st.st_mode & 0777));
	}
	tu_free_list(paths);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* The shim restarts the program to add LD_AUDIT; the restarted process
 * must keep the name ps, pgrep and pkill see (/proc/PID/comm), under the
 * launcher and under a bare LD_PRELOAD. */
static void test_process_name(void)
{
	char *dir = tu_tmpdir("comm");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {"/bin/sh", "-c",
			     "cat /proc/$$/comm; cat /proc/self/comm", NULL};
	struct tu_proc plain, traced, preload;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_contains(plain.out, "sh\ncat\n"), "plain run printed:\n%s",
		 plain.out);
	tu_run_traced(&traced, dir, cmd, NULL, RUN_TIMEOUT_MS);
	tu_expect_same_run("process name under dltrace", &plain, &traced, 1);
	const char **penv = tu_preload_env(dir, NULL, 0);
	tu_run(&preload, cmd, penv, RUN_TIMEOUT_MS);
	free(penv);
	tu_expect_same_run("process name under LD_PRELOAD", &plain, &preload,
			   1);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_proc_free(&preload);
	tu_expect_healthy("sh and cat", dir);
	tu_rmtree(dir);
	free(dir);
}

/* The host part of a trace name as tracer/file.c writes it: the name the
 * test predicts must be the one the writer would have used, or the planted
 * files prove nothing (checked below: the trace lands after all of them). */
static void trace_host(char *buf, size_t cap)
{
	char h[128] = "";
	if (gethostname(h, sizeof(h) - 1) != 0)
		h[0] = '\0';
	size_t n = 0;
	for (const char *c = h; *c && n + 1 < cap; c++)
		buf[n++] =
			(isalnum((unsigned char)*c) || *c == '-' || *c == '_')
				? *c
				: '_';
	buf[n] = '\0';
	if (n == 0)
		snprintf(buf, cap, "host");
}

/* A whole file as a string, or NULL when it cannot be read. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	size_t cap = 4096, n = 0;
	char *s = malloc(cap);
	for (size_t r; s && (r = fread(s + n, 1, cap - n - 1, f)) > 0;) {
		n += r;
		if (n + 1 == cap)
			s = realloc(s, cap *= 2);
	}
	fclose(f);
	if (s)
		s[n] = '\0';
	return s;
}

/* Someone who can write to the trace directory plants, at the names the
 * next trace will get, a symlink to a file of the user's, a dangling
 * symlink and a file of their own.  The writer must follow neither link,
 * truncate nothing, create nothing through a link, and still trace the
 * program under a name of its own, with the permissions the umask (077
 * here) allows; and the program must run exactly as it does plainly. */
static void test_privacy_create(void)
{
	char *dir = tu_tmpdir("create");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *fx = tu_fx("fx_hello");
	char *victim = tu_strfmt("%s/victim.txt", dir);
	char *absent = tu_strfmt("%s/absent.txt", dir);
	const char *secret = "the user's own file\n";
	const char *other = "someone else's trace\n";
	FILE *f = fopen(victim, "w");
	TU_CHECK_FATAL(f && fputs(secret, f) >= 0 && fclose(f) == 0,
		       "cannot write %s", victim);
	struct stat vst0;
	TU_CHECK_FATAL(stat(victim, &vst0) == 0, "cannot stat %s", victim);

	const char *cmd[] = {fx, NULL};
	struct tu_proc plain, traced;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);

	const char **env = tu_preload_env(dir, NULL, 0);
	mode_t um = umask(077);
	int started = tu_proc_start_held(&traced, cmd, env);
	umask(um);
	free(env);
	TU_CHECK_FATAL(started == 0, "cannot start %s", fx);

	char host[128];
	trace_host(host, sizeof(host));
	char *link0 = tu_strfmt("%s/%s.%d.0.dltrace", dir, host, traced.pid);
	char *link1 = tu_strfmt("%s/%s.%d.0-1.dltrace", dir, host, traced.pid);
	char *theirs = tu_strfmt("%s/%s.%d.0-2.dltrace", dir, host, traced.pid);
	char *expect = tu_strfmt("%s/%s.%d.0-3.dltrace", dir, host, traced.pid);
	int planted =
		symlink(victim, link0) == 0 && symlink(absent, link1) == 0;
	f = fopen(theirs, "w");
	planted = planted && f && fputs(other, f) >= 0;
	if (f)
		planted = fclose(f) == 0 && planted;
	tu_proc_go(&traced);
	tu_proc_wait(&traced, RUN_TIMEOUT_MS);
	TU_CHECK_FATAL(planted, "cannot plant the files in %s", dir);

	tu_expect_same_run("fx_hello with planted trace names", &plain, &traced,
			   1);
	char *now = read_text(victim);
	struct stat vst, lst;
	TU_CHECK(now && strcmp(now, secret) == 0 && stat(victim, &vst) == 0 &&
			 vst.st_ino == vst0.st_ino &&
			 vst.st_size == vst0.st_size &&
			 vst.st_mode == vst0.st_mode,
		 "the file behind the planted symlink changed: \"%s\"",
		 now ? now : "(unreadable)");
	free(now);
	char target[4096];
	ssize_t tl = readlink(link0, target, sizeof(target) - 1);
	TU_CHECK(tl == (ssize_t)strlen(victim) &&
			 strncmp(target, victim, (size_t)tl) == 0,
		 "the planted symlink %s was replaced", link0);
	TU_CHECK(lstat(link1, &lst) == 0 && S_ISLNK(lst.st_mode) &&
			 access(absent, F_OK) != 0,
		 "the dangling symlink %s was followed: %s exists", link1,
		 absent);
	now = read_text(theirs);
	TU_CHECK(now && strcmp(now, other) == 0,
		 "the existing file %s was overwritten: \"%s\"", theirs,
		 now ? now : "(unreadable)");
	free(now);

	/* The trace went to the first name nobody had taken. */
	struct stat tst;
	TU_CHECK(lstat(expect, &tst) == 0 && S_ISREG(tst.st_mode),
		 "no trace at %s (was the name predicted right?)", expect);
	TU_CHECK((tst.st_mode & 077) == 0, "%s: mode %o under umask 077",
		 expect, (unsigned)(tst.st_mode & 0777));
	struct tu_trace tr;
	char err[512];
	if (tu_trace_load(expect, &tr, err, sizeof(err)) == 0) {
		TU_CHECK(tr.hdr.pid == (uint32_t)traced.pid &&
				 tr.nproblems == 0 && tr.nexits == 1 &&
				 tr.exits[0].how == DLT_EXIT_MAIN,
			 "%s: pid %u, %zu problems, %zu exit records", expect,
			 tr.hdr.pid, tr.nproblems, tr.nexits);
		tu_trace_free(&tr);
	} else {
		TU_CHECK(0, "%s does not read: %s", expect, err);
	}
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK(n == 4,
		 "%zu *.dltrace names in %s, expected the 3 planted "
		 "and 1 trace",
		 n, dir);
	tu_free_list(paths);

	tu_proc_free(&plain);
	tu_proc_free(&traced);
	free(link0);
	free(link1);
	free(theirs);
	free(expect);
	free(victim);
	free(absent);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- suite: config ----------------------------------------------------- */

/* The options quoted in a source file: `{"NAME", ...` entries whose name
 * is a word of letters and dashes (after "--" in the analyzer's tables).
 * Returns how many were checked. */
static size_t expect_options_documented(const char *src, const char *help,
					const char *usage, const char *prefix,
					const char *who)
{
	size_t n = 0;
	for (const char *p = src; (p = strstr(p, "{\"")) != NULL; p += 2) {
		const char *name = p + 2;
		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		size_t l = strspn(name + strlen(prefix),
				  "abcdefghijklmnopqrstuvwxyz-");
		if (l < 2 || name[strlen(prefix) + l] != '"')
			continue;
		char *opt = tu_strfmt("--%.*s", (int)l, name + strlen(prefix));
		TU_CHECK(tu_contains(help, opt), "%s --help does not list %s",
			 who, opt);
		TU_CHECK(tu_contains(usage, opt),
			 "docs/usage.md does not list %s of %s", opt, who);
		free(opt);
		n++;
	}
	return n;
}

/* Every long option of the launcher (its getopt table) and of each
 * dltrace-analyze command (its options table) is in the program's --help
 * and in docs/usage.md. */
static void test_options_documented(void)
{
	char *usage = read_text(DLT_TEST_SRC "/docs/usage.md");
	char *src = read_text(DLT_TEST_SRC "/launcher/launcher.c");
	TU_CHECK_FATAL(usage && src, "cannot read the sources");
	const char *h[] = {DLT_TEST_LAUNCHER, "--help", NULL};
	struct tu_proc p;
	tu_run(&p, h, NULL, 30000);
	size_t n = expect_options_documented(src, p.out, usage, "", "dltrace");
	TU_CHECK(n >= 6, "%zu options found in launcher.c's table", n);
	tu_proc_free(&p);
	free(src);
	static const char *const cmds[] = {"check",   "hangs", "libs",
					   "algos",   "diff",  "export",
					   "summary", "dump"};
	size_t total = 0;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *file =
			tu_strfmt(DLT_TEST_SRC "/analyzer/cmds/%s.c", cmds[i]);
		src = read_text(file);
		TU_CHECK_FATAL(src != NULL, "cannot read %s", file);
		const char *a[] = {DLT_TEST_ANALYZE, cmds[i], "--help", NULL};
		tu_run(&p, a, NULL, 30000);
		char *who = tu_strfmt("dltrace-analyze %s", cmds[i]);
		total +=
			expect_options_documented(src, p.out, usage, "--", who);
		TU_CHECK(tu_contains(p.out, "exit status"),
			 "%s --help does not say its exit status", who);
		free(who);
		tu_proc_free(&p);
		free(src);
		free(file);
	}
	TU_CHECK(total >= 9, "%zu analyzer options found", total);
	free(usage);
}

/* The size of the one trace in dir, or 0. */
static uint64_t only_trace_size(const char *dir)
{
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	struct stat st;
	uint64_t size =
		n == 1 && stat(paths[0], &st) == 0 ? (uint64_t)st.st_size : 0;
	tu_free_list(paths);
	return size;
}

/* DLTRACE_MAX_SIZE with a unit: the trace stays within that size; records
 * that do not fit (marks are not ring calls: never given up for the ring)
 * are counted in the header, with one line, and the program runs on to its
 * end. */
static void test_max_size_units(void)
{
	char *fx = tu_fx("fx_marks");
	char *dir = tu_tmpdir("maxsize");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	/* 300,000 marks of 32 bytes: about 9 MiB, far past the limit. */
	const char *cmd[] = {fx, "1", "300000", "0", NULL};
	const char *env[] = {"DLTRACE_MAX_SIZE=2048K", NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_run(&p, argv, env, 60000) == 0, "timed out");
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 0, "fx_marks: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(tu_count_lines(p.err, "dltrace: the trace reached "
				       "DLTRACE_MAX_SIZE; records other than "
				       "calls are counted") == 1,
		 "expected one line saying the size limit was reached:\n%s",
		 p.err);
	uint64_t size = only_trace_size(dir);
	TU_CHECK(size > 0 && size <= 2048u * 1024u,
		 "the trace is %llu bytes with DLTRACE_MAX_SIZE=2048K",
		 (unsigned long long)size);
	/* The last chunk of the limit is kept for how the process ended. */
	struct tu_traceset set;
	tu_traceset_load(dir, &set);
	int reaped = 0;
	for (size_t i = 0; i < set.n; i++)
		for (size_t k = 0; k < set.t[i].nexits; k++)
			reaped += set.t[i].exits[k].how == DLT_EXIT_REAPED &&
				  set.t[i].exits[k].status == 0;
	TU_CHECK(set.n == 1 && reaped == 1,
		 "%zu traces, %d launcher records of the exit", set.n, reaped);
	/* 300,000 marks, of which those past the budget counted. */
	uint64_t kept = set.n ? set.t[0].nmarks : 0;
	uint64_t lost = set.n ? set.t[0].hdr.lost_records : 0;
	TU_CHECK(lost > 0 && kept + lost >= 300000 && kept + lost <= 300100,
		 "%llu marks kept, %llu records counted as lost",
		 (unsigned long long)kept, (unsigned long long)lost);
	tu_traceset_free(&set);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* A value that cannot be used: said once, the default taken, the program
 * and its trace unharmed. */
static void test_config_bad_values(void)
{
	static const struct {
		const char *env, *line;
	} cases[] = {
		{"DLTRACE_MAX_SIZE=lots", "dltrace: DLTRACE_MAX_SIZE=lots is "
					  "not understood; using 256M"},
		{"DLTRACE_MAX_SIZE=12Q",
		 "dltrace: DLTRACE_MAX_SIZE=12Q is not understood; using 256M"},
		{"DLTRACE_STALL_MS=-5",
		 "dltrace: DLTRACE_STALL_MS=-5 is not understood; using 5000"},
		{"DLTRACE_WATCHDOG=maybe",
		 "dltrace: DLTRACE_WATCHDOG=maybe is not understood"},
		{"DLTRACE_CLOCK=tsc",
		 "dltrace: DLTRACE_CLOCK=tsc is not understood"},
	};
	char *fx = tu_fx("fx_hello");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = tu_tmpdir("badconf");
		TU_CHECK_FATAL(dir != NULL, "no scratch directory");
		const char *cmd[] = {fx, NULL};
		const char *env[] = {cases[i].env, NULL};
		const char **argv = tu_launcher_argv(dir, NULL, cmd);
		struct tu_proc p;
		TU_CHECK_FATAL(tu_run(&p, argv, env, 30000) == 0, "timed out");
		free(argv);
		TU_CHECK(tu_exit_code(p.status) == 3 &&
				 tu_contains(p.out, "hello from fx_hello"),
			 "%s: fx_hello %s, output:\n%s", cases[i].env,
			 tu_status_str(p.status), p.out);
		TU_CHECK(tu_count_lines(p.err, cases[i].line) == 1,
			 "%s: expected one line starting \"%s\":\n%s",
			 cases[i].env, cases[i].line, p.err);
		TU_CHECK(only_trace_size(dir) > 0, "%s: no trace",
			 cases[i].env);
		tu_proc_free(&p);
		tu_rmtree(dir);
		free(dir);
	}
	free(fx);
}

/* DLTRACE_RUN and DLTRACE_PARENT as the launcher and a traced parent's
 * exec and spawn wrappers write them (shim/state.c reads them without the
 * C library's number parsing): what they say reaches the header; a value
 * that does not parse is not taken, and a bad run id is said once. */
static void test_config_run_parent(void)
{
	static const struct {
		const char *run, *parent;   /* parent: %d is this process */
		uint64_t run_id, parent_id; /* 0: none */
		const char *line;	    /* said on stderr, or NULL */
	} cases[] = {
		{"DLTRACE_RUN=5eedF00d", "DLTRACE_PARENT=s:%d:abc123:7",
		 0x5eedf00d, 0xabc123, NULL},
		{"DLTRACE_RUN=5eedzz", "DLTRACE_PARENT=s:%dx:abc123:7", 0, 0,
		 "dltrace: DLTRACE_RUN=5eedzz is not understood"},
		{"DLTRACE_RUN=10000000000000000",
		 "DLTRACE_PARENT=s:%d:abc123:", 0, 0,
		 "dltrace: DLTRACE_RUN=10000000000000000 is not understood"},
		{"DLTRACE_RUN=ffffffffffffffff", "DLTRACE_PARENT=x:%d:abc123:7",
		 0xffffffffffffffffull, 0, NULL},
	};
	char *fx = tu_fx("fx_hello");
	char *audit = tu_strfmt("LD_AUDIT=%s", DLT_TEST_LIB);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = tu_tmpdir("runparent");
		TU_CHECK_FATAL(dir != NULL, "no scratch directory");
		char *parent = tu_strfmt(cases[i].parent, (int)getpid());
		const char *cmd[] = {fx, NULL};
		/* Both variables, as in a traced tree: no restart. */
		const char *vars[] = {audit, cases[i].run, parent, NULL};
		const char **env = tu_preload_env(dir, vars, 0);
		struct tu_proc p;
		TU_CHECK_FATAL(tu_run(&p, cmd, env, 30000) == 0, "timed out");
		free(env);
		struct tu_traceset set;
		tu_traceset_load(dir, &set);
		const struct dlt_file_header *h =
			set.n == 1 ? &set.t[0].hdr : NULL;
		TU_CHECK(h && h->run_id == cases[i].run_id &&
				 (cases[i].parent_id
					  ? h->parent_kind == DLT_PARENT_FORK &&
						    h->parent_trace_id ==
							    cases[i].parent_id
					  : h->parent_kind == DLT_PARENT_NONE),
			 "%s %s: %zu traces, run %llx, parent kind %u id %llx",
			 cases[i].run, parent, set.n,
			 h ? (unsigned long long)h->run_id : 0ull,
			 h ? h->parent_kind : 0u,
			 h ? (unsigned long long)h->parent_trace_id : 0ull);
		TU_CHECK(cases[i].line
				 ? tu_count_lines(p.err, cases[i].line) == 1
				 : !tu_contains(p.err, "dltrace:"),
			 "%s: stderr:\n%s", cases[i].run, p.err);
		tu_traceset_free(&set);
		tu_proc_free(&p);
		free(parent);
		tu_rmtree(dir);
		free(dir);
	}
	free(audit);
	free(fx);
}

static const struct tu_test config_tests[] = {
	{"DLTRACE_MAX_SIZE with a unit", test_max_size_units},
	{"unusable values said once, defaults taken", test_config_bad_values},
	{"DLTRACE_RUN and DLTRACE_PARENT as the wrappers write them",
	 test_config_run_parent},
	{"every option in --help and docs/usage.md", test_options_documented},
	{NULL, NULL}};

static const struct tu_test resolution_tests[] = {
	{"RUNPATH $ORIGIN of the dlopen caller", test_runpath},
	{"RUNPATH under LD_PRELOAD, with and without audit",
	 test_runpath_preload},
	{"LD_LIBRARY_PATH from the main program", test_ld_library_path},
	{"RUNPATH shadowed by LD_LIBRARY_PATH (pytorch#80637)",
	 test_runpath_shadowed},
	{"RPATH searched before LD_LIBRARY_PATH", test_rpath_wins},
	{"real paths through links, as realpath(3) gives them",
	 test_real_paths},
	{NULL, NULL}};

static const struct tu_test dlerror_tests[] = {
	{"dlerror unchanged, failed loads recorded", test_dlerror},
	{NULL, NULL}};

static const struct tu_test sigkill_tests[] = {
	{"32 threads recording, SIGKILL mid-way", test_sigkill},
	{"32 threads x 100000 marks, all recorded", test_marks_complete},
	{NULL, NULL}};

static const struct tu_test load_tests[] = {
	{"64 threads recording flat out, then SIGKILL", test_load},
	{NULL, NULL}};

static const struct tu_test fork_tests[] = {
	{"fork and fork+exec: a trace per image that records, and its parent",
	 test_fork_exec},
	{NULL, NULL}};

static const struct tu_test unwritable_tests[] = {
	{"LD_PRELOAD with an unwritable DLTRACE_DIR", test_unwritable_preload},
	{"LD_PRELOAD with a DLTRACE_DIR to make", test_preload_makes_dir},
	{"dltrace -o an unwritable or too long directory",
	 test_unwritable_launcher},
	{NULL, NULL}};

static const struct tu_test exit_tests[] = {
	{"the process keeps its name (comm)", test_process_name},
	{"exit code passes through", test_exit_code},
	{"death by signal passes through as 128+N", test_exit_signal},
	{"program output kept, verdict on stderr", test_exit_verdict},
	{NULL, NULL}};

static const struct tu_test torch_tests[] = {
	{"dltrace python3 -c 'import torch'", test_import_torch}, {NULL, NULL}};

static const struct tu_test privacy_tests[] = {
	{"no secret in the trace bytes", test_privacy},
	{"trace creation follows no symlink, overwrites nothing",
	 test_privacy_create},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"resolution", resolution_tests, NULL},
					 {"privacy", privacy_tests, NULL},
					 {"dlerror", dlerror_tests, NULL},
					 {"sigkill", sigkill_tests, NULL},
					 {"load", load_tests, NULL},
					 {"fork", fork_tests, NULL},
					 {"unwritable", unwritable_tests, NULL},
					 {"exit_status", exit_tests, NULL},
					 {"config", config_tests, NULL},
					 {"torch", torch_tests, torch_skip},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	for (const char *f = DLT_TEST_LAUNCHER; f; f = NULL)
		if (access(f, X_OK) != 0)
			fprintf(stderr, "warning: %s is not built\n", f);
	return tu_main(argc, argv, suites);
}
