/* What the benchmark programs that fork (bench_spawn.c,
 * bench_forkchild.c) share: medians of per-run figures and the clock. */
#ifndef DLTRACE_BENCH_MEDIAN_H
#define DLTRACE_BENCH_MEDIAN_H

#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double tv_us(struct timeval t)
{
	return (double)t.tv_sec * 1e6 + (double)t.tv_usec;
}

#endif
