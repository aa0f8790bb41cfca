/* The process lifecycle (shim/lifecycle.c, docs/design.md "Processes"):
 * every way of making a child, exec, namespaces and credentials, run
 * plainly and under dltrace, with the same output (dispositions read back,
 * masks, alternate stacks, thread counts, handler calls, exit statuses);
 * each child's records in its own trace, never in its parent's; CPython's
 * subprocess, whose vfork child resets the caught signals, on every
 * CPython here.
 *
 *   test_lifecycle [SUITE...]   lifecycle lifecycle_python lifecycle_watched
 *
 * lifecycle_watched runs the same programs with DLTRACE_WATCHDOG=1: the
 * in-process watchdog's thread is seen (thread counts, unshare of a user
 * namespace) until the watcher outside the process replaces it. */
#define _GNU_SOURCE
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define RUN_MS 120000

/* The fixture's marks (tests/fixtures/fx_lifecycle.c). */
#define FX_LC_PARENT 0x1c0u
#define FX_LC_CHILD 0x1c1u

static const char *const watched_env[] = {"DLTRACE_WATCHDOG=1", NULL};

/* Runs fx_lifecycle MODE plainly and under `dltrace -q -o DIR --` (with
 * env), and wants the same exit and stdout.  Returns the directory
 * (caller frees and removes); *plain_out keeps the plain run's stdout. */
static char *run_mode(const char *mode, const char *const env[],
		      char **plain_out)
{
	char *fx = tu_fx("fx_lifecycle");
	const char *cmd[] = {fx, mode, NULL};
	const char *opts[] = {"-q", NULL};
	struct tu_proc plain, traced;
	tu_run(&plain, cmd, env, RUN_MS);
	char *dir = tu_tmpdir(mode);
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	tu_run(&traced, argv, env, RUN_MS);
	free(argv);
	char *what = tu_strfmt("fx_lifecycle %s%s", mode,
			       env ? " (DLTRACE_WATCHDOG=1)" : "");
	tu_expect_same_launched(what, &plain, &traced, 0);
	TU_CHECK(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0,
		 "%s: the plain run %s:\n%s", what, tu_status_str(plain.status),
		 plain.err);
	free(what);
	if (plain_out)
		*plain_out = strdup(plain.out ? plain.out : "");
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	free(fx);
	return dir;
}

/* The plain run did what the mode is about (so that a broken fixture
 * cannot pass by printing the same nothing twice). */
static void expect_lines(const char *mode, const char *out,
			 const char *const lines[])
{
	for (size_t i = 0; lines[i]; i++)
		TU_CHECK(tu_contains(out, lines[i]),
			 "fx_lifecycle %s: no line \"%s\" in:\n%s", mode,
			 lines[i], out);
}

/* Every record's thread, from `dltrace-analyze dump` ("offset tid writer
 * time record ..."): *n of them into a new array. */
static uint32_t *dump_tids(const char *path, size_t *n)
{
	struct tu_proc p;
	const char *argv[] = {DLT_TEST_ANALYZE, "dump", path, NULL};
	tu_run(&p, argv, NULL, RUN_MS);
	size_t cap = 64;
	uint32_t *tids = malloc(cap * sizeof(*tids));
	*n = 0;
	for (const char *l = p.out; l && *l;) {
		unsigned long off, tid;
		char writer[16];
		if (sscanf(l, " %lu %lu %15s", &off, &tid, writer) == 3 &&
		    (strcmp(writer, "shim") == 0 ||
		     strcmp(writer, "audit") == 0)) {
			if (*n == cap)
				tids = realloc(tids,
					       (cap *= 2) * sizeof(*tids));
			tids[(*n)++] = (uint32_t)tid;
		}
		const char *nl = strchr(l, '\n');
		l = nl ? nl + 1 : NULL;
	}
	tu_proc_free(&p);
	return tids;
}

static int pid_in_set(const struct tu_traceset *s, uint32_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].hdr.pid == pid)
			return 1;
	return 0;
}

/* Each process's records in its own trace: no record of one traced
 * process's thread, and no mark naming it, in another's trace; the
 * child's mark in a trace of its own that names the marked parent's as
 * its parent.  children: how many child marks the run made. */
