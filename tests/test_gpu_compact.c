/* Repeated calls written as 8-byte entries: counted, in order, with their
 * kernels, and still readable after a SIGKILL in the middle of them.
 *
 *   test_gpu_compact [SUITE...]   gpu_compact */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apinames.h"
#include "gpuutil.h"
#include "testutil.h"
#include "writer.h"

/* ---- suite gpu_compact: repeated calls as 8-byte entries ---------------- */

/* The launches of fx_gpu_rt, in the order the trace gives them. */
struct launch_scan {
	uint16_t rt_id, drv_id;
	uint64_t kernel0; /* the first launch's kernel: the others follow */
	uint64_t n, ok, failed, compact, drv, bad_order, bad_kernel;
	uint64_t last_ts, backwards;
};

static int launch_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct launch_scan *l = ctx;
	if (v->rec->type != DLT_REC_API_CALL)
		return 0;
	const struct dlt_rec_api_call *c = (const void *)v->rec;
	if (c->h.flags == l->drv_id) {
		l->drv++;
		return 0;
	}
	if (c->h.flags != l->rt_id || c->h.len < sizeof(*c) + 8)
		return 0;
	/* The kernels are consecutive bytes: call i launches kernel0 + i % 3.
	 */
	if (l->n == 0)
		l->kernel0 = c->v[DLT_V_cudaLaunchKernel_func];
	if (c->v[DLT_V_cudaLaunchKernel_func] != l->kernel0 + l->n % 3)
		l->bad_kernel++;
	if (c->h.ts < l->last_ts)
		l->backwards++;
	l->last_ts = c->h.ts;
	l->n++;
	l->compact += v->compact;
	if (c->ret == 0)
		l->ok++;
	else
		l->failed++;
	return 0;
}

/* The launches in path; a problem the reader reports fails the test. */
static void scan_launches(const char *path, struct launch_scan *l)
{
	memset(l, 0, sizeof(*l));
	l->rt_id = tg_api_id("cudaLaunchKernel");
	l->drv_id = tg_api_id("cuLaunchKernel");
	char err[512];
	struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "%s does not open: %s", path, err);
	dlt_trace_foreach(t, launch_rec, l);
	size_t problems = dlt_trace_problem_count(t);
	for (size_t i = 0; i < problems; i++)
		fprintf(stderr, "    %s: %s\n", path, dlt_trace_problem(t, i));
	dlt_trace_close(t);
	TU_CHECK(problems == 0, "%s: %zu reader problems", path, problems);
}

/* The one trace in tdir (its list, for tu_free_list), scanned. */
static char **scan_only_trace(const char *tdir, struct launch_scan *l)
{
	char **paths;
	size_t nt = tu_list_traces(tdir, &paths);
	TU_CHECK_FATAL(nt == 1, "%zu traces, expected 1", nt);
	scan_launches(paths[0], l);
	return paths;
}

/* 30,000 launches of three kernels in turn, the last 1,000 failing: each
 * launch reads back as its API_CALL, in order, with its kernel, and those
 * that returned 0 after the first of their kind in a chunk were 8-byte
 * entries (the runtime's launch, recorded after the driver's launch it
 * made, starts before it: entries go back in time too). */
static void test_compact_calls(void)
{
	const long n = 30000, fail_from = 29001;
	char *fx = tu_strfmt("%s/fx_gpu_rt", DLT_TEST_FX_GPU);
	char *dir = tu_tmpdir("compact");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *counter = tu_strfmt("%s/counter", dir);
	char *tdir = tu_strfmt("%s/trace", dir);
	char *ns = tu_strfmt("%ld", n);
	char *fail =
		tu_strfmt("FAKE_CUDA_FAIL=cudaLaunchKernel:98@%ld", fail_from);
	const char *cmd[] = {fx, "launches", ns, counter, NULL};
	const char *env[] = {tg_cuda_env()[0], fail, NULL};
	struct tu_proc p;
	tg_run_traced(&p, tdir, cmd, env);
	char *want =
		tu_strfmt("launches=%ld failed=%ld\n", n, n - fail_from + 1);
	TU_CHECK(tu_exit_code(p.status) == 0 && tu_contains(p.out, want),
		 "fx_gpu_rt launches under dltrace: %s\n%s%s",
		 tu_status_str(p.status), p.out, p.err);
	struct launch_scan l;
	char **paths = scan_only_trace(tdir, &l);
	TU_CHECK(l.n == (uint64_t)n && l.ok == (uint64_t)fail_from - 1 &&
			 l.failed == (uint64_t)(n - fail_from + 1),
		 "%llu launches read (%llu returned 0, %llu failed), expected "
		 "%ld (%ld, %ld)",
		 (unsigned long long)l.n, (unsigned long long)l.ok,
		 (unsigned long long)l.failed, n, fail_from - 1,
		 n - fail_from + 1);
	TU_CHECK(l.bad_kernel == 0 && l.backwards == 0,
		 "%llu launches with the wrong kernel, %llu earlier than the "
		 "one before",
		 (unsigned long long)l.bad_kernel,
		 (unsigned long long)l.backwards);
	/* Each launch that worked made one driver launch; the failing ones
	 * fail before the driver. */
	TU_CHECK(l.drv == (uint64_t)fail_from - 1,
		 "%llu driver launches, expected %ld",
		 (unsigned long long)l.drv, fail_from - 1);
	/* An API_DEF per kind, per chunk: a thread's chunks grow to 64 KiB,
	 * so fewer than 64 chunks hold these calls, each with at most 6
	 * definitions (three kernels, driver launches of three kinds). */
	TU_CHECK(l.compact + 64 * 3 >= l.ok,
		 "only %llu of %llu launches that returned 0 were compact "
		 "entries",
		 (unsigned long long)l.compact, (unsigned long long)l.ok);
	/* 8 bytes a call (two per launch), and a 40-byte record per failure;
	 * the rest (definitions, the process, its libraries, unfilled chunk
	 * ends) is bounded apart from n. */
	uint64_t size = tu_file_size(paths[0]);
	uint64_t calls = 16 * (uint64_t)(fail_from - 1) +
			 40 * (uint64_t)(n - fail_from + 1);
	TU_CHECK(size <= calls + 256 * 1024,
		 "the trace is %llu bytes for %llu bytes of calls",
		 (unsigned long long)size, (unsigned long long)calls);
	printf("\n    %ld launches: %llu compact, trace %llu bytes (%.1f per "
	       "call)\n",
	       n, (unsigned long long)l.compact, (unsigned long long)size,
	       (double)size / (double)(2 * n));
	tu_free_list(paths);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(want);
	free(fail);
	free(ns);
	free(tdir);
	free(counter);
	free(dir);
	free(fx);
}

