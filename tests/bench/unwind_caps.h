/* The captures the unwinding benchmarks replay (unwind_bench.c and
 * unwind_cmp.c): the stack fixtures (or the programs given) crashed under
 * ptrace a few times each, every run at its own load addresses, or
 * captures saved earlier.  Shared so that both measure the same stacks. */
#ifndef DLT_TEST_UNWIND_CAPS_H
#define DLT_TEST_UNWIND_CAPS_H

#include <stddef.h>

#include "capture.h"

struct ucaps {
	struct cap *caps;
	size_t n;
	/* Per capture: the program it came from (or its file with -l), so
	 * that a report can group the runs of one program. */
	const char **prog;
	size_t stacks; /* -n: stacks a pass (10,000) */
};

/* Parses the common options and takes the captures:
 *   [-n STACKS] [-r RUNS] [-s DIR] [PROGRAM...]
 *   -l CAPTURE...   (files saved by -s DIR)
 * tool names the program in messages.  0, or -1 (said on stderr) for a
 * bad option or no capture at all. */
int ucaps_gather(struct ucaps *uc, int argc, char **argv, const char *tool);
void ucaps_free(struct ucaps *uc);

#endif
