/* Python stacks read from outside the process (watcher/pyremote.c): a
 * real CPython runs tests/py/pystack_waits.py untraced, and this process
 * (another one) finds its interpreter through /proc and the files' symbol
 * tables, writes a PYSTACK of each of its threads into a trace of its own
 * and reads them back: each must hold the frames test_pystack.c holds the
 * shim's records to.  Also: a process without Python, a process gone, a
 * process that execs Python after it was looked at, and a CPython too old
 * to read.  Prints the time of a find and of one stack read.
 *
 *   test_pyremote [SUITE...]   pyremote (the interpreter in
 *                              DLT_TEST_PYSTACK_PYTHON) pyremote_none */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "pyframes.h"
#include "pyremote.h"
#include "pywaits.h"
#include "record.h"
#include "testutil.h"

#define WAIT_S "120"
#define READY_MS 60000
/* Reads of one stack timed, the median printed. */
#define TIMED_READS 21

static const char *remote_python(void)
{
	const char *p = getenv("DLT_TEST_PYSTACK_PYTHON");
	return p && *p ? p : NULL;
}

static const char *remote_skip(void)
{
	const char *p = remote_python();
	if (p == NULL)
		return "no interpreter given (DLT_TEST_PYSTACK_PYTHON)";
	if (access(p, X_OK) != 0)
		return "the interpreter given is not executable here";
	return NULL;
}

static double ms_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 +
	       (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Starts the waiting script with py; its pid once it says "ready", else 0
 * (a failed check). */
static pid_t start_script(struct tu_proc *p, const char *py)
{
	const char *argv[] = {py, PW_SCRIPT, WAIT_S, NULL};
	TU_CHECK_FATAL(tu_proc_start(p, argv, NULL) == 0, "cannot start %s",
		       py);
	char line[256] = "";
	unsigned long pid = 0;
	int got = tu_proc_readline(p, line, sizeof(line), READY_MS);
	TU_CHECK(got == 1 && sscanf(line, "ready %lu", &pid) == 1 &&
			 pid == (unsigned long)p->pid,
		 "%s: no \"ready %d\" line (%d: %s)\n%s", py, (int)p->pid, got,
		 line, p->err ? p->err : "");
	return (pid_t)pid;
}

/* The threads of process pid, at most cap. */
static size_t task_ids(pid_t pid, pid_t *out, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) && n < cap)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			out[n++] = (pid_t)atoi(e->d_name);
	if (d)
		closedir(d);
	return n;
}

/* CPU time of each of the n threads tids (/proc/PID/task/TID/schedstat's
 * first field, ns), into ns. */
static void cpu_times(pid_t pid, const pid_t *tids, size_t n, uint64_t *ns)
{
	for (size_t i = 0; i < n; i++) {
		char path[96], buf[128];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
			 (int)pid, (int)tids[i]);
		FILE *f = fopen(path, "r");
		unsigned long long v = 0;
		if (f == NULL || !fgets(buf, sizeof(buf), f) ||
		    sscanf(buf, "%llu", &v) != 1)
			v = 0;
		if (f)
			fclose(f);
		ns[i] = v;
	}
}

/* "ready" comes a few instructions before the main thread sleeps, and
 * the others may still take the GIL on their way into their waits: the
 * stacks are read once no thread has run for 200 ms (what the shim's
 * watchdog waits for too, with its stall threshold).  1, or 0 when they
 * kept running for 10 s. */
static int settled(pid_t pid)
{
	pid_t tids[16];
	uint64_t a[16], b[16];
	struct timespec nap = {0, 200 * 1000 * 1000};
	for (int tries = 0; tries < 50; tries++) {
		size_t n = task_ids(pid, tids, 16);
		cpu_times(pid, tids, n, a);
		nanosleep(&nap, NULL);
		cpu_times(pid, tids, n, b);
		if (memcmp(a, b, n * sizeof(a[0])) == 0)
			return 1;
	}
	return 0;
}

/* A trace of this process's own, to write the records into. */
struct rec_trace {
	char *dir;
	struct dlt_writer w;
	struct dlt_tls tls;
};

static void trace_open(struct rec_trace *t, const char *tag)
{
	t->dir = tu_tmpdir(tag);
	TU_CHECK_FATAL(t->dir != NULL, "no scratch directory");
	struct dlt_open_params p = {.dir = t->dir,
				    .host = "pyremote-host",
				    .rank = -1,
				    .parent_kind = DLT_PARENT_NONE,
				    .features = DLT_FEAT_PRELOAD};
	memset(&t->tls, 0, sizeof(t->tls));
	TU_CHECK_FATAL(dlt_writer_create(&t->w, &p) == 0, "cannot write");
}

/* Ends writing; the records written, read back into s. */
static void trace_close(struct rec_trace *t, struct tu_traceset *s)
{
	dlt_tls_release(&t->w, &t->tls);
	dlt_writer_forget(&t->w);
	tu_traceset_read(t->dir, s, 0);
}

