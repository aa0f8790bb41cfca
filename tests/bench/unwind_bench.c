/* What unwinding and naming raw stacks costs (analyzer/stacks/): the
 * stack fixtures (or the programs given) crashed under ptrace, each a few
 * times (each run at its own load addresses), then 10,000 stacks unwound
 * and named round-robin from those captures: once with a new unwinder
 * (cold: the objects opened, their CFI, symbols and DWARF read) and once
 * more with the same one (warm).  Not a test: it prints milliseconds.
 *
 *   unwind_bench [-n STACKS] [-r RUNS] [PROGRAM...]
 *   unwind_bench -l CAPTURE...        (files saved by -s DIR)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "unwind.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static size_t pass(struct dlt_unwinder *u, const struct cap *caps, size_t nc,
		   size_t stacks, size_t *frames)
{
	static struct dlt_uframe f[128];
	char stop[256];
	size_t named = 0;
	*frames = 0;
	for (size_t i = 0; i < stacks; i++) {
		const struct cap *c = &caps[i % nc];
		size_t n = dlt_unwind(u, &c->map, &c->st, f, 128, stop,
				      sizeof(stop));
		*frames += n;
		for (size_t k = 0; k < n; k++)
			named += f[k].func[0] != '\0';
	}
	return named;
}

int main(int argc, char **argv)
{
	size_t stacks = 10000;
	int runs = 4, load = 0;
	const char *save = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "n:r:ls:")) != -1) {
		if (opt == 'n')
			stacks = strtoul(optarg, NULL, 10);
		else if (opt == 'r')
			runs = atoi(optarg);
		else if (opt == 'l')
			load = 1;
		else if (opt == 's')
			save = optarg;
		else
			return 2;
	}
	const char *defs[] = {
		DLT_TEST_STK "/stk_chain", DLT_TEST_STK "/stk_signal",
		DLT_TEST_STK "/stk_libc",  DLT_TEST_STK "/stk_dbg",
		DLT_TEST_STK "/stk_stale", DLT_TEST_STK "/stk_cxx"};
	const char **progs = defs;
	size_t np = sizeof(defs) / sizeof(defs[0]);
	if (optind < argc) {
		progs = (const char **)&argv[optind];
		np = (size_t)(argc - optind);
	}
	struct cap *caps =
		calloc(np * (size_t)(runs > 0 ? runs : 1), sizeof(*caps));
	size_t nc = 0;
	for (size_t p = 0; p < np; p++) {
		if (load) {
			if (cap_load(&caps[nc], progs[p]) == 0)
				nc++;
			else
				fprintf(stderr, "%s: not a capture\n",
					progs[p]);
			continue;
		}
		if (access(progs[p], X_OK) != 0)
			continue;
		for (int r = 0; r < runs; r++) {
			const char *av[] = {progs[p], NULL};
			char err[256];
			if (cap_run(av, NULL, &caps[nc], err, sizeof(err)) !=
			    0) {
				fprintf(stderr, "%s\n", err);
				continue;
			}
			if (save) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/cap%zu", save,
					 nc);
				if (cap_save(&caps[nc], path) != 0)
					fprintf(stderr, "%s: not saved\n",
						path);
			}
			nc++;
		}
	}
	if (nc == 0) {
		fprintf(stderr, "unwind_bench: no captures\n");
		return 1;
	}
	struct dlt_unwinder *u = dlt_unwinder_new(NULL);
	size_t frames;
	double t0 = now_ms();
	size_t named = pass(u, caps, nc, stacks, &frames);
	double t1 = now_ms();
	pass(u, caps, nc, stacks, &frames);
	double t2 = now_ms();
	printf("unwind_bench: %zu captures, %zu stacks, %zu frames (%zu "
	       "named) a pass\n",
	       nc, stacks, frames, named);
	printf("cold: %.1f ms (%.1f ms per 10,000 stacks)\n", t1 - t0,
	       (t1 - t0) * 10000.0 / (double)stacks);
	printf("warm: %.1f ms (%.1f ms per 10,000 stacks)\n", t2 - t1,
	       (t2 - t1) * 10000.0 / (double)stacks);
	dlt_unwinder_free(u);
	for (size_t i = 0; i < nc; i++)
		cap_free(&caps[i]);
	free(caps);
	return 0;
}
