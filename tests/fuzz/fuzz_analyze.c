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
 * more memory held at once than the input justifies (FZ_BUDGET, checked
 * where the allocator can be watched: under AddressSanitizer).  The same
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

#include "commands.h"
#include "hangs.h"

#define FZ_MAX_TRACES 3
/* Fixed descriptor numbers: the links in the verdicts' directories point
 * at them once and for all. */
#define FZ_FD_BASE 900

/* The memory one run of all commands may hold at once: a fixed part for
 * the tables every load has whatever the input (per-type counters, hang
 * state, arenas, stdio), per trace, and a multiple of the input for what
 * grows with the records.  A length or count field that makes the analyzer
 * allocate beyond this is a finding. */
#define FZ_BUDGET_PER_TRACE (2u << 20)
#define FZ_BUDGET_PER_BYTE 64u

#if defined(__SANITIZE_ADDRESS__)
#define FZ_WATCH_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_WATCH_MALLOC 1
#endif
#endif

static FILE *fz_err; /* the real stderr while a command runs */

#ifdef FZ_WATCH_MALLOC
/* The sanitizers' allocator interface; GCC does not ship its header. */
int __sanitizer_install_malloc_and_free_hooks(
	void (*malloc_hook)(const volatile void *, size_t),
	void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);

void __sanitizer_print_stack_trace(void);

static int fz_watching;
static size_t fz_live, fz_peak;
static size_t fz_show_big; /* FZ_SHOW_BIG=N: where blocks of N bytes come */

static void fz_on_malloc(const volatile void *p, size_t n)
{
	(void)p;
	if (!fz_watching)
		return;
	fz_live += n;
	if (fz_live > fz_peak)
		fz_peak = fz_live;
	if (fz_show_big && n >= fz_show_big) {
		fz_watching = 0;
		fprintf(fz_err, "fuzz_analyze: %zu bytes allocated, %zu held\n",
			n, fz_live);
		__sanitizer_print_stack_trace();
		fz_watching = 1;
	}
}

static void fz_on_free(const volatile void *p)
{
	if (!fz_watching || p == NULL)
		return;
	size_t n = __sanitizer_get_allocated_size(p);
	/* A block from before the watch started counts as nothing. */
	fz_live = n < fz_live ? fz_live - n : 0;
}
#endif

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
#ifdef FZ_WATCH_MALLOC
	const char *big = getenv("FZ_SHOW_BIG");
	fz_show_big = big ? strtoul(big, NULL, 10) : 0;
	__sanitizer_install_malloc_and_free_hooks(fz_on_malloc, fz_on_free);
#endif
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
#ifdef FZ_WATCH_MALLOC
	fz_live = fz_peak = 0;
	fz_watching = 1;
#endif
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
	dlt_verdict_print(fz_null, fz_dirs[n - 1]);
	dlt_hang_verdict(fz_null, fz_dirs[n - 1]);
#ifdef FZ_WATCH_MALLOC
	fz_watching = 0;
	size_t budget =
		(size_t)n * FZ_BUDGET_PER_TRACE + FZ_BUDGET_PER_BYTE * size;
	if (getenv("FZ_SHOW_PEAK"))
		fprintf(fz_err,
			"fuzz_analyze: %zu bytes in %d trace(s): peak %zu "
			"bytes held, budget %zu\n",
			size, n, fz_peak, budget);
	if (fz_peak > budget) {
		fprintf(fz_err,
			"fuzz_analyze: %zu bytes held at once for an input of "
			"%zu bytes in %d trace(s); the budget is %zu\n",
			fz_peak, size, n, budget);
		abort();
	}
#endif
	stdout = out;
	stderr = fz_err;
	for (int i = 0; i < n; i++)
		close(FZ_FD_BASE + i);
	return 0;
}
