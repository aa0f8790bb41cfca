/* Hot-call loop for scripts/bench.sh: N calls of one function of the fake
 * libcudart/libnccl, prints the wall time per call in ns, the low bit of
 * the results, and the process's CPU time per call in ns.
 *
 *   bench_hot launch|memcpy|allreduce|inc|idle N
 *
 * "inc" calls bench_inc() of an untraced library (PLT cost elsewhere);
 * "idle" makes no call (start-up baseline). */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
	unsigned x, y, z;
} bench_dim3;

int cudaLaunchKernel(const void *f, bench_dim3 g, bench_dim3 b, void **a,
		     size_t sh, void *s);
int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *s);
int ncclAllReduce(const void *s, void *d, size_t n, int dt, int op, void *c,
		  void *st);
int bench_inc(int x);

static double clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
			"usage: bench_hot launch|memcpy|allreduce|inc N\n");
		return 2;
	}
	const char *what = argv[1];
	long n = atol(argv[2]);
	static char buf[64];
	bench_dim3 g = {1, 1, 1}, b = {32, 1, 1};
	int acc = 0;
	double t0 = now_ns();
	/* The whole process's CPU time too: work dltrace moves to a thread
	 * of its own (the prefetch thread) is not in the caller's wall time
	 * but is in this. */
	double c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (strcmp(what, "launch") == 0) {
		for (long i = 0; i < n; i++)
			acc |= cudaLaunchKernel((const void *)main, g, b, NULL,
						0, NULL);
	} else if (strcmp(what, "memcpy") == 0) {
		for (long i = 0; i < n; i++)
			acc |= cudaMemcpyAsync(buf, buf + 32, 32, 3, NULL);
	} else if (strcmp(what, "allreduce") == 0) {
		for (long i = 0; i < n; i++)
			acc |= ncclAllReduce(buf, buf, 8, 7, 0, (void *)buf,
					     NULL);
	} else if (strcmp(what, "inc") == 0) {
		for (long i = 0; i < n; i++)
			acc = bench_inc(acc);
	} else if (strcmp(what, "idle") != 0) {
		fprintf(stderr, "bench_hot: unknown %s\n", what);
		return 2;
	}
	double t1 = now_ns();
	double c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	printf("%.3f %d %.3f\n", n > 0 ? (t1 - t0) / (double)n : 0.0, acc & 1,
	       n > 0 ? (c1 - c0) / (double)n : 0.0);
	return 0;
}
