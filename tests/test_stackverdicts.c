/* Verdicts from exact stacks (issue 28): stacks recorded raw by the crash
 * handler and the watcher, unwound and named by the analyzer, compared
 * with gdb's.
 *
 *   test_stackverdicts [SUITE...]   stacks_e2e
 *
 * The stale frame: a crash inside printf whose dead stack still holds a
 * deep call's return addresses names the caller that passed the bad
 * pointer, never the function that had returned.  A stack overflow is
 * named as one, with the recursing function.  A loader deadlock names
 * the waiting thread, the holding thread and the constructor it runs.
 * The crash stacks equal gdb's backtrace of the same program, function
 * by function. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define RUN_MS 60000

static const struct tu_json *finding(const struct tu_json *root,
				     const char *code)
{
	const struct tu_json *fs = tu_jget(root, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const char *c = tu_jstr(tu_jat(fs, i), "code");
		if (c && strcmp(c, code) == 0)
			return tu_jat(fs, i);
	}
	return NULL;
}

/* The function a row of CRASH's frames names: "f+0x1a (libx.so)" and
 * "f (libx.so)" give f; "libx.so+0x1139" and "0x7f..." give "". */
static void row_func(const char *row, char *out, size_t cap)
{
	out[0] = '\0';
	if (row == NULL || strstr(row, " (") == NULL)
		return;
	snprintf(out, cap, "%.*s", (int)strcspn(row, "+ "), row);
}

/* gdb's backtrace of cmd run until it dies: the functions, innermost
 * first ("<signal handler called>" as "<signal>"). */
static size_t gdb_functions(const char *const cmd[], char out[][128],
			    size_t cap)
{
	const char *argv[32] = {"gdb", "-nx", "-batch", "-ex",
				"run", "-ex", "bt",	"--args"};
	size_t k = 8;
	for (size_t i = 0; cmd[i] && k < 31; i++)
		argv[k++] = cmd[i];
	argv[k] = NULL;
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_MS);
	size_t n = 0;
	for (const char *l = p.out; l && *l && n < cap;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		l = e ? e + 1 : NULL;
		if (line[0] != '#')
			continue;
		if (strstr(line, "<signal handler called>")) {
			snprintf(out[n++], 128, "<signal>");
			continue;
		}
		/* "#3  0x000055 in real_culprit (name=...) at x.c:9" or
		 * "#0  __strlen_avx2 () at ../x.S:74". */
		const char *f = strstr(line, " in ");
		if (f)
			f += 4;
		else {
			f = line + 1;
			while (*f >= '0' && *f <= '9')
				f++;
			while (*f == ' ')
				f++;
		}
		size_t fl = strcspn(f, " (");
		snprintf(out[n++], 128, "%.*s", (int)fl, f);
	}
	tu_proc_free(&p);
	return n;
}

/* CRASH's frames equal gdb's functions, in order, from the innermost
 * down to main (gdb's frames past main are the C library's start). */
static void expect_same_as_gdb(const struct tu_json *crash,
			       const char *const cmd[], const char *what)
{
	static char g[64][128];
	size_t ng = gdb_functions(cmd, g, 64);
	TU_CHECK_FATAL(ng > 0, "%s: gdb gave no backtrace", what);
	const struct tu_json *fr =
		tu_jget(tu_jget(crash, "evidence"), "frames");
	size_t nd = tu_jlen(fr), gi = 0;
	char want[2048] = "", got[2048] = "";
	int same = 1;
	for (size_t i = 0; i < nd && gi < ng; i++, gi++) {
		char fn[256];
		row_func(tu_jstr(tu_jat(fr, i), NULL), fn, sizeof(fn));
		/* The kernel's signal frame: gdb's "<signal handler
		 * called>", the C library's restorer in the unwound stack. */
		if (strcmp(g[gi], "<signal>") == 0) {
			gi++;
			if (strcmp(fn, "__restore_rt") == 0 && i + 1 < nd) {
				i++;
				row_func(tu_jstr(tu_jat(fr, i), NULL), fn,
					 sizeof(fn));
			}
			if (gi >= ng)
				break;
		}
		size_t wl = strlen(want), gl = strlen(got);
		snprintf(want + wl, sizeof(want) - wl, " %s", g[gi]);
		snprintf(got + gl, sizeof(got) - gl, " %s", fn);
		if (strcmp(fn, g[gi]) != 0)
			same = 0;
		if (strcmp(g[gi], "main") == 0)
			break;
	}
	TU_CHECK(same && strstr(want, " main"),
		 "%s: dltrace's frames differ from gdb's:\n gdb:    %s\n "
		 "dltrace:%s",
		 what, want, got);
}

static struct tu_json *run_traced(const char *tag, const char *const cmd[],
				  const char *const opts[], char **dir_out,
				  struct tu_proc *p)
{
	char *dir = tu_tmpdir(tag);
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	tu_run(p, argv, NULL, RUN_MS);
	free(argv);
	*dir_out = dir;
	return tu_check_json(dir);
}

/* ---- the stale frame ---------------------------------------------------- */

