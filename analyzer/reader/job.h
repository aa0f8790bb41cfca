/* A job (job.c): the traces one command reads, found from its arguments
 * and opened once.
 *
 * Every command and the launcher's verdict start here, the way uftrace's
 * commands start from open_data_file(): the arguments (files and
 * directories) become a list of paths, each path is opened and its header
 * checked once, and the opened handle is what the command reads from.  An
 * argument or file that gives no trace is an input error, kept with the
 * job for the command to report: none is ever dropped. */
#ifndef DLTRACE_JOB_H
#define DLTRACE_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dlt_trace;

/* An input that gave no trace: an argument that names nothing readable, a
 * directory without traces, a file that is not a trace this reader can
 * read (empty, cut inside its header, of a newer major version). */
struct dlt_input_error {
	char *path;
	char *message; /* without the path */
	bool trace;    /* a file tried as a trace (else an argument) */
};

struct dlt_job_trace {
	char *path;
	struct dlt_trace *t; /* NULL once taken (dlt_job_take) */
};

enum dlt_job_order {
	/* As named: the arguments in order, a directory's traces sorted by
	 * name. */
	DLT_JOB_BY_NAME = 0,
	/* By the start of each trace (the header's wall clock), ties as
	 * named: a parent's trace comes before its children's. */
	DLT_JOB_BY_START = 1,
};

struct dlt_job_opts {
	enum dlt_job_order order;
	/* Only the traces of this launcher run (the header's run_id). */
	bool has_run;
	uint64_t run;
	/* Open the files for writing too (compact). */
	bool writable;
	/* Each companion of a watcher (format 2.3) a trace of its own, as
	 * its file is (dump, compact), instead of part of its process's. */
	bool companions_apart;
};

struct dlt_job {
	struct dlt_job_trace *traces;
	size_t ntraces;
	/* Arguments first (in order), then files, as named. */
	struct dlt_input_error *errors;
	size_t nerrors;
	/* What the job left out that is no error: a watcher's companion
	 * whose process's trace is not among the inputs (or is not of its
	 * process).  Said, never made findings. */
	struct dlt_input_error *notes;
	size_t nnotes;
	/* With has_run: the traces of other runs left out, and how many runs
	 * they come from (traces made without the launcher count as one). */
	size_t other_traces, other_runs;
};

/* Collects the traces named by argv (a file is taken as is; a directory
 * stands for every regular file in it whose name ends in ".dltrace", not
 * recursing; a file named twice, directly, through its directory or under
 * another name, is taken once), opens each once and orders them.  o may be
 * NULL (every trace, by name).  A watcher's companion (format 2.3) is
 * never a trace of the job: unless o->companions_apart, it is attached
 * (dlt_trace_attach) to the trace whose trace_id is its parent_trace_id,
 * of the same pid, exec_seq and host, and read with it; one without such
 * a trace is a note.  Returns 0 when at least one trace opened, -1 when
 * none did; the job must be closed either way. */
int dlt_job_open(struct dlt_job *j, int argc, char *const argv[],
		 const struct dlt_job_opts *o);
/* Hands trace i over to the caller, who closes it (dlt_trace_close) when
 * done, so that a command that reads one trace after another holds one at
 * a time.  NULL when it was taken already. */
struct dlt_trace *dlt_job_take(struct dlt_job *j, size_t i);
/* Says each input error, then each note, on out as "dltrace-analyze:
 * PATH: message". */
void dlt_job_say_errors(const struct dlt_job *j, FILE *out);
/* Closes the traces not taken and frees the job. */
void dlt_job_close(struct dlt_job *j);

#endif
