/* Trace pages made present ahead of use (prefetch.c): by the recording
 * thread as it grows the file, or by a thread of dltrace's where the user
 * asks for one (DLTRACE_PREFETCH=1). */
#ifndef DLTRACE_PREFETCH_H
#define DLTRACE_PREFETCH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* 1 when a recording thread asked for the thread and it is not started. */
extern _Atomic int dlt_pf_state;
/* Its thread id once running, else 0. */
extern _Atomic uint32_t dlt_pf_tid;

/* In the preload copy's constructor: the pages of the file made present
 * as it grows, past its first MiB. */
void dlt_prefetch_init(void);
/* Starts the thread if it was asked for; call only where the program
 * itself could create a thread (after a wrapped library call). */
void dlt_prefetch_start(void);
static inline void dlt_prefetch_poll(void)
{
	if (__builtin_expect(atomic_load_explicit(&dlt_pf_state,
						  memory_order_relaxed) == 1,
			     0))
		dlt_prefetch_start();
}
/* In a forked child: the thread is gone. */
void dlt_prefetch_after_fork(void);

#endif
