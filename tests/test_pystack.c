/* Python stacks (shim/pystack.c) end to end: a real CPython runs
 * tests/py/pystack_waits.py under dltrace with a short stall threshold;
 * its main thread sleeps inside nested functions and a worker thread waits
 * on an Event, a third 21 calls deep.  The PYSTACK records the watchdog
 * writes with each stall must hold each thread's frames (file:line of each
 * wait, the functions in order), and `check --json` and `hangs --json` must
 * show them.  A C program gets no PYSTACK; a completed Python run stays
 * healthy.
 *
 *   test_pystack [SUITE...]   pystack (the interpreter in
 *                             DLT_TEST_PYSTACK_PYTHON) pystack_c pyframes */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pyframes.h"
#include "pywaits.h"
#include "testutil.h"

/* Waits are recorded after this long; a tick is 100 ms then. */
#define STALL_ENV "DLTRACE_STALL_MS=500"
/* How long the programs would wait if nothing ended them: an outer
 * bound only, the test ends them as soon as the records are there. */
#define WAIT_S "120"
#define POLL_LIMIT_MS 90000

static const char *pystack_python(void)
{
	const char *p = getenv("DLT_TEST_PYSTACK_PYTHON");
	return p && *p ? p : NULL;
}

static const char *pystack_skip(void)
{
	const char *p = pystack_python();
	if (p == NULL)
		return "no interpreter given (DLT_TEST_PYSTACK_PYTHON)";
	if (access(p, X_OK) != 0)
		return "the interpreter given is not executable here";
	return NULL;
}

/* The PYSTACK records of the traces in dir: of thread main_tid, and of
 * any other thread with frames. */
struct py_seen {
	size_t main, other, total;
};

static void py_count(const struct tu_traceset *s, uint32_t main_tid,
		     struct py_seen *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->t[i].nrecs; k++) {
			const struct dlt_rec_hdr *h = s->t[i].recs[k].h;
			if (h->type != DLT_REC_PYSTACK)
				continue;
			const struct dlt_rec_pystack *r = (const void *)h;
			out->total++;
			char w = pw_which_thread(r, main_tid);
			if (w == 'm')
				out->main++;
			else if (w == 'w' || w == 'd')
				out->other |= w == 'w' ? 1 : 2;
		}
}

/* Polls the traces in dir (written while the program runs) until done()
 * says they hold what the test waits for; 0 then, -1 past the limit. */
static int poll_traces(const char *dir, uint32_t main_tid,
		       int (*done)(const struct tu_traceset *, uint32_t))
{
	struct timespec nap = {0, 100 * 1000 * 1000};
	for (int waited = 0; waited < POLL_LIMIT_MS; waited += 100) {
		struct tu_traceset s;
		tu_traceset_read(dir, &s, 1);
		int ok = done(&s, main_tid);
		tu_traceset_free(&s);
		if (ok)
			return 0;
		nanosleep(&nap, NULL);
	}
	return -1;
}

static int both_threads(const struct tu_traceset *s, uint32_t main_tid)
{
	struct py_seen seen;
	py_count(s, main_tid, &seen);
	return seen.main > 0 && seen.other == 3;
}

static int any_pystack(const struct tu_traceset *s, uint32_t main_tid)
{
	struct py_seen seen;
	py_count(s, main_tid, &seen);
	return seen.main > 0;
}

/* The strings of a JSON array of frames, at most cap; how many. */
static size_t json_frames(const struct tu_json *st, char fr[][1024], size_t cap)
{
	size_t n = tu_jlen(st) < cap ? tu_jlen(st) : cap;
	for (size_t k = 0; k < n; k++) {
		const struct tu_json *e = tu_jat(st, k);
		snprintf(fr[k], sizeof(fr[k]), "%s",
			 e && e->type == TU_JSTR ? e->str : "");
	}
	return n;
}

/* The analyzer's view: STALL warnings of both threads carry the frames
 * as evidence, the message names the script's frame, and hangs --json
 * shows the stack of the thread in its row. */
