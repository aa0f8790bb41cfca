/* Timestamps for the trace: CLOCK_MONOTONIC nanoseconds, read through the
 * CPU's time-stamp counter where that is safe.
 *
 * Why not clock_gettime on every record: a traced hot call takes two
 * timestamps, and the vDSO read costs 25-40 ns on a KVM guest whose clock
 * source is kvm-clock (measured on the development VM), more than the whole
 * per-call budget of docs/performance.md.  rdtsc costs about 11 ns there.
 *
 * How the counter becomes CLOCK_MONOTONIC time: each thread keeps an anchor,
 * a (tsc, ns) pair read together, and extrapolates from it with a
 * process-wide rate.  The rate is measured against CLOCK_MONOTONIC over the
 * life of the process (from the first anchor to the latest), so it gets
 * better as the process runs; an anchor older than DLT_ANCHOR_NS is renewed
 * with one clock_gettime, which bounds the error of any timestamp to the
 * rate's error over that span (about a microsecond per second of span for a
 * rate measured over 20 ms, 100 ns for DLT_ANCHOR_NS = 100 ms; far less
 * once the process has run a few seconds).  A renewed anchor never goes
 * below what the old one gave, so one thread's timestamps never decrease.
 *
 * The counter is used only when it runs at a constant rate (x86-64: CPUID
 * 0x80000007 EDX bit 8, an invariant TSC, which hypervisors clear when they
 * cannot guarantee it; AArch64: the generic timer's virtual count, constant
 * by the architecture), when reading it is cheap (not trapped), and unless
 * dlt_clock_force_monotonic() said not to (DLTRACE_CLOCK=monotonic).
 * Otherwise every timestamp is a clock_gettime.  So is every timestamp
 * before a thread that records often asks for the counter
 * (dlt_clock_use_tsc): the check costs two CPUID instructions, each of
 * which traps to the hypervisor on a virtual machine, microseconds that a
 * process writing twenty records need not pay. */
#define _GNU_SOURCE
#include "clock.h"
#include "hot.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define DLT_ANCHOR_NS 100000000ull /* renew a thread's anchor after 100 ms */
#define DLT_CAL_MIN_NS 20000000ull /* rate usable after 20 ms of baseline */

DLT_HOT static struct dlt_clock_shared dlt_clock_own;
static struct dlt_clock_shared *dlt_clk = &dlt_clock_own;

/* Each anchor keeps the rate it was made with: one straight line per
 * anchor, so that a thread's time only grows. */
DLT_TLS struct dlt_anchor dlt_anchor;

static uint64_t dlt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

DLT_START void dlt_clock_share(struct dlt_clock_shared *s)
{
	if (s == dlt_clk)
		return;
	int zero = 0;
	int st = atomic_load(&dlt_clk->tsc_state);
	if (st != 0 &&
	    atomic_compare_exchange_strong(&s->tsc_state, &zero, st)) {
		atomic_store(&s->mult, atomic_load(&dlt_clk->mult));
		atomic_store(&s->cal_tsc, atomic_load(&dlt_clk->cal_tsc));
		atomic_store(&s->cal_ns, atomic_load(&dlt_clk->cal_ns));
	} else if (st < 0) {
		/* DLTRACE_CLOCK=monotonic here holds for the shared state. */
		atomic_store(&s->tsc_state, st);
	}
	dlt_clk = s;
}

#if DLT_HAVE_COUNTER
static int dlt_tsc_probe(void)
{
#if defined(__x86_64__)
	/* Only an invariant TSC runs at one rate in every power state.  Two
	 * CPUID instructions, not __get_cpuid's four: each traps to the
	 * hypervisor on a virtual machine (4 to 8 us each measured). */
	unsigned a, b, c, d;
	__cpuid(0x80000000u, a, b, c, d);
	if (a < 0x80000007u)
		return -1;
	__cpuid(0x80000007u, a, b, c, d);
	if (!(d & (1u << 8)))
		return -1;
#endif
	/* AArch64's generic timer has a constant rate by the architecture.
	 * A hypervisor (or a kernel working around a timer erratum) that
	 * traps the read makes it cost microseconds: then the vDSO clock is
	 * the cheaper of the two. */
	uint64_t t0 = dlt_mono_ns();
	uint64_t x = 0;
	for (int i = 0; i < 64; i++)
		x ^= dlt_counter();
	uint64_t t1 = dlt_mono_ns();
	(void)x;
	return (t1 - t0) / 64 < 100 ? 1 : -1;
}