static void expect_own_traces(const char *mode, const char *dir,
			      size_t children)
{
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *parent = NULL;
	size_t child_marks = 0, linked = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct tu_trace *t = &s.t[i];
		for (size_t k = 0; k < t->nmarks; k++) {
			const struct tu_mark *m = &t->marks[k];
			if (m->id != FX_LC_PARENT && m->id != FX_LC_CHILD)
				continue;
			TU_CHECK(m->value == t->hdr.pid,
				 "%s: the mark of process %lu is in the trace "
				 "of process %u (%s)",
				 mode, (unsigned long)m->value, t->hdr.pid,
				 t->path);
			if (m->id == FX_LC_PARENT && m->value == t->hdr.pid)
				parent = t;
		}
		size_t n;
		uint32_t *tids = dump_tids(t->path, &n);
		size_t foreign = 0;
		for (size_t k = 0; k < n; k++)
			foreign += tids[k] != t->hdr.pid &&
				   pid_in_set(&s, tids[k]);
		TU_CHECK(foreign == 0,
			 "%s: %zu records of another traced process in the "
			 "trace of process %u (%s)",
			 mode, foreign, t->hdr.pid, t->path);
		free(tids);
	}
	TU_CHECK(parent != NULL, "%s: no trace holds the parent's mark", mode);
	for (size_t i = 0; parent && i < s.n; i++) {
		const struct tu_trace *t = &s.t[i];
		if (!tu_trace_has_mark(t, FX_LC_CHILD))
			continue;
		child_marks++;
		linked += t->hdr.parent_kind == DLT_PARENT_FORK &&
			  t->hdr.parent_trace_id == parent->hdr.trace_id;
	}
	TU_CHECK(child_marks == children && linked == children,
		 "%s: %zu child traces with the child's mark, %zu of them "
		 "forked from the marked parent's; expected %zu",
		 mode, child_marks, linked, children);
	if (child_marks != children || linked != children)
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
}

/* Whether any trace of dir holds a NOTE whose text holds text. */
static int has_note(const char *dir, const char *text)
{
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	int found = 0;
	for (size_t i = 0; i < n && !found; i++) {
		struct tu_proc p;
		const char *argv[] = {DLT_TEST_ANALYZE, "dump", paths[i], NULL};
		tu_run(&p, argv, NULL, RUN_MS);
		for (const char *l = p.out; l && (l = strstr(l, " NOTE "));
		     l++) {
			const char *nl = strchr(l, '\n');
			const char *t = strstr(l, text);
			if (t && (nl == NULL || t < nl))
				found = 1;
		}
		tu_proc_free(&p);
	}
	tu_free_list(paths);
	return found;
}

static void done(char *dir, char *out)
{
	tu_rmtree(dir);
	free(dir);
	free(out);
}

/* ---- suite: lifecycle ---------------------------------------------------- */

static void test_fork(void)
{
	char *out;
	char *dir = run_mode("fork", NULL, &out);
	const char *want[] = {"child: exit 3", "child: threads 1",
			      "child: calls usr1=1 usr2=1 quit=1 term=1",
			      "parent: calls usr1=1 usr2=1 quit=1 term=1",
			      NULL};
	expect_lines("fork", out, want);
	expect_own_traces("fork", dir, 1);
	done(dir, out);
}

static void test_underscore_fork(void)
{
	char *out;
	char *dir = run_mode("_Fork", NULL, &out);
	const char *want[] = {"child: exit 3", "child: threads 1",
			      "child: calls usr1=1 usr2=1 quit=1 term=1", NULL};
	if (tu_contains(out, "no _Fork before glibc 2.34")) {
		tu_skip_part("_Fork: this C library has none (glibc < 2.34)");
	} else {
		expect_lines("_Fork", out, want);
		expect_own_traces("_Fork", dir, 1);
	}
	done(dir, out);
}

static void test_clone(void)
{
	char *out;
	char *dir = run_mode("clone", NULL, &out);
	const char *want[] = {"child: exit 4",
			      "child: calls usr1=1 usr2=1 quit=1 term=1", NULL};
	expect_lines("clone", out, want);
	expect_own_traces("clone", dir, 1);
	done(dir, out);
}

static void test_clone_vm(void)
{
	char *out;
	char *dir = run_mode("clonevm", NULL, &out);
	/* The child's handlers counted in the shared memory (SIGQUIT's own
	 * handler 100, SIGUSR2 the parent's), the parent's view untouched
	 * by the child's sigaction, and its SIGUSR1 handled. */
	const char *want[] = {"child: exit 5", "clonevm child read h_plain: 1",
			      "parent: sig 10: r=0 h_plain",
			      "parent: calls usr1=1 usr2=2 quit=101 term=1",
			      NULL};
	expect_lines("clonevm", out, want);
	done(dir, out);
}

