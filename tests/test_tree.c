/* Process trees (docs/usage.md, docs/hangs.md): how every process of a
 * tree ended, whoever started it; one run per verdict; the launcher's
 * options and output directory; versions of the GPU libraries loaded.
 *
 *   test_tree [SUITE...]   launcher ends runs handled versions */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apinames.h"
#include "fake_paths.h"
#include "testutil.h"

#define RUN_TIMEOUT_MS 60000

/* The one REAPED status in the traces of dir; 0 when there is not exactly
 * one (a failed check). */
static int only_reaped(const char *dir, int32_t *status)
{
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	size_t n = 0;
	for (size_t i = 0; i < s.n; i++)
		for (size_t k = 0; k < s.t[i].nexits; k++)
			if (s.t[i].exits[k].how == DLT_EXIT_REAPED) {
				n++;
				*status = s.t[i].exits[k].status;
			}
	TU_CHECK(n == 1, "%zu REAPED records in %s, expected 1", n, dir);
	if (n != 1)
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	return n == 1;
}

/* ---- suite launcher ------------------------------------------------------ */

/* --hang-timeout with a command that ends in time: its status, the
 * verdict, the reaped status, as without the option (the child was reaped
 * twice: "waitpid: No child processes", exit 2). */
static void test_hang_timeout_in_time(void)
{
	char *dir = tu_tmpdir("in-time");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *opts[] = {"--hang-timeout", "30", NULL};
	const char *cmd[] = {"/bin/sh", "-c", "exit 3", NULL};
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 3,
		 "dltrace --hang-timeout 30 -- sh -c 'exit 3': %s, expected "
		 "exit 3; stderr:\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(!tu_contains(p.err, "waitpid"),
		 "the launcher failed to wait:\n%s", p.err);
	TU_CHECK(tu_count_lines(p.err, "dltrace: 1 process traced") == 1,
		 "no verdict:\n%s", p.err);
	int32_t st = 0;
	if (only_reaped(dir, &st))
		TU_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3,
			 "reaped status recorded as %s", tu_status_str(st));
	tu_expect_healthy("sh -c 'exit 3' under --hang-timeout", dir);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* libdltrace.so under another file name (an installation that versions
 * it): the shim finds the real functions by skipping itself by name, and
 * before its constructor knew its own name it found its own dlvsym and
 * called it forever. */
static void test_library_renamed(void)
{
	char *dir = tu_tmpdir("renamed");
	char *lib = tu_tmpdir("renamed-lib");
	TU_CHECK_FATAL(dir && lib, "no scratch directory");
	char *copy = tu_strfmt("%s/libdltrace-copy.so", lib);
	TU_CHECK_FATAL(tu_copy_file(DLT_TEST_LIB, copy) == 0, "cannot copy %s",
		       DLT_TEST_LIB);
	char *fx = tu_fx("fx_hello");
	const char *cmd[] = {fx, NULL};
	char *libenv = tu_strfmt("DLTRACE_LIB=%s", copy);
	const char *env[] = {libenv, NULL};
	struct tu_proc plain, p;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	tu_run_traced(&p, dir, cmd, env, RUN_TIMEOUT_MS);
	TU_CHECK(!p.timed_out, "a program under %s did not end", copy);
	tu_expect_same_launched("fx_hello under a renamed library", &plain, &p,
				1);
	char **paths;
	TU_CHECK(tu_list_traces(dir, &paths) == 1, "no trace in %s", dir);
	tu_free_list(paths);
	tu_proc_free(&plain);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(lib);
	free(libenv);
	free(fx);
	free(copy);
	free(dir);
	free(lib);
}

/* What the launcher says about an output directory it cannot use: the
 * cause, once; the command runs untraced, or not at all with
 * --require-trace (or DLTRACE_REQUIRE_TRACE=1). */
static void expect_dir_refused(const char *what, const struct tu_proc *p,
			       const char *cause, int required, int ran)
{
	TU_CHECK(tu_count_lines(p->err, "dltrace: cannot write traces to ") ==
				 1 &&
			 tu_contains(p->err, cause),
		 "%s: expected one line giving the cause (%s):\n%s", what,
		 cause, p->err);
	TU_CHECK(tu_count_lines(p->err, "dltrace: ") == 1,
		 "%s: more than the one line about the directory:\n%s", what,
		 p->err);
	if (required)
		TU_CHECK(tu_exit_code(p->status) == 2 && !ran,
			 "%s: with --require-trace: %s, command %s", what,
			 tu_status_str(p->status), ran ? "ran" : "did not run");
	else
		TU_CHECK(tu_exit_code(p->status) == 0 && ran,
			 "%s: without --require-trace: %s, command %s", what,
			 tu_status_str(p->status), ran ? "ran" : "did not run");
}

static void test_output_dir(void)
{
	char *scratch = tu_tmpdir("outdir");
	TU_CHECK_FATAL(scratch != NULL, "no scratch directory");
	char *file = tu_strfmt("%s/afile", scratch);
	char *marker = tu_strfmt("%s/ran", scratch);
	FILE *f = fopen(file, "w");
	TU_CHECK_FATAL(f && fputs("hello\n", f) >= 0 && fclose(f) == 0,
		       "cannot write %s", file);
	const char *cmd[] = {"/bin/sh", "-c", "echo > \"$0\"", marker, NULL};
	for (int mode = 0; mode < 3; mode++) {
		const char *opts[] = {mode == 1 ? "--require-trace" : NULL,
				      NULL};
		const char *env[] = {
			mode == 2 ? "DLTRACE_REQUIRE_TRACE=1" : NULL, NULL};
		unlink(marker);
		const char **argv = tu_launcher_argv(file, opts, cmd);
		struct tu_proc p;
		tu_run(&p, argv, env, RUN_TIMEOUT_MS);
		free(argv);
		expect_dir_refused("-o a file", &p, "Not a directory", mode > 0,
				   access(marker, F_OK) == 0);
		tu_proc_free(&p);
	}

	/* A parent that cannot be written: EACCES, as a user who is not root
	 * (root writes anywhere; then the launcher runs as nobody). */
	char *ro = tu_strfmt("%s/ro", scratch);
	char *below = tu_strfmt("%s/sub/d", ro);
	TU_CHECK_FATAL(mkdir(ro, 0755) == 0 && chmod(scratch, 0755) == 0,
		       "cannot make %s", ro);
	int root = geteuid() == 0;
	if (root)
		TU_CHECK_FATAL(chown(ro, 0, 0) == 0 && chmod(ro, 0555) == 0,
			       "cannot protect %s", ro);
	else
		TU_CHECK_FATAL(chmod(ro, 0555) == 0, "cannot protect %s", ro);
	if (!root || access("/usr/bin/setpriv", X_OK) == 0) {
		const char *as_nobody[] = {"/usr/bin/setpriv", "--reuid=65534",
					   "--regid=65534", "--clear-groups",
					   NULL};
		const char *tr[] = {"/bin/true", NULL};
		const char **argv = tu_launcher_argv(below, NULL, tr);
		const char *full[16];
		size_t k = 0;
		for (size_t i = 0; root && as_nobody[i]; i++)
			full[k++] = as_nobody[i];
		for (size_t i = 0; argv[i] && k < 15; i++)
			full[k++] = argv[i];
		full[k] = NULL;
		struct tu_proc p;
		tu_run(&p, full, NULL, RUN_TIMEOUT_MS);
		free(argv);
		expect_dir_refused("-o under a read-only directory", &p,
				   "Permission denied", 0, 1);
		tu_proc_free(&p);
	} else {
		tu_skip_part("-o under a read-only directory (EACCES): root "
			     "writes anywhere and /usr/bin/setpriv, which "
			     "would run the launcher as nobody, is missing");
	}
	chmod(ro, 0755);

	/* A command that cannot be started: no trace, no verdict, and the
	 * directories made for it are gone again. */
	char *fresh = tu_strfmt("%s/fresh", scratch);
	char *deep = tu_strfmt("%s/a/b", fresh);
	const char *nocmd[] = {"/nonexistent/program", NULL};
	const char **argv = tu_launcher_argv(deep, NULL, nocmd);
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 127 &&
			 tu_contains(p.err, "dltrace: cannot run "
					    "/nonexistent/program: No such "
					    "file or directory") &&
			 tu_count_lines(p.err, "dltrace: ") == 1,
		 "a command that does not exist: %s; stderr:\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(access(fresh, F_OK) != 0,
		 "%s was left behind by a command that never started", fresh);
	tu_proc_free(&p);

	tu_rmtree(scratch);
	free(fresh);
	free(deep);
	free(ro);
	free(below);
	free(file);
	free(marker);
	free(scratch);
}