static void trace_free(struct rec_trace *t, struct tu_traceset *s)
{
	tu_traceset_free(s);
	tu_rmtree(t->dir);
	free(t->dir);
}

/* The three threads' stacks, read from here, and the times it took. */
static void test_remote_threads(const char *py, int minor)
{
	struct tu_proc p;
	pid_t pid = start_script(&p, py);
	if (pid == 0) {
		tu_kill_group(&p);
		return;
	}
	TU_CHECK(settled(pid), "%s: its threads do not settle", py);
	static struct dlt_pyremote r;
	memset(&r, 0, sizeof(r));
	char why[256];
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = dlt_pyremote_find(pid, &r, why, sizeof(why));
	double find_ms = ms_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int again = dlt_pyremote_find(pid, &r, NULL, 0);
	double again_ms = ms_since(&t0);
	/* "CPython 3.11.7 in ...", or "CPython 3.9 in ... (the version from
	 * the name ...)". */
	char want[32];
	snprintf(want, sizeof(want), "CPython 3.%d%s", minor,
		 minor >= 11 ? "." : " in ");
	TU_CHECK(rc == DLT_PYSTACK_OK && again == DLT_PYSTACK_OK &&
			 strstr(why, want) &&
			 ((r.pi.version >> 16) & 0xff) == (unsigned)minor,
		 "%s: find %d, again %d: %s (version 0x%x)", py, rc, again, why,
		 r.pi.version);
	if (rc != DLT_PYSTACK_OK) {
		tu_kill_group(&p);
		return;
	}

	struct rec_trace t;
	trace_open(&t, "pyremote");
	pid_t tids[16];
	size_t ntid = task_ids(pid, tids, 16);
	TU_CHECK(ntid == 3, "%s: %zu threads, 3 expected", py, ntid);
	for (size_t i = 0; i < ntid; i++)
		dlt_pyremote_record(&t.w, &t.tls, &r.pi, tids[i], 0, 0);
	/* One stack read, timed: a waiting thread's other than the main one
	 * (the deep one where the threads are listed in the order they were
	 * made). */
	double ms[TIMED_READS];
	pid_t deep = 0;
	for (size_t i = 0; i < ntid; i++)
		if (tids[i] != pid)
			deep = tids[i];
	for (int k = 0; deep && k < TIMED_READS; k++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		dlt_pyremote_record(&t.w, &t.tls, &r.pi, deep, 0, 0);
		ms[k] = ms_since(&t0);
	}
	tu_kill_group(&p);
	qsort(ms, TIMED_READS, sizeof(ms[0]), cmp_double);
	printf("\npyremote %s: find %.3f ms, found again %.3f ms, one "
	       "stack (a waiting thread's) %.3f ms median of %d, %.3f ms "
	       "most\n",
	       py, find_ms, again_ms, ms[TIMED_READS / 2], TIMED_READS,
	       ms[TIMED_READS - 1]);

	struct tu_traceset s;
	trace_close(&t, &s);
	size_t seen[3] = {0, 0, 0};
	for (size_t i = 0; i < s.n; i++)
		for (size_t k = 0; k < s.t[i].nrecs; k++) {
			const struct dlt_rec_hdr *h = s.t[i].recs[k].h;
			if (h->type != DLT_REC_PYSTACK)
				continue;
			const struct dlt_rec_pystack *rec = (const void *)h;
			TU_CHECK(rec->reason == DLT_PYSTACK_OK &&
					 rec->depth == rec->n && rec->n > 0 &&
					 rec->py_version == r.pi.version,
				 "PYSTACK of %u: reason %u, depth %u, %u "
				 "frames, version 0x%x",
				 rec->tid, rec->reason, rec->depth, rec->n,
				 rec->py_version);
			char fr[64][1024];
			size_t n = pw_rec_frames(rec, fr, 64);
			switch (pw_which_thread(rec, (uint32_t)pid)) {
			case 'm':
				pw_expect_main(fr, n, "remote PYSTACK");
				pw_expect_main_entries(rec, "remote PYSTACK");
				seen[0]++;
				break;
			case 'w':
				pw_expect_worker(fr, n, "remote PYSTACK");
				seen[1]++;
				break;
			case 'd':
				pw_expect_deep(fr, n, rec->depth,
					       "remote PYSTACK");
				seen[2]++;
				break;
			default:
				TU_CHECK(0,
					 "PYSTACK of thread %u: %u frames, "
					 "first %s",
					 rec->tid, rec->n, n ? fr[0] : "-");
			}
		}
	TU_CHECK(seen[0] == 1 && seen[1] >= 1 && seen[2] >= 1 &&
			 seen[1] + seen[2] == 2 + TIMED_READS,
		 "PYSTACK records: main thread %zu, worker %zu, deep %zu",
		 seen[0], seen[1], seen[2]);
	trace_free(&t, &s);
}

/* Too old to read (3.7): found, and said so, in the answer and in the
 * record. */
