/* The memory budget of a fuzz target: the most a run over one input may
 * hold at once.  A fixed part per trace for the tables every load has
 * whatever the input (per-type counters, hang state, arenas, stdio), and a
 * multiple of the input for what grows with its records.  A length or
 * count field that makes the code allocate beyond this is a finding, even
 * when the allocation succeeds.
 *
 * Checked where the allocator can be watched (under AddressSanitizer, with
 * libFuzzer or in replay.c); elsewhere the functions do nothing.
 *   FZ_SHOW_PEAK=1   print each input's peak and budget
 *   FZ_SHOW_BIG=N    print the stack of every allocation of N bytes or more
 */
#ifndef DLT_FUZZ_BUDGET_H
#define DLT_FUZZ_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* The entry points libFuzzer (or replay.c) calls. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include <stdio.h>
#include <stdlib.h>

#define FZ_BUDGET_PER_TRACE (2u << 20)
#define FZ_BUDGET_PER_BYTE 64u

#if defined(__SANITIZE_ADDRESS__)
#define FZ_WATCH_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_WATCH_MALLOC 1
#endif
#endif

static FILE *fz_err; /* where budget reports go (stderr unless set) */

#ifdef FZ_WATCH_MALLOC
/* The sanitizers' allocator interface; GCC does not ship its header. */
int __sanitizer_install_malloc_and_free_hooks(
	void (*malloc_hook)(const volatile void *, size_t),
	void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);
void __sanitizer_print_stack_trace(void);

static int fz_watching;
static size_t fz_live, fz_peak;
static size_t fz_show_big;

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
		fprintf(fz_err, "fuzz: %zu bytes allocated, %zu held\n", n,
			fz_live);
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

static void fz_budget_init(void)
{
	fz_err = stderr;
#ifdef FZ_WATCH_MALLOC
	const char *big = getenv("FZ_SHOW_BIG");
	fz_show_big = big ? strtoul(big, NULL, 10) : 0;
	__sanitizer_install_malloc_and_free_hooks(fz_on_malloc, fz_on_free);
#endif
}

static void fz_budget_begin(void)
{
#ifdef FZ_WATCH_MALLOC
	fz_live = fz_peak = 0;
	fz_watching = 1;
#endif
}

/* Ends the watch of one input of size bytes holding ntraces traces. */
static void fz_budget_end(size_t size, int ntraces)
{
#ifdef FZ_WATCH_MALLOC
	fz_watching = 0;
	size_t budget = (size_t)ntraces * FZ_BUDGET_PER_TRACE +
			FZ_BUDGET_PER_BYTE * size;
	if (getenv("FZ_SHOW_PEAK"))
		fprintf(fz_err,
			"fuzz: %zu bytes in %d trace(s): peak %zu bytes held, "
			"budget %zu\n",
			size, ntraces, fz_peak, budget);
	if (fz_peak > budget) {
		fprintf(fz_err,
			"fuzz: %zu bytes held at once for an input of %zu "
			"bytes in %d trace(s); the budget is %zu\n",
			fz_peak, size, ntraces, budget);
		abort();
	}
#else
	(void)size;
	(void)ntraces;
#endif
}

#endif