/* -V, and a short usage for a mistake. */
static void test_options(void)
{
	const char *v[] = {DLT_TEST_LAUNCHER, "-V", NULL};
	struct tu_proc p;
	tu_run(&p, v, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0 &&
			 strncmp(p.out, "dltrace ", 8) == 0,
		 "dltrace -V: %s, stdout: %s", tu_status_str(p.status), p.out);
	tu_proc_free(&p);
	const char *bad[][4] = {{DLT_TEST_LAUNCHER, "--bogus", "true", NULL},
				{DLT_TEST_LAUNCHER, "-o", NULL, NULL},
				{DLT_TEST_LAUNCHER, NULL, NULL, NULL}};
	for (size_t i = 0; i < 3; i++) {
		tu_run(&p, bad[i], NULL, RUN_TIMEOUT_MS);
		TU_CHECK(
			tu_exit_code(p.status) == 2 &&
				tu_count_lines(p.err, "usage: dltrace ") == 1 &&
				tu_contains(p.err, "dltrace --help") &&
				tu_count_lines(p.err, "") <= 5 &&
				p.out[0] == '\0',
			"dltrace %s: %s; expected a short usage on stderr:\n%s",
			bad[i][1] ? bad[i][1] : "(nothing)",
			tu_status_str(p.status), p.err);
		tu_proc_free(&p);
	}
}

/* 30,000 arguments: those recorded and those counted make all of them, and
 * summary says how many were not recorded (they were cut without a mark). */
static void test_long_argv(void)
{
	enum { NARGS = 30000 };
	char *dir = tu_tmpdir("argv");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char **cmd = calloc(NARGS + 2, sizeof(*cmd));
	char **nums = calloc(NARGS, sizeof(*nums));
	TU_CHECK_FATAL(cmd && nums, "out of memory");
	cmd[0] = "/bin/true";
	for (int i = 0; i < NARGS; i++)
		cmd[i + 1] = nums[i] = tu_strfmt("%d", i + 1);
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "true with %d arguments: %s",
		 NARGS, tu_status_str(p.status));
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	size_t recorded = s.n == 1 ? s.t[0].nrec[DLT_REC_ARG] : 0;
	tu_traceset_free(&s);
	struct tu_proc a;
	tu_analyze_dir(&a, "summary", NULL, dir);
	const char *more = strstr(a.out, "… (");
	unsigned long notrec =
		more ? strtoul(more + strlen("… ("), NULL, 10) : 0;
	TU_CHECK(more && tu_contains(more, "more arguments not recorded") &&
			 recorded + notrec == NARGS + 1 && recorded > 1,
		 "%zu ARG records, summary says %lu not recorded; expected "
		 "%d in all:\n%.300s",
		 recorded, notrec, NARGS + 1, more ? more : a.out);
	tu_proc_free(&a);
	tu_proc_free(&p);
	for (int i = 0; i < NARGS; i++)
		free(nums[i]);
	free(nums);
	free(cmd);
	tu_rmtree(dir);
	free(dir);
}

/* The launcher's record of the reaped status belongs to the process: an
 * export named a thread after the launcher's pid.  And a directory named
 * twice is read once. */
static void test_export_and_repeats(void)
{
	char *dir = tu_tmpdir("export");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *fx = tu_fx("fx_hello");
	const char *cmd[] = {fx, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	const char *ex[] = {DLT_TEST_ANALYZE, "export", "--format",
			    "chrome",	      dir,	NULL};
	struct tu_proc e;
	tu_run(&e, ex, NULL, RUN_TIMEOUT_MS);
	char err[256];
	struct tu_json *j = tu_json_parse(e.out, err, sizeof(err));
	const struct tu_json *evs = tu_jget(j, "traceEvents");
	if (evs == NULL)
		evs = j;
	size_t threads = 0;
	for (size_t i = 0; i < tu_jlen(evs); i++) {
		const struct tu_json *ev = tu_jat(evs, i);
		const char *name = tu_jstr(ev, "name");
		if (name == NULL || strcmp(name, "thread_name") != 0)
			continue;
		threads++;
		const struct tu_json *tid = tu_jget(ev, "tid");
		TU_CHECK(tid && (pid_t)tid->num != p.pid,
			 "export names a thread after the launcher (pid %d)",
			 (int)p.pid);
	}
	TU_CHECK(j != NULL && threads == 1,
		 "export: %zu thread tracks for a one-thread program (%s)",
		 threads, j ? "parsed" : err);
	tu_json_free(j);
	tu_proc_free(&e);
	const char *twice[] = {DLT_TEST_ANALYZE, "summary", dir, dir, NULL};
	tu_run(&e, twice, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_count_lines(e.out, "pid ") == 1,
		 "summary DIR DIR lists %zu processes, expected 1:\n%s",
		 tu_count_lines(e.out, "pid "), e.out);
	tu_proc_free(&e);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- suite ends: how each process of a tree ended ------------------------ */

static const char *python_skip(void)
{
	return tu_python_skip("os");
}

/* A bash script starting Python children that end in four ways: an exit
 * status, an uncaught exception (main returns 1), abort(), and SIGKILL from
 * the script.  bash reaps each with waitpid or wait4. */
static const char tree_script[] =
	"py=$1; ready=$2\n"
	"\"$py\" -c 'import sys; sys.exit(3)'\n"
	"\"$py\" -c 'raise ValueError(\"uncaught\")' 2>/dev/null\n"
	"\"$py\" -c 'import os; os.abort()'\n"
	"\"$py\" -c 'import sys, time\n"
	"open(sys.argv[1], \"w\").write(\"up\")\n"
	"time.sleep(120)' \"$ready\" &\n"
	"k=$!\n"
	/* Killed once its trace exists (it wrote the file after starting). */
	"n=0; while [ ! -s \"$ready\" ] && [ $n -lt 1200 ]; do sleep 0.05; "
	"n=$((n+1)); done\n"
	"kill -KILL $k\n"
	"wait $k\n"
	"exit 0\n";

struct end_want {
	const char *what;
	int status;	/* the wait status the parent saw */
	uint16_t how;	/* the child's own EXIT record */
	int32_t value;	/* its status */
	int own_record; /* a SIGKILL leaves none */
};

static const struct end_want tree_wants[] = {
	{"sys.exit(3)", 3 << 8, DLT_EXIT_NORMAL, 3, 1},
	{"uncaught exception", 1 << 8, DLT_EXIT_MAIN, 1, 1},
	{"os.abort()", SIGABRT, DLT_EXIT_ABORT, SIGABRT, 1},
	{"SIGKILL", SIGKILL, 0, 0, 0},
};

/* The trace of the last image of pid in s, or NULL. */
static const struct tu_trace *last_image(const struct tu_traceset *s,
					 uint32_t pid)
{
	const struct tu_trace *best = NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].hdr.pid == pid &&
		    (best == NULL || s->t[i].hdr.exec_seq > best->hdr.exec_seq))
			best = &s->t[i];
	return best;
}

