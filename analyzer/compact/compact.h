/* Traces of processes that have ended, made to hold what was recorded
 * (compact.c): the file cut to the end of its data, and the blocks of
 * chunk tails never written given back to the file system.  For traces
 * that were not cut when their process ended: killed ones, and those of
 * runs without the launcher (srun, torchrun). */
#ifndef DLTRACE_COMPACT_H
#define DLTRACE_COMPACT_H

#include <stdint.h>

enum dlt_compact_verdict {
	DLT_COMPACT_DONE = 0,	    /* compacted, or nothing to give back */
	DLT_COMPACT_LIVE = 1,	    /* a process maps it: left alone */
	DLT_COMPACT_OTHER_HOST = 2, /* written on another host: left alone */
	DLT_COMPACT_NO_LOCK = 3,    /* its writer held no lock: left alone */
	DLT_COMPACT_BAD = 4,	    /* not a trace this reader knows */
	DLT_COMPACT_ERROR = 5,	    /* a system call failed (why says) */
};

/* Trust the file system's locks for traces written on other hosts (it
 * must pass them between hosts: NFSv4, Lustre mounted with flock, GPFS
 * do; NFS mounted with nolock does not). */
#define DLT_COMPACT_ALL_HOSTS 0x1u

struct dlt_compact_result {
	int verdict; /* enum dlt_compact_verdict */
	char host[128];
	char why[256];
	uint64_t size_before, size_after; /* bytes (st_size) */
	uint64_t disk_before, disk_after; /* bytes on disk (st_blocks) */
};

/* Compacts one trace unless a live process maps it (format.h: the lock),
 * holding an exclusive lock on it meanwhile.  Returns r->verdict.  The
 * trace must be opened for writing (a job's with writable, job.h); it
 * stays open. */
struct dlt_trace;
int dlt_compact_trace(struct dlt_trace *t, unsigned flags,
		      struct dlt_compact_result *r);
/* The same for the trace at path (opened and closed here). */
int dlt_compact_file(const char *path, unsigned flags,
		     struct dlt_compact_result *r);

#endif
