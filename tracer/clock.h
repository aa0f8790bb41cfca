/* Trace timestamps: CLOCK_MONOTONIC nanoseconds, from the CPU's counter
 * when it runs at a constant rate (tracer/clock.c says how and why). */
#ifndef DLTRACE_CLOCK_H
#define DLTRACE_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* The CPU's counter: x86-64's time-stamp counter, AArch64's generic timer
 * (its virtual count, constant-rate by the architecture; the isb keeps the
 * read from being taken ahead of the code before it, so that one thread's
 * readings come in order). */
#if defined(__x86_64__)
#define DLT_HAVE_COUNTER 1
static inline uint64_t dlt_counter(void)
{
	return __rdtsc();
}
#elif defined(__aarch64__)
#define DLT_HAVE_COUNTER 1
static inline uint64_t dlt_counter(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}
#else
#define DLT_HAVE_COUNTER 0
#endif

/* Thread-local state of the writer's users.  The LD_AUDIT module
 * (libdltrace-audit.so, DLT_NO_TLS) has none: the loader calls it with its
 * lock held, one thread at a time, so its copies are plain variables
 * (shim/audit.c says how its chunk follows the calling thread). */
#ifdef DLT_NO_TLS
/* Plain variables, among the start-up state (hot.h): every record of
 * the module touches them. */
#define DLT_TLS __attribute__((section(".data1")))
#else
#define DLT_TLS __thread
#endif

/* A thread's last (counter, clock) pair and the rate it extrapolates with. */
struct dlt_anchor {
	uint64_t tsc;
	uint64_t ns;
	uint64_t mult; /* ns per tick, 32.32 fixed point */
	uint64_t span; /* ticks this anchor may be used for; 0: none */
};
extern DLT_TLS struct dlt_anchor dlt_anchor
	__attribute__((visibility("hidden")));

/* What the clock learns once per process: whether the counter is used,
 * and its rate.  Each copy of the library has its own until it shares one
 * (dlt_clock_share): the two copies of a process then probe the CPU once
 * and calibrate one rate. */
struct dlt_clock_shared {
	_Atomic int tsc_state;	  /* 0 unknown, 1 usable, -1 not used */
	_Atomic uint64_t mult;	  /* ns per tick, 32.32; 0 until calibrated */
	_Atomic uint64_t cal_tsc; /* the first anchor: the rate's baseline */
	_Atomic uint64_t cal_ns;
};

/* From now on this copy of the code uses s (which lives as long as the
 * process), taking over what it already knew if s knows nothing yet. */
void dlt_clock_share(struct dlt_clock_shared *s);

/* Renews this thread's anchor (or reads the clock) and returns now. */
uint64_t dlt_now_slow(void);

/* Now, in CLOCK_MONOTONIC nanoseconds; never less than the previous value
 * returned in the same thread.  Inline: hot calls take two of these. */
static inline uint64_t dlt_now_ns(void)
{
#if DLT_HAVE_COUNTER
	struct dlt_anchor *a = &dlt_anchor;
	uint64_t tsc = dlt_counter();
	uint64_t d = tsc - a->tsc;
	if (__builtin_expect(d < a->span, 1))
		return a->ns +
		       (uint64_t)(((unsigned __int128)d * a->mult) >> 32);
#endif
	return dlt_now_slow();
}

/* Timestamps come from clock_gettime until a thread that records often
 * calls this: it asks the CPU whether its counter can be used (CPUID,
 * which traps to the hypervisor on a virtual machine: microseconds that a
 * process recording a few records need not pay), once per process. */
void dlt_clock_use_tsc(void);

/* Every timestamp from now on a clock_gettime (DLTRACE_CLOCK=monotonic):
 * called before the first timestamp. */
void dlt_clock_force_monotonic(void);
/* 1 when timestamps come from the time-stamp counter. */
int dlt_clock_uses_tsc(void);

#endif