/* The process of check --json whose pid is pid, or NULL. */
static const struct tu_json *check_proc(const struct tu_json *root,
					uint32_t pid)
{
	const struct tu_json *procs = tu_jget(root, "processes");
	const struct tu_json *found = NULL;
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *p = tu_jat(procs, i);
		const struct tu_json *v = tu_jget(p, "pid");
		/* The last image of the pid: processes are in start order. */
		if (v && v->type == TU_JNUM && (uint32_t)v->num == pid)
			found = p;
	}
	return found;
}

static double jnumber(const struct tu_json *o, const char *key)
{
	const struct tu_json *v = tu_jget(o, key);
	return v && v->type == TU_JNUM ? v->num : -1;
}

/* check says how each child of the script ended: what its parent reaped,
 * with what its own records add. */
static void expect_tree_ends(const char *dir, const struct tu_trace *bash)
{
	static const struct {
		int status;	   /* as reaped, core bit cleared */
		int exit_code;	   /* -1: none */
		int signal;	   /* 0: none */
		const char *words; /* in "ended" */
	} want[] = {
		{3 << 8, 3, 0, "exit() called, seen by its parent"},
		{1 << 8, 1, 0, "main returned, seen by its parent"},
		{SIGABRT, -1, SIGABRT, "abort() called, seen by its parent"},
		{SIGKILL, -1, SIGKILL,
		 "SIGKILL (signal 9), seen by its parent"},
	};
	struct tu_json *root = tu_check_json(dir);
	for (size_t w = 0; w < 4; w++) {
		uint32_t pid = 0;
		for (size_t k = 0; k < bash->nreaps; k++)
			if ((bash->reaps[k].status & 0xff7f) == want[w].status)
				pid = bash->reaps[k].pid;
		const struct tu_json *p = check_proc(root, pid);
		const char *ended = tu_jstr(p, "ended");
		TU_CHECK(p && tu_contains(ended, want[w].words) &&
				 jnumber(p, "exit_code") == want[w].exit_code &&
				 jnumber(p, "signal") ==
					 (want[w].signal ? want[w].signal : -1),
			 "pid %u: ended \"%s\", exit_code %g, signal %g; "
			 "expected \"%s\", %d, %d",
			 pid, ended ? ended : "(no process)",
			 jnumber(p, "exit_code"), jnumber(p, "signal"),
			 want[w].words, want[w].exit_code, want[w].signal);
	}
	tu_json_free(root);
}

/* Python's subprocess reaps with waitpid: a child that dies of SIGTERM. */
static void test_ends_python_subprocess(void)
{
	char *dir = tu_tmpdir("ends-subprocess");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script =
		"import os, subprocess, sys\n"
		"r = subprocess.run([sys.executable, '-c', "
		"'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'])\n"
		"print('parent', os.getpid(), 'child returned', "
		"r.returncode)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0 &&
			 tu_contains(p.out, "child returned -15"),
		 "the program: %s\n%s%s", tu_status_str(p.status), p.out,
		 p.err);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *parent = NULL;
	for (size_t i = 0; i < s.n; i++)
		if (s.t[i].nreaps > 0)
			parent = &s.t[i];
	uint32_t child = 0, parent_pid = parent ? parent->hdr.pid : 0;
	if (parent)
		for (size_t k = 0; k < parent->nreaps; k++)
			if (parent->reaps[k].status == SIGTERM &&
			    parent->reaps[k].call == DLT_REAP_WAITPID)
				child = parent->reaps[k].pid;
	TU_CHECK(child != 0,
		 "no REAP by waitpid of a child killed by SIGTERM in the "
		 "parent's trace");
	tu_traceset_free(&s);
	struct tu_json *root = tu_check_json(dir);
	const struct tu_json *c = check_proc(root, child);
	char want[96];
	snprintf(want, sizeof(want),
		 "SIGTERM (signal 15), seen by its parent "
		 "(pid %u)",
		 parent_pid);
	TU_CHECK(c && tu_contains(tu_jstr(c, "ended"), want) &&
			 jnumber(c, "signal") == SIGTERM,
		 "the child ended \"%s\"; expected \"%s\"",
		 c ? tu_jstr(c, "ended") : "(no process)", want);
	tu_json_free(root);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* Traces of dir whose PROC named an exe of this base name. */
static int python_traced(const char *dir)
{
	struct tu_proc a;
	tu_analyze_dir(&a, "summary", NULL, dir);
	int n = (int)tu_count_lines(a.out, "  exe       /usr/bin/python") +
		(int)tu_count_lines(a.out, "  exe       /usr/local/bin/python");
	tu_proc_free(&a);
	return n;
}

/* The whole tree SIGKILLed, the launcher with it: nothing could see how
 * its processes ended, and each says so, with its last sign of life. */
static void test_ends_group_killed(void)
{
	char *dir = tu_tmpdir("ends-group");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *script = tu_strfmt("\"%s\" -c 'import time; time.sleep(120)' &\n"
				 "\"%s\" -c 'import time; time.sleep(120)'\n",
				 tu_python(), tu_python());
	const char *cmd[] = {"/bin/bash", "-c", script, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, NULL) == 0, "cannot start");
	free(argv);
	/* Killed once both Pythons have their traces. */
	for (int i = 0; i < 600 && python_traced(dir) < 2; i++)
		usleep(100 * 1000);
	tu_kill_group(&p);
	struct tu_json *root = tu_check_json(dir);
	const struct tu_json *procs = tu_jget(root, "processes");
	size_t said = 0;
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const char *ended = tu_jstr(tu_jat(procs, i), "ended");
		if (tu_contains(ended, "image replaced by exec"))
			continue;
		/* A zombie its new parent has not reaped yet says that. */
		int ok = (tu_contains(ended, "no traced process reaped it") ||
			  tu_contains(ended, "has not reaped it yet")) &&
			 tu_contains(ended, "last sign of life");
		said += ok;
		TU_CHECK(ok, "a process of the killed tree ended \"%s\"",
			 ended);
	}
	/* bash runs its last command in its own process (an exec): the
	 * two Pythons are the ends to explain. */
	TU_CHECK(said >= 2,
		 "%zu processes of the killed tree say that nothing saw "
		 "their end, expected the two Pythons at least",
		 said);
	tu_json_free(root);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(script);
	free(dir);
}

/* Every wait call, a SIGCHLD handler that reaps, a NULL status, ECHILD:
 * the program gets what it gets untraced, and each end is recorded. */