static void test_vfork(void)
{
	char *out;
	char *dir = run_mode("vfork", NULL, &out);
	/* The child reset every caught signal and set a handler of its own,
	 * as CPython's subprocess does: the parent still handles them. */
	const char *want[] = {"vfork+exec: exit 0",
			      "vfork+_exit: exit 7",
			      "parent: sig 10: r=0 h_plain",
			      "parent: sig 1: r=0 DFL",
			      "parent: calls usr1=1 usr2=1 quit=1 term=1",
			      NULL};
	expect_lines("vfork", out, want);
	done(dir, out);
}

static void test_daemon(void)
{
	char *out;
	char *dir = run_mode("daemon", NULL, &out);
	const char *want[] = {"daemon's parent: exit 0", "daemon: threads 1",
			      "daemon: calls usr1=1 usr2=1 quit=1 term=1",
			      NULL};
	expect_lines("daemon", out, want);
	expect_own_traces("daemon", dir, 1);
	done(dir, out);
}

static void test_spawn(void)
{
	char *out;
	char *dir = run_mode("spawn", NULL, &out);
	/* exec resets caught signals to SIG_DFL, keeps SIG_IGN and the
	 * mask, drops the alternate stack. */
	const char *want[] = {"posix_spawn: 0",
			      "spawned: exit 0",
			      "exec'd: sig 2: r=0 IGN flags=0 mask={}",
			      "exec'd: sig 10: r=0 DFL flags=0 mask={}",
			      "exec'd: mask={1,28}",
			      "exec'd: altstack flags=2 size=0",
			      NULL};
	expect_lines("spawn", out, want);
	done(dir, out);
}

static void test_exec(void)
{
	char *out;
	char *dir = run_mode("exec", NULL, &out);
	const char *want[] = {
		"failed exec: -1",
		"after failed exec: calls usr1=1 usr2=1 quit=1 term=1",
		"after failed exec: sig 10: r=0 h_plain",
		"exec'd: sig 2: r=0 IGN flags=0 mask={}",
		"exec'd: sig 15: r=0 DFL flags=0 mask={}",
		"exec'd: mask={1,28}",
		NULL};
	expect_lines("exec", out, want);
	done(dir, out);
}

static void test_namespaces(void)
{
	char *out;
	char *dir = run_mode("ns", NULL, &out);
	const char *want[] = {"threads 1", "child threads 1", "child: exit 0",
			      NULL};
	expect_lines("ns", out, want);
	if (tu_contains(out, "setns uts: 0\n"))
		TU_CHECK(has_note(dir, "namespaces changed: setns("),
			 "no NOTE of the setns");
	if (tu_contains(out, "unshare uts: 0\n"))
		TU_CHECK(has_note(dir, "namespaces changed: unshare(NEWUTS)"),
			 "no NOTE of the unshare");
	else
		tu_skip_part("unshare(CLONE_NEWUTS) is refused here");
	done(dir, out);
}

static void test_setuid(void)
{
	if (geteuid() != 0) {
		tu_skip("credentials: not root");
		return;
	}
	char *out;
	char *dir = run_mode("setuid", NULL, &out);
	const char *want[] = {"nobody: uid 0 65534 0",
			      "back: uid 0 0 0 gid 0 0 0",
			      "child: uid 65534 65534 65534",
			      "child: calls usr1=2 usr2=1 quit=1 term=1",
			      "parent: calls usr1=2 usr2=1 quit=1 term=1",
			      NULL};
	expect_lines("setuid", out, want);
	TU_CHECK(has_note(dir, "credentials changed: seteuid: uid 0/65534/0"),
		 "no NOTE of the seteuid");
	done(dir, out);
}

static void test_fork_while_busy(void)
{
	char *out;
	char *dir = run_mode("mtfork", NULL, &out);
	const char *want[] = {"mtfork: 200 children, 0 stuck, 0 failed", NULL};
	expect_lines("mtfork", out, want);
	done(dir, out);
}

/* ---- suite: lifecycle_python --------------------------------------------- */

/* Debian's and pyenv's CPythons: those that start subprocess children
 * with vfork (3.10 and later), where the bug was, and the older ones with
 * subprocess.run (3.6 to 3.9), which must behave as plain too. */
