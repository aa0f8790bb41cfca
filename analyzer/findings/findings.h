/* The findings sink: what `check` found, kept for the output layer.
 *
 * Rules (analyzer/rules/) add findings here through their context and
 * never see how findings are printed; the engine (analyzer/engine/) fills
 * in the processes and runs the rules; the output layer
 * (analyzer/output/) writes the result.  This header is the one thing
 * the three share. */
#ifndef DLTRACE_FINDINGS_H
#define DLTRACE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"
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

/* The most characters (not bytes) of a finding's first line: one
 * terminal line.  A longer message is cut at its last clause boundary
 * before it and the rest becomes the finding's detail. */
#define DLT_HEADLINE_MAX 160

struct dlt_finding {
	const char *code;
	enum dlt_severity severity;
	size_t proc; /* index in dlt_check.procs, or DLT_NO_PROC */
	/* The headline: who, where, why, in one terminal line (at most
	 * DLT_HEADLINE_MAX characters); the rest of what the rule said is
	 * detail, shown below it (NULL none). */
	const char *message;
	const char *detail;
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
	/* Where rank and world_size came from ("init_process_group",
	 * "RANK", "ncclCommInitRank" ...: model.h's rank_source), NULL
	 * unknown. */
	const char *rank_source;
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
	uint64_t reaper_trace;	/* trace_id of the image that reaped it, or 0 */
	uint64_t rss_peak_kb;	/* peak resident set, KiB; 0 unknown */
	bool killed_by_dltrace; /* signalled after --hang-timeout */
	/* When dltrace's launcher sent it its first signal (monotonic, 0
	 * none), whatever ended it. */
	uint64_t dltrace_ts;
	struct dlt_val *versions; /* object: what the libraries reported */
	/* The whole run's GPU calls per API, AGG rows (format 2.6) and
	 * individual calls together, most calls first: an array of {api,
	 * calls, errors, total_ns, min_ns, max_ns, median_ns, p99_ns, hist}
	 * (engine/check.c); NULL for a process known without its trace. */
	struct dlt_val *gpu_calls;
	/* Monotonic ns before which some thread's calls survive only as
	 * aggregates (gpu.h's individual_from), 0 none. */
	uint64_t individual_from_ns;
	/* The header's counts of what the budget had no room for (2.6). */
	uint32_t lost_calls, lost_records;
	/* What shaped its environment (rules/envprof.h), for processes with
	 * a rank; in the check's arena.  NULL for the others. */
	struct dlt_envprof *env;
	size_t counts[3]; /* findings per severity */
};

struct dlt_oom_set;
struct dlt_check {
	struct dlt_arena_blk *arena;
	struct dlt_check_proc *procs;
	size_t nprocs, capprocs;
	struct dlt_finding *f;
	size_t nf, capf;
	size_t counts[3]; /* findings per severity */
	size_t unusable;  /* inputs that gave no process */
	size_t nruns;	  /* runs among the inputs (runs.h) */
	/* The out-of-memory evidence of the job (model/oomev.h) while the
	 * job rules run over a check's traces; NULL otherwise. */
	const struct dlt_oom_set *oom;
};

void dlt_check_init(struct dlt_check *c);
void dlt_check_free(struct dlt_check *c);

/* A new, zeroed process slot at c->procs[c->nprocs]; the caller fills it
 * and counts it. */
struct dlt_check_proc *dlt_check_new_proc(struct dlt_check *c);
/* A copy of s in the check's arena. */
const char *dlt_check_str(struct dlt_check *c, const char *s);
/* A new finding of the rule with this code and index in the rule table,
 * about c->procs[proc] (or DLT_NO_PROC); the evidence object is empty and
 * ready. */
struct dlt_finding *dlt_check_finding(struct dlt_check *c, const char *code,
				      size_t rule, enum dlt_severity sev,
				      size_t proc, const char *message);

/* Sets f's detail (replacing one the message's split made; a printf
 * format). */
void dlt_finding_detail(struct dlt_check *c, struct dlt_finding *f,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds clause after what f's detail already says (the rest of a headline
 * cut at 160 characters comes first); nothing for NULL or "". */
void dlt_finding_detail_add(struct dlt_check *c, struct dlt_finding *f,
			    const char *clause);
/* Characters (UTF-8 code points) in s. */
size_t dlt_text_chars(const char *s);

/* Sorts processes by start and findings by process, rule, severity. */
void dlt_check_sort(struct dlt_check *c);

/* How many runs the checked traces come from: launcher runs that overlap
 * in time count as one (runs.h). */
size_t dlt_check_runs(const struct dlt_check *c);