static void test_ends_wait_calls(void)
{
	char *fx = tu_fx("fx_reap");
	char *dir = tu_tmpdir("ends-wait");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {fx, NULL};
	struct tu_proc plain, p;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(plain.status) == 0 &&
			 tu_contains(plain.out, "handler reaped 3"),
		 "fixture broken: %s\n%s", tu_status_str(plain.status),
		 plain.out);
	tu_expect_same_launched("fx_reap", &plain, &p, 0);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *parent = NULL;
	for (size_t i = 0; i < s.n; i++)
		if (s.t[i].hdr.ppid == (uint32_t)p.pid)
			parent = &s.t[i];
	static const struct {
		uint16_t call;
		int status;
	} want[] = {{DLT_REAP_WAIT, 7 << 8},	 {DLT_REAP_WAITPID, SIGTERM},
		    {DLT_REAP_WAIT4, SIGABRT},	 {DLT_REAP_WAIT4, SIGKILL},
		    {DLT_REAP_WAITID, 5 << 8},	 {DLT_REAP_WAITPID, 6 << 8},
		    {DLT_REAP_WAITPID, 10 << 8}, {DLT_REAP_WAITPID, 11 << 8},
		    {DLT_REAP_WAITPID, 12 << 8}};
	for (size_t w = 0; parent && w < sizeof(want) / sizeof(want[0]); w++) {
		int found = 0;
		for (size_t k = 0; k < parent->nreaps; k++)
			found |= parent->reaps[k].call == want[w].call &&
				 (parent->reaps[k].status & 0xff7f) ==
					 want[w].status;
		TU_CHECK(found, "no REAP by call %u of status 0x%x",
			 want[w].call, want[w].status);
	}
	TU_CHECK(parent != NULL, "no trace of fx_reap");
	if (CU_get_number_of_failures())
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* Forked children under the lazy traces of format 2.0: one that records
 * gets a trace of its own in the launcher's run; one that only execs gets
 * none, and the image it runs names the fork's parent, carries the run,
 * and still has the end its parent reaped; one killed before it recorded
 * anything has no trace, and its parent's reap stands for it. */
static void test_ends_forked(void)
{
	char *dir = tu_tmpdir("ends-forked");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script =
		"import ctypes, os\n"
		"a = os.fork()\n"
		"if a == 0:\n"
		"    ctypes.CDLL('libm.so.6')\n"
		"    os._exit(3)\n"
		"os.waitpid(a, 0)\n"
		"b = os.fork()\n"
		"if b == 0:\n"
		"    os.execv('/bin/sh', ['sh', '-c', 'kill -TERM $$'])\n"
		"_, st = os.waitpid(b, 0)\n"
		"c = os.fork()\n"
		"if c == 0:\n"
		"    os.kill(os.getpid(), 9)\n"
		"os.waitpid(c, 0)\n"
		"print('children', a, b, c, 'second', st)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	unsigned a = 0, b = 0, k = 0;
	const char *line = strstr(p.out ? p.out : "", "children ");
	TU_CHECK_FATAL(
		tu_exit_code(p.status) == 0 && line &&
			sscanf(line, "children %u %u %u", &a, &b, &k) == 3,
		"the program: %s\n%s%s", tu_status_str(p.status), p.out, p.err);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *parent = NULL;
	uint64_t run = s.n ? s.t[0].hdr.run_id : 0;
	for (size_t i = 0; i < s.n; i++) {
		TU_CHECK(s.t[i].hdr.run_id == run && run != 0,
			 "%s: run %llx, the first trace's %llx", s.t[i].path,
			 (unsigned long long)s.t[i].hdr.run_id,
			 (unsigned long long)run);
		if (s.t[i].nforks >= 2)
			parent = &s.t[i];
	}
	TU_CHECK_FATAL(parent != NULL, "no trace with the two FORK records");
	const struct tu_trace *ta = last_image(&s, a), *tb = last_image(&s, b);
	TU_CHECK(ta && ta->hdr.parent_kind == DLT_PARENT_FORK &&
			 ta->hdr.parent_trace_id == parent->hdr.trace_id &&
			 ta->nexits == 1 &&
			 ta->exits[0].how == DLT_EXIT_UNDERSCORE &&
			 ta->exits[0].status == 3,
		 "the child that recorded (pid %u) has no trace of its own "
		 "forked from its parent's, ended by _exit(3)",
		 a);
	/* Its one trace is the shell's: exec_seq 0, named after the fork. */
	size_t images = 0;
	for (size_t i = 0; i < s.n; i++)
		images += s.t[i].hdr.pid == b;
	TU_CHECK(tb && images == 1 && tb->hdr.exec_seq == 0 &&
			 tb->hdr.parent_kind == DLT_PARENT_FORK &&
			 tb->hdr.parent_trace_id == parent->hdr.trace_id,
		 "the child that only execs (pid %u): %zu traces, expected "
		 "the shell's alone, forked from its parent's",
		 b, images);
	TU_CHECK(last_image(&s, k) == NULL,
		 "the child killed before it recorded anything (pid %u) has "
		 "a trace",
		 k);
	uint32_t parent_pid = parent->hdr.pid;
	tu_traceset_free(&s);
	struct tu_json *root = tu_check_json(dir);
	const struct tu_json *c = check_proc(root, b);
	char want[96];
	snprintf(want, sizeof(want),
		 "SIGTERM (signal 15), seen by its parent "
		 "(pid %u)",
		 (unsigned)parent_pid);
	TU_CHECK(c && tu_contains(tu_jstr(c, "ended"), want),
		 "the shell ended \"%s\"; expected \"%s\"",
		 c ? tu_jstr(c, "ended") : "(no process)", want);
	/* The killed one has no trace: what its parent reaped stands for
	 * it, in check, the verdict and summary. */
	const struct tu_json *ck = check_proc(root, k);
	snprintf(want, sizeof(want),
		 "SIGKILL (signal 9), seen by its parent "
		 "(pid %u); it left no trace",
		 (unsigned)parent_pid);
	TU_CHECK(ck && tu_contains(tu_jstr(ck, "ended"), want) &&
			 tu_jget(ck, "trace") &&
			 tu_jget(ck, "trace")->type == TU_JNULL &&
			 jnumber(ck, "signal") == 9,
		 "the child killed before it recorded anything: ended \"%s\"; "
		 "expected \"%s\" and no trace",
		 ck ? tu_jstr(ck, "ended") : "(no process)", want);
	char *verdict = tu_strfmt("dltrace: pid %u (", k);
	TU_CHECK(tu_count_lines(p.err, verdict) == 1 &&
			 tu_contains(p.err, "(and 1 forked child that left no "
					    "trace)"),
		 "the verdict does not name the child without a trace:\n%s",
		 p.err);
	free(verdict);
	struct tu_proc sm;
	tu_analyze_dir(&sm, "summary", NULL, dir);
	char *forked = tu_strfmt("%u (killed by SIGKILL", k);
	TU_CHECK(tu_contains(sm.out, forked),
		 "summary does not say how the child without a trace "
		 "ended:\n%s",
		 sm.out);
	free(forked);
	tu_proc_free(&sm);
	tu_json_free(root);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

static void test_ends_bash_python(void)
{
	char *dir = tu_tmpdir("ends");
	char *scratch = tu_tmpdir("ends-scratch");
	TU_CHECK_FATAL(dir && scratch, "no scratch directory");
	char *ready = tu_strfmt("%s/ready", scratch);
	const char *cmd[] = {"/bin/bash", "-c",	 tree_script, "tree",
			     tu_python(), ready, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "the script: %s; stderr:\n%s",
		 tu_status_str(p.status), p.err);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	/* bash's trace: one REAP per child, in the order they ended. */
	const struct tu_trace *bash = NULL;
	for (size_t i = 0; i < s.n; i++)
		if (s.t[i].nreaps >= 4)
			bash = &s.t[i];
	TU_CHECK_FATAL(bash != NULL, "no trace with the script's REAP records");
	size_t seen = 0;
	for (size_t k = 0; k < bash->nreaps; k++) {
		const struct tu_reap *r = &bash->reaps[k];
		const struct tu_trace *child = last_image(&s, r->pid);
		if (child == NULL)
			continue; /* a command substitution, not a Python */
		for (size_t w = 0; w < 4; w++) {
			const struct end_want *want = &tree_wants[w];
			/* WCOREDUMP may be set with SIGABRT. */
			if ((r->status & 0xff7f) != want->status)
				continue;
			seen |= 1u << w;
			TU_CHECK(r->call == DLT_REAP_WAITPID ||
					 r->call == DLT_REAP_WAIT4,
				 "%s: reaped by call %u", want->what, r->call);
			int own = 0;
			for (size_t e = 0; e < child->nexits; e++)
				own |= child->exits[e].how == want->how &&
				       child->exits[e].status == want->value;
			TU_CHECK(own == want->own_record &&
					 (want->own_record ||
					  child->nexits == 0),
				 "%s: pid %u's trace has %zu EXIT records, the "
				 "expected one %s",
				 want->what, r->pid, child->nexits,
				 own ? "among them" : "missing");
		}
	}
	TU_CHECK(seen == 0xf,
		 "the script's trace lacks the reaped status of some children "
		 "(seen mask 0x%zx of 0xf)",
		 seen);
	expect_tree_ends(dir, bash);
	if (CU_get_number_of_failures())
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(scratch);
	free(ready);
	free(dir);
	free(scratch);
}

/* ---- suite runs: a directory used twice ---------------------------------- */

/* dltrace -o d with a failed load, then dltrace -o d true: the second
 * verdict covers the second run only (it reported the first run's
 * failure), and the analyzer shows the two runs apart. */
static void test_runs_reused_dir(void)
{
	char *dir = tu_tmpdir("runs");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *loader = tu_fx("fx_loader");
	const char *bad[] = {loader, "direct", "libdltrace-nonexistent.so",
			     NULL};
	const char *good[] = {"/bin/true", NULL};
	struct tu_proc p1, p2;
	tu_run_traced(&p1, dir, bad, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_contains(p1.err, "LIB_NOT_FOUND"),
		 "the first run's failed load is not in its verdict:\n%s",
		 p1.err);
	tu_run_traced(&p2, dir, good, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p2.status) == 0, "true: %s",
		 tu_status_str(p2.status));
	TU_CHECK(!tu_contains(p2.err, "LIB_NOT_FOUND") &&
			 !tu_contains(p2.err, "error ") &&
			 tu_count_lines(p2.err, "dltrace: 1 process traced") ==
				 1 &&
			 tu_contains(p2.err, "1 trace of 1 other run"),
		 "the second run's verdict is not its own:\n%s", p2.err);

	struct tu_proc a;
	tu_analyze_dir(&a, "summary", NULL, dir);
	TU_CHECK(tu_contains(a.out, "come from 2 runs") &&
			 tu_count_lines(a.out, "process tree of run ") == 2,
		 "summary does not show the two runs apart:\n%s", a.out);
	tu_proc_free(&a);

	struct tu_json *root = tu_check_json(dir);
	const struct tu_json *procs = tu_jget(root, "processes");
	const char *run_true = NULL, *run_bad = NULL;
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *pr = tu_jat(procs, i);
		if (tu_contains(tu_jstr(pr, "exe"), "true"))
			run_true = tu_jstr(pr, "run");
		else
			run_bad = tu_jstr(pr, "run");
	}
	TU_CHECK(run_true && run_bad && strcmp(run_true, run_bad) != 0 &&
			 jnumber(tu_jget(root, "summary"), "runs") == 2,
		 "check --json: runs %s and %s, %g in the summary",
		 run_true ? run_true : "null", run_bad ? run_bad : "null",
		 jnumber(tu_jget(root, "summary"), "runs"));
	if (run_true) {
		const char *one[] = {DLT_TEST_ANALYZE, "check", "--run",
				     run_true,	       dir,	NULL};
		tu_run(&a, one, NULL, RUN_TIMEOUT_MS);
		TU_CHECK(tu_exit_code(a.status) == 0 &&
				 tu_contains(a.out, "1 process checked: 0 "
						    "errors"),
			 "check --run %s: %s\n%s%s", run_true,
			 tu_status_str(a.status), a.out, a.err);
		tu_proc_free(&a);
	}
	const char *wrong[] = {
		DLT_TEST_ANALYZE, "check", "--run", "xyz", dir, NULL};
	tu_run(&a, wrong, NULL, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(a.status) == 2 && tu_contains(a.err, "--run"),
		 "check --run xyz: %s\n%s", tu_status_str(a.status), a.err);
	tu_proc_free(&a);
	tu_json_free(root);
	tu_proc_free(&p1);
	tu_proc_free(&p2);
	tu_rmtree(dir);
	free(loader);
	free(dir);
}