static size_t pythons(char ***out)
{
	size_t n = 0;
	char **list = calloc(16, sizeof(*list));
	if (access("/usr/bin/python3", X_OK) == 0)
		list[n++] = strdup("/usr/bin/python3");
	const char *root = getenv("PYENV_ROOT");
	char *base = root ? strdup(root)
			  : tu_strfmt("%s/.pyenv", getenv("HOME") ?: "/root");
	const char *vers[] = {"3.6",  "3.7",  "3.8",  "3.9",
			      "3.10", "3.11", "3.12", "3.13"};
	for (size_t v = 0; v < sizeof(vers) / sizeof(vers[0]); v++) {
		char *pat =
			tu_strfmt("%s/versions/%s*/bin/python3", base, vers[v]);
		glob_t g;
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0 && n < 15)
			list[n++] = strdup(g.gl_pathv[g.gl_pathc - 1]);
		else
			tu_skip_part("no CPython %s under %s/versions", vers[v],
				     base);
		if (g.gl_pathc)
			globfree(&g);
		free(pat);
	}
	free(base);
	*out = list;
	return n;
}

/* A handler, a child run with subprocess (vfork and exec on 3.10+;
 * cwd= keeps 3.13 off posix_spawn), then the signal: handled, rc 0, on
 * every CPython here. */
static void test_python_subprocess(void)
{
	char **py;
	size_t n = pythons(&py);
	TU_CHECK_FATAL(n > 0, "no CPython found");
	const char *sigs[] = {"SIGUSR1", "SIGTERM", "SIGINT"};
	const char *runs[] = {"", ", cwd='/'"};
	size_t tried = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t s = 0; s < 3; s++) {
			for (size_t r = 0; r < 2; r++) {
				char *code = tu_strfmt(
					"import os, signal, subprocess\n"
					"signal.signal(signal.%s, "
					"lambda *a: None)\n"
					"subprocess.run(['/bin/true']%s)\n"
					"os.kill(os.getpid(), signal.%s)\n",
					sigs[s], runs[r], sigs[s]);
				const char *cmd[] = {py[i], "-c", code, NULL};
				const char *opts[] = {"-q", NULL};
				struct tu_proc plain, traced;
				tu_run(&plain, cmd, NULL, RUN_MS);
				char *dir = tu_tmpdir("py");
				const char **argv =
					tu_launcher_argv(dir, opts, cmd);
				tu_run(&traced, argv, NULL, RUN_MS);
				free(argv);
				TU_CHECK(tu_exit_code(plain.status) == 0 &&
						 tu_exit_code(traced.status) ==
							 0,
					 "%s, %s%s: plain rc %d, traced rc %d "
					 "(want 0 and 0)\n%s",
					 py[i], sigs[s], runs[r],
					 tu_exit_code(plain.status),
					 tu_exit_code(traced.status),
					 traced.err);
				tried++;
				tu_proc_free(&plain);
				tu_proc_free(&traced);
				tu_rmtree(dir);
				free(dir);
				free(code);
			}
		}
		free(py[i]);
	}
	free(py);
	printf("\n    %zu runs on %zu CPythons: handled, rc 0 plain and "
	       "traced\n",
	       tried, n);
}

/* ---- suite: lifecycle_watched -------------------------------------------- */

static void test_watched(const char *mode)
{
	char *dir = run_mode(mode, watched_env, NULL);
	done(dir, NULL);
}

static void test_watched_fork(void)
{
	test_watched("fork");
}

static void test_watched_underscore_fork(void)
{
	test_watched("_Fork");
}

static void test_watched_clone(void)
{
	test_watched("clone");
}

static void test_watched_vfork(void)
{
	test_watched("vfork");
}

static void test_watched_daemon(void)
{
	test_watched("daemon");
}

static void test_watched_namespaces(void)
{
	test_watched("ns");
}

/* ---- suites -------------------------------------------------------------- */

static const struct tu_test lifecycle_tests[] = {
	{"fork: the same signals, threads, statuses; own traces", test_fork},
	{"_Fork: the same; the child's records in its own trace",
	 test_underscore_fork},
	{"clone without CLONE_VM: the same; own traces", test_clone},
	{"clone with CLONE_VM: the child's sigaction is its own",
	 test_clone_vm},
	{"vfork: the child resets every handler, the parent keeps its",
	 test_vfork},
	{"daemon: the same; the daemon's records in its own trace",
	 test_daemon},
	{"posix_spawn: what exec resets and keeps", test_spawn},
	{"exec: a failed one changes nothing, one that works resets",
	 test_exec},
	{"setns and unshare: the same results, a NOTE each", test_namespaces},
	{"setuid family as root: the same, a NOTE each", test_setuid},
	{"fork and _Fork while a thread records and sets handlers",
	 test_fork_while_busy},
	{NULL, NULL}};

