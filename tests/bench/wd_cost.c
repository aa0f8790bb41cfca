/* What hang watching costs an idle process and the watcher: CPU time per
 * second of a program whose THREADS threads sit in pthread_cond_wait for
 * SECONDS, run without dltrace, with libdltrace.so and
 * DLTRACE_WATCHDOG=0, and asking to be watched at the default threshold
 * (5 s: a look a second) and at DLTRACE_STALL_MS=500 (the shortest tick,
 * 100 ms), with the watcher (watcher/watch.c) running in this process, as
 * the launcher runs it in a thread of its own.  Not a test: numbers for
 * docs/hangs.md.
 *
 *   wd_cost LIBDLTRACE [SECONDS [THREADS]]     defaults 5 and 64
 *
 * The program's CPU time is its user + system time from wait4(): with no
 * thread of dltrace's in it, asking to be watched costs it nothing per
 * second.  The watcher's is this process's CPU clock, read at a first mark
 * (after the first look, the stall reports and stacks at the 5 s
 * threshold) and at the end.  The STALL and STACK records in the
 * companions show that the watcher did look. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reader.h"
#include "watch.h"

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;

static void *idle_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&idle_lock);
	for (;;)
		pthread_cond_wait(&idle_cond, &idle_lock);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double secs)
{
	struct timespec ts = {(time_t)secs,
			      (long)((secs - (double)(time_t)secs) * 1e9)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static double self_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int idle_main(double secs, int threads)
{
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, idle_thread, NULL) != 0) {
			fprintf(stderr, "wd_cost: pthread_create failed\n");
			return 1;
		}
	}
	sleep_s(secs);
	fflush(stdout);
	return 0;
}

struct tally {
	size_t stalls, stacks;
};

static int count_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct tally *t = ctx;
	t->stalls += v->rec->type == DLT_REC_STALL;
	t->stacks += v->rec->type == DLT_REC_STACK;
	return 0;
}

/* Runs the idle program with env; prints its CPU per second of wall time
 * and what its trace in dir holds. */
static double measure(const char *self, const char *label,
		      const char *const env[], const char *dir, double secs,
		      int threads, double base, int watch)
{
	char sarg[32], targ[32];
	snprintf(sarg, sizeof(sarg), "%g", secs);
	snprintf(targ, sizeof(targ), "%d", threads);
	double t0 = now_s();
	fflush(stdout); /* or the child would print it again */
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 0;
	}
	if (pid == 0) {
		for (const char *const *e = env; *e; e++)
			putenv((char *)*e);
		execl(self, self, "--idle", sarg, targ, (char *)NULL);
		_exit(127);
	}
	/* The watcher, here, while the program runs: looks until it ends. */
	struct dlt_watcher *wt = NULL;
	if (watch) {
		char err[256];
		struct dlt_watch_opts o = {dir, 0};
		wt = dlt_watcher_new(&o, err, sizeof(err));
		if (wt == NULL)
			fprintf(stderr, "wd_cost: %s\n", err);
	}
	double mark = secs > 14 ? 7 : secs / 2, c0 = self_cpu_ms(), c1 = -1;
	double t1 = 0;
	int status;
	struct rusage ru;
	while (wt) {
		pid_t r = wait4(pid, &status, WNOHANG, &ru);
		if (r == pid)
			break;
		dlt_watcher_look(wt, 0);
		if (c1 < 0 && now_s() - t0 >= mark) {
			c1 = self_cpu_ms();
			t1 = now_s();
		}
		sleep_s((double)dlt_watcher_tick_ns(wt) / 1e9);
	}
	if (wt) {
		double c2 = self_cpu_ms(), t2 = now_s();
		dlt_watcher_free(wt);
		if (c1 >= 0)
			printf("  watcher: %.2f ms CPU by %.0f s, then %.3f "
			       "ms/s\n",
			       c1 - c0, mark, (c2 - c1) / (t2 - t1));
	} else {
		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
	}
	double wall = now_s() - t0;
	double cpu =
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	struct tally t = {0, 0};
	DIR *d = dir ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
		size_t l = strlen(e->d_name);
		if (l < 8 || strcmp(e->d_name + l - 8, ".dltrace") != 0)
			continue;
		char path[4400], err[256];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct dlt_trace *tr = dlt_trace_open(path, err, sizeof(err));
		if (tr) {
			dlt_trace_foreach(tr, count_rec, &t);
			dlt_trace_close(tr);
		}
		unlink(path);
	}
	if (d)
		closedir(d);
	double per_s = cpu * 1e3 / wall;
	printf("%-34s %s  wall %.2f s  cpu %.1f ms  = %.2f ms CPU per s", label,
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "FAILED",
	       wall, cpu * 1e3, per_s);
	if (base >= 0)
		printf(" (asked to be watched: %+.2f ms/s)", per_s - base);
	printf("  %zu STALL, %zu STACK records\n", t.stalls, t.stacks);
	return per_s;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--idle") == 0)
		return idle_main(atof(argv[2]), atoi(argv[3]));
	if (argc < 2 || argc > 4) {
		fprintf(stderr,
			"usage: wd_cost LIBDLTRACE [SECONDS [THREADS]]\n");
		return 2;
	}
	const char *lib = argv[1];
	double secs = argc > 2 ? atof(argv[2]) : 5.0;
	int threads = argc > 3 ? atoi(argv[3]) : 64;
	if (access(lib, R_OK) != 0 || secs <= 0 || threads < 0) {
		fprintf(stderr, "wd_cost: bad arguments\n");
		return 2;
	}
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 2;
	self[n] = '\0';
	char dir[] = "/tmp/wd_cost.XXXXXX";
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	char pre[4200], dd[4200];
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", lib);
	snprintf(dd, sizeof(dd), "DLTRACE_DIR=%s", dir);
	printf("%d threads in pthread_cond_wait for %g s\n", threads, secs);
	const char *const none[] = {NULL};
	measure(self, "no dltrace", none, NULL, secs, threads, -1, 0);
	const char *const off[] = {pre, dd, "DLTRACE_WATCHDOG=0", NULL};
	double base = measure(self, "dltrace, DLTRACE_WATCHDOG=0", off, dir,
			      secs, threads, -1, 0);
	/* DLTRACE_WATCHER=1: the watcher is this process's, none is started
	 * for the host. */
	const char *const on[] = {pre,
				  dd,
				  "DLTRACE_WATCHDOG=1",
				  "DLTRACE_WATCHER=1",
				  "DLTRACE_STALL_MS=5000",
				  NULL};
	measure(self, "DLTRACE_WATCHDOG=1 (tick 1 s)", on, dir, secs, threads,
		base, 1);
	const char *const fast[] = {pre,
				    dd,
				    "DLTRACE_WATCHDOG=1",
				    "DLTRACE_WATCHER=1",
				    "DLTRACE_STALL_MS=500",
				    NULL};
	measure(self, "DLTRACE_STALL_MS=500 (tick 100 ms)", fast, dir, secs,
		threads, base, 1);
	rmdir(dir);
	return 0;
}
