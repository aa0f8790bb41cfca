/* The analyzer's input pipeline (analyzer/reader/job.c), from the outside:
 * every command opens each trace file once (a watcher's companion
 * included), and input errors are reported whatever selects the traces
 * (--run included). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "companion.h"
#include "testutil.h"

#define RUN_TIMEOUT_MS 60000

/* A directory with the traces of `dltrace -o DIR -- sh -c 'fx_hello;
 * fx_hello'`: the shell and its two children (fx_hello exits 3). */
static char *make_run(const char *tag)
{
	char *dir = tu_tmpdir(tag);
	if (dir == NULL)
		return NULL;
	char *fx = tu_fx("fx_hello");
	char *script = tu_strfmt("%s; %s; true", fx, fx);
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "the traced script: %s\n%s",
		 tu_status_str(p.status), p.err);
	tu_proc_free(&p);
	free(script);
	free(fx);
	return dir;
}

/* The launcher run of the traces in dir, as check --json says it. */
static char *run_of(const char *dir)
{
	struct tu_json *root = tu_check_json(dir);
	const struct tu_json *procs = tu_jget(root, "processes");
	const char *run =
		tu_jlen(procs) ? tu_jstr(tu_jat(procs, 0), "run") : NULL;
	char *r = run ? strdup(run) : NULL;
	tu_json_free(root);
	return r;
}

/* Runs argv with the open counter preloaded; returns what it counted
 * (free it), NULL when it wrote nothing. */
static char *count_opens(const char *const argv[], struct tu_proc *p)
{
	char *scratch = tu_tmpdir("opencount");
	char *out = tu_strfmt("%s/counts", scratch);
	char *lib = tu_fx("libopencount.so");
	char *pre = tu_strfmt("LD_PRELOAD=%s", lib);
	char *outenv = tu_strfmt("OPENCOUNT_OUT=%s", out);
	const char *env[] = {pre, outenv, NULL};
	tu_run(p, argv, env, RUN_TIMEOUT_MS);
	char *text = NULL;
	FILE *f = fopen(out, "r");
	if (f) {
		size_t cap = 0;
		ssize_t n = getdelim(&text, &cap, '\0', f);
		if (n < 0) {
			free(text);
			text = strdup("");
		}
		fclose(f);
	}
	tu_rmtree(scratch);
	free(scratch);
	free(out);
	free(lib);
	free(pre);
	free(outenv);
	return text;
}

/* How often the counts say path was opened. */
static unsigned opens_of(const char *counts, const char *path)
{
	size_t pl = strlen(path);
	for (const char *l = counts; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *sp = memchr(l, ' ', len);
		if (sp && (size_t)(l + len - sp - 1) == pl &&
		    memcmp(sp + 1, path, pl) == 0)
			return (unsigned)strtoul(l, NULL, 10);
		l = nl ? nl + 1 : l + len;
	}
	return 0;
}

/* Every command (and diff, whose two runs are two jobs) opens each trace
 * of its inputs exactly once.  The header used to be opened up to three
 * times per trace: for --run, for the order by start, then to read. */
static void test_each_trace_opened_once(void)
{
	char *a = make_run("open-a");
	char *b = make_run("open-b");
	TU_CHECK_FATAL(a && b, "no scratch directories");
	/* A watcher's companion is a file of the job too, opened once
	 * whether it is read with its trace or apart (dump, compact). */
	char **pa, **pb;
	TU_CHECK_FATAL(tu_list_traces(a, &pa) >= 1, "no trace in %s", a);
	char comp[4096];
	TU_CHECK_FATAL(tc_make_companion(pa[0], comp, sizeof(comp)) == 0,
		       "cannot write a companion for %s", pa[0]);
	tu_free_list(pa);
	size_t na = tu_list_traces(a, &pa), nb = tu_list_traces(b, &pb);
	TU_CHECK_FATAL(na >= 2 && nb >= 2, "%zu and %zu traces", na, nb);
	char *run = run_of(a);
	TU_CHECK_FATAL(run != NULL, "no run id in %s", a);
	const char *A = DLT_TEST_ANALYZE;
	const char *const cmds[][8] = {
		{A, "check", a, NULL},
		{A, "check", "--json", "--run", run, a, NULL},
		{A, "summary", a, NULL},
		{A, "summary", "--run", run, a, NULL},
		{A, "libs", "--json", a, NULL},
		{A, "algos", a, NULL},
		{A, "dump", "--run", run, a, NULL},
		{A, "export", "--format", "chrome", a, NULL},
		{A, "hangs", a, NULL},
		{A, "diff", a, b, NULL},
		{A, "compact", a, NULL},
		{A, "report", "-o", "-", a, NULL},
	};
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		struct tu_proc p;
		char *counts = count_opens(cmds[c], &p);
		int rc = tu_exit_code(p.status);
		TU_CHECK(counts != NULL && rc != 2, "%s %s: %s, counts %s\n%s",
			 cmds[c][1], cmds[c][2], tu_status_str(p.status),
			 counts ? "written" : "missing", p.err);
		bool diff = strcmp(cmds[c][1], "diff") == 0;
		for (size_t i = 0; counts && i < na + (diff ? nb : 0); i++) {
			const char *path = i < na ? pa[i] : pb[i - na];
			unsigned n = opens_of(counts, path);
			TU_CHECK(n == 1, "%s %s: %s opened %u times:\n%s",
				 cmds[c][1], cmds[c][2], path, n, counts);
		}
		free(counts);
		tu_proc_free(&p);
	}
	/* The counter sees opens at all (else the test proves nothing): a
	 * command that opens nothing twice still opened each trace once,
	 * checked above; cat opens its argument once more. */
	const char *cat[] = {"/bin/cat", pa[0], NULL};
	struct tu_proc p;
	char *counts = count_opens(cat, &p);
	TU_CHECK(counts && opens_of(counts, pa[0]) == 1,
		 "the counter did not see cat open %s: %s", pa[0],
		 counts ? counts : "(no counts)");
	free(counts);
	tu_proc_free(&p);
	free(run);
	tu_free_list(pa);
	tu_free_list(pb);
	tu_rmtree(a);
	tu_rmtree(b);
	free(a);
	free(b);
}

