/* The Python stack of a thread, read from a CPython's memory through
 * process_vm_readv (pywalk.c): of the calling process by the shim
 * (shim/pystack.c, for the watchdog and the crash handler) and of another
 * process by the watcher (watcher/pyremote.c).  Whoever calls it has
 * found the interpreter first and says where it is in a dlt_pyinterp;
 * the walk itself looks nothing up. */
#ifndef DLTRACE_PYWALK_H
#define DLTRACE_PYWALK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dltrace/format.h"
#include "pylayout.h"

/* Frames kept per stack (innermost first; PYSTACK.depth says how many the
 * thread had) and the bytes kept of a file and of a function name. */
#define DLT_PYSTACK_MAX_FRAMES 64
#define DLT_PYSTACK_FILE_MAX 160
#define DLT_PYSTACK_FUNC_MAX 80
/* The most text a stack's frames carry. */
#define DLT_PYSTACK_TEXT_MAX \
	(DLT_PYSTACK_MAX_FRAMES * (DLT_PYSTACK_FILE_MAX + DLT_PYSTACK_FUNC_MAX))
/* The largest PYSTACK record, what a writer reserves before the walk. */
#define DLT_PYSTACK_REC_MAX                                    \
	(sizeof(struct dlt_rec_pystack) +                      \
	 DLT_PYSTACK_MAX_FRAMES * sizeof(struct dlt_pyframe) + \
	 DLT_PYSTACK_TEXT_MAX)

/* One interpreter as a walk needs it: in which process, where, which
 * version, and whether it can be read at all.  Found by the shim for its
 * own process and by the watcher for another one; plain data, copied
 * freely. */
struct dlt_pyinterp {
	pid_t pid;	    /* whose memory is read */
	uint16_t reason;    /* DLT_PYSTACK_OK, or why no stack is read */
	uint32_t version;   /* PY_VERSION_HEX; 0 unknown */
	uint64_t runtime;   /* &_PyRuntime in that process */
	uint64_t code_type; /* &PyCode_Type there; 0 unknown (not checked) */
	int tid_off;	    /* before 3.11: the kernel tid's offset in glibc's
			     * thread descriptor; -1 unknown */
	const struct dlt_py_layout *layout; /* the version's; NULL unless OK */
};

/* Reads thread tid's stack into r (its tid, n, reason, py_version, depth,
 * addr and frames[0..n), DLT_PYFRAME_ENTRY set in the func_len of each
 * frame that C entered) and the frames' text into text, which has room
 * for DLT_PYSTACK_TEXT_MAX bytes and may be r->frames + the most frames
 * (the writer moves it down after).  Returns the text's bytes.  When pi
 * says the interpreter cannot be read, r says why, with no frames.
 * Async-signal-safe: no lock, no allocation, every read a
 * process_vm_readv of pi->pid, which fails instead of faulting, every loop
 * bounded; it never stops the thread read. */
size_t dlt_pywalk_read(const struct dlt_pyinterp *pi, uint32_t tid,
		       struct dlt_rec_pystack *r, char *text);

/* Frames sought by dlt_pywalk_find: a function named one of funcs in a
 * file whose path ends with one of files, and the int local variables of
 * it to read (at most DLT_PYWALK_LOCALS_MAX names).  Each list ends with
 * NULL. */
#define DLT_PYWALK_LOCALS_MAX 4
struct dlt_pywalk_want {
	const char *const *funcs;
	const char *const *files;
	const char *const *locals;
	int max_frames; /* frames looked at, innermost first */
	int stop_func;	/* the walk ends at a match of funcs[stop_func]; -1 */
	/* When set: the caller's memo of code objects that are no match
	 * (nomatch_n entries, a power of 2, zeroed at first), so that a
	 * frame seen before costs one read less.  An entry is a hash of the
	 * code object's address and its name's and file's: a freed code
	 * object whose address is reused by another is not taken for it. */
	_Atomic uint64_t *nomatch;
	unsigned nomatch_n;
};

/* One frame found: which of the functions, and its locals' values (bit i
 * of have: locals[i] is an int that fits in 62 bits and was read). */
struct dlt_pywalk_match {
	int func;
	unsigned have;
	int64_t val[DLT_PYWALK_LOCALS_MAX];
};

/* Walks thread tid's frames outward, at most want->max_frames of them,
 * and fills out[] with the frames that match want, innermost first (at
 * most cap).  Returns how many; 0 when none matched or nothing could be
 * read.  Bounded and async-signal-safe like the walk: a frame or object
 * that cannot be read, or is not what the layout says, is no match. */
int dlt_pywalk_find(const struct dlt_pyinterp *pi, uint32_t tid,
		    const struct dlt_pywalk_want *want,
		    struct dlt_pywalk_match *out, int cap);

/* The kernel ids of the threads that have a thread state in pi's
 * interpreters (0 for one whose id cannot be told), at most cap of them,
 * in the interpreter's order: how many, or -1 when none could be read (pi
 * not usable, its runtime or first interpreter unreadable).  Bounded and
 * async-signal-safe like the walk. */
int dlt_pywalk_threads(const struct dlt_pyinterp *pi, uint32_t *tids, int cap);

/* 3.13 publishes its own offsets at the start of _PyRuntime
 * (_Py_DebugOffsets): DLT_PYSTACK_OK when those of process pid's runtime
 * at rt agree with l, else why not (UNREADABLE, LAYOUT, FREE_THREADED). */
int dlt_pywalk_check_debug(pid_t pid, uint64_t rt,
			   const struct dlt_py_layout *l);

/* Where glibc keeps a thread's kernel id in its thread descriptor (the
 * pthread_t that CPython before 3.11 keeps as thread_id), found as the
 * calling thread's own id in its own descriptor: the same in every process
 * of this glibc.  -1 when not found. */
int dlt_pywalk_tid_offset(void);

/* Reads n bytes at addr of process pid: 0, or -1 when they are not all
 * there (not mapped, addr 0). */
int dlt_pywalk_peek(pid_t pid, void *dst, uint64_t addr, size_t n);

#endif
