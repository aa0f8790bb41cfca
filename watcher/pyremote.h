/* Another process's CPython, found from outside (pyremote.c): through
 * /proc/PID/maps, the ELF symbol tables of its executable and libpython
 * files, and process_vm_readv of its memory; then its threads' Python
 * stacks written as the shim writes them for its own (PYSTACK records,
 * pystack/pyrecord.c).  For the watcher, which observes processes without
 * running code in them (docs/design.md, "Python stacks"). */
#ifndef DLTRACE_PYREMOTE_H
#define DLTRACE_PYREMOTE_H

#include <stdint.h>
#include <sys/types.h>

#include "pywalk.h"
#include "writer.h"

/* What is known of one process's interpreter, kept by the caller per
 * watched process (zeroed before the first dlt_pyremote_find) and handed
 * to each find of that process: a find that sees the same process as last
 * time answers from here. */
struct dlt_pyremote {
	struct dlt_pyinterp pi; /* what dlt_pyremote_record reads with */
	char why[192]; /* pi.reason in words; when OK, what was found */
	int looked;    /* 0: never looked */
	/* The process as it was when looked at: another start time (the pid
	 * was reused), executable or auxiliary vector (it exec'd) means
	 * looking again.  objs: the objects it had mapped, looked at again
	 * while no _PyRuntime was found. */
	uint64_t starttime;
	uint64_t exe_dev, exe_ino;
	uint64_t auxv_hash;
	uint64_t objs_hash;
};

/* Finds the interpreter of process pid into r (r->pi), or why there is
 * none: r->pi.reason and its words in why (cap bytes, may be NULL) and
 * r->why (when found, which CPython in which file).  Answers from r when
 * pid is the process r was last found for and it has not exec'd since
 * (nor, when no _PyRuntime was found in it, mapped other objects): a few
 * small /proc reads then.
 * Returns the reason (DLT_PYSTACK_OK: its stacks can be read;
 * DLT_PYSTACK_NO_PYTHON, DLT_PYSTACK_VERSION, DLT_PYSTACK_FREE_THREADED,
 * DLT_PYSTACK_LAYOUT, DLT_PYSTACK_UNREADABLE), or a negative errno when the
 * process cannot be looked at (-ESRCH gone, -EACCES/-EPERM not ours to read).
 * Not async-signal-safe (it opens files); it allocates nothing. */
int dlt_pyremote_find(pid_t pid, struct dlt_pyremote *r, char *why, size_t cap);

/* Writes a PYSTACK record of thread tid of process pi->pid into writer w,
 * in the chunk of t (the calling thread's state for w), with timestamp ts
 * (0: when it was read) and flags: the record the shim writes for that
 * thread in that process, read from outside.  pi is a found one
 * (dlt_pyremote_find's r->pi; one whose reason is not OK gives a record
 * that says why).  The process is not stopped: a waiting thread gives its
 * stack, a running one may give a stack that mixes two moments.  Returns
 * the frames written, or -1 when nothing was written. */
int dlt_pyremote_record(struct dlt_writer *w, struct dlt_tls *t,
			const struct dlt_pyinterp *pi, pid_t tid, uint64_t ts,
			uint16_t flags);

#endif