/* The highest severity found, -1 when there is no finding. */
int dlt_check_worst(const struct dlt_check *c);

/* ---- rules ------------------------------------------------------------ */

/* A process rule looks at one process (its model and GPU aggregate) and
 * adds findings with dlt_rule_finding; a job rule looks at every process
 * of the job at once (what the hang analysis read of each, hangs.h) and
 * adds findings with dlt_job_finding.  A rule that explains failed calls
 * (the driver is missing, the cuDNN sub-libraries disagree) marks them in
 * explained[] so that API_ERROR, which runs later, reports them as
 * consequences rather than causes. */
struct dlt_process;
struct dlt_gpu;
struct dlt_hang_proc;
struct dlt_wait_group;
struct dlt_wait_tree;
struct dlt_proc_cache;

struct dlt_rule_ctx {
	struct dlt_check *chk;
	const struct dlt_process *p;
	const struct dlt_gpu *g;
	size_t proc;		/* index in chk->procs */
	size_t rule;		/* index in the rule table */
	const char *code;	/* the rule's finding code */
	const char **explained; /* per g->errs entry: the explaining code */
	/* What rules ask of the process again and again (rows.c), made on
	 * first use and freed with dlt_ctx_free after its last rule. */
	struct dlt_proc_cache *cache;
};

/* A new finding of the current rule, its message formatted; the evidence
 * object is empty and ready. */
struct dlt_finding *dlt_rule_finding(struct dlt_rule_ctx *c,
				     enum dlt_severity sev, const char *fmt,
				     ...) __attribute__((format(printf, 3, 4)));
void dlt_finding_fix(struct dlt_rule_ctx *c, struct dlt_finding *f,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Marks an error group as explained by the current rule's code. */
void dlt_rule_explain(struct dlt_rule_ctx *c, size_t err_index);

/* What a job rule gets: the processes of the job, each with its index in
 * chk->procs. */
struct dlt_job_ctx {
	struct dlt_check *chk;
	/* The processes in rank order (processes without a rank last, then
	 * by pid), so that what is said does not depend on the order the
	 * traces were given in. */
	const struct dlt_hang_proc **procs;
	size_t n;
	const size_t *proc; /* per process: index in chk->procs */
	size_t rule;	    /* index in the rule table */
	const char *code;   /* the rule's finding code */
	/* Every process ended on its own without a failure: nothing hung. */
	bool completed;
	/* The hang as every job rule sees it (waits.h), made once before
	 * they run so that INIT_HANG, MISSING_RANK, STALL and JOB_HANG speak
	 * of one straggler: the groups of ranks with their straggler, and
	 * the runs without ranks with their chain. */
	const struct dlt_wait_group *groups;
	size_t ngroups;
	const struct dlt_wait_tree *trees;
	size_t ntrees;
	/* Per process: it started ranks and is none (torchrun's agent,
	 * mp.spawn's parent, srun's step, a shell), so its waits are for
	 * them. */
	const bool *launcher;
	/* Per process: a member of a group or below one (its workers). */
	const bool *judged;
};

/* A new finding of the current job rule about procs[i]. */
struct dlt_finding *dlt_job_finding(struct dlt_job_ctx *c, size_t i,
				    enum dlt_severity sev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void dlt_job_fix(struct dlt_job_ctx *c, struct dlt_finding *f, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

/* A rule.  It looks at one process at a time (run) or at every process of
 * the job at once (run_job); the other is NULL.  Each file of
 * analyzer/rules/ that is a rule defines one with DLT_RULE; the build
 * makes the table of them (dlt_rules, sorted by order) from the files, so
 * no list of rules is kept by hand.  order says when the rule runs, and
 * so how its findings sort: rules that explain failed calls come before
 * API_ERROR, which reports what is left unexplained, and the job rules
 * come last (they run once every trace was read). */
struct dlt_rule {
	const char *code;
	enum dlt_severity severity; /* the usual one; a rule may differ */
	void (*run)(struct dlt_rule_ctx *c);
	void (*run_job)(struct dlt_job_ctx *c);
	const char *summary;
	unsigned order;
};

/* The build reads the first line of this macro in each rule file (its
 * name and order): keep both there. */
#define DLT_RULE(name, order_, code_, sev_, run_, run_job_, summary_) \
	const struct dlt_rule dlt_rule_def_##name = {                 \
		code_, sev_, run_, run_job_, summary_, order_}

/* The rule table, for the engine, the documentation test and "check
 * --list": generated from analyzer/rules/ (rule_table.c in the build
 * folder), sorted by order. */
extern const struct dlt_rule *const dlt_rules[];
extern const size_t dlt_nrules;

#endif