/* ---- suite versions: GPU libraries' versions at load --------------------- */

/* LIB_FAMILY records of one source in the traces of dir: family and
 * slots of each. */
struct fam_seen {
	int family;
	int64_t v[8];
};

struct fam_scan {
	uint32_t source;
	struct fam_seen seen[16];
	size_t n;
};

static int scan_family(void *ctx, const struct dlt_rec_view *v)
{
	struct fam_scan *s = ctx;
	if (v->rec->type != DLT_REC_LIB_FAMILY || s->n == 16)
		return 0;
	const struct dlt_rec_family *r = (const void *)v->rec;
	if (r->source == s->source) {
		s->seen[s->n].family = r->h.flags;
		memcpy(s->seen[s->n++].v, r->v, sizeof(r->v));
	}
	return 0;
}

static void families(const char *dir, uint32_t source, struct fam_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->source = source;
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	TU_CHECK(n > 0, "no trace in %s", dir);
	for (size_t i = 0; i < n; i++) {
		char err[256];
		struct dlt_trace *t =
			dlt_trace_open(paths[i], err, sizeof(err));
		/* Every trace of these runs is whole: one that does not open
		 * would hide the families it recorded. */
		TU_CHECK(t != NULL, "%s: %s", paths[i], err);
		if (t == NULL)
			continue;
		dlt_trace_foreach(t, scan_family, s);
		dlt_trace_close(t);
	}
	tu_free_list(paths);
}

static const struct fam_seen *family_of(const struct fam_scan *s, int family)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->seen[i].family == family)
			return &s->seen[i];
	return NULL;
}

/* The versions object of the one process check found in dir; *root is to
 * be freed. */
static const struct tu_json *check_versions(const char *dir,
					    struct tu_json **root)
{
	*root = tu_check_json(dir);
	const struct tu_json *procs = tu_jget(*root, "processes");
	TU_CHECK(tu_jlen(procs) == 1, "%zu processes in %s, expected 1",
		 tu_jlen(procs), dir);
	return tu_jget(tu_jat(procs, 0), "versions");
}

static int str_is(const char *s, const char *want)
{
	return s && strcmp(s, want) == 0;
}

/* A program that only loads the fake NCCL and CUDA runtime (ctypes) and
 * calls nothing in them: their versions at load, from the libraries after
 * the load and from NCCL's file; a process killed right after its load has
 * the file's. */