static void expect_findings(const char *dir, uint32_t main_tid)
{
	struct tu_json *cj = tu_check_json(dir);
	TU_CHECK_FATAL(cj != NULL, "check --json failed on %s", dir);
	const struct tu_json *fs = tu_jget(cj, "findings");
	int main_ok = 0, worker_ok = 0, deep_ok = 0;
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		const char *code = tu_jstr(f, "code");
		if (code == NULL || strcmp(code, "STALL") != 0)
			continue;
		tu_expect_documented(f);
		const struct tu_json *ev = tu_jget(f, "evidence");
		const struct tu_json *st = tu_jget(ev, "python_stack");
		const struct tu_json *tid = tu_jget(ev, "tid");
		char fr[16][1024];
		size_t n = json_frames(st, fr, 16);
		const char *msg = tu_jmsg(f);
		if (tid && tid->type == TU_JNUM &&
		    (uint32_t)tid->num == main_tid) {
			pw_expect_main(fr, n, "check --json");
			char want[64];
			snprintf(want, sizeof(want),
				 ", Python at pystack_waits.py:%d in "
				 "inner_sleep",
				 pw_script_line("# MAIN_SLEEP"));
			TU_CHECK(msg && strstr(msg, want),
				 "STALL message of the main thread: %s", msg);
			main_ok = 1;
		} else if (n > 0 && strstr(fr[n > 2 ? 2 : 0], " in deep")) {
			deep_ok = 1;
		} else {
			pw_expect_worker(fr, n, "check --json");
			char want[64];
			snprintf(want, sizeof(want),
				 ", Python at pystack_waits.py:%d in "
				 "worker_wait",
				 pw_script_line("# WORKER_WAIT"));
			TU_CHECK(msg && strstr(msg, want),
				 "STALL message of the worker: %s", msg);
			worker_ok = 1;
		}
	}
	TU_CHECK(main_ok && worker_ok && deep_ok,
		 "check --json: STALL of the main thread %d, of the worker %d, "
		 "of the deep thread %d",
		 main_ok, worker_ok, deep_ok);
	tu_json_free(cj);

	struct tu_proc p;
	char err[256];
	int rc = tu_analyze_dir(&p, "hangs", "--json", dir);
	struct tu_json *hj =
		rc == 0 ? tu_json_parse(p.out, err, sizeof(err)) : NULL;
	TU_CHECK(hj != NULL, "hangs --json: %s\n%s", tu_status_str(p.status),
		 p.err);
	const struct tu_json *ranks = tu_jget(hj, "ranks");
	TU_CHECK(tu_jlen(ranks) == 1, "hangs --json: %zu rows", tu_jlen(ranks));
	/* No call in flight: the row shows the main thread's wait. */
	const struct tu_json *st = tu_jget(tu_jat(ranks, 0), "python_stack");
	char fr[16][1024];
	size_t n = json_frames(st, fr, 16);
	pw_expect_main(fr, n, "hangs --json");
	tu_json_free(hj);
	tu_proc_free(&p);
}

/* Runs the script under dltrace in dir with the stall threshold of
 * STALL_ENV (and extra, may be NULL), waits for its "ready PID" line, polls
 * its trace until done() holds, then kills it (a hang ended by a kill:
 * its STALL findings are warnings).  Returns the script's pid; a failed
 * check when it did not come or done() never held. */
