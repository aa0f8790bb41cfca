/* Whether the process a trace was written by is running now (live.c): the
 * directory of a job can be read while it runs. */
#ifndef DLTRACE_LIVE_H
#define DLTRACE_LIVE_H

#include <stdbool.h>
#include <stdint.h>

enum dlt_live {
	DLT_LIVE_UNKNOWN = 0, /* another host, or no /proc to ask */
	DLT_LIVE_GONE,	      /* no such process, or another one has its pid */
	DLT_LIVE_RUNNING,     /* the same process, running */
	DLT_LIVE_ZOMBIE,      /* it ended and its parent has not reaped it */
};

/* Whether host is this machine's name: only then do this machine's /proc
 * and files say anything about the trace's process and libraries. */
bool dlt_is_this_host(const char *host);
/* Asks /proc on this machine about pid, when host is this machine's name:
 * the process is the trace's when it started no later than the trace did
 * (start_mono_ns, CLOCK_MONOTONIC); a process that has the pid now but
 * started later is another one. */
enum dlt_live dlt_live_state(const char *host, uint32_t pid,
			     uint64_t start_mono_ns);
/* "running", "gone", "ended, not yet reaped", "unknown (another host)". */
const char *dlt_live_name(enum dlt_live l);

#endif