static void test_versions_fakes(void)
{
	char *dir = tu_tmpdir("versions-fake");
	char *killed = tu_tmpdir("versions-killed");
	TU_CHECK_FATAL(dir && killed, "no scratch directory");
	/* NCCL last: a kill right after its load leaves it no later point
	 * (the next dlopen, a dlsym, the end) to answer at. */
	char *script = tu_strfmt("import ctypes, os, sys\n"
				 "ctypes.CDLL('%s/%s')\n"
				 "ctypes.CDLL('%s/libnccl.so.2')\n"
				 "if sys.argv[1:] == ['kill']:\n"
				 "    os.kill(os.getpid(), 9)\n",
				 DLT_FAKE_CUDART_DIR, DLT_FAKE_CUDART_SONAME,
				 DLT_FAKE_NCCL_DIR);
	const char *env[] = {"FAKE_NCCL_VERSION=22703",
			     "FAKE_CUDART_VERSION=12080", NULL};
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, env, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "the program: %s\n%s",
		 tu_status_str(p.status), p.err);
	struct tu_json *root;
	const struct tu_json *v = check_versions(dir, &root);
	const char *nccl = tu_jstr(v, "nccl"), *rt = tu_jstr(v, "cuda_runtime");
	TU_CHECK(str_is(nccl, "2.27.3") &&
			 str_is(tu_jstr(v, "nccl_from"), "load"),
		 "nccl %s (from %s): expected 2.27.3, what the library said",
		 nccl ? nccl : "null", tu_jstr(v, "nccl_from"));
	TU_CHECK(str_is(rt, "12.8"),
		 "cuda_runtime %s: expected 12.8, what the library said",
		 rt ? rt : "null");
	tu_json_free(root);
	struct fam_scan fs;
	families(dir, DLT_FAMSRC_FILE, &fs);
	const struct fam_seen *f = family_of(&fs, DLT_FAM_NCCL);
	TU_CHECK(f && f->v[DLT_FV_NCCL_version] == 22809 &&
			 f->v[DLT_FV_NCCL_file_cuda_version] == 13000,
		 "NCCL's version from its file: %lld, CUDA %lld; expected "
		 "22809 and 13000 (the fake's version string)",
		 f ? (long long)f->v[DLT_FV_NCCL_version] : -1LL,
		 f ? (long long)f->v[DLT_FV_NCCL_file_cuda_version] : -1LL);
	tu_expect_healthy("loading the fake NCCL and runtime", dir);
	tu_proc_free(&p);

	const char *cmd2[] = {tu_python(), "-c", script, "kill", NULL};
	tu_run_traced(&p, killed, cmd2, env, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 128 + 9,
		 "the program that kills itself: %s", tu_status_str(p.status));
	v = check_versions(killed, &root);
	nccl = tu_jstr(v, "nccl");
	TU_CHECK(str_is(nccl, "2.28.9") &&
			 str_is(tu_jstr(v, "nccl_from"), "file"),
		 "killed after the load: nccl %s from %s, expected 2.28.9 "
		 "from the file",
		 nccl ? nccl : "null", tu_jstr(v, "nccl_from"));
	tu_json_free(root);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(killed);
	free(script);
	free(dir);
	free(killed);
}

static const char *real_libs_skip(void)
{
	static char why[600];
	const char *libs[] = {"libnccl.so.2", "libcudnn.so.9",
			      "libcudart.so.13", NULL};
	for (const char **l = libs; *l; l++) {
		char *p = tu_strfmt("%s/%s", DLT_TEST_REAL_LIBDIR, *l);
		int ok = access(p, R_OK) == 0;
		free(p);
		if (!ok) {
			snprintf(why, sizeof(why), "no %s in %s", *l,
				 DLT_TEST_REAL_LIBDIR);
			return why;
		}
	}
	return tu_python_skip("ctypes");
}

/* "1.2.3" of a version word M*10000 + m*100 + p. */
static void version_text(long v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%ld.%ld.%ld", v / 10000, v / 100 % 100, v % 100);
}

/* The version column of the libs view: `libs --json` gives each of
 * libnccl.so.2, libcudnn_graph.so.9 (whose version word cuDNN 9 reports
 * for all of it) and libcudart.so.13 the version the library answered,
 * and summary lists them. */
static void expect_lib_versions(const char *dir, const char *nccl,
				const char *cudnn, const char *cudart)
{
	const char *names[] = {"/libnccl.so.2", "/libcudnn_graph.so.9",
			       "/libcudart.so.13"};
	const char *want[] = {nccl, cudnn, cudart};
	struct tu_json *j = tu_libs_json(dir);
	const struct tu_json *procs = tu_jget(j, "processes");
	for (size_t n = 0; n < 3; n++) {
		const char *got = NULL, *from = NULL;
		for (size_t i = 0; i < tu_jlen(procs); i++) {
			const struct tu_json *libs =
				tu_jget(tu_jat(procs, i), "libraries");
			for (size_t k = 0; k < tu_jlen(libs); k++) {
				const struct tu_json *l = tu_jat(libs, k);
				const char *path = tu_jstr(l, "path");
				size_t pl = path ? strlen(path) : 0;
				size_t nl = strlen(names[n]);
				if (pl < nl ||
				    strcmp(path + pl - nl, names[n]) != 0)
					continue;
				got = tu_jstr(l, "version");
				from = tu_jstr(l, "version_from");
			}
		}
		TU_CHECK(str_is(got, want[n]) && str_is(from, "library"),
			 "libs --json: %s version %s (from %s), the library "
			 "said %s",
			 names[n], got ? got : "null", from ? from : "null",
			 want[n]);
	}
	tu_json_free(j);
	struct tu_proc p;
	tu_analyze_dir(&p, "summary", NULL, dir);
	char *n = tu_strfmt("nccl %s", nccl), *c = tu_strfmt("cudnn %s", cudnn),
	     *r = tu_strfmt("cudart %s", cudart);
	TU_CHECK(tu_contains(p.out, n) && tu_contains(p.out, c) &&
			 tu_contains(p.out, r),
		 "summary lacks %s, %s or %s:\n%s", n, c, r, p.out);
	tu_proc_free(&p);
	tu_analyze_dir(&p, "libs", NULL, dir);
	char *b = tu_strfmt("[%s]", cudnn);
	TU_CHECK(tu_contains(p.out, b), "libs lacks %s:\n%s", b, p.out);
	tu_proc_free(&p);
	free(b);
	free(n);
	free(c);
	free(r);
}

/* The real NCCL and cuDNN through ctypes, only their version getters
 * called: check says the versions they answered ("versions": {} before),
 * and the program loads exactly what it loads untraced. */