static uint32_t run_script(const char *dir, const char *extra,
			   int (*done)(const struct tu_traceset *, uint32_t))
{
	const char *py = pystack_python();
	const char *cmd[] = {py, PW_SCRIPT, WAIT_S, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	const char *env[] = {"DLTRACE_WATCHDOG=1", STALL_ENV, extra, NULL};
	struct tu_proc p;
	int started = tu_proc_start(&p, argv, env) == 0;
	free(argv);
	TU_CHECK(started, "cannot start %s", py);
	if (!started)
		return 0;
	char line[256] = "";
	unsigned long pid = 0;
	int got = tu_proc_readline(&p, line, sizeof(line), POLL_LIMIT_MS);
	TU_CHECK(got == 1 && sscanf(line, "ready %lu", &pid) == 1,
		 "%s: no \"ready PID\" line (%d: %s)", py, got, line);
	int polled = pid ? poll_traces(dir, (uint32_t)pid, done) : -1;
	tu_kill_group(&p);
	TU_CHECK(polled == 0,
		 "%s: the records waited for are not there after "
		 "%d s",
		 py, POLL_LIMIT_MS / 1000);
	return polled == 0 ? (uint32_t)pid : 0;
}

static void test_pystack_threads(void)
{
	char *dir = tu_tmpdir("pystack");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	uint32_t pid = run_script(dir, NULL, both_threads);
	if (pid == 0) {
		tu_rmtree(dir);
		free(dir);
		return;
	}
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	TU_CHECK(s.n == 1, "%zu traces", s.n);
	struct tu_trace *t = s.n ? &s.t[0] : NULL;
	size_t main_seen = 0, worker_seen = 0, deep_seen = 0;
	for (size_t k = 0; t && k < t->nrecs; k++) {
		const struct dlt_rec_hdr *h = t->recs[k].h;
		if (h->type != DLT_REC_PYSTACK)
			continue;
		const struct dlt_rec_pystack *r = (const void *)h;
		TU_CHECK(r->reason == DLT_PYSTACK_OK && r->depth == r->n &&
				 r->n > 0,
			 "PYSTACK of %u: reason %u, depth %u, %u frames",
			 r->tid, r->reason, r->depth, r->n);
		TU_CHECK((r->py_version >> 24) == 3,
			 "PYSTACK: python version 0x%x", r->py_version);
		char fr[64][1024];
		size_t n = pw_rec_frames(r, fr, 64);
		switch (pw_which_thread(r, (uint32_t)pid)) {
		case 'm':
			pw_expect_main(fr, n, "PYSTACK");
			pw_expect_main_entries(r, "PYSTACK");
			main_seen++;
			break;
		case 'w':
			pw_expect_worker(fr, n, "PYSTACK");
			worker_seen++;
			break;
		case 'd':
			pw_expect_deep(fr, n, r->depth, "PYSTACK");
			deep_seen++;
			break;
		default:
			TU_CHECK(0, "PYSTACK of thread %u: %u frames, first %s",
				 r->tid, r->n, n ? fr[0] : "-");
		}
	}
	TU_CHECK(main_seen >= 1 && worker_seen >= 1 && deep_seen >= 1,
		 "PYSTACK records: main thread %zu, worker %zu, deep %zu",
		 main_seen, worker_seen, deep_seen);
	tu_traceset_free(&s);
	expect_findings(dir, (uint32_t)pid);
	tu_rmtree(dir);
	free(dir);
}

/* A Python program that waits past the threshold and ends on its own is
 * healthy: the stacks recorded add no warning. */
static void test_pystack_healthy(void)
{
	const char *py = pystack_python();
	char *dir = tu_tmpdir("pystack-ok");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {py, "-c", "import time; time.sleep(1.5)", NULL};
	const char *env[] = {"DLTRACE_WATCHDOG=1", STALL_ENV, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, env, POLL_LIMIT_MS);
	TU_CHECK(!p.timed_out && tu_exit_code(p.status) == 0,
		 "%s -c sleep: %s\n%s", py, tu_status_str(p.status), p.err);
	tu_proc_free(&p);
	tu_expect_healthy("python sleeping 1.5 s", dir);
	tu_rmtree(dir);
	free(dir);
}

/* A STALL of main_tid that lasted past two ticks after the threshold:
 * the tick that recorded it, and its PYSTACK, are over. */
static int stall_seen_later(const struct tu_traceset *s, uint32_t main_tid)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->t[i].nrecs; k++) {
			const struct dlt_rec_hdr *h = s->t[i].recs[k].h;
			const struct dlt_rec_stall *r = (const void *)h;
			if (h->type == DLT_REC_STALL && r->tid == main_tid &&
			    r->dur_ns >= 700u * 1000 * 1000)
				return 1;
		}
	return 0;
}

/* DLTRACE_PYSTACK=0: stalls and their raw stacks, no Python stack. */
static void test_pystack_off(void)
{
	char *dir = tu_tmpdir("pystack-off");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	run_script(dir, "DLTRACE_PYSTACK=0", stall_seen_later);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	size_t stacks = 0, pys = 0;
	for (size_t i = 0; i < s.n; i++) {
		stacks += s.t[i].nrec[DLT_REC_RAWSTACK];
		pys += s.t[i].nrec[DLT_REC_PYSTACK];
	}
	TU_CHECK(stacks > 0 && pys == 0,
		 "DLTRACE_PYSTACK=0: %zu RAWSTACK, %zu PYSTACK", stacks, pys);
	tu_traceset_free(&s);
	tu_rmtree(dir);
	free(dir);
}

/* An interpreter dltrace cannot read (before 3.8) says so, once per
 * stall, with its version. */
static void test_pystack_unsupported(void)
{
	char *dir = tu_tmpdir("pystack-old");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	run_script(dir, NULL, any_pystack);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	size_t seen = 0;
	for (size_t i = 0; i < s.n; i++)
		for (size_t k = 0; k < s.t[i].nrecs; k++) {
			const struct dlt_rec_hdr *h = s.t[i].recs[k].h;
			if (h->type != DLT_REC_PYSTACK)
				continue;
			const struct dlt_rec_pystack *r = (const void *)h;
			char why[128];
			dlt_pyframes_why(r, why, sizeof(why));
			TU_CHECK(r->n == 0 &&
					 r->reason == DLT_PYSTACK_VERSION &&
					 strstr(why, ": not supported"),
				 "PYSTACK of an old CPython: %u frames, %s",
				 r->n, why);
			seen++;
		}
	TU_CHECK(seen > 0, "no PYSTACK");
	tu_traceset_free(&s);
	tu_rmtree(dir);
	free(dir);
}

