/* The out-of-memory killer's evidence across the traces of a job
 * (oomev.c): every memory cgroup reading (MEMCG records, by whichever
 * process or launcher took it) and every death by SIGKILL, so that a
 * death can be set between a reading before it and one after it. */
#ifndef DLTRACE_OOMEV_H
#define DLTRACE_OOMEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct dlt_oom_reading {
	const char *host; /* counters are per machine */
	const char *cgroup;
	uint64_t wall_ns;
	uint32_t flags;	  /* DLT_MEMCG_* */
	uint32_t subject; /* pid */
	uint64_t oom_kills, limit, sys_oom_kills;
};

struct dlt_oom_death {
	size_t proc; /* the caller's index of the process */
	const char *host;
	uint32_t pid;
	uint64_t alive_wall_ns; /* last sign of life */
	uint64_t death_wall_ns; /* when its parent or the launcher saw it */
	const char *cgroup;	/* its own (its watchdog's reading), "" */
	uint64_t rss_peak_kb;
};

struct dlt_oom_set {
	struct dlt_arena_blk *arena;
	struct dlt_oom_reading *r;
	size_t nr, capr;
	struct dlt_oom_death *d;
	size_t nd, capd;
};

/* Adds p's readings, and p itself when SIGKILL ended it and dltrace did
 * not send it (proc is kept for the caller). */
void dlt_oom_add(struct dlt_oom_set *s, const struct dlt_process *p,
		 size_t proc);
void dlt_oom_free(struct dlt_oom_set *s);

enum dlt_oom_kind {
	DLT_OOM_NO_EVIDENCE = 0, /* no reading before and after */
	DLT_OOM_NONE,		 /* readings, and no OOM kill counted */
	DLT_OOM_MACHINE,	 /* the machine counted one, its cgroup is not
				    known to have */
	DLT_OOM_CGROUP,		 /* its cgroup counted one */
};

#define DLT_OOM_MAX_OTHERS 16

struct dlt_oom_verdict {
	enum dlt_oom_kind kind;
	/* The cgroup judged (NULL for MACHINE and NO_EVIDENCE), whether it
	 * is the process's own (else its parent's or the launcher's), its
	 * readings before and after; the machine's. */
	const char *cgroup;
	bool own;
	const struct dlt_oom_reading *before, *after;
	const struct dlt_oom_reading *sys_before, *sys_after;
	/* Other deaths by SIGKILL of that cgroup (or machine) between the
	 * readings: indexes into s->d. */
	size_t others[DLT_OOM_MAX_OTHERS];
	size_t nothers;
};

/* The evidence about death s->d[i]. */
void dlt_oom_judge(const struct dlt_oom_set *s, size_t i,
		   struct dlt_oom_verdict *v);

#endif