static void test_versions_real(void)
{
	char *dir = tu_tmpdir("versions-real");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *script =
		tu_strfmt("import ctypes\n"
			  "d = '%s/'\n"
			  "n = ctypes.CDLL(d + 'libnccl.so.2')\n"
			  "v = ctypes.c_int()\n"
			  "n.ncclGetVersion(ctypes.byref(v))\n"
			  "c = ctypes.CDLL(d + 'libcudnn.so.9')\n"
			  "c.cudnnGetVersion.restype = ctypes.c_size_t\n"
			  "r = ctypes.CDLL(d + 'libcudart.so.13')\n"
			  "rv = ctypes.c_int()\n"
			  "r.cudaRuntimeGetVersion(ctypes.byref(rv))\n"
			  "print('nccl', v.value)\n"
			  "print('cudnn', c.cudnnGetVersion())\n"
			  "print('cudart', rv.value)\n"
			  "for m in sorted({l.split()[-1] for l in "
			  "open('/proc/self/maps')\n"
			  "                 if 'cud' in l or 'nccl' in l}):\n"
			  "    print('mapped', m)\n",
			  DLT_TEST_REAL_LIBDIR);
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc plain, p;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	/* Same output: the same versions, the same libraries mapped. */
	tu_expect_same_launched("ctypes version getters", &plain, &p, 0);
	char nv[32] = "", cv[32] = "", want_n[48], want_c[48];
	tu_line_value(plain.out, "nccl ", nv, sizeof(nv));
	tu_line_value(plain.out, "cudnn ", cv, sizeof(cv));
	long n = atol(nv), c = atol(cv);
	version_text(n, want_n, sizeof(want_n));
	version_text(c, want_c, sizeof(want_c));
	struct tu_json *root;
	const struct tu_json *v = check_versions(dir, &root);
	const char *gn = tu_jstr(v, "nccl"), *gc = tu_jstr(v, "cudnn");
	TU_CHECK(n > 0 && str_is(gn, want_n),
		 "nccl %s in check, the library said %s (%ld)",
		 gn ? gn : "null", want_n, n);
	TU_CHECK(c > 0 && str_is(gc, want_c),
		 "cudnn %s in check, the library said %s (%ld)",
		 gc ? gc : "null", want_c, c);
	printf("\n    nccl %s, cudnn %s\n", gn ? gn : "?", gc ? gc : "?");
	tu_json_free(root);
	tu_expect_healthy("ctypes version getters of NCCL and cuDNN", dir);
	/* libs and summary show what each library answered: cudart's word
	 * is M*1000 + m*10. */
	char rvs[32] = "", want_r[48];
	tu_line_value(plain.out, "cudart ", rvs, sizeof(rvs));
	long r = atol(rvs);
	snprintf(want_r, sizeof(want_r), "%ld.%ld", r / 1000, r % 1000 / 10);
	expect_lib_versions(dir, want_n, want_c, want_r);
	tu_proc_free(&plain);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(script);
	free(dir);
}

/* A byte-identical copy of the real libcudnn.so.9 first on LD_LIBRARY_PATH,
 * its sub-libraries from the real directory: one library in two places,
 * which cuDNN's own check accepts.  No skew, no warning. */
static void test_identical_cudnn_real(void)
{
	char *dir = tu_tmpdir("cudnn-copy-real");
	char *copy = tu_tmpdir("cudnn-copy-lib");
	TU_CHECK_FATAL(dir && copy, "no scratch directory");
	char *src = tu_strfmt("%s/libcudnn.so.9", DLT_TEST_REAL_LIBDIR);
	char *dst = tu_strfmt("%s/libcudnn.so.9", copy);
	TU_CHECK_FATAL(tu_copy_file(src, dst) == 0, "cannot copy %s", src);
	const char *script = "import ctypes\n"
			     "c = ctypes.CDLL('libcudnn.so.9')\n"
			     "c.cudnnGetVersion.restype = ctypes.c_size_t\n"
			     "print('cudnn', c.cudnnGetVersion())\n"
			     "g = ctypes.CDLL('libcudnn_graph.so.9')\n"
			     "print('check', g.cudnnGraphVersionCheck())\n";
	char *llp =
		tu_strfmt("LD_LIBRARY_PATH=%s:%s", copy, DLT_TEST_REAL_LIBDIR);
	const char *env[] = {llp, NULL};
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, env, RUN_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0 && tu_contains(p.out, "check 0"),
		 "the copy did not load or cuDNN's check failed: %s\n%s%s",
		 tu_status_str(p.status), p.out, p.err);
	struct tu_json *root = tu_check_json(dir);
	const struct tu_json *fs = tu_jget(root, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++)
		TU_CHECK(!str_is(tu_jstr(tu_jat(fs, i), "code"),
				 "CUDNN_SUBLIB_SKEW"),
			 "an identical copy is called skew: %s",
			 tu_jmsg(tu_jat(fs, i)));
	tu_json_free(root);
	tu_expect_healthy("an identical libcudnn.so.9 first on the path", dir);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(copy);
	free(llp);
	free(src);
	free(dst);
	free(dir);
	free(copy);
}

/* ---- suite torch: a healthy job under --hang-timeout ----------------------
 */

static const char *torch_skip(void)
{
	return tu_python_skip("torch.distributed");
}

/* Two gloo ranks that all-reduce and finish, under --hang-timeout: the
 * safety net must not fail a good run (it exited 2, "waitpid: No child
 * processes", without a verdict). */
static void test_gloo_hang_timeout(void)
{
	char *dir = tu_tmpdir("gloo");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	int port = tu_free_port();
	TU_CHECK_FATAL(port > 0, "no free port");
	char *port_env = tu_strfmt("MASTER_PORT=%d", port);
	const char *env[] = {"WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", port_env,
			     NULL};
	const char *rank = "import datetime, os, torch\n"
			   "import torch.distributed as dist\n"
			   "dist.init_process_group('gloo', "
			   "timeout=datetime.timedelta(seconds=120))\n"
			   "t = torch.ones(4)\n"
			   "dist.all_reduce(t)\n"
			   "dist.destroy_process_group()\n"
			   /* One write each: the ranks share the pipe. */
			   "os.write(1, ('rank %s %d\\n' % "
			   "(os.environ['RANK'], int(t[0]))).encode())\n";
	const char *cmd[] = {"/bin/sh",
			     "-c",
			     "RANK=0 \"$0\" -c \"$1\" & "
			     "RANK=1 \"$0\" -c \"$1\"; wait",
			     tu_python(),
			     rank,
			     NULL};
	const char *opts[] = {"--hang-timeout", "300", NULL};
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	struct tu_proc p;
	tu_run(&p, argv, env, 280000);
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 0 &&
			 tu_contains(p.out, "rank 0 2") &&
			 tu_contains(p.out, "rank 1 2"),
		 "two gloo ranks under --hang-timeout: %s\n%s%s",
		 tu_status_str(p.status), p.out, p.err);
	TU_CHECK(!tu_contains(p.err, "waitpid") &&
			 tu_count_lines(p.err, "dltrace: ") >= 2,
		 "no verdict, or the launcher failed to wait:\n%s", p.err);
	tu_expect_healthy("two gloo ranks under --hang-timeout", dir);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(port_env);
	free(dir);
}

/* The ranks of one job each under a dltrace of its own, into one
 * directory (srun -n 2 dltrace ...): their launcher runs overlap in time,
 * so the analyzer takes them for one run, one job, with no rank missing,
 * and each launcher's verdict covers both ranks. */
static void test_gloo_launcher_per_rank(void)
{
	char *dir = tu_tmpdir("gloo-ranks");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	int port = tu_free_port();
	TU_CHECK_FATAL(port > 0, "no free port");
	char *port_env = tu_strfmt("MASTER_PORT=%d", port);
	const char *script = "import datetime, os, torch\n"
			     "import torch.distributed as dist\n"
			     "dist.init_process_group('gloo', "
			     "timeout=datetime.timedelta(seconds=120))\n"
			     "t = torch.ones(4)\n"
			     "dist.all_reduce(t)\n"
			     "dist.destroy_process_group()\n"
			     "os.write(1, b'done\\n')\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p[2];
	for (int r = 0; r < 2; r++) {
		char *rank = tu_strfmt("RANK=%d", r);
		const char *env[] = {rank, "WORLD_SIZE=2",
				     "MASTER_ADDR=127.0.0.1", port_env, NULL};
		const char **argv = tu_launcher_argv(dir, NULL, cmd);
		TU_CHECK_FATAL(tu_proc_start(&p[r], argv, env) == 0,
			       "cannot start rank %d", r);
		free(argv);
		free(rank);
	}
	for (int r = 0; r < 2; r++) {
		tu_proc_wait(&p[r], 240000);
		TU_CHECK(tu_exit_code(p[r].status) == 0 &&
				 tu_contains(p[r].out, "done") &&
				 tu_count_lines(
					 p[r].err,
					 "dltrace: 2 processes traced") == 1,
			 "rank %d: %s; its verdict does not cover both ranks:"
			 "\n%s",
			 r, tu_status_str(p[r].status), p[r].err);
	}
	struct tu_json *root = tu_check_json(dir);
	TU_CHECK(jnumber(tu_jget(root, "summary"), "runs") == 1,
		 "two ranks of one job under two launchers: %g runs",
		 jnumber(tu_jget(root, "summary"), "runs"));
	tu_json_free(root);
	tu_expect_healthy("two gloo ranks, a launcher each", dir);
	for (int r = 0; r < 2; r++)
		tu_proc_free(&p[r]);
	tu_rmtree(dir);
	free(port_env);
	free(dir);
}

