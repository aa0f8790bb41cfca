/* The Python stack of a thread of this process, read from CPython's own
 * memory (pystack.c over pystack/pywalk.c): for the watchdog's stalls and
 * snapshots, and for a crash handler.  CPython 3.8 to 3.13. */
#ifndef DLTRACE_PYSTACK_H
#define DLTRACE_PYSTACK_H

#include <stdint.h>
#include <sys/types.h>

/* Looks for the interpreter, its version and the layout to read it with;
 * again after objects were loaded when none was found.  Not
 * async-signal-safe (it walks the loaded objects under the loader's lock):
 * call it before a signal handler may need dlt_pystack_record, e.g. when
 * the handler is installed.  Cheap when nothing changed (one walk of the
 * loaded objects' headers). */
void dlt_pystack_prepare(void);

/* In a forked child: a look that another thread of the parent had under
 * way is not the child's (shim/lifecycle.c). */
void dlt_pystack_after_fork(void);

/* An interpreter was found by the last dlt_pystack_prepare (usable or
 * not: an unsupported version counts, no Python at all does not). */
int dlt_pystack_present(void);

/* Writes a PYSTACK record of thread tid of this process (the calling
 * thread's own stack in a signal handler: tid = gettid()) into the
 * calling thread's chunk, with timestamp ts (0: when it was read) and flags
 * (DLT_PYSTACK_F_*).  Async-signal-safe: no lock, no allocation, every
 * read of the interpreter's memory through process_vm_readv, which fails
 * instead of faulting; it never takes the GIL and never stops the thread.
 * When the stack cannot be read the record says why.  Returns the frames
 * written, or -1 when nothing was written (tracing off, no room). */
int dlt_pystack_record(pid_t tid, uint64_t ts, uint16_t flags);

/* The rank and world size the calling thread's Python frames hand to
 * torch.distributed, for a socket call during a rendezvous: its frames
 * looked at outward (at most 16) for init_process_group or
 * _create_c10d_store of torch/distributed/ and their int locals rank and
 * world_size.  init_process_group's when they are a rank (rank >= 0,
 * world_size > 0; -1 there means "from the environment"), else
 * _create_c10d_store's.  Returns the source (DLT_RANK_FROM_*) and sets
 * *rank and *world_size, or 0: none, no interpreter found yet, anything
 * unreadable.  Bounded; no lock, no allocation. */
uint32_t dlt_pystack_rank(int32_t *rank, int32_t *world_size);

#endif
