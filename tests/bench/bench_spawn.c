/* What a short process costs: fork, exec and wait of PROG, N times for each
 * configuration, the configurations interleaved (one run of each in turn,
 * so that a busy moment of the machine falls on all of them alike).
 *
 *   bench_spawn N PROG CONFIG...
 *
 * PROG is a path, with the arguments it is given after it, separated by
 * spaces ("/usr/bin/gcc -c f.c -o f.o").
 * A CONFIG is a list of VAR=VALUE separated by spaces, added to the
 * environment of that configuration's children ("-": none); @PPID@ in a
 * value becomes the child's parent pid, as a traced parent's exec wrapper
 * writes it into DLTRACE_PARENT.  The children's output goes to
 * /dev/null (a tracer turned off says so on stderr).  For
 * each configuration one line: its index, the median of the child's minor
 * page faults (from wait4's rusage: the fork child's few before its exec
 * included, the same in every configuration: it only redirects its output
 * and execs), of the wall time from fork
 * to the end of wait4 (µs) and of the child's CPU time (user + system, µs).
 * The median of per-run figures, not a mean: a run the scheduler delayed
 * moves it by one place. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_median.h"

#define BENCH_MAX_CONFIGS 8
#define BENCH_MAX_VARS 16
#define BENCH_MAX_ARGS 16

extern char **environ;

struct bench_config {
	char **envp; /* the whole environment of its children */
	double *faults, *wall_us, *cpu_us;
};

/* The environment of a configuration, made in the parent before any run:
 * environ with each VAR=VALUE of s put in (a variable already there is
 * replaced) and @PPID@ replaced by this process's pid.  The child then
 * only execs it.  It used to putenv the variables after the fork, and the
 * C library's allocations and formatting there cost the child 17 page
 * faults and about 50 us of plain /bin/true's 600, counted against every
 * configuration with variables (docs/performance.md, "Issue 31"). */
static char **make_env(char *s)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + BENCH_MAX_VARS + 1, sizeof(char *));
	if (env == NULL)
		return NULL;
	memcpy(env, environ, n * sizeof(char *));
	if (strcmp(s, "-") == 0)
		return env;
	int added = 0;
	for (char *tok = strtok(s, " "); tok && added < BENCH_MAX_VARS;
	     tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		if (eq == NULL)
			continue;
		char *var = tok;
		char *at = strstr(tok, "@PPID@");
		if (at != NULL) {
			size_t len = strlen(tok) + 16;
			var = malloc(len);
			if (var == NULL)
				return NULL;
			snprintf(var, len, "%.*s%d%s", (int)(at - tok), tok,
				 (int)getpid(), at + 6);
		}
		size_t name = (size_t)(eq - tok) + 1;
		size_t i = 0;
		while (i < n && strncmp(env[i], var, name) != 0)
			i++;
		env[i] = var;
		if (i == n)
			n++;
		added++;
	}
	return env;
}

/* One fork+exec+wait; -1 when the child did not exit with status 0. */
static int run_once(const struct bench_config *c, char **argv, int devnull,
		    double *faults, double *wall, double *cpu)
{
	double t0 = now_us();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(devnull, 1);
		dup2(devnull, 2);
		execve(argv[0], argv, c->envp);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*wall = now_us() - t0;
	*faults = (double)ru.ru_minflt;
	*cpu = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_spawn N PROG CONFIG...\n");
		return 2;
	}
	int n = atoi(argv[1]);
	int nc = argc - 3;
	if (n < 1 || nc > BENCH_MAX_CONFIGS) {
		fprintf(stderr, "bench_spawn: N >= 1, at most %d configs\n",
			BENCH_MAX_CONFIGS);
		return 2;
	}
	/* PROG may carry its arguments, separated by spaces. */
	char *child_argv[BENCH_MAX_ARGS + 1];
	int na = 0;
	for (char *tok = strtok(argv[2], " "); tok && na < BENCH_MAX_ARGS;
	     tok = strtok(NULL, " "))
		child_argv[na++] = tok;
	child_argv[na] = NULL;
	if (na == 0)
		return 2;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		return 1;
	struct bench_config cs[BENCH_MAX_CONFIGS];
	for (int k = 0; k < nc; k++) {
		cs[k].envp = make_env(argv[3 + k]);
		cs[k].faults = calloc((size_t)n, sizeof(double));
		cs[k].wall_us = calloc((size_t)n, sizeof(double));
		cs[k].cpu_us = calloc((size_t)n, sizeof(double));
		if (!cs[k].envp || !cs[k].faults || !cs[k].wall_us ||
		    !cs[k].cpu_us)
			return 1;
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < nc; k++)
			if (run_once(&cs[k], child_argv, devnull,
				     &cs[k].faults[i], &cs[k].wall_us[i],
				     &cs[k].cpu_us[i]) != 0) {
				fprintf(stderr,
					"bench_spawn: %s failed in config %d\n",
					argv[2], k);
				return 1;
			}
	for (int k = 0; k < nc; k++)
		printf("%d %.0f %.1f %.1f\n", k, median(cs[k].faults, n),
		       median(cs[k].wall_us, n), median(cs[k].cpu_us, n));
	return 0;
}