/* Fewer descriptors than traces: the traces past the limit give theirs
 * back until they are read (dlt_trace_park), and the output is the same.
 * 76 descriptors leave 12 for traces open at once (job.c keeps 64). */
static void test_more_traces_than_descriptors(void)
{
	char *dir = tu_tmpdir("open-many");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *fx = tu_fx("fx_hello");
	char *script = tu_strfmt("for i in $(seq 24); do %s; done; true", fx);
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	tu_proc_free(&p);
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK_FATAL(n > 12, "%zu traces", n);
	const char *plain[] = {DLT_TEST_ANALYZE, "summary", dir, NULL};
	struct tu_proc a, b;
	tu_run(&a, plain, NULL, RUN_TIMEOUT_MS);
	const char *few[] = {"/bin/sh",
			     "-c",
			     "ulimit -n 76 && exec \"$0\" summary \"$1\"",
			     DLT_TEST_ANALYZE,
			     dir,
			     NULL};
	char *counts = count_opens(few, &b);
	TU_CHECK(tu_exit_code(a.status) == 0 && tu_exit_code(b.status) == 0 &&
			 strcmp(a.out, b.out) == 0 && strcmp(a.err, b.err) == 0,
		 "summary with 76 descriptors (%s) differs from summary "
		 "(%s):\n%s\n%s",
		 tu_status_str(b.status), tu_status_str(a.status), b.err,
		 a.err);
	size_t twice = 0;
	for (size_t i = 0; counts && i < n; i++) {
		unsigned k = opens_of(counts, paths[i]);
		TU_CHECK(k == 1 || k == 2, "%s opened %u times", paths[i], k);
		twice += k == 2;
	}
	TU_CHECK(counts && twice > 0 && twice <= n - 12,
		 "%zu of %zu traces opened twice with 76 descriptors", twice,
		 n);
	free(counts);
	tu_proc_free(&a);
	tu_proc_free(&b);
	tu_free_list(paths);
	tu_rmtree(dir);
	free(dir);
	free(script);
	free(fx);
}

/* The TRACE_INCOMPLETE finding about input (null when none). */
static const struct tu_json *input_finding(const struct tu_json *root,
					   const char *input)
{
	const struct tu_json *fs = tu_jget(root, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		const struct tu_json *ev = tu_jget(f, "evidence");
		const char *in = tu_jstr(ev, "input");
		if (strcmp(tu_jstr(f, "code"), "TRACE_INCOMPLETE") == 0 && in &&
		    strcmp(in, input) == 0)
			return f;
	}
	return NULL;
}

static struct tu_json *check_json(const char *const argv[], int *rc, char **err)
{
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
	*rc = tu_exit_code(p.status);
	*err = strdup(p.err);
	char why[256] = "";
	struct tu_json *root = tu_json_parse(p.out, why, sizeof(why));
	TU_CHECK(root != NULL, "check --json: %s: %s\n%s", why,
		 tu_status_str(p.status), p.out);
	tu_proc_free(&p);
	return root;
}

/* `check --json --run ID seed EMPTY_DIR` said nothing about the empty
 * directory (the --run filter kept only the paths of the run and dropped
 * the collection's errors), while `check --json seed EMPTY_DIR` reports it
 * as TRACE_INCOMPLETE.  Both must report it the same way, and so must
 * every other command that takes --run, on stderr. */