static inline uint64_t dlt_extrapolate(const struct dlt_anchor *a, uint64_t tsc)
{
	return a->ns +
	       (uint64_t)(((unsigned __int128)(tsc - a->tsc) * a->mult) >> 32);
}

/* Reads the counter and the clock together and makes them this thread's
 * anchor; returns the clock's reading (or the old anchor's extrapolation
 * when that is later, so that time never goes back in one thread). */
static uint64_t dlt_reanchor(void)
{
	uint64_t a = dlt_counter();
	uint64_t ns = dlt_mono_ns();
	uint64_t b = dlt_counter();
	uint64_t mult =
		atomic_load_explicit(&dlt_clk->mult, memory_order_relaxed);
	int had = dlt_anchor.span != 0;
	/* Preempted between the reads: no anchor this time. */
	if (b - a > 200000u) {
		if (had) {
			/* keep extrapolating from the old anchor */
			uint64_t old = dlt_extrapolate(&dlt_anchor, b);
			dlt_anchor.span = 0;
			return old > ns ? old : ns;
		}
		return ns;
	}
	uint64_t tsc = a + (b - a) / 2;
	uint64_t cal_tsc =
		atomic_load_explicit(&dlt_clk->cal_tsc, memory_order_relaxed);
	if (cal_tsc == 0) {
		uint64_t zero = 0;
		if (atomic_compare_exchange_strong(&dlt_clk->cal_ns, &zero, ns))
			atomic_store(&dlt_clk->cal_tsc, tsc);
		dlt_anchor.span = 0;
		return ns;
	}
	uint64_t cal_ns =
		atomic_load_explicit(&dlt_clk->cal_ns, memory_order_relaxed);
	if (ns > cal_ns + DLT_CAL_MIN_NS && tsc > cal_tsc) {
		uint64_t m =
			(uint64_t)(((unsigned __int128)(ns - cal_ns) << 32) /
				   (tsc - cal_tsc));
		if (m != 0) {
			atomic_store_explicit(&dlt_clk->mult, m,
					      memory_order_relaxed);
			mult = m;
		}
	}
	if (had) {
		uint64_t old = dlt_extrapolate(&dlt_anchor, tsc);
		if (old > ns)
			ns = old;
	}
	if (mult == 0) {
		dlt_anchor.span = 0;
		return ns;
	}
	dlt_anchor.tsc = tsc;
	dlt_anchor.ns = ns;
	dlt_anchor.mult = mult;
	dlt_anchor.span =
		(uint64_t)(((unsigned __int128)DLT_ANCHOR_NS << 32) / mult);
	return ns;
}
#endif

#if DLT_HAVE_COUNTER
/* The first timestamp of the process starts the rate's baseline, before
 * anyone asked whether the counter will be used: when a thread does ask
 * (a GPU call, later), the rate is known at once, instead of every
 * timestamp of its first 20 ms being a clock read. */
static uint64_t dlt_baseline(void)
{
	uint64_t a = dlt_counter();
	uint64_t ns = dlt_mono_ns();
	uint64_t b = dlt_counter();
	uint64_t zero = 0;
	if (b - a <= 200000u &&
	    atomic_compare_exchange_strong(&dlt_clk->cal_ns, &zero, ns))
		atomic_store(&dlt_clk->cal_tsc, a + (b - a) / 2);
	return ns;
}
#endif

DLT_START uint64_t dlt_now_slow(void)
{
#if DLT_HAVE_COUNTER
	int st =
		atomic_load_explicit(&dlt_clk->tsc_state, memory_order_relaxed);
	if (st > 0)
		return dlt_reanchor();
	if (st == 0 &&
	    atomic_load_explicit(&dlt_clk->cal_ns, memory_order_relaxed) == 0)
		return dlt_baseline();
#endif
	return dlt_mono_ns();
}

void dlt_clock_use_tsc(void)
{
#if DLT_HAVE_COUNTER
	if (atomic_load_explicit(&dlt_clk->tsc_state, memory_order_relaxed) ==
	    0)
		atomic_store(&dlt_clk->tsc_state, dlt_tsc_probe());
#endif
}

void dlt_clock_force_monotonic(void)
{
	atomic_store(&dlt_clk->tsc_state, -1);
}

int dlt_clock_uses_tsc(void)
{
	return atomic_load(&dlt_clk->tsc_state) > 0;
}