static void test_pystack(void)
{
	/* The interpreter's version decides what is expected of it. */
	const char *py = pystack_python();
	int minor = pw_python_minor(py);
	TU_CHECK_FATAL(minor >= 0, "cannot ask %s its version", py);
	if (minor < 8) {
		test_pystack_unsupported();
		return;
	}
	test_pystack_threads();
	test_pystack_healthy();
	test_pystack_off();
}

/* A C program's stalls get a STACK and no PYSTACK: no interpreter, no
 * record (docs/hangs.md). */
static void test_pystack_c(void)
{
	char *dir = tu_tmpdir("pystack-c");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {"/bin/sleep", WAIT_S, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	const char *env[] = {"DLTRACE_WATCHDOG=1", STALL_ENV, NULL};
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start sleep");
	free(argv);
	struct timespec nap = {0, 100 * 1000 * 1000};
	size_t stacks = 0, py = 0;
	for (int waited = 0; waited < POLL_LIMIT_MS && stacks == 0;
	     waited += 100) {
		struct tu_traceset s;
		tu_traceset_read(dir, &s, 1);
		for (size_t i = 0; i < s.n; i++) {
			stacks += s.t[i].nrec[DLT_REC_RAWSTACK];
			py += s.t[i].nrec[DLT_REC_PYSTACK];
		}
		tu_traceset_free(&s);
		if (stacks == 0)
			nanosleep(&nap, NULL);
	}
	tu_kill_group(&p);
	TU_CHECK(stacks > 0 && py == 0, "sleep: %zu RAWSTACK, %zu PYSTACK",
		 stacks, py);
	tu_rmtree(dir);
	free(dir);
}

/* A wait in a static function of a program without exported symbols:
 * the process writes its frame as "fx_static_wait+0x...", and the
 * analyzer names it from the file's .symtab (docs/hangs.md). */
static void test_symtab_frame(void)
{
	char *dir = tu_tmpdir("pystack-symtab");
	char *fx = tu_fx("fx_static_wait");
	TU_CHECK_FATAL(dir && fx, "no scratch directory");
	const char *cmd[] = {fx, NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	const char *env[] = {"DLTRACE_WATCHDOG=1", STALL_ENV, NULL};
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0,
		       "cannot start the fixture");
	free(argv);
	struct timespec nap = {0, 100 * 1000 * 1000};
	size_t stacks = 0;
	for (int waited = 0; waited < POLL_LIMIT_MS && stacks == 0;
	     waited += 100) {
		struct tu_traceset s;
		tu_traceset_read(dir, &s, 1);
		for (size_t i = 0; i < s.n; i++)
			stacks += s.t[i].nrec[DLT_REC_RAWSTACK];
		tu_traceset_free(&s);
		if (stacks == 0)
			nanosleep(&nap, NULL);
	}
	struct tu_proc a;
	int r = tu_analyze_dir(&a, "hangs", "--json", dir);
	tu_kill_group(&p);
	TU_CHECK(stacks > 0, "no STACK recorded");
	TU_CHECK(r == 0 && tu_contains(a.out, "fx_wait_unexported"),
		 "the static function is not named in hangs --json:\n%s",
		 a.out ? a.out : "");
	tu_proc_free(&a);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- the reader's view of a PYSTACK, on records built here ---------- */

/* A record of two frames, "a.py:7 in f" and "b.py:-1 in <module>", in
 * buf; returns its length. */
static uint32_t make_rec(uint64_t *buf, size_t cap)
{
	memset(buf, 0, cap);
	struct dlt_rec_pystack *r = (void *)buf;
	r->tid = 42;
	r->n = 2;
	r->depth = 5;
	r->py_version = 0x030b04f0;
	r->frames[0] = (struct dlt_pyframe){7, 4, 1};
	/* The module's frame was entered from C (format 2.4's bit 15). */
	r->frames[1] = (struct dlt_pyframe){-1, 4, 8 | DLT_PYFRAME_ENTRY};
	char *text = (char *)&r->frames[2];
	memcpy(text, "a.pyfb.py<module>", 17);
	uint32_t len = (uint32_t)(sizeof(*r) + 2 * sizeof(r->frames[0]) + 17);
	r->h.len = (len + 7) & ~7u;
	r->h.type = DLT_REC_PYSTACK;
	return r->h.len;
}

static void test_pyframes(void)
{
	uint64_t buf[64];
	struct dlt_rec_pystack *r = (void *)buf;
	struct dlt_pyframe_view f[4];
	char text[128];
	make_rec(buf, sizeof(buf));
	size_t n = dlt_pyframes(r, f, 4);
	TU_CHECK(n == 2, "%zu frames of 2", n);
	dlt_pyframe_text(&f[0], text, sizeof(text));
	TU_CHECK(strcmp(text, "a.py:7 in f") == 0, "frame 0: %s", text);
	dlt_pyframe_text(&f[1], text, sizeof(text));
	TU_CHECK(strcmp(text, "b.py:? in <module>") == 0, "frame 1: %s", text);
	TU_CHECK(f[0].entry == 0 && f[1].entry == 1 && f[1].func_len == 8,
		 "entry %d %d, the module's name %u bytes", f[0].entry,
		 f[1].entry, f[1].func_len);
	TU_CHECK(dlt_pyframes(r, f, 1) == 1, "cap 1");
	/* Text cut by the record's length: the frame it cuts is left out. */
	r->h.len = (uint32_t)(sizeof(*r) + 2 * sizeof(r->frames[0]) + 8);
	TU_CHECK(dlt_pyframes(r, f, 4) == 1, "a cut second frame is returned");
	/* More frames claimed than the record holds: none past its end. */
	make_rec(buf, sizeof(buf));
	r->n = 65535;
	TU_CHECK(dlt_pyframes(r, f, 4) == 0, "65535 frames in %u bytes",
		 r->h.len);
	/* A name claimed longer than the record, the longest a length can
	 * say (15 bits): the frame is left out. */
	r->n = 2;
	r->frames[1].func_len = 30000;
	TU_CHECK(dlt_pyframes(r, f, 4) == 1, "a text length past the end");
	r->frames[1].func_len = DLT_PYFRAME_LEN | DLT_PYFRAME_ENTRY;
	TU_CHECK(dlt_pyframes(r, f, 4) == 1,
		 "an entry frame's text length past the end");
	/* The entry bit is no length: 8 bytes with it are 8 bytes. */
	make_rec(buf, sizeof(buf));
	r->frames[0].func_len = 1 | DLT_PYFRAME_ENTRY;
	n = dlt_pyframes(r, f, 4);
	dlt_pyframe_text(&f[0], text, sizeof(text));
	TU_CHECK(n == 2 && f[0].entry && strcmp(text, "a.py:7 in f") == 0,
		 "an entry frame: %zu frames, %s", n, text);
	/* The words for each reason. */
	static const struct {
		uint16_t reason;
		uint32_t version;
		uint64_t addr;
		const char *want;
	} why[] = {
		{DLT_PYSTACK_OK, 0, 0, ""},
		{DLT_PYSTACK_NO_PYTHON, 0, 0,
		 "no Python interpreter in this process"},
		{DLT_PYSTACK_VERSION, 0x030710f0, 0,
		 "CPython 3.7: not supported"},
		{DLT_PYSTACK_NO_THREAD, 0x030b04f0, 0,
		 "thread runs no Python code"},
		{DLT_PYSTACK_UNREADABLE, 0x030b04f0, 0x7f00dead0000ull,
		 "frame memory unreadable at 0x7f00dead0000"},
		{DLT_PYSTACK_FREE_THREADED, 0x030d00f0, 0,
		 "free-threaded CPython 3.13: not supported"},
	};
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		r->reason = why[i].reason;
		r->py_version = why[i].version;
		r->addr = why[i].addr;
		dlt_pyframes_why(r, text, sizeof(text));
		TU_CHECK(strcmp(text, why[i].want) == 0, "reason %u: \"%s\"",
			 why[i].reason, text);
	}
}

static const struct tu_test pyframes_tests[] = {{"pyframes", test_pyframes},
						{NULL, NULL}};

static const struct tu_test pystack_tests[] = {{"pystack", test_pystack},
					       {NULL, NULL}};
static const struct tu_test pystack_c_tests[] = {
	{"pystack_c", test_pystack_c},
	{"a static function named from .symtab", test_symtab_frame},
	{NULL, NULL}};

int main(int argc, char **argv)
{
	static const struct tu_suite suites[] = {
		{"pystack", pystack_tests, pystack_skip},
		{"pystack_c", pystack_c_tests, NULL},
		{"pyframes", pyframes_tests, NULL},
		{NULL, NULL, NULL}};
	return tu_main(argc, argv, suites);
}