static void test_run_keeps_input_errors(void)
{
	char *dir = make_run("run-seed");
	char *empty = tu_tmpdir("run-empty");
	TU_CHECK_FATAL(dir && empty, "no scratch directories");
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK_FATAL(n >= 1, "no trace in %s", dir);
	char *run = run_of(dir);
	TU_CHECK_FATAL(run != NULL, "no run id in %s", dir);
	const char *A = DLT_TEST_ANALYZE;
	const char *plain[] = {A, "check", "--json", paths[0], empty, NULL};
	const char *by_run[] = {A,   "check",  "--json", "--run",
				run, paths[0], empty,	 NULL};
	int rc_plain, rc_run;
	char *err_plain, *err_run;
	struct tu_json *jp = check_json(plain, &rc_plain, &err_plain);
	struct tu_json *jr = check_json(by_run, &rc_run, &err_run);
	const struct tu_json *fp = jp ? input_finding(jp, empty) : NULL;
	const struct tu_json *fr = jr ? input_finding(jr, empty) : NULL;
	TU_CHECK(fp != NULL, "check without --run does not report %s", empty);
	TU_CHECK(fr != NULL, "check --run %s does not report %s", run, empty);
	if (fp && fr) {
		const struct tu_json *ep = tu_jget(fp, "evidence");
		const struct tu_json *er = tu_jget(fr, "evidence");
		TU_CHECK(strcmp(tu_jmsg(fp), tu_jmsg(fr)) == 0 &&
				 strcmp(tu_jstr(ep, "reason"),
					tu_jstr(er, "reason")) == 0 &&
				 strcmp(tu_jstr(fp, "severity"),
					tu_jstr(fr, "severity")) == 0,
			 "the empty directory is reported differently: '%s' "
			 "(%s) and, with --run, '%s' (%s)",
			 tu_jmsg(fp), tu_jstr(ep, "reason"), tu_jmsg(fr),
			 tu_jstr(er, "reason"));
	}
	TU_CHECK(rc_plain == rc_run && tu_contains(err_run, empty) &&
			 tu_contains(err_run, "no trace files"),
		 "exit %d without --run, %d with; stderr with --run:\n%s",
		 rc_plain, rc_run, err_run);
	const char *cmds[] = {"summary", "libs",  "algos",   "dump",
			      "export",	 "hangs", "compact", "report"};
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		/* report's page goes to stdout, not into the directory. */
		bool page = strcmp(cmds[c], "report") == 0;
		const char *argv[] = {A,
				      cmds[c],
				      "--run",
				      run,
				      page ? "-o" : dir,
				      page ? "-" : empty,
				      page ? dir : NULL,
				      page ? empty : NULL,
				      NULL};
		struct tu_proc p;
		tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
		TU_CHECK(tu_exit_code(p.status) != 2 &&
				 tu_contains(p.err, empty) &&
				 tu_contains(p.err, "no trace files"),
			 "%s --run %s: %s, the empty directory %s:\n%s",
			 cmds[c], run, tu_status_str(p.status),
			 tu_contains(p.err, empty) ? "said" : "not said",
			 p.err);
		tu_proc_free(&p);
	}
	/* A run that is not among the inputs is no run at all, errors and
	 * all. */
	const char *none[] = {A,   "summary", "--run", "1234abcd",
			      dir, empty,     NULL};
	struct tu_proc p;
	tu_run(&p, none, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 2 && tu_contains(p.err, empty) &&
			 tu_contains(p.err, "no trace of run 1234abcd"),
		 "summary --run of another run: %s\n%s",
		 tu_status_str(p.status), p.err);
	tu_proc_free(&p);
	tu_json_free(jp);
	tu_json_free(jr);
	free(err_plain);
	free(err_run);
	free(run);
	tu_free_list(paths);
	tu_rmtree(dir);
	tu_rmtree(empty);
	free(dir);
	free(empty);
}

/* ---- many ranks folded ----------------------------------------------- */

#define FOLD_RANKS 64
#define FOLD_CULPRIT 37

/* argv for `dltrace-analyze CMD [OPT] DIR/node*` (free the array and the
 * paths from index 3 on). */
static const char **fold_argv(const char *cmd, const char *opt, const char *dir,
			      size_t *n)
{
	const char **v = calloc(FOLD_RANKS + 8, sizeof(*v));
	size_t k = 0;
	v[k++] = DLT_TEST_ANALYZE;
	v[k++] = cmd;
	if (opt)
		v[k++] = opt;
	*n = k;
	for (int node = 0; node < FOLD_RANKS / 8; node++)
		v[k++] = tu_strfmt("%s/node%04d", dir, node);
	v[k] = NULL;
	return v;
}

static void fold_argv_free(const char **v, size_t from)
{
	for (size_t i = from; v[i]; i++)
		free((char *)v[i]);
	free(v);
}