static void test_remote_old(const char *py)
{
	struct tu_proc p;
	pid_t pid = start_script(&p, py);
	static struct dlt_pyremote r;
	memset(&r, 0, sizeof(r));
	char why[256] = "";
	int rc = pid ? dlt_pyremote_find(pid, &r, why, sizeof(why)) : -1;
	TU_CHECK(rc == DLT_PYSTACK_VERSION && strstr(why, ": not supported"),
		 "%s: find %d: %s", py, rc, why);
	struct rec_trace t;
	trace_open(&t, "pyremote-old");
	int n = pid ? dlt_pyremote_record(&t.w, &t.tls, &r.pi, pid, 0, 0) : -1;
	tu_kill_group(&p);
	struct tu_traceset s;
	trace_close(&t, &s);
	size_t seen = 0;
	for (size_t i = 0; i < s.n; i++)
		for (size_t k = 0; k < s.t[i].nrecs; k++) {
			const struct dlt_rec_hdr *h = s.t[i].recs[k].h;
			if (h->type != DLT_REC_PYSTACK)
				continue;
			char text[128];
			dlt_pyframes_why((const void *)h, text, sizeof(text));
			TU_CHECK(strcmp(text, "CPython 3.7: not supported") ==
					 0,
				 "PYSTACK of an old CPython: %s", text);
			seen++;
		}
	TU_CHECK(n == 0 && seen == 1, "%d frames, %zu PYSTACK", n, seen);
	trace_free(&t, &s);
}

static void test_remote(void)
{
	const char *py = remote_python();
	int minor = pw_python_minor(py);
	TU_CHECK_FATAL(minor >= 0, "cannot ask %s its version", py);
	if (minor < 8)
		test_remote_old(py);
	else
		test_remote_threads(py, minor);
}

/* Waits until process pid runs the program named name (its exec done):
 * 1, or 0 after 10 s. */
static int runs_program(pid_t pid, const char *name)
{
	char path[64], exe[4096];
	struct timespec nap = {0, 10 * 1000 * 1000};
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	for (int tries = 0; tries < 1000; tries++) {
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		const char *base = strrchr(exe, '/');
		if (base && strcmp(base + 1, name) == 0)
			return 1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* A C program: no interpreter, said plainly; a process gone: -ESRCH. */
static void test_remote_none(void)
{
	const char *argv[] = {"/bin/sleep", WAIT_S, NULL};
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, NULL) == 0,
		       "cannot start sleep");
	TU_CHECK(runs_program(p.pid, "sleep"), "sleep does not run");
	static struct dlt_pyremote r;
	memset(&r, 0, sizeof(r));
	char why[256] = "";
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = dlt_pyremote_find(p.pid, &r, why, sizeof(why));
	double ms = ms_since(&t0);
	TU_CHECK(rc == DLT_PYSTACK_NO_PYTHON &&
			 strcmp(why, "no Python interpreter in this "
				     "process") == 0,
		 "sleep: find %d: %s", rc, why);
	printf("\npyremote /bin/sleep: no interpreter, found in %.3f ms\n", ms);
	pid_t gone = p.pid;
	tu_kill_group(&p);
	rc = dlt_pyremote_find(gone, &r, why, sizeof(why));
	TU_CHECK(rc == -ESRCH, "a process gone: find %d: %s", rc, why);
}

/* Looked at before it runs Python (a forked child not yet exec'd: no
 * interpreter), looked at again after its exec with what was kept: found. */
static void test_remote_exec(void)
{
	const char *py = "/usr/bin/python3";
	if (access(py, X_OK) != 0) {
		tu_skip("no %s", py);
		return;
	}
	const char *argv[] = {py, PW_SCRIPT, WAIT_S, NULL};
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start_held(&p, argv, NULL) == 0,
		       "cannot start %s", py);
	static struct dlt_pyremote r;
	memset(&r, 0, sizeof(r));
	char why[256] = "";
	int before = dlt_pyremote_find(p.pid, &r, why, sizeof(why));
	int cached = dlt_pyremote_find(p.pid, &r, NULL, 0);
	tu_proc_go(&p);
	char line[256] = "";
	int got = tu_proc_readline(&p, line, sizeof(line), READY_MS);
	int after = dlt_pyremote_find(p.pid, &r, why, sizeof(why));
	tu_kill_group(&p);
	TU_CHECK(before == DLT_PYSTACK_NO_PYTHON &&
			 cached == DLT_PYSTACK_NO_PYTHON,
		 "before the exec: find %d, again %d", before, cached);
	TU_CHECK(got == 1 && after == DLT_PYSTACK_OK,
		 "after the exec (%s): find %d: %s", line, after, why);
}

static const struct tu_test remote_tests[] = {{"pyremote", test_remote},
					      {NULL, NULL}};
static const struct tu_test none_tests[] = {
	{"no interpreter, a process gone", test_remote_none},
	{"found again after an exec", test_remote_exec},
	{NULL, NULL}};

int main(int argc, char **argv)
{
	static const struct tu_suite suites[] = {
		{"pyremote", remote_tests, remote_skip},
		{"pyremote_none", none_tests, NULL},
		{NULL, NULL, NULL}};
	return tu_main(argc, argv, suites);
}
