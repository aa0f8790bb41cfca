/* The check engine (check.c): findings about library loading, versions,
 * GPU API errors, convolution algorithm choices and hung jobs.  The rules
 * live in analyzer/rules/, one file per finding code, and come to the
 * engine through the rule table the build makes of that folder
 * (findings.h); docs/findings.md documents every code.
 *
 * Traces are checked one at a time: each is read (model and GPU
 * aggregate), its process rules run, its findings, a short summary and
 * what the hang analysis needs of it kept, and everything else freed
 * before the next one is read.  The job rules (hangs) run once every trace
 * was read. */
#ifndef DLTRACE_CHECK_H
#define DLTRACE_CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "gpu.h"
#include "job.h"
#include "model.h"

/* Checks every trace of the job (taking and closing each), which should be
 * opened in start order (DLT_JOB_BY_START): when a child's trace is
 * checked, the status its parent reaped is known.  The job's input errors
 * become TRACE_INCOMPLETE findings (the caller says them); problems of
 * the traces read are said on diag when not NULL.  Processes end up in
 * start order, findings by process and rule.  Returns the number of traces
 * checked. */
size_t dlt_check_read(struct dlt_check *c, struct dlt_job *j, FILE *diag);
/* What a command that shows more than the findings (report) sees of each
 * trace in check's one pass: the trace, still open (it may be read again
 * through the same handle), its model, GPU aggregate and hang view, and
 * the index of its process in c->procs.  Called in job order, before the
 * job rules run. */
struct dlt_hang_proc;
struct dlt_check_each {
	void (*trace)(void *ctx, struct dlt_trace *t,
		      const struct dlt_process *p, const struct dlt_gpu *g,
		      const struct dlt_hang_proc *hp, size_t proc);
	/* After the job rules ran: every process's hang view (NULL: none). */
	void (*job)(void *ctx, const struct dlt_hang_proc *procs, size_t n);
	void *ctx;
};
size_t dlt_check_read_each(struct dlt_check *c, struct dlt_job *j, FILE *diag,
			   const struct dlt_check_each *each);
/* Reads one opened trace in one pass into its model, its GPU aggregate (g)
 * and the hang analysis's view of it (hp); the caller closes t. */
struct dlt_process *dlt_check_read_one(struct dlt_trace *t, struct dlt_gpu *g,
				       struct dlt_hang_proc *hp);
/* Runs the rules on one loaded process and keeps its summary and findings;
 * returns the index of its summary.  (export uses it on processes it reads
 * itself.) */
size_t dlt_check_process(struct dlt_check *c, const struct dlt_process *p,
			 const struct dlt_gpu *g);
/* Runs the job rules over the n processes of procs (the hang analysis's
 * view of each); proc[i] is the index in c->procs of procs[i]. */
void dlt_check_job(struct dlt_check *c, const struct dlt_hang_proc *procs,
		   size_t n, const size_t *proc);
/* A process known only from the hang analysis's view of it (hangs, the
 * launcher after --hang-timeout); returns its index in c->procs. */
size_t dlt_check_hang_proc(struct dlt_check *c, const struct dlt_hang_proc *hp);

#endif
