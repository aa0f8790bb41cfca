/* The prefetch thread: makes the pages of the trace present in the
 * mapping before a recording thread writes there.
 *
 * Why: the writer grows the file with written zeros (tracer/file.c), so
 * its pages exist, but the first store into each page of the mapping still
 * takes a page fault, and a thread that writes a record every few
 * nanoseconds pays one per 4 KiB.  After the file grew, this thread maps
 * the new pages in with one MADV_POPULATE_WRITE, so the recording thread
 * stores into pages already there.  The recording thread does the growing
 * itself (it must be that thread: growing opens the trace file, and a
 * descriptor taken by another thread could change what the program's own
 * open() returns).
 *
 * The thread is started only once a process's trace has passed 1 MiB
 * (most processes never do), and only from a wrapper after the library
 * call returned, never from inside the writer (which may run in a signal
 * handler).  It blocks every signal, sleeps on a futex, is named
 * "dltrace-pf", and the watchdog never reports it. */
#define _GNU_SOURCE
#include "prefetch.h"
#include "hot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "state.h"
#include "thread.h"

/* 0: not wanted yet, 1: wanted, 2: running (or could not start) */
DLT_HOT _Atomic int dlt_pf_state;
static pid_t dlt_pf_pid;
DLT_HOT _Atomic uint32_t dlt_pf_tid;

static void dlt_pf_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
		0);
}

/* Runs in the recording thread whose chunk grew the file to pages. */
static void dlt_pf_grow(struct dlt_writer *w, uint32_t pages)
{
	uint32_t cur = atomic_load(&w->prefetch_upto);
	while (pages > cur &&
	       !atomic_compare_exchange_weak(&w->prefetch_upto, &cur, pages))
		;
	int st = atomic_load(&dlt_pf_state);
	if (st == 0 && pages > (DLT_STEP_MAX >> 12)) {
		int zero = 0;
		atomic_compare_exchange_strong(&dlt_pf_state, &zero, 1);
	} else if (st == 2 && dlt_pf_pid == dlt_self_pid(w)) {
		dlt_pf_wake(&w->prefetch_upto);
	}
}

static void *dlt_pf_main(void *arg)
{
	struct dlt_writer *w = arg;
	prctl(PR_SET_NAME, "dltrace-pf", 0, 0, 0);
	atomic_store(&dlt_pf_tid, (uint32_t)syscall(SYS_gettid));
	/* What the file held when the thread was asked for is in use. */
	uint32_t gen = atomic_load(&w->gen);
	uint32_t done = atomic_load(&w->prefetch_upto);
	for (;;) {
		uint32_t upto = atomic_load(&w->prefetch_upto);
		uint32_t g = atomic_load(&w->gen);
		if (g != gen) {
			gen = g;
			done = 0;
		}
		if (done < upto) {
			if (dlt_writer_prefetch(w, done, upto) != 0)
				return NULL; /* not possible here */
			done = upto;
			continue;
		}
		syscall(SYS_futex, (uint32_t *)&w->prefetch_upto,
			FUTEX_WAIT_PRIVATE, upto, NULL, NULL, 0);
	}
	return NULL;
}

void dlt_prefetch_start(void)
{
	int one = 1;
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL ||
	    !atomic_compare_exchange_strong(&dlt_pf_state, &one, 2))
		return;
	int saved = errno;
	dlt_pf_pid = getpid();
	/* Not started: the recording threads map segments themselves, as
	 * they always could. */
	(void)dlt_start_thread(dlt_pf_main, w, 64 * 1024);
	errno = saved;
}

/* Without the thread (the default: no thread of dltrace's unless the
 * user asks, docs/design.md "The watcher"), the recording thread that grew
 * the file maps the new pages in itself, with one MADV_POPULATE_WRITE per
 * growth step (1 MiB at most), once the file has passed 1 MiB: a fault per
 * 4 KiB page later cost a whole-process 6 to 9 % more on back-to-back
 * collectives (docs/performance.md).  A system call, safe where a signal
 * handler's record grows the file. */
static void dlt_pf_grow_inline(struct dlt_writer *w, uint32_t pages)
{
	static uint32_t done, gen;
	uint32_t g = atomic_load(&w->gen);
	if (g != gen) {
		gen = g;
		done = 0;
	}
	if (pages <= (DLT_STEP_MAX >> 12)) {
		done = pages;
		return;
	}
	if (done < pages && dlt_writer_prefetch(w, done, pages) == 0)
		done = pages;
}

DLT_START void dlt_prefetch_init(void)
{
	dlt_on_grow = dlt_cfg.prefetch ? dlt_pf_grow : dlt_pf_grow_inline;
}

void dlt_prefetch_after_fork(void)
{
	/* Written only when set: a store copies the page in every child of
	 * a shell that only execs (docs/performance.md). */
	if (atomic_load(&dlt_pf_state))
		atomic_store(&dlt_pf_state, 0);
	if (atomic_load(&dlt_pf_tid))
		atomic_store(&dlt_pf_tid, 0);
}