/* 64 ranks on 8 nodes (tests/bench/gen_ranks.c), every one but rank 37
 * in its collective #21, rank 37 asleep in load_batch after 20: `hangs`
 * says it in two lines, the 63 ranks as ranges and the culprit alone,
 * and `check --json` names rank 37 with JOB_HANG.  `env` over the folder
 * of node folders takes it as one job of 64 ranks. */
static void test_fold_many_ranks(void)
{
	char *dir = tu_tmpdir("fold");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *out = tu_strfmt("%s/job", dir);
	const char *gen[] = {DLT_TEST_GEN_RANKS,
			     "--out",
			     out,
			     "--ranks",
			     "64",
			     "--culprit",
			     "37",
			     "--collectives",
			     "20",
			     NULL};
	struct tu_proc p;
	tu_run(&p, gen, NULL, RUN_TIMEOUT_MS);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 0, "gen_ranks: %s\n%s",
		       tu_status_str(p.status), p.err);
	tu_proc_free(&p);

	size_t from;
	const char **hv = fold_argv("hangs", NULL, out, &from);
	tu_run(&p, hv, NULL, RUN_TIMEOUT_MS);
	/* 1: an error was found (JOB_HANG). */
	TU_CHECK(tu_exit_code(p.status) == 1, "hangs: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(strstr(p.out, "64 processes in 2 states:\n") != NULL,
		 "hangs did not fold the ranks:\n%s", p.out);
	TU_CHECK(strstr(p.out, "ranks 0\xe2\x80\x93"
			       "36, 38\xe2\x80\x93"
			       "63: waiting in ncclAllReduce #21 (futex) at "
			       "train.py:120 in step\n") != NULL,
		 "no line for the 63 waiting ranks:\n%s", p.out);
	TU_CHECK(strstr(p.out, "rank 37: in clock_nanosleep at train.py:88 "
			       "in load_batch, 20 collectives\n") != NULL,
		 "no line for the culprit:\n%s", p.out);
	/* No per-rank table. */
	TU_CHECK(strstr(p.out, "last traced call") == NULL,
		 "hangs printed its table:\n%s", p.out);
	tu_proc_free(&p);
	fold_argv_free(hv, from);

	const char **cv = fold_argv("check", "--json", out, &from);
	int rc;
	char *err;
	struct tu_json *root = check_json(cv, &rc, &err);
	const struct tu_json *fs = tu_jget(root, "findings");
	const struct tu_json *hang = NULL;
	for (size_t i = 0; i < tu_jlen(fs); i++)
		if (strcmp(tu_jstr(tu_jat(fs, i), "code"), "JOB_HANG") == 0)
			hang = tu_jat(fs, i);
	TU_CHECK(hang != NULL, "check --json: no JOB_HANG");
	const struct tu_json *r = tu_jget(hang, "rank");
	TU_CHECK(r && r->type == TU_JNUM && (int)r->num == FOLD_CULPRIT,
		 "JOB_HANG is not about rank %d", FOLD_CULPRIT);
	TU_CHECK(tu_jlen(tu_jget(root, "processes")) == FOLD_RANKS,
		 "check --json: %zu processes",
		 tu_jlen(tu_jget(root, "processes")));
	tu_json_free(root);
	free(err);
	fold_argv_free(cv, from);

	/* --json stays one row per rank. */
	const char **jv = fold_argv("hangs", "--json", out, &from);
	root = check_json(jv, &rc, &err);
	TU_CHECK(tu_jlen(tu_jget(root, "ranks")) == FOLD_RANKS,
		 "hangs --json: %zu ranks", tu_jlen(tu_jget(root, "ranks")));
	tu_json_free(root);
	free(err);
	fold_argv_free(jv, from);

	const char *ev[] = {DLT_TEST_ANALYZE, "env", out, NULL};
	tu_run(&p, ev, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "env: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(strstr(p.out, ": 64 processes, 64 ranks on 8 hosts\n") &&
			 strstr(p.out, "  ranks 0\xe2\x80\x93"
				       "63: "
				       "/usr/bin/python3.11\n"),
		 "env did not take the node folders as one job:\n%s", p.out);
	tu_proc_free(&p);

	tu_rmtree(dir);
	free(out);
	free(dir);
}

static const struct tu_test open_tests[] = {
	{"each trace opened once per command", test_each_trace_opened_once},
	{"more traces than descriptors", test_more_traces_than_descriptors},
	{NULL, NULL}};

static const struct tu_test run_tests[] = {
	{"--run keeps the input errors", test_run_keeps_input_errors},
	{NULL, NULL}};

static const struct tu_test fold_tests[] = {
	{"many ranks folded into ranges", test_fold_many_ranks}, {NULL, NULL}};

static const struct tu_suite suites[] = {{"opens", open_tests, NULL},
					 {"run_errors", run_tests, NULL},
					 {"fold", fold_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
