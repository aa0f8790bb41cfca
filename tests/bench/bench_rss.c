/* Resident size: prints VmRSS (kB) at start, then starts T threads that
 * each make one cudaLaunchKernel and wait, and prints VmRSS again.
 *
 *   bench_rss [T]   (default 0: only the first number) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	unsigned x, y, z;
} bench_dim3;

int cudaLaunchKernel(const void *f, bench_dim3 g, bench_dim3 b, void **a,
		     size_t sh, void *s);

static long vmrss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

static pthread_barrier_t called, done;

static void *worker(void *arg)
{
	bench_dim3 g = {1, 1, 1};
	(void)arg;
	cudaLaunchKernel((const void *)worker, g, g, NULL, 0, NULL);
	pthread_barrier_wait(&called);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 0;
	long start = vmrss_kb();
	if (t <= 0) {
		printf("%ld\n", start);
		return 0;
	}
	pthread_t *th = calloc((size_t)t, sizeof *th);
	pthread_barrier_init(&called, NULL, (unsigned)t + 1);
	pthread_barrier_init(&done, NULL, (unsigned)t + 1);
	for (int i = 0; i < t; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			return 1;
	pthread_barrier_wait(&called);
	long after = vmrss_kb();
	pthread_barrier_wait(&done);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	printf("%ld %ld\n", start, after);
	return 0;
}
