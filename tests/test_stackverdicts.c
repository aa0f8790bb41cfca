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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdbbt.h"
#include "testutil.h"

#define RUN_MS 60000

/* Element i of a JSON array of strings, NULL when it is none. */
static const char *jarr_str(const struct tu_json *a, size_t i)
{
	const struct tu_json *e = tu_jat(a, i);
	return e && e->type == TU_JSTR ? e->str : NULL;
}

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

/* A row of CRASH's frames as an unwound frame: its function and object,
 * for dlt_gdb_same_func. */
static void row_frame(const char *row, struct dlt_uframe *f, char *obj,
		      size_t cap)
{
	memset(f, 0, sizeof(*f));
	row_func(row, f->func, sizeof(f->func));
	const char *o = row ? strrchr(row, '(') : NULL;
	obj[0] = '\0';
	if (o)
		snprintf(obj, cap, "/%.*s", (int)strcspn(o + 1, ")"), o + 1);
	f->obj = obj[0] ? obj : NULL;
}

/* CRASH's frames equal gdb's functions, in order, from the innermost
 * down to main; the kernel's signal frame (gdb's "<signal handler
 * called>") is the C library's restorer in the unwound stack. */
static void expect_same_as_gdb(const struct tu_json *crash,
			       const char *const cmd[], const char *what)
{
	static struct dlt_gdbframe g[64];
	size_t ng = dlt_gdb_bt_argv(cmd, NULL, g, 64);
	TU_CHECK_FATAL(ng > 0, "%s: gdb gave no backtrace", what);
	const struct tu_json *fr =
		tu_jget(tu_jget(crash, "evidence"), "frames");
	size_t nd = tu_jlen(fr), gi = 0, i = 0;
	char want[2048] = "", got[2048] = "";
	int same = 1;
	int python = 0;
	for (; i < nd && gi < ng; i++, gi++) {
		/* The Python rows stand for the interpreter's frames, which
		 * gdb lists: the native part ends there. */
		if (tu_contains(jarr_str(fr, i), ".py:")) {
			python = 1;
			break;
		}
		struct dlt_uframe f;
		char obj[256];
		row_frame(jarr_str(fr, i), &f, obj, sizeof(obj));
		const char *gn = g[gi].signal ? "__restore_rt" : g[gi].name;
		size_t wl = strlen(want), gl = strlen(got);
		snprintf(want + wl, sizeof(want) - wl, " %.120s", gn);
		snprintf(got + gl, sizeof(got) - gl, " %.120s", f.func);
		if (!dlt_gdb_same_func(&f, gn))
			same = 0;
		if (strcmp(gn, "main") == 0)
			break;
	}
	TU_CHECK(same && (python || strstr(want, " main")),
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

/* gdb is the ground truth; a machine without it skips (the project's
 * scripts/install-deps.sh installs it). */
static int no_gdb(void)
{
	if (!dlt_gdb_missing())
		return 0;
	tu_skip("gdb is not installed");
	return 1;
}

/* cmd run under dltrace died of SIGSEGV as it does without it, and
 * CRASH said so: the finding (NULL after a failed check). */
static const struct tu_json *segv_crash(const char *tag,
					const char *const cmd[],
					struct tu_json **j, char **dir,
					struct tu_proc *p)
{
	*j = run_traced(tag, cmd, NULL, dir, p);
	/* The launcher says a death by SIGSEGV as a shell does. */
	TU_CHECK(tu_exit_code(p->status) == 128 + SIGSEGV,
		 "%s: the fixture ended with %s, not SIGSEGV", tag,
		 tu_status_str(p->status));
	const struct tu_json *f = finding(*j, "CRASH");
	TU_CHECK(f != NULL, "%s: no CRASH:\n%s", tag, p->err);
	return f;
}

static void test_stale_frame(void)
{
	char *fx = tu_fx("stacks/stk_stale");
	const char *cmd[] = {fx, NULL};
	char *dir;
	struct tu_proc p;
	struct tu_json *j;
	const struct tu_json *f = segv_crash("stale", cmd, &j, &dir, &p);
	TU_CHECK_FATAL(f != NULL, "no CRASH");
	const char *msg = tu_jmsg(f);
	const struct tu_json *ev = tu_jget(f, "evidence");
	TU_CHECK(tu_contains(msg, "called from real_culprit"),
		 "CRASH does not blame real_culprit: %s", msg);
	const struct tu_json *fr = tu_jget(ev, "frames");
	int stale = 0;
	for (size_t i = 0; i < tu_jlen(fr); i++)
		stale |= tu_contains(jarr_str(fr, i), "stale_deep");
	TU_CHECK(!stale && !tu_contains(msg, "stale_deep"),
		 "a function that had returned is in the stack: %s", msg);
	TU_CHECK(tu_contains(tu_jstr(ev, "unwound"), "CFI") &&
			 !tu_contains(tu_jstr(ev, "unwound"), "scan"),
		 "not unwound with CFI alone: %s", tu_jstr(ev, "unwound"));
	if (!no_gdb())
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
	if (no_gdb())
		return;
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
			const struct tu_json *sc =
				tu_jget(tu_jget(f, "evidence"),
					"frames_from_stack_scan");
			TU_CHECK(sc && sc->type == TU_JBOOL && !sc->b,
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

/* A Python script run under dltrace until it dies of SIGSEGV. */
struct py_run {
	char *dir, *script, *tdir;
	struct tu_proc p;
	struct tu_json *j;
};

/* Writes text as crash.py in a new directory and runs it with the tests'
 * Python: the CRASH finding, NULL after a failed check. */
static const struct tu_json *py_crash(const char *tag, const char *text,
				      struct py_run *r)
{
	memset(r, 0, sizeof(*r));
	r->dir = tu_tmpdir(tag);
	r->script = tu_strfmt("%s/crash.py", r->dir);
	FILE *fp = fopen(r->script, "w");
	TU_CHECK_FATAL(fp != NULL, "cannot write %s", r->script);
	fputs(text, fp);
	fclose(fp);
	const char *cmd[] = {tu_python(), r->script, NULL};
	return segv_crash(tag, cmd, &r->j, &r->tdir, &r->p);
}

static void py_done(struct py_run *r)
{
	tu_json_free(r->j);
	tu_proc_free(&r->p);
	tu_rmtree(r->tdir);
	tu_rmtree(r->dir);
	free(r->tdir);
	free(r->script);
	free(r->dir);
}

/* A Python program crashing through ctypes (strlen of address 16): the
 * native frames from the fault to the first Python row are gdb's, and
 * the Python frames are merged in place of the interpreter's. */
static void test_python_ctypes_gdb(void)
{
	if (no_gdb())
		return;
	const char *why = tu_python_skip("ctypes");
	if (why) {
		tu_skip("%s", why);
		return;
	}
	struct py_run r;
	const struct tu_json *f =
		py_crash("pyct",
			 "import ctypes\n\n\ndef read_name(addr):\n"
			 "    return ctypes.string_at(addr)\n\n\n"
			 "read_name(16)\n",
			 &r);
	if (f) {
		const char *cmd[] = {tu_python(), r.script, NULL};
		expect_same_as_gdb(f, cmd, "python ctypes");
		const struct tu_json *fr =
			tu_jget(tu_jget(f, "evidence"), "frames");
		int py = 0;
		for (size_t i = 0; i < tu_jlen(fr); i++)
			py |= tu_contains(jarr_str(fr, i),
					  "crash.py:5 in read_name");
		TU_CHECK(py, "no Python row crash.py:5 in read_name");
	}
	py_done(&r);
}

/* An extension module that passes a bad pointer to strlen: CRASH says the
 * extension did, called from the Python line. */
static void test_python_extension(void)
{
	char *ext = tu_fx("pyext");
	const char *why = tu_python_skip("ctypes");
	struct stat sb;
	if (why == NULL && stat(ext, &sb) != 0)
		why = "the extension fixture was not built (no Python.h)";
	if (why) {
		tu_skip("%s", why);
		free(ext);
		return;
	}
	char *text = tu_strfmt(
		"import sys\nsys.path.insert(0, '%s')\nimport stkvext\n\n\n"
		"def measure(addr):\n    return stkvext.length(addr)\n\n\n"
		"measure(16)\n",
		ext);
	struct py_run r;
	const struct tu_json *f = py_crash("pyext", text, &r);
	if (f) {
		const char *msg = tu_jmsg(f);
		TU_CHECK(tu_contains(msg, "called by the extension stkvext") &&
				 tu_contains(msg, "crash.py:7 in measure"),
			 "CRASH does not name the extension and the Python "
			 "line: %s",
			 msg);
		const char *via =
			tu_jstr(tu_jget(f, "evidence"), "called_from_python");
		TU_CHECK(via && strcmp(via, "extension") == 0,
			 "called_from_python: %s", via ? via : "(none)");
	}
	py_done(&r);
	free(text);
	free(ext);
}

/* ---- a stack overflow --------------------------------------------------- */

static void test_overflow(void)
{
	char *fx = tu_fx("fx_rawstack");
	const char *cmd[] = {fx, "overflow", NULL};
	char *dir;
	struct tu_proc p;
	struct tu_json *j;
	const struct tu_json *f = segv_crash("overflow", cmd, &j, &dir, &p);
	TU_CHECK_FATAL(f != NULL, "no CRASH for the overflow");
	const char *msg = tu_jmsg(f);
	TU_CHECK(tu_contains(msg, "stack overflow") &&
			 tu_contains(msg, "recursing in fx_recurse"),
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
	const char *msg = tu_jmsg(f);
	char w[64], h[64];
	snprintf(w, sizeof(w), "thread %d waits", mt);
	snprintf(h, sizeof(h), "thread %d holds", tt);
	TU_CHECK(tu_contains(msg, w) && tu_contains(msg, h) &&
			 tu_contains(msg, "init_plugin") &&
			 tu_contains(msg, "libstkv_plugin.so"),
		 "LOADER_LOCK does not name the waiter %d, the holder %d and "
		 "libstkv_plugin.so's init_plugin: %s",
		 mt, tt, msg);
	/* The run's hang points at the same wait. */
	const struct tu_json *jh = finding(j, "JOB_HANG");
	TU_CHECK(jh == NULL ||
			 tu_contains(tu_jmsg(jh),
				     "the loader's lock: see LOADER_LOCK"),
		 "JOB_HANG does not point to LOADER_LOCK: %s",
		 jh ? tu_jmsg(jh) : "");
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
	{"Python through ctypes: gdb's native frames, Python's merged",
	 test_python_ctypes_gdb},
	{"an extension's bad pointer names the extension and the line",
	 test_python_extension},
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
