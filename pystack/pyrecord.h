/* A PYSTACK record of one thread, written into a trace (pyrecord.c): by
 * the shim for a thread of its own process, by the watcher for a thread of
 * a process it watches.  The same bytes either way. */
#ifndef DLTRACE_PYRECORD_H
#define DLTRACE_PYRECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "pywalk.h"
#include "writer.h"

/* Reads thread tid's stack in pi's process (dlt_pywalk_read) straight into
 * a PYSTACK record of writer w, in the chunk of t (the calling thread's
 * state for that writer), with timestamp ts (0: when it was read) and
 * flags (DLT_PYSTACK_F_*).  Reserves the largest record and gives back
 * what it does not hold.  Async-signal-safe where the walk is; errno is
 * kept.  Returns the frames written, or -1 when nothing was written (w
 * NULL, no room). */
int dlt_pyrecord_write(struct dlt_writer *w, struct dlt_tls *t,
		       const struct dlt_pyinterp *pi, pid_t tid, uint64_t ts,
		       uint16_t flags);

#endif
