/* gdb's backtrace as ground truth for the stack tests (test_stacks.c,
 * test_stackverdicts.c): the functions of a crashing program's frames,
 * innermost first, down to main. */
#ifndef DLTRACE_GDBBT_H
#define DLTRACE_GDBBT_H

#include <stddef.h>

#include "unwind.h"

struct dlt_gdbframe {
	char name[256]; /* "" for "??" */
	int signal;	/* "<signal handler called>" */
};

/* The gdb the build found, and whether there is none. */
const char *dlt_gdb_path(void);
int dlt_gdb_missing(void);

/* gdb's backtrace of prog's crash, to main.  debug_dir: gdb's
 * debug-file-directory, or NULL.  Returns the number of frames. */
size_t dlt_gdb_bt(const char *prog, const char *debug_dir,
		  struct dlt_gdbframe *out, size_t cap);
/* The same for a program with arguments (cmd: NULL-terminated, at most
 * eight words). */
size_t dlt_gdb_bt_argv(const char *const cmd[], const char *debug_dir,
		       struct dlt_gdbframe *out, size_t cap);

/* Whether the unwound frame f is the function gdb named. */
int dlt_gdb_same_func(const struct dlt_uframe *f, const char *gdb);

#endif
