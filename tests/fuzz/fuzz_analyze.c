/* libFuzzer target: every dltrace-analyze command, and the launcher's
 * verdicts, over arbitrary bytes.
 *
 * The input is cut into up to FZ_MAX_TRACES traces at each trace header
 * ("DLTRACE\0" at a multiple of 8 bytes), so that a seed made of several
 * real traces one after the other (a fork, the ranks of a job) exercises
 * what relates traces to each other: the process tree, the hang analysis
 * across ranks, diff.  Each trace goes into a memfd and the commands are
 * handed /proc/self/fd/N, exactly as they are run on files.
 *
 * Whatever the input: no crash, no hang, no read outside the input, and no
 * more memory held at once than the input justifies (budget.h).  The same
 * function replays the corpus in the test suite (replay.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "commands.h"
#include "hangs.h"

#define FZ_MAX_TRACES 3
/* Fixed descriptor numbers: the links in the verdicts' directories point
 * at them once and for all. */
#define FZ_FD_BASE 900

static char fz_path[FZ_MAX_TRACES][32];
static char fz_dirs[FZ_MAX_TRACES][80]; /* dirs[k]: links to k+1 traces */
static char fz_root[64];
static FILE *fz_null;

static void fz_cleanup(void)
{
	for (int k = 0; k < FZ_MAX_TRACES; k++) {
		for (int i = 0; i <= k; i++) {
			char link[sizeof(fz_dirs) + 16];
			snprintf(link, sizeof(link), "%s/t%d.dltrace",
				 fz_dirs[k], i);
			unlink(link);
		}
		rmdir(fz_dirs[k]);
	}
	rmdir(fz_root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_null = fopen("/dev/null", "w");
	const char *tmp = getenv("TMPDIR");
	snprintf(fz_root, sizeof(fz_root), "%s/dlt-fuzz-XXXXXX",
		 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (fz_null == NULL || mkdtemp(fz_root) == NULL) {
		perror("fuzz_analyze: setup");
		abort();
	}
	for (int i = 0; i < FZ_MAX_TRACES; i++)
		snprintf(fz_path[i], sizeof(fz_path[i]), "/proc/self/fd/%d",
			 FZ_FD_BASE + i);
	for (int k = 0; k < FZ_MAX_TRACES; k++) {
		snprintf(fz_dirs[k], sizeof(fz_dirs[k]), "%s/%d", fz_root,
			 k + 1);
		if (mkdir(fz_dirs[k], 0700) != 0) {
			perror("fuzz_analyze: mkdir");
			abort();
		}
		for (int i = 0; i <= k; i++) {
			char link[sizeof(fz_dirs) + 16];
			snprintf(link, sizeof(link), "%s/t%d.dltrace",
				 fz_dirs[k], i);
			if (symlink(fz_path[i], link) != 0) {
				perror("fuzz_analyze: symlink");
				abort();
			}
		}
	}
	atexit(fz_cleanup);
	/* A fuzzed trace names files; the analyzer would read this
	 * machine's (a libc with its debug file: megabytes, whatever the
	 * input).  The stack unwinder looks for them under an empty root. */
	setenv("DLTRACE_SYSROOT", fz_dirs[0], 1);
	fz_budget_init();
	return 0;
}

/* Where each trace of the input starts; returns how many there are. */
static int fz_split(const uint8_t *data, size_t size, size_t start[],
		    size_t len[])
{
	int n = 1;
	start[0] = 0;
	for (size_t off = 8; off + 8 <= size && n < FZ_MAX_TRACES; off += 8)
		if (memcmp(data + off, "DLTRACE", 8) == 0)
			start[n++] = off;
	for (int i = 0; i < n; i++)
		len[i] = (i + 1 < n ? start[i + 1] : size) - start[i];
	return n;
}

static void fz_put(int slot, const uint8_t *p, size_t n)
{
	int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_analyze: memfd_create");
		abort();
	}
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, p + done, n - done);
		if (w <= 0) {
			perror("fuzz_analyze: write");
			abort();
		}
		done += (size_t)w;
	}
	if (dup2(fd, FZ_FD_BASE + slot) < 0) {
		perror("fuzz_analyze: dup2");
		abort();
	}
	close(fd);
}

/* Runs one command on the traces whose slots are listed; its exit status
 * must be one the documentation gives. */
static void fz_cmd(int (*cmd)(int, char **), const char *name,
		   const char *const opts[], const int slots[], int nslots)
{
	char *argv[16];
	int argc = 0;
	for (; opts[argc]; argc++)
		argv[argc] = (char *)opts[argc];
	for (int i = 0; i < nslots; i++)
		argv[argc++] = fz_path[slots[i]];
	argv[argc] = NULL;
	int rc = cmd(argc, argv);
	if (rc < 0 || rc > 2) {
		fprintf(fz_err, "fuzz_analyze: %s returned %d\n", name, rc);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t start[FZ_MAX_TRACES], len[FZ_MAX_TRACES];
	int n = fz_split(data, size, start, len);
	for (int i = 0; i < n; i++)
		fz_put(i, data + start[i], len[i]);

	/* The commands write results to stdout and damage reports to
	 * stderr; neither is wanted here.  The sanitizers and libFuzzer
	 * write to descriptor 2 directly, so their reports still show. */
	FILE *out = stdout;
	fz_err = stderr;
	stdout = fz_null;
	stderr = fz_null;
	fz_budget_begin();
	static const char *const none[] = {NULL};
	static const char *const json[] = {"--json", NULL};
	static const char *const check_json[] = {"--json", "--fail-on",
						 "warning", NULL};
	static const char *const chrome[] = {"--format", "chrome", NULL};
	static const int all[FZ_MAX_TRACES] = {0, 1, 2};
	fz_cmd(dlt_cmd_summary, "summary", none, all, n);
	fz_cmd(dlt_cmd_libs, "libs", none, all, n);
	fz_cmd(dlt_cmd_libs, "libs --json", json, all, n);
	fz_cmd(dlt_cmd_dump, "dump", none, all, n);
	fz_cmd(dlt_cmd_check, "check", none, all, n);
	fz_cmd(dlt_cmd_check, "check --json", check_json, all, n);
	fz_cmd(dlt_cmd_algos, "algos", none, all, n);
	fz_cmd(dlt_cmd_algos, "algos --json", json, all, n);
	/* Two runs: the first trace against the second, or against itself
	 * when there is only one. */
	const int pair[2] = {0, n > 1 ? 1 : 0};
	fz_cmd(dlt_cmd_diff, "diff", none, pair, 2);
	fz_cmd(dlt_cmd_diff, "diff --json", json, pair, 2);
	fz_cmd(dlt_cmd_export, "export", chrome, all, n);
	fz_cmd(dlt_cmd_hangs, "hangs", none, all, n);
	fz_cmd(dlt_cmd_hangs, "hangs --json", json, all, n);
	fz_cmd(dlt_cmd_env, "env", none, all, n);
	fz_cmd(dlt_cmd_env, "env --json", json, all, n);
	/* The page on stdout, which is the null stream here. */
	static const char *const page[] = {"-o", "-", NULL};
	static const char *const page_diff[] = {"--diff", "-o", "-", NULL};
	fz_cmd(dlt_cmd_report, "report", page, all, n);
	fz_cmd(dlt_cmd_report, "report --diff", page_diff, pair, 2);
	dlt_verdict_print(fz_null, fz_dirs[n - 1], 0);
	fz_budget_end(size, n);
	stdout = out;
	stderr = fz_err;
	for (int i = 0; i < n; i++)
		close(FZ_FD_BASE + i);
	return 0;
}