static void test_stale_frame(void)
{
	char *fx = tu_fx("stacks/stk_stale");
	const char *cmd[] = {fx, NULL};
	char *dir;
	struct tu_proc p;
	struct tu_json *j = run_traced("stale", cmd, NULL, &dir, &p);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV,
		 "the fixture ended with %s, not SIGSEGV",
		 tu_status_str(p.status));
	const struct tu_json *f = finding(j, "CRASH");
	TU_CHECK_FATAL(f != NULL, "no CRASH:\n%s", p.err);
	const char *msg = tu_jstr(f, "message");
	const struct tu_json *ev = tu_jget(f, "evidence");
	TU_CHECK(tu_contains(msg, "called from real_culprit"),
		 "CRASH does not blame real_culprit: %s", msg);
	const struct tu_json *fr = tu_jget(ev, "frames");
	int stale = 0;
	for (size_t i = 0; i < tu_jlen(fr); i++)
		stale |=
			tu_contains(tu_jstr(tu_jat(fr, i), NULL), "stale_deep");
	TU_CHECK(!stale && !tu_contains(msg, "stale_deep"),
		 "a function that had returned is in the stack: %s", msg);
	TU_CHECK(tu_contains(tu_jstr(ev, "unwound"), "CFI") &&
			 !tu_contains(tu_jstr(ev, "unwound"), "scan"),
		 "not unwound with CFI alone: %s", tu_jstr(ev, "unwound"));
	expect_same_as_gdb(f, cmd, "stale frame");
	tu_expect_documented(f);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* The crash fixtures of the unwinder's tests (tests/fixtures/stacks/),
 * crashed under dltrace: the frames CRASH shows, recorded raw by the
 * handler and unwound here, are gdb's. */
static void test_same_as_gdb(void)
{
	static const char *const progs[] = {"stk_chain", "stk_libc",
					    "stk_signal", "stk_dbg", NULL};
	for (size_t k = 0; progs[k]; k++) {
		char *rel = tu_strfmt("stacks/%s", progs[k]);
		char *fx = tu_fx(rel);
		const char *cmd[] = {fx, NULL};
		char *dir;
		struct tu_proc p;
		struct tu_json *j = run_traced(progs[k], cmd, NULL, &dir, &p);
		const struct tu_json *f = finding(j, "CRASH");
		TU_CHECK(f != NULL, "%s: no CRASH:\n%s", progs[k], p.err);
		if (f) {
			expect_same_as_gdb(f, cmd, progs[k]);
			TU_CHECK(tu_jbool(tu_jget(f, "evidence"),
					  "frames_from_stack_scan") == 0,
				 "%s: frames from the scan", progs[k]);
		}
		tu_json_free(j);
		tu_proc_free(&p);
		tu_rmtree(dir);
		free(dir);
		free(fx);
		free(rel);
	}
}

/* ---- a stack overflow --------------------------------------------------- */

static void test_overflow(void)
{
	char *fx = tu_fx("stkv_overflow");
	const char *cmd[] = {fx, NULL};
	char *dir;
	struct tu_proc p;
	struct tu_json *j = run_traced("overflow", cmd, NULL, &dir, &p);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV,
		 "the fixture ended with %s, not SIGSEGV as without dltrace",
		 tu_status_str(p.status));
	const struct tu_json *f = finding(j, "CRASH");
	TU_CHECK_FATAL(f != NULL, "no CRASH for the overflow:\n%s", p.err);
	const char *msg = tu_jstr(f, "message");
	TU_CHECK(tu_contains(msg, "stack overflow") &&
			 tu_contains(msg, "recursing in recurse"),
		 "the overflow is not named with its function: %s", msg);
	TU_CHECK(finding(j, "TRACE_INCOMPLETE") == NULL,
		 "the overflow left an incomplete trace");
	tu_expect_documented(f);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- the loader's lock -------------------------------------------------- */

static int tid_of(const char *out, const char *who)
{
	const char *l = strstr(out ? out : "", who);
	return l ? atoi(l + strlen(who)) : 0;
}

static void test_loader_lock(void)
{
	char *fx = tu_fx("stkv_loader");
	char *plugin = tu_fx("libstkv_plugin.so");
	const char *cmd[] = {fx, plugin, NULL};
	const char *opts[] = {"--hang-timeout", "2", NULL};
	char *dir;
	struct tu_proc p;
	struct tu_json *j = run_traced("loader", cmd, opts, &dir, &p);
	int mt = tid_of(p.out, "main "), tt = tid_of(p.out, "thread ");
	TU_CHECK_FATAL(mt > 0 && tt > 0, "no thread ids printed:\n%s", p.out);
	const struct tu_json *f = finding(j, "LOADER_LOCK");
	TU_CHECK_FATAL(f != NULL, "no LOADER_LOCK:\n%s", p.err);
	const char *msg = tu_jstr(f, "message");
	char w[64], h[64];
	snprintf(w, sizeof(w), "thread %d waits", mt);
	snprintf(h, sizeof(h), "thread %d holds", tt);
	TU_CHECK(tu_contains(msg, w) && tu_contains(msg, h) &&
			 tu_contains(msg, "init_plugin") &&
			 tu_contains(msg, "libstkv_plugin.so"),
		 "LOADER_LOCK does not name the waiter %d, the holder %d and "
		 "libstkv_plugin.so's init_plugin: %s",
		 mt, tt, msg);
	tu_expect_documented(f);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(plugin);
	free(fx);
}

static const struct tu_test e2e_tests[] = {
	{"the stale frame: real_culprit, as gdb says", test_stale_frame},
	{"crash stacks through the shim are gdb's", test_same_as_gdb},
	{"a stack overflow names the recursing function", test_overflow},
	{"a loader deadlock names both threads and the constructor",
	 test_loader_lock},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"stacks_e2e", e2e_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