static int64_t read_counter(const char *path)
{
	int64_t v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = -1;
	if (fd >= 0)
		close(fd);
	return v;
}

/* A program in a loop of launches is killed with SIGKILL (under LD_PRELOAD:
 * no launcher cleans up after it).  Every launch that had returned before
 * the kill is in the trace; the file is at most its data, the unfilled
 * chunks of its one recording thread (one per copy of the library) and one
 * growth step; dltrace-analyze compact then leaves the data and the same
 * launches. */
static void test_compact_sigkill(void)
{
	char *fx = tu_strfmt("%s/fx_gpu_rt", DLT_TEST_FX_GPU);
	char *dir = tu_tmpdir("compact-kill");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *counter = tu_strfmt("%s/counter", dir);
	char *tdir = tu_strfmt("%s/trace", dir);
	mkdir(tdir, 0755);
	const char *cmd[] = {fx, "launches", "2000000000", counter, NULL};
	const char *base[] = {tg_cuda_env()[0], NULL};
	const char **env = tu_preload_env(tdir, base, 0);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, cmd, env) == 0, "cannot start");
	free(env);
	/* Killed once it made a number of calls that depends on nothing but
	 * a random draw: mid-chunk, mid-growth or anywhere. */
	struct timespec seed;
	clock_gettime(CLOCK_REALTIME, &seed);
	srand((unsigned)(seed.tv_nsec ^ getpid()));
	int64_t goal = 50000 + rand() % 400000, seen = -1;
	for (int i = 0; i < 60000 && seen < goal; i++) {
		seen = read_counter(counter);
		if (seen < goal)
			usleep(500);
	}
	TU_CHECK(kill(p.pid, SIGKILL) == 0,
		 "the program ended before the kill");
	tu_proc_wait(&p, 30000);
	int64_t done = read_counter(counter);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL &&
			 done >= goal,
		 "%s, %lld calls made (the kill was due at %lld)",
		 tu_status_str(p.status), (long long)done, (long long)goal);
	struct launch_scan l;
	char **paths = scan_only_trace(tdir, &l);
	/* The counter is stored after the call returned, so every call it
	 * counts was committed before; one more may have been. */
	TU_CHECK(l.n >= (uint64_t)done && l.n <= (uint64_t)done + 1 &&
			 l.bad_kernel == 0 && l.failed == 0,
		 "%llu launches in the trace (%llu with the wrong kernel, %llu "
		 "failed), %lld had returned",
		 (unsigned long long)l.n, (unsigned long long)l.bad_kernel,
		 (unsigned long long)l.failed, (long long)done);
	struct tu_layout lay;
	int lr = tu_trace_layout(paths[0], &lay);
	TU_CHECK(lr == 0, "%s: bad layout", paths[0]);
	uint64_t size = lay.size, data = lay.data;
	TU_CHECK(data > 0 && size <= data + 2 * DLT_CHUNK_BIG + DLT_STEP_MAX,
		 "after SIGKILL: %llu bytes of file for %llu of data",
		 (unsigned long long)size, (unsigned long long)data);
	const char *cargv[] = {DLT_TEST_ANALYZE, "compact", tdir, NULL};
	struct tu_proc c;
	tu_run(&c, cargv, NULL, TG_RUN_MS);
	TU_CHECK(tu_exit_code(c.status) == 0 && tu_contains(c.out, "compacted"),
		 "dltrace-analyze compact: %s\n%s%s", tu_status_str(c.status),
		 c.out, c.err);
	struct launch_scan after;
	scan_launches(paths[0], &after);
	uint64_t csize = tu_file_size(paths[0]);
	TU_CHECK(after.n == l.n && after.drv == l.drv &&
			 csize <= data + 2 * DLT_CHUNK_BIG,
		 "after compact: %llu launches (%llu before), %llu bytes for "
		 "%llu of data",
		 (unsigned long long)after.n, (unsigned long long)l.n,
		 (unsigned long long)csize, (unsigned long long)data);
	printf("\n    killed after %lld calls: trace %llu bytes, %llu of data; "
	       "compacted to %llu\n",
	       (long long)done, (unsigned long long)size,
	       (unsigned long long)data, (unsigned long long)csize);
	tu_proc_free(&c);
	tu_free_list(paths);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(tdir);
	free(counter);
	free(dir);
	free(fx);
}

static const struct tu_test compact_tests[] = {
	{"repeated calls as 8-byte entries, read back call for call",
	 test_compact_calls},
	{"SIGKILL in a loop of calls, then compact", test_compact_sigkill},
	{NULL, NULL}};

/* ---- suites ------------------------------------------------------------- */

static const struct tu_suite suites[] = {{"gpu_compact", compact_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
