/* What one raw capture costs (common/rawcap.c), as the crash handler makes
 * it: this process's /proc/self/maps read and parsed, the build-ids read
 * from memory, a MODMAP (once per process and change of its mappings), and
 * a RAWSTACK of 32 KiB of this thread's stack (once per thread), written
 * into a trace.  Prints the median and the best time of the whole
 * capture, of the module map and of the thread's stack alone, in
 * microseconds, and the trace bytes of each (not a test):
 *
 *   bench_rawcap DIR [N]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rawcap.h"
#include "record.h"
#include "writer.h"

static struct dlt_rc_maps bench_maps;

static ssize_t bench_read(void *ctx, void *dst, uint64_t addr, size_t n)
{
	struct iovec l = {dst, n}, r = {(void *)(uintptr_t)addr, n};
	return process_vm_readv(*(pid_t *)ctx, &l, 1, &r, 1, 0);
}

static uint64_t bench_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bench_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct bench_one {
	uint64_t map_ns, stack_ns;
	uint64_t map_bytes, stack_bytes;
};

static void bench_capture(struct dlt_writer *w, struct dlt_tls *t, pid_t pid,
			  struct bench_one *o)
{
	uint64_t t0 = bench_ns();
	volatile char here = 0;
	uint64_t sp = (uint64_t)(uintptr_t)&here;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dlt_rc_maps_fd(&bench_maps, fd, sp) != 0)
		exit(1);
	close(fd);
	dlt_rc_maps_ids(&bench_maps, bench_read, &pid);
	uint64_t ts = dlt_now_ns();
	dlt_rc_modmap_write(w, t, &bench_maps, ts);
	uint64_t t1 = bench_ns();
	uint32_t cap;
	struct dlt_rec_rawstack *r =
		dlt_rc_raw_begin(w, t, sp, bench_maps.stack_hi, &cap);
	if (r == NULL)
		exit(1);
	r->h.ts = ts;
	r->stack_lo = bench_maps.stack_lo;
	r->stack_hi = bench_maps.stack_hi;
	dlt_rc_raw_end(t, r, cap, bench_read, &pid);
	uint64_t t2 = bench_ns();
	o->map_ns = t1 - t0;
	o->stack_ns = t2 - t1;
	/* The records' bytes (the strings are written once). */
	o->map_bytes = sizeof(struct dlt_rec_modmap) +
		       sizeof(struct dlt_modmap_ent) * bench_maps.n;
	o->stack_bytes = sizeof(*r) + r->len;
}

static void bench_print(const char *what, uint64_t *ns, int n, uint64_t bytes)
{
	qsort(ns, (size_t)n, sizeof(*ns), bench_cmp);
	printf("%-12s median %6.1f us, best %6.1f us, %llu bytes\n", what,
	       (double)ns[n / 2] / 1000.0, (double)ns[0] / 1000.0,
	       (unsigned long long)bytes);
}

/* Room below: the capture copies 32 KiB from here up. */
static void bench_deep(int depth, struct dlt_writer *w, struct dlt_tls *t,
		       int n)
{
	volatile char pad[4096];
	pad[0] = 0;
	if (depth > 0) {
		bench_deep(depth - 1, w, t, n);
		/* After the call: no tail call, a frame per level. */
		pad[1] = 1;
		return;
	}
	pid_t pid = getpid();
	uint64_t *all = calloc((size_t)n, sizeof(*all));
	uint64_t *map = calloc((size_t)n, sizeof(*map));
	uint64_t *stk = calloc((size_t)n, sizeof(*stk));
	struct bench_one o = {0, 0, 0, 0};
	for (int i = 0; i < n; i++) {
		bench_capture(w, t, pid, &o);
		map[i] = o.map_ns;
		stk[i] = o.stack_ns;
		all[i] = o.map_ns + o.stack_ns;
	}
	printf("%u executable mappings\n", bench_maps.n);
	bench_print("capture:", all, n, o.map_bytes + o.stack_bytes);
	bench_print("module map:", map, n, o.map_bytes);
	bench_print("stack:", stk, n, o.stack_bytes);
	free(all);
	free(map);
	free(stk);
	(void)pad[0];
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_rawcap DIR [N]\n");
		return 2;
	}
	int n = argc > 2 ? atoi(argv[2]) : 200;
	if (n < 1)
		n = 1;
	static struct dlt_writer w;
	static struct dlt_tls t;
	struct dlt_open_params o;
	memset(&o, 0, sizeof(o));
	o.dir = argv[1];
	o.host = "bench";
	o.rank = -1;
	o.max_size = 1ull << 30;
	if (dlt_writer_create(&w, &o) != 0) {
		fprintf(stderr, "bench_rawcap: no trace in %s\n", argv[1]);
		return 1;
	}
	bench_deep(10, &w, &t, n);
	dlt_writer_close(&w, &t);
	return 0;
}