/* faulthandler's chained handler runs on its own alternate stack (16 KiB
 * or so) and raises the signal again inside itself: two deliveries, each
 * with the kernel's frame and the shim's handler, on that stack.  When
 * the shim's handler took 5.7 KiB a delivery, the stack overflowed into
 * the heap and the interpreter died at exit (SIGSEGV, rc 139). */
static void test_python_faulthandler_chain(void)
{
	char **py;
	size_t n = pythons(&py);
	TU_CHECK_FATAL(n > 0, "no CPython found");
	const char *code =
		"import faulthandler, os, signal, sys\n"
		"called = []\n"
		"signal.signal(signal.SIGUSR1, lambda *a: called.append(1))\n"
		"faulthandler.register(signal.SIGUSR1, file=sys.stderr, "
		"chain=True)\n"
		"os.kill(os.getpid(), signal.SIGUSR1)\n"
		"print('python handler called:', called)\n";
	for (size_t i = 0; i < n; i++) {
		const char *cmd[] = {py[i], "-c", code, NULL};
		const char *opts[] = {"-q", NULL};
		struct tu_proc plain, traced;
		tu_run(&plain, cmd, NULL, RUN_MS);
		char *dir = tu_tmpdir("py-fh");
		const char **argv = tu_launcher_argv(dir, opts, cmd);
		tu_run(&traced, argv, NULL, RUN_MS);
		free(argv);
		TU_CHECK(tu_exit_code(plain.status) == 0 &&
				 tu_exit_code(traced.status) == 0 &&
				 tu_contains(traced.out, "called: [1]"),
			 "%s: plain rc %d, traced rc %d (want 0 and 0)\n%s",
			 py[i], tu_exit_code(plain.status),
			 tu_exit_code(traced.status), traced.err);
		tu_proc_free(&plain);
		tu_proc_free(&traced);
		tu_rmtree(dir);
		free(dir);
		free(py[i]);
	}
	free(py);
}

/* A child forked from a thread that is not the main thread, whose only
 * thread then ends (the thread function returns: pthread_exit), under
 * DLTRACE_WATCHDOG=1: the process ends, as without dltrace.  With a
 * watchdog thread of dltrace's in the child it never did (that thread
 * lived on, every signal blocked) and its parent's waitpid hung. */
static void test_python_fork_from_thread_watched(void)
{
	char **py;
	size_t n = pythons(&py);
	TU_CHECK_FATAL(n > 0, "no CPython found");
	const char *code = "import os, threading\n"
			   "def f():\n"
			   "    pid = os.fork()\n"
			   "    if pid == 0:\n"
			   "        print('child', flush=True)\n"
			   "    else:\n"
			   "        os.waitpid(pid, 0)\n"
			   "        print('reaped', flush=True)\n"
			   "t = threading.Thread(target=f)\n"
			   "t.start()\n"
			   "t.join()\n";
	for (size_t i = 0; i < n; i++) {
		const char *cmd[] = {py[i], "-c", code, NULL};
		const char *opts[] = {"-q", NULL};
		struct tu_proc traced;
		char *dir = tu_tmpdir("py-fork-thread");
		const char **argv = tu_launcher_argv(dir, opts, cmd);
		int r = tu_run(&traced, argv, watched_env, 60000);
		free(argv);
		TU_CHECK(r == 0 && tu_exit_code(traced.status) == 0 &&
				 tu_contains(traced.out, "reaped"),
			 "%s, DLTRACE_WATCHDOG=1: %s, rc %d (want 0 and "
			 "'reaped')\n%s%s",
			 py[i], r ? "timed out" : "ended",
			 tu_exit_code(traced.status), traced.out, traced.err);
		tu_proc_free(&traced);
		tu_rmtree(dir);
		free(dir);
		free(py[i]);
	}
	free(py);
}

static const struct tu_test python_tests[] = {
	{"subprocess, then a handled SIGUSR1, SIGTERM, SIGINT: rc 0",
	 test_python_subprocess},
	{"faulthandler's chained handler on its own alternate stack: rc 0",
	 test_python_faulthandler_chain},
	{"a child forked from a thread, watched, ends when its thread does",
	 test_python_fork_from_thread_watched},
	{NULL, NULL}};

static const struct tu_test watched_tests[] = {
	{"fork", test_watched_fork},
	{"_Fork", test_watched_underscore_fork},
	{"clone", test_watched_clone},
	{"vfork", test_watched_vfork},
	{"daemon", test_watched_daemon},
	{"setns and unshare", test_watched_namespaces},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"lifecycle", lifecycle_tests, NULL},
	{"lifecycle_python", python_tests, NULL},
	{"lifecycle_watched", watched_tests, NULL},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
