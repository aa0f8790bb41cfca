/* Unit tests of the trace clock (tracer/clock.c): what it returns must be
 * CLOCK_MONOTONIC time, within the error its design promises, and never
 * go back in one thread, whether it reads the time-stamp counter or the
 * vDSO clock.  Accuracy, not speed: no timing budget is asserted here. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "clock.h"
#include "testutil.h"

/* The design bounds the error by the rate's error over one anchor span
 * (100 ms): well under a microsecond.  50 us leaves room for a thread
 * preempted between the two readings being compared. */
#ifndef TOL_NS
#define TOL_NS 50000ull
#endif

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct run {
	uint64_t calls, outside, backwards, worst;
};

/* Reads dlt_now_ns between two CLOCK_MONOTONIC readings for ms
 * milliseconds (past the rate's 20 ms calibration and several anchor
 * renewals) and counts readings outside [before - TOL, after + TOL]. */
static void *sample(void *arg)
{
	struct run *r = arg;
	uint64_t end = mono() + 400000000ull, last = 0;
	while (1) {
		uint64_t a = mono();
		uint64_t t = dlt_now_ns();
		uint64_t b = mono();
		r->calls++;
		if (t < last)
			r->backwards++;
		last = t;
		uint64_t off = t + TOL_NS < a	? a - t
			       : t > b + TOL_NS ? t - b
						: 0;
		if (off) {
			r->outside++;
			if (off > r->worst)
				r->worst = off;
		}
		if (b > end)
			break;
		/* Let the counter run between samples now and then, so that
		 * anchors are also used far from where they were made. */
		if ((r->calls & 1023) == 0) {
			struct timespec ts = {0, 3000000};
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void check_threads(int n)
{
	pthread_t th[4];
	struct run runs[4] = {{0, 0, 0, 0}};
	for (int i = 0; i < n; i++)
		CU_ASSERT_FATAL(
			pthread_create(&th[i], NULL, sample, &runs[i]) == 0);
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		printf("\n  thread %d: %llu readings, %llu outside +-%llu ns "
		       "(worst %llu ns), %llu backwards; counter %s",
		       i, (unsigned long long)runs[i].calls,
		       (unsigned long long)runs[i].outside,
		       (unsigned long long)TOL_NS,
		       (unsigned long long)runs[i].worst,
		       (unsigned long long)runs[i].backwards,
		       dlt_clock_uses_tsc() ? "used" : "not used");
		CU_ASSERT(runs[i].calls > 1000);
		CU_ASSERT_EQUAL(runs[i].backwards, 0);
		/* A reading delayed by preemption between the clock reads
		 * can land outside once in a long while, never often. */
		CU_ASSERT(runs[i].outside * 10000 <= runs[i].calls);
	}
}

static void test_tracks_monotonic(void)
{
	/* As a thread that records often asks (shim/calls.c). */
	dlt_clock_use_tsc();
	check_threads(3);
}

static void test_forced_monotonic(void)
{
	/* A separate process: the choice of clock is made once. */
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CU_ASSERT_FATAL(n > 0);
	self[n] = '\0';
	struct tu_proc p;
	const char *const argv[] = {self, "clock_child", NULL};
	CU_ASSERT_FATAL(tu_run(&p, argv, NULL, 30000) == 0);
	printf("\n  child: %s", p.out);
	CU_ASSERT_EQUAL(tu_exit_code(p.status), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "counter not used"));
	tu_proc_free(&p);
}

static const struct tu_test clock_tests[] = {
	{"dlt_now_ns follows CLOCK_MONOTONIC, never backwards",
	 test_tracks_monotonic},
	{"forced monotonic (DLTRACE_CLOCK=monotonic): the vDSO clock only",
	 test_forced_monotonic},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"clock", clock_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "clock_child") == 0) {
		dlt_clock_force_monotonic();
		dlt_clock_use_tsc(); /* asked for, and still not used */
		struct run r = {0, 0, 0, 0};
		sample(&r);
		printf("%llu readings, %llu outside, %llu backwards, counter "
		       "%s\n",
		       (unsigned long long)r.calls,
		       (unsigned long long)r.outside,
		       (unsigned long long)r.backwards,
		       dlt_clock_uses_tsc() ? "used" : "not used");
		return r.backwards == 0 && r.outside * 10000 <= r.calls ? 0 : 1;
	}
	return tu_main(argc, argv, suites);
}
