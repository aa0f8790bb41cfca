/* How a process ended as the traced parent that reaped it saw it (REAP
 * records, reaps.c): a process killed by a signal records nothing itself. */
#ifndef DLTRACE_REAPS_H
#define DLTRACE_REAPS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* One reap, seen in the reaper's trace. */
struct dlt_reap_seen {
	char host[128];	 /* pids are per machine */
	uint64_t run_id; /* and per run of a directory */
	uint32_t reaper;
	uint32_t pid;
	int32_t status;
	uint64_t wall_ns; /* when, on the wall clock */
};

struct dlt_reaps {
	struct dlt_reap_seen *r;
	size_t n, cap;
};

/* Adds the REAP records of process p. */
void dlt_reaps_add(struct dlt_reaps *rs, const struct dlt_process *p);
void dlt_reaps_free(struct dlt_reaps *rs);
/* The end of p as its parent reaped it, when p's own trace does not hold
 * the launcher's status: the earliest reap of p's pid on p's host in p's
 * run at or after p's trace began (the last image of the pid; an image
 * that ended by exec is not the one reaped).  Changes p->end to REAPED
 * with reaped_by set; returns whether it did. */
int dlt_reaps_apply(const struct dlt_reaps *rs, struct dlt_process *p);

#endif
