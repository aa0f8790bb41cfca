/* Runs of one directory (runs.c): the launcher gives each of its runs an
 * identity (the header's run_id), but one job may be started by several
 * launchers at once (srun -n 8 dltrace ... gives each rank its own).  What
 * the analyzer calls a run is therefore a set of launcher runs that
 * overlap in time; a directory used again later holds another. */
#ifndef DLTRACE_RUNS_H
#define DLTRACE_RUNS_H

#include <stddef.h>
#include <stdint.h>

/* One trace: its launcher run, when it started, and when the launcher
 * reaped its command (the REAPED record's time, in the root trace of a
 * run; 0 elsewhere or when the launcher did not live to write it).  All
 * wall-clock nanoseconds. */
struct dlt_run_trace {
	uint64_t run;
	uint64_t start;
	uint64_t reaped;
};

/* Groups traces into runs: the launcher runs whose spans (first start to
 * the launcher's reap; without a reap, open to the end) overlap are one.
 * Writes each trace's run index (0, 1 ... in start order) into run_of and
 * returns the number of runs. */
size_t dlt_runs_group(const struct dlt_run_trace *t, size_t n,
		      uint32_t *run_of);

#endif
