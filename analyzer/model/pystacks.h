/* A thread's Python stack as the analyses keep it (pystacks.c): the
 * frames of one PYSTACK record as text, for the stall they belong to.
 * hangs.c gives each stall the PYSTACK the watchdog wrote with it (same
 * thread, written after the stall's record); any other analysis that
 * meets PYSTACK records (a crash, a straggler) summarises them with
 * dlt_pystack_sum_of. */
#ifndef DLTRACE_PYSTACKS_H
#define DLTRACE_PYSTACKS_H

#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"

#define DLT_PYSTACK_KEEP 16 /* frames kept, innermost first */

struct dlt_pystack_sum {
	uint32_t tid;
	uint64_t ts;
	uint32_t depth; /* frames the thread had */
	uint32_t n;	/* frames kept below */
	char why[96];	/* "" when read whole (pyframes.h's words) */
	char frames[DLT_PYSTACK_KEEP][192]; /* "file:line in function" */
};

/* The summary of record r. */
void dlt_pystack_sum_of(const struct dlt_rec_pystack *r,
			struct dlt_pystack_sum *out);

/* The innermost frame of the program's own code or of an installed
 * package (the innermost frame when all are CPython's library), its
 * file's directory left out ("train.py:40 in step"); "" when there is
 * none. */
void dlt_pystack_sum_top(const struct dlt_pystack_sum *s, char *buf,
			 size_t cap);
/* The innermost frame of the program's own code: neither CPython's library
 * nor an installed package's (torch's all_reduce says less than the line
 * that called it); "" when every frame is theirs. */
void dlt_pystack_sum_own(const struct dlt_pystack_sum *s, char *buf,
			 size_t cap);

#endif