/* ---- suite handled: failures a parent carried on from ------------------- */

/* Processes of check --json whose "failure_handled" is true, and whether
 * one whose ended names sig is among them (-1: no such process). */
static size_t handled_count(const struct tu_json *root, const char *sig,
			    int *sig_handled)
{
	const struct tu_json *procs = tu_jget(root, "processes");
	size_t n = 0;
	*sig_handled = -1;
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *p = tu_jat(procs, i);
		const struct tu_json *h = tu_jget(p, "failure_handled");
		int yes = h && h->type == TU_JBOOL && h->b;
		n += yes;
		if (tu_contains(tu_jstr(p, "ended"), sig))
			*sig_handled = yes;
	}
	return n;
}

/* pyenv's shims probe with readlink and carry on when it fails, as does
 * any `cmd || fallback`: with every process's end known (issue 12), each
 * `python` run through pyenv named five readlinks in its verdict.  A
 * failure that the traced parent reaped and carried on from (it exec'd or
 * ended well, or its own failure was handled in turn) is left out of the
 * verdict and marked in check; a crash is not, nor a failure that made
 * the parent fail. */
static void test_handled_failures(void)
{
	char *dir = tu_tmpdir("handled");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	/* Handled: an exit 1; a chain of two shells exiting 4 under one that
	 * carries on; a SIGTERM.  Not handled: a SIGSEGV. */
	const char *script =
		"ulimit -c 0\n"
		"/bin/sh -c 'exit 1' || :\n"
		"/bin/sh -c '/bin/sh -c \"exit 4\"; exit $?' || :\n"
		"/bin/sh -c 'kill -TERM $$' || :\n"
		"/bin/sh -c 'kill -SEGV $$' || :\n"
		"exit 0\n";
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 0 &&
			 tu_count_lines(p.err, "dltrace: pid ") == 1 &&
			 tu_contains(p.err, "killed by SIGSEGV"),
		 "a script that carried on from four failures and saw one "
		 "crash: %s; expected exit 0 and the crash alone in the "
		 "verdict:\n%s",
		 tu_status_str(p.status), p.err);
	struct tu_json *root = tu_check_json(dir);
	int segv = -2, term = -2;
	size_t handled = handled_count(root, "SIGSEGV", &segv);
	handled_count(root, "SIGTERM", &term);
	TU_CHECK(handled == 4 && segv == 0 && term == 1,
		 "check: %zu failures handled (expected 4: exit 1, two exit "
		 "4, SIGTERM), SIGSEGV handled %d (expected 0), SIGTERM %d "
		 "(expected 1)",
		 handled, segv, term);
	tu_json_free(root);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	dir = tu_tmpdir("handled-shim");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");

	/* pyenv's shape: probes that fail, then an exec of the program. */
	const char *shim[] = {"/bin/bash", "-c",
			      "set -e\n"
			      "readlink /nonexistent/python3 || :\n"
			      "v=$(/bin/sh -c 'exit 1') || :\n"
			      "exec /bin/true\n",
			      NULL};
	argv = tu_launcher_argv(dir, NULL, shim);
	tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 0 &&
			 tu_count_lines(p.err, "dltrace: pid ") == 0,
		 "a shim whose probes fail before it execs: %s; expected exit "
		 "0 and no process in the verdict:\n%s",
		 tu_status_str(p.status), p.err);
	tu_expect_healthy("a shim whose probes fail", dir);
	tu_proc_free(&p);
	tu_rmtree(dir);

	/* The same chain as the command's status: both shells are named. */
	free(dir);
	dir = tu_tmpdir("unhandled");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *failing[] = {"/bin/sh", "-c",
				 "/bin/sh -c 'exit 5'; exit $?", NULL};
	argv = tu_launcher_argv(dir, NULL, failing);
	tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 5 &&
			 tu_count_lines(p.err, "dltrace: pid ") == 2 &&
			 tu_contains(p.err, "exited with status 5"),
		 "a failure passed up to the command's status: %s; expected "
		 "exit 5 and both shells in the verdict:\n%s",
		 tu_status_str(p.status), p.err);
	root = tu_check_json(dir);
	handled = handled_count(root, "status 5", &segv);
	TU_CHECK(handled == 0,
		 "check: %zu failures marked handled in a run that failed "
		 "with them",
		 handled);
	tu_json_free(root);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suites -------------------------------------------------------------- */

static const struct tu_test launcher_tests[] = {
	{"--hang-timeout: a command that ends in time",
	 test_hang_timeout_in_time},
	{"libdltrace.so under another name", test_library_renamed},
	{"output directory problems said once; --require-trace",
	 test_output_dir},
	{"-V and a short usage", test_options},
	{"30,000 arguments: the rest counted and said", test_long_argv},
	{"export and summary: launcher records, inputs named twice",
	 test_export_and_repeats},
	{NULL, NULL}};

static const struct tu_test ends_tests[] = {
	{"bash with Python children: exit, exception, abort, SIGKILL",
	 test_ends_bash_python},
	{"every wait call, a reaping SIGCHLD handler: as untraced",
	 test_ends_wait_calls},
	{"Python's subprocess reaps a child killed by SIGTERM",
	 test_ends_python_subprocess},
	{"a whole tree SIGKILLed: nothing saw the ends, and it is said",
	 test_ends_group_killed},
	{"forked children: one records, one only execs, one is killed",
	 test_ends_forked},
	{NULL, NULL}};

static const struct tu_test handled_tests[] = {
	{"failures a parent carried on from stay out of the verdict",
	 test_handled_failures},
	{NULL, NULL}};

static const struct tu_test torch_tests[] = {
	{"two gloo ranks under --hang-timeout", test_gloo_hang_timeout},
	{"two gloo ranks, each under its own dltrace: one run",
	 test_gloo_launcher_per_rank},
	{NULL, NULL}};

static const struct tu_test runs_tests[] = {
	{"a directory used twice: a verdict per run, runs shown apart",
	 test_runs_reused_dir},
	{NULL, NULL}};

static const struct tu_test versions_tests[] = {
	{"fake NCCL and runtime loaded, not called; killed after the load",
	 test_versions_fakes},
	{NULL, NULL}};

static const struct tu_test versions_real_tests[] = {
	{"real NCCL and cuDNN through ctypes", test_versions_real},
	{"an identical copy of the real cuDNN", test_identical_cudnn_real},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"launcher", launcher_tests, NULL},
	{"ends", ends_tests, python_skip},
	{"runs", runs_tests, NULL},
	{"handled", handled_tests, NULL},
	{"torch", torch_tests, torch_skip},
	{"versions", versions_tests, python_skip},
	{"versions_real", versions_real_tests, real_libs_skip},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
