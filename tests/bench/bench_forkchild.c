/* What a fork child costs the process that forks, before it execs or
 * ends: run under libdltrace.so (LD_PRELOAD and LD_AUDIT), N times,
 *
 *   bench_forkchild N exit|exec
 *
 * fork, then in the child the raw exit_group (exit) or execve of
 * /bin/true with an empty environment (exec), both by system call so that
 * no wrapper of the shim records anything and only its fork handlers run.
 * Waits a little over a tick first, so that a watchdog started at load
 * (DLTRACE_WATCHDOG=1) has looked at the process, as in a job.  Prints the
 * medians of the child's minor page faults and CPU time (wait4's rusage)
 * and of the wall time from fork to the end of wait4. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_median.h"

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0;
	if (n <= 0 || (strcmp(argv[2], "exit") && strcmp(argv[2], "exec"))) {
		fprintf(stderr, "usage: bench_forkchild N exit|exec\n");
		return 2;
	}
	int exec = strcmp(argv[2], "exec") == 0;
	double *faults = calloc((size_t)n, sizeof(double));
	double *cpu = calloc((size_t)n, sizeof(double));
	double *wall = calloc((size_t)n, sizeof(double));
	if (!faults || !cpu || !wall)
		return 1;
	struct timespec tick = {1, 200 * 1000 * 1000};
	nanosleep(&tick, NULL);
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		pid_t pid = fork();
		if (pid == 0) {
			if (exec) {
				char *av[] = {"/bin/true", NULL},
				     *ev[] = {NULL};
				syscall(SYS_execve, "/bin/true", av, ev);
			}
			syscall(SYS_exit_group, 0);
		}
		if (pid < 0)
			return 1;
		struct rusage ru;
		int st;
		if (syscall(SYS_wait4, pid, &st, 0, &ru) != pid)
			return 1;
		wall[i] = now_us() - t0;
		faults[i] = (double)ru.ru_minflt;
		cpu[i] = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	}
	printf("%.0f %.0f %.0f\n", median(faults, n), median(cpu, n),
	       median(wall, n));
	return 0;
}
