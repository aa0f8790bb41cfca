/* A thread's stack as the findings show it (stackview.c): the native
 * frames unwound offline from a RAWSTACK (stacks/unwind.h) without
 * dltrace's own, the thread's Python frames put in place of the
 * interpreter's evaluation frames they ran in, runs of one recursing
 * function folded, and what a verdict needs to read off it: the crash
 * site, a stack overflow, a call into the loader. */
#ifndef DLTRACE_STACKVIEW_H
#define DLTRACE_STACKVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"
#include "unwind.h"

#define DLT_SV_MAX_NATIVE 256 /* native frames unwound */
#define DLT_SV_MAX_ROWS 96    /* rows shown */

enum dlt_sv_kind {
	DLT_SV_NATIVE = 1,
	DLT_SV_PYTHON = 2,
};

/* One row: a native frame (an index into nat) or a Python frame, with
 * how many times it repeats (a recursion folded: repeat > 1). */
struct dlt_sv_row {
	uint8_t kind; /* enum dlt_sv_kind */
	uint32_t nat; /* DLT_SV_NATIVE: index into the view's nat */
	uint32_t repeat;
	char text[288]; /* "step (train.py:42)" / "strlen+0x11 (libc.so.6)" */
};

struct dlt_stack_view {
	struct dlt_uframe *nat; /* innermost first, dltrace's frames left out */
	size_t nnat;
	char stop[160];		 /* why unwinding ended */
	bool scanned;		 /* some frames came from the scan */
	bool merged;		 /* Python frames are in the rows */
	struct dlt_sv_row *rows; /* innermost first */
	size_t nrows;
};

/* The analyzer's one unwinder (its objects read once for every stack). */
struct dlt_unwinder *dlt_sv_unwinder(void);

/* Unwinds st against map, merges the PYSTACK py (NULL none) into it.
 * Returns 0, -1 when there is nothing to unwind. */
int dlt_sv_build(const struct dlt_umap *map, const struct dlt_ustack *st,
		 const struct dlt_rec_pystack *py, struct dlt_stack_view *v);
void dlt_sv_free(struct dlt_stack_view *v);

/* The rows again, with the PYSTACK py merged in (a stall's Python stack
 * is written after its RAWSTACK). */
void dlt_sv_merge(struct dlt_stack_view *v, const struct dlt_rec_pystack *py);

/* The native frames as the stall rows and rules read them, innermost
 * first, " < " between: "libc.so.6!__futex_abstimed_wait_common+0x2b",
 * "libfoo.so+0x1139" (unnamed), at most max frames.  Returns buf. */
const char *dlt_sv_text(const struct dlt_stack_view *v, size_t max, char *buf,
			size_t cap);

/* The file is the C library, the loader, the C++ runtime or dltrace's:
 * what a crash passes through on its way to the signal (abort, raise,
 * C++'s terminate, dltrace's handler). */
bool dlt_sv_runtime(const char *path);

/* The frame a person should look at: the first, from the innermost, that
 * is not the C library's, the loader's, the C++ runtime's or the
 * unwinder's (abort, raise, strlen ...); with *plumb the innermost frame
 * when different.  Index into v->nat; 0 when all are. */
size_t dlt_sv_site(const struct dlt_stack_view *v);

/* The fault at addr is on the guard below the stack the thread ran on. */
bool dlt_sv_overflow(const struct dlt_ustack *st, uint64_t addr);

/* The function that recurses (the longest run of one function among the
 * innermost frames): its index in nat and how many frames of it the copy
 * held; -1 when none repeats. */
long dlt_sv_recursing(const struct dlt_stack_view *v, size_t *count);

/* Index in nat of the first frame whose function is one of names (a
 * NULL-terminated list), -1 none. */
long dlt_sv_find(const struct dlt_stack_view *v, const char *const *names);

/* The frame is the interpreter's own code: python3, python3.11,
 * libpython3.11.so ... */
bool dlt_sv_interp(const struct dlt_uframe *f);

/* The object's file name without its directory. */
const char *dlt_sv_base(const char *path);

/* The rows outermost first as one line, "a → b → c", at most max rows
 * (the innermost kept).  Returns buf. */
const char *dlt_sv_line(const struct dlt_stack_view *v, size_t max, char *buf,
			size_t cap);

#endif
