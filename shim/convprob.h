/* Convolution problems (convprob.c). */
#ifndef DLTRACE_CONVPROB_H
#define DLTRACE_CONVPROB_H

#include <stdint.h>

#include "dltrace/format.h"

/* Writes a CONV_PROBLEM whose fields (all but the header and id) are
 * filled in, the first time this process sees it; returns its id. */
uint64_t dlt_conv_problem_emit(struct dlt_rec_conv_problem *p);

/* In a forked child: its trace has none of the parent's problems yet. */
void dlt_convprob_after_fork(void);

#endif
