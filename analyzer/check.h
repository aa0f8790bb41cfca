/* "check": findings about library loading, versions, GPU API errors,
 * convolution algorithm choices and hung jobs.  The rules live in
 * analyzer/rules/, one file per finding code, and are listed in the table
 * in check.c; docs/findings.md documents every code.
 *
 * Traces are checked one at a time: each is loaded (model and GPU
 * aggregate), its process rules run, its findings, a short summary and
 * what the hang analysis needs of it kept, and everything else freed
 * before the next one is read.  The job rules (hangs) run once every trace
 * was read. */
#ifndef DLTRACE_CHECK_H
#define DLTRACE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu.h"
#include "model.h"
#include "value.h"

enum dlt_severity {
	DLT_SEV_INFO = 0,
	DLT_SEV_WARNING = 1,
	DLT_SEV_ERROR = 2,
};

#define DLT_SEV_NEVER 3 /* --fail-on never: above every severity */

const char *dlt_severity_name(enum dlt_severity s);
/* "error", "warning", "info", "never"; -1 for anything else. */
int dlt_severity_parse(const char *s);

#define DLT_NO_PROC SIZE_MAX

struct dlt_finding {
	const char *code;
	enum dlt_severity severity;
	size_t proc;		  /* index in dlt_check.procs, or DLT_NO_PROC */
	const char *message;	  /* one line a person can act on */
	const char *fix;	  /* what to do, or NULL */
	struct dlt_val *evidence; /* an object */
	uint64_t ts; /* CLOCK_MONOTONIC of the traced process, 0 unknown */
	size_t rule; /* index in the rule table: orders findings */
	size_t seq;  /* creation order, to keep sorting stable */
};

/* What is kept of a checked process. */
struct dlt_check_proc {
	const char *trace;
	uint32_t pid, ppid;
	int32_t rank, world_size;
	const char *host;
	const char *exe;
	uint64_t start_realtime_ns, start_monotonic_ns;
	uint64_t trace_id;
	uint64_t run_id;    /* the launcher run, 0 none */
	uint32_t run_group; /* the run among the inputs (runs.h) */
	const char *ended;  /* dlt_end_describe */
	int exit_code;	    /* -1 unknown or not an exit */
	int signal;	    /* 0 none */
	bool end_failure;   /* dlt_end_is_failure */
	/* A failure its traced parent handled: the parent reaped it and
	 * carried on (dlt_end_handleable; check.c says when). */
	bool end_handled;
	uint64_t reaper_trace; /* trace_id of the image that reaped it, or 0 */
	struct dlt_val *versions; /* object: what the libraries reported */
	size_t counts[3];	  /* findings per severity */
};

struct dlt_check {
	struct dlt_arena_blk *arena;
	struct dlt_check_proc *procs;
	size_t nprocs, capprocs;
	struct dlt_finding *f;
	size_t nf, capf;
	size_t counts[3]; /* findings per severity */
	size_t unusable;  /* inputs that gave no process */
	size_t nruns;	  /* runs among the inputs (runs.h) */
};

void dlt_check_init(struct dlt_check *c);
void dlt_check_free(struct dlt_check *c);

/* Checks every trace named by args (files, directories).  Unusable inputs
 * are said on diag (when not NULL) and become TRACE_INCOMPLETE findings.
 * Processes end up in start order, findings by process and rule.  Returns
 * the number of traces checked. */
size_t dlt_check_paths(struct dlt_check *c, int nargs, char *const args[],
		       FILE *diag);
/* Reads one trace in one pass into its model, its GPU aggregate (g) and
 * the hang analysis's view of it (hp); NULL with the reason in err when
 * the trace cannot be read (g is then still to be freed). */
struct dlt_hang_proc;
struct dlt_process *dlt_check_load(const char *path, struct dlt_gpu *g,
				   struct dlt_hang_proc *hp, char *err,
				   size_t errlen);
/* Runs the rules on one loaded process and keeps its summary and findings;
 * returns the index of its summary.  (export uses it on processes it reads
 * itself.) */
size_t dlt_check_process(struct dlt_check *c, const struct dlt_process *p,
			 const struct dlt_gpu *g);
/* Runs the job rules over the n processes of procs (the hang analysis's
 * view of each); proc[i] is the index in c->procs of procs[i]. */
struct dlt_hang_proc;
void dlt_check_job(struct dlt_check *c, const struct dlt_hang_proc *procs,
		   size_t n, const size_t *proc);
/* A process known only from the hang analysis's view of it (hangs, the
 * launcher after --hang-timeout); returns its index in c->procs. */
size_t dlt_check_hang_proc(struct dlt_check *c, const struct dlt_hang_proc *hp);

/* Sorts processes by start and findings by process, rule, severity. */
void dlt_check_sort(struct dlt_check *c);

/* How many runs the checked traces come from: launcher runs that overlap
 * in time count as one (runs.h). */
size_t dlt_check_runs(const struct dlt_check *c);

/* The highest severity found, -1 when there is no finding. */
int dlt_check_worst(const struct dlt_check *c);

/* Output: the JSON document of check --json, or the text report. */
int dlt_check_json(FILE *out, const struct dlt_check *c);
void dlt_check_text(FILE *out, const struct dlt_check *c);
/* One finding as check --json writes it; the "findings" array (most severe
 * first) and the "summary" object as members of an open object. */
struct dlt_json;
void dlt_finding_json(struct dlt_json *j, const struct dlt_check *c,
		      const struct dlt_finding *f);
void dlt_check_json_findings(struct dlt_json *j, const struct dlt_check *c);
/* The findings as the text report shows them, one block each, most severe
 * first; returns how many blocks. */
size_t dlt_check_text_findings(FILE *out, const struct dlt_check *c);
/* One line: "error LIB_NOT_FOUND pid 12 rank 0: message". */
void dlt_finding_line(FILE *out, const struct dlt_check *c,
		      const struct dlt_finding *f);

/* The rule table, for the documentation test and "check --list".  A rule
 * looks at one process at a time (run) or at every process of the job at
 * once (run_job); the other is NULL. */
struct dlt_rule_ctx;
struct dlt_job_ctx;
struct dlt_rule {
	const char *code;
	enum dlt_severity severity; /* the usual one; a rule may differ */
	void (*run)(struct dlt_rule_ctx *c);
	void (*run_job)(struct dlt_job_ctx *c);
	const char *summary;
};
extern const struct dlt_rule dlt_rules[];
extern const size_t dlt_nrules;

#endif
