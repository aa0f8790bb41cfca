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
	uint64_t ts;	       /* when, on the reaper's clock */
	uint64_t wall_ns;      /* when, on the wall clock */
	uint64_t reaper_trace; /* the reaper's trace_id */
	/* When the reaper forked pid (its latest FORK record of it before
	 * the reap), 0 when it did not: the child may have left no trace. */
	uint64_t forked_wall_ns;
};

struct dlt_reaps {
	struct dlt_reap_seen *r;
	size_t n, cap;
	/* The reaps of a pid, in a chained hash table: head[pid's bucket]
	 * and next[reap] hold a reap's index + 1, 0 ending a chain; nb is a
	 * power of two, doubled as reaps come.  A DataLoader forks workers
	 * every epoch: a job can have thousands of processes, and a pass over
	 * every reap for each process was quadratic. */
	uint32_t *head, *next;
	size_t nb;
};

/* Adds the REAP records of process p, each child once: a second reap of
 * a pid after the same fork, with the same status, was a peek recorded as
 * a reap (traces of older shims). */
void dlt_reaps_add(struct dlt_reaps *rs, const struct dlt_process *p);
void dlt_reaps_free(struct dlt_reaps *rs);
/* The first reap of pid (index + 1, 0 for none) and the next one after
 * reap i (index + 1, 0 for none): every reap of a pid on any host, run. */
size_t dlt_reaps_first(const struct dlt_reaps *rs, uint32_t pid);
size_t dlt_reaps_next(const struct dlt_reaps *rs, size_t i);
/* The end of p as its parent reaped it, when p's own trace does not hold
 * the launcher's status: the earliest reap of p's pid on p's host in p's
 * run at or after p's trace began (the last image of the pid; an image
 * that ended by exec is not the one reaped).  Changes p->end to REAPED
 * with reaped_by set; returns whether it did. */
int dlt_reaps_apply(const struct dlt_reaps *rs, struct dlt_process *p);

/* Whether s can be the end of the process image with this pid, host, run
 * and start (wall clock): the match dlt_reaps_apply makes. */
int dlt_reap_is_of(const struct dlt_reap_seen *s, uint32_t pid,
		   const char *host, uint64_t run_id, uint64_t start_wall_ns);

/* A forked child that recorded nothing has no trace (format 2.0 makes a
 * child's trace at its first record): when no image of the inputs matches
 * a reap of a child its reaper forked (dlt_reap_is_of), the reap is all
 * there is of it.  Fills *e with that end (REAPED by the reaper) and
 * returns its description, with what is missing said, in buf. */
const char *dlt_reap_untraced(const struct dlt_reap_seen *s, struct dlt_end *e,
			      char *buf, size_t len);

#endif
