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
#include <time.h>

#include "unwind.h"
#include "unwind_caps.h"

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
	struct ucaps uc;
	if (ucaps_gather(&uc, argc, argv, "unwind_bench") != 0)
		return 1;
	const struct cap *caps = uc.caps;
	size_t nc = uc.n, stacks = uc.stacks;
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
	ucaps_free(&uc);
	return 0;
}
