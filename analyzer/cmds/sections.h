/* Parts of one command's output that another command shows too: the
 * report (report.c) writes the same JSON as libs, algos, hangs and export
 * write, through the same functions, so that the page and the commands
 * can never disagree. */
#ifndef DLTRACE_SECTIONS_H
#define DLTRACE_SECTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dlt_json;
struct dlt_job;
struct dlt_trace;
struct dlt_process;
struct dlt_gpu;
struct dlt_hang_proc;
struct dlt_finding;

/* libs --json: one element of "processes". */
void dlt_libs_json_process(struct dlt_json *j, const struct dlt_process *p);
/* libs --json's library objects of p, in order, each handed to fn as
 * its JSON text (for the report, which keeps each distinct one once). */
void dlt_libs_json_each(const struct dlt_process *p,
			void (*fn)(void *ctx, const char *json, size_t len),
			void *ctx);
/* env --json: one job's versions and environment, built a process at a
 * time (dlt_env_job_add), then grouped (dlt_env_job_finish: how many
 * units, ranks or processes, it compares); one element of "jobs". */
struct dlt_arena_blk;
struct dlt_envprof;
struct dlt_envp_unit;
struct dlt_env_job {
	const char *arg;
	struct dlt_arena_blk *arena;
	struct dlt_envprof **profs;
	size_t n, cap;
	struct dlt_envp_unit *units;
	size_t nu;
};
void dlt_env_job_add(struct dlt_env_job *e, const struct dlt_process *p,
		     const struct dlt_gpu *g);
size_t dlt_env_job_finish(struct dlt_env_job *e);
void dlt_env_json(struct dlt_json *j, const struct dlt_env_job *e);
void dlt_env_free(struct dlt_env_job *e);
/* diff --json, written to out (not pretty), for the arguments diff takes
 * (options and A B); returns diff's exit status. */
int dlt_diff_json(FILE *out, int argc, char **argv);
/* algos --json: one element of "processes". */
void dlt_algos_json_process(struct dlt_json *j, const struct dlt_process *p,
			    const struct dlt_gpu *g);
/* hangs: one row of the table (j NULL: as text on stdout). */
void dlt_hang_row(struct dlt_json *j, const struct dlt_hang_proc *hp);

/* export: where a process sits on the common time line: its track and
 * its two clocks read together at its start. */
struct dlt_ex_track {
	uint32_t xpid, pid;
	uint64_t start_real, start_mono;
};
/* The common origin of a job's time line: its earliest start. */
uint64_t dlt_export_origin(const struct dlt_job *jb);
/* Opens the trace-event object and its "traceEvents" array. */
void dlt_export_begin(struct dlt_json *j, uint64_t origin);
/* The events of one trace (read again through t), on track index + 1;
 * hp, its hang summary (NULL none), says what its waits are for. */
void dlt_export_events(struct dlt_json *j, struct dlt_trace *t,
		       const struct dlt_process *p, const struct dlt_gpu *g,
		       const struct dlt_hang_proc *hp, size_t index,
		       uint64_t origin, struct dlt_ex_track *track);
/* A finding as a process-wide marker on a track. */
void dlt_export_marker(struct dlt_json *j, const struct dlt_ex_track *t,
		       uint64_t origin, const struct dlt_finding *f);

#endif
