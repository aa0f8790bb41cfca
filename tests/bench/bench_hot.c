/* Hot-call loop for scripts/bench.sh: N calls of one function of the fake
 * libcudart/libnccl, prints the wall time per call in ns, the low bit of
 * the results, and the process's CPU time per call in ns.
 *
 *   bench_hot launch|memcpy|allreduce|inc|idle N
 *   bench_hot paced-launch|paced-allreduce N
 *
 * "inc" calls bench_inc() of an untraced library (PLT cost elsewhere);
 * "idle" makes no call (start-up baseline).  The paced modes do about 1.5
 * us of other work (a chain of dependent multiplies) before each call and
 * time the call alone with the time-stamp counter, as a training loop
 * would see it: they print the mean time per call in ns around the call,
 * then the low bit, then the process's CPU time per call. */
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

#if defined(__x86_64__)
#include <x86intrin.h>
static unsigned long long ticks(void)
{
	return __rdtsc();
}
#else
static unsigned long long ticks(void)
{
	return (unsigned long long)now_ns();
}
#endif

static volatile unsigned long work_seed = 1;

/* About 1.5 us of work a compiler cannot drop or hoist. */
static void other_work(void)
{
	unsigned long y = work_seed;
	for (int k = 0; k < 1000; k++)
		y = y * 6364136223846793005ul + 1442695040888963407ul;
	work_seed = y;
}

/* n calls at a realistic pace: the time around each call alone, in ns
 * (ticks converted with the clock read around the whole loop). */
static int paced(const char *what, long n)
{
	static char buf[64];
	bench_dim3 g = {1, 1, 1}, b = {32, 1, 1};
	int launch = strcmp(what, "paced-launch") == 0, acc = 0;
	unsigned long long in_call = 0;
	double c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	double t0 = now_ns();
	unsigned long long k0 = ticks();
	for (long i = 0; i < n; i++) {
		other_work();
		unsigned long long a = ticks();
		if (launch)
			acc |= cudaLaunchKernel((const void *)paced, g, b, NULL,
						0, NULL);
		else
			acc |= ncclAllReduce(buf, buf, 8, 7, 0, (void *)buf,
					     NULL);
		in_call += ticks() - a;
	}
	unsigned long long k1 = ticks();
	double t1 = now_ns();
	double c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	double ns_per_tick = k1 > k0 ? (t1 - t0) / (double)(k1 - k0) : 1.0;
	printf("%.3f %d %.3f\n",
	       n > 0 ? (double)in_call * ns_per_tick / (double)n : 0.0, acc & 1,
	       n > 0 ? (c1 - c0) / (double)n : 0.0);
	return 0;
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
	if (strncmp(what, "paced-", 6) == 0)
		return paced(what, n);
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
