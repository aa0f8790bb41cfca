/* MISSING_RANK: a communicator (one unique-id hash, nranks N) in which
 * ranks of 0..N-1 never entered init, ranks of a communicator that never
 * entered the split others wait in, or a job (one
 * MASTER_ADDR:MASTER_PORT and WORLD_SIZE) with ranks that left no trace.
 *
 * An error while the job did not complete; an info when the communicator
 * formed (an init returned success, which NCCL does only once every rank
 * joined) or the job completed: those ranks ran, only without dltrace or
 * elsewhere. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

static void dlt_comm_missing(struct dlt_job_ctx *c, size_t i)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	int32_t nranks = hp->comm_nranks;
	if (nranks <= 0)
		return;
	uint8_t seen[DLT_HANG_MAX_RANKS] = {0};
	bool formed = false;
	for (size_t j = i; j < c->n; j++) {
		const struct dlt_hang_proc *o = c->procs[j];
		if (o->comm_id != hp->comm_id)
			continue;
		formed |= o->comm_formed;
		if (o->comm_rank >= 0 && o->comm_rank < DLT_HANG_MAX_RANKS)
			seen[o->comm_rank] = 1;
	}
	char missing[512];
	int n = nranks < DLT_HANG_MAX_RANKS ? nranks : DLT_HANG_MAX_RANKS;
	if (dlt_hang_missing(seen, n, missing, sizeof(missing), NULL, NULL) ==
	    0)
		return;
	bool ran = formed || c->completed;
	char who[96];
	enum dlt_severity sev =
		dlt_hang_told(c, i, DLT_SEV_ERROR, who, sizeof(who));
	struct dlt_finding *f =
		ran ? dlt_job_finding(c, i, DLT_SEV_INFO,
				      "communicator %016" PRIx64
				      " of %d ranks: rank(s)%s left no "
				      "trace, yet the communicator formed",
				      hp->comm_id, nranks, missing)
		    : dlt_job_finding(c, i, sev,
				      "communicator %016" PRIx64
				      " of %d ranks: rank(s)%s never reached "
				      "init (no trace entered it)",
				      hp->comm_id, nranks, missing);
	dlt_hang_missing(seen, n, missing, sizeof(missing), f->evidence,
			 "missing_ranks");
	dlt_ev_hang_comm(f->evidence, hp);
	dlt_obj_bool(f->evidence, "formed", formed);
	if (who[0] && !ran) {
		dlt_obj_str(f->evidence, "culprit", who);
		dlt_obj_str(f->evidence, "reported_by", "JOB_HANG");
	}
	if (ran)
		dlt_job_fix(c, f,
			    "nothing to fix in the job; to see those ranks, "
			    "run them under dltrace too (with DLTRACE_DIR on "
			    "a shared file system)");
	else
		dlt_job_fix(c, f,
			    "find out why rank(s)%s did not get to the init: "
			    "they never started (their node, their logs, the "
			    "launcher's process count), crashed earlier, are "
			    "stuck before it (dltrace-analyze hangs shows what "
			    "each waits in), or "
			    "ran without dltrace",
			    missing);
}

static void dlt_job_missing(struct dlt_job_ctx *c, size_t i)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	uint8_t seen[DLT_HANG_MAX_RANKS] = {0};
	for (size_t j = i; j < c->n; j++) {
		const struct dlt_hang_proc *o = c->procs[j];
		if (!dlt_hang_same_job(o, hp))
			continue;
		if (o->rank >= 0 && o->rank < DLT_HANG_MAX_RANKS)
			seen[o->rank] = 1;
	}
	char missing[512];
	int n = hp->world_size < DLT_HANG_MAX_RANKS ? hp->world_size
						    : DLT_HANG_MAX_RANKS;
	if (dlt_hang_missing(seen, n, missing, sizeof(missing), NULL, NULL) ==
	    0)
		return;
	char who[96], job[192];
	enum dlt_severity sev =
		dlt_hang_told(c, i, DLT_SEV_ERROR, who, sizeof(who));
	/* Ranks from init_process_group's arguments have no MASTER_PORT. */
	if (hp->master_port[0])
		snprintf(job, sizeof(job), "job %s:%s", hp->master_addr,
			 hp->master_port);
	else
		snprintf(job, sizeof(job), "the job");
	struct dlt_finding *f =
		c->completed
			? dlt_job_finding(c, i, DLT_SEV_INFO,
					  "%s of WORLD_SIZE %d: rank(s)%s left "
					  "no trace; the job completed",
					  job, hp->world_size, missing)
			: dlt_job_finding(c, i, sev,
					  "%s of WORLD_SIZE %d: rank(s)%s have "
					  "no trace (never started, or started "
					  "elsewhere without dltrace)",
					  job, hp->world_size, missing);
	if (who[0]) {
		dlt_obj_str(f->evidence, "culprit", who);
		dlt_obj_str(f->evidence, "reported_by", "JOB_HANG");
	}
	dlt_hang_missing(seen, n, missing, sizeof(missing), f->evidence,
			 "missing_ranks");
	dlt_ev_hang_job(f->evidence, hp);
	if (c->completed)
		dlt_job_fix(c, f,
			    "nothing to fix in the job; to see those ranks, "
			    "run them under dltrace too");
	else
		dlt_job_fix(c, f,
			    "start rank(s)%s with the same MASTER_ADDR, "
			    "MASTER_PORT and WORLD_SIZE=%d, or find out why "
			    "they did not start (their node, their logs, the "
			    "launcher's --nnodes and --nproc-per-node); a "
			    "rank started without dltrace also shows as "
			    "missing",
			    missing, hp->world_size);
}

/* Processes of communicator parent that wait in a split of it, next to
 * processes of it that never entered one: every rank must. */
static void dlt_split_missing(struct dlt_job_ctx *c, size_t i)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	uint64_t parent = hp->split_parent;
	uint8_t entered[DLT_HANG_MAX_RANKS] = {0};
	int nranks = hp->comm_nranks < DLT_HANG_MAX_RANKS ? hp->comm_nranks
							  : DLT_HANG_MAX_RANKS;
	bool waiting = false;
	for (size_t j = 0; j < c->n; j++) {
		const struct dlt_hang_proc *o = c->procs[j];
		if (o->comm_id != parent || o->comm_rank < 0 ||
		    o->comm_rank >= nranks)
			continue;
		/* Ranks without a trace are MISSING_RANK's of the
		 * communicator: here only those known not to have come. */
		entered[o->comm_rank] = 2;
		if (o->split_entered && o->split_parent == parent) {
			entered[o->comm_rank] = 1;
			waiting |= !o->split_returned;
		}
	}
	if (!waiting)
		return;
	uint8_t seen[DLT_HANG_MAX_RANKS];
	for (int r = 0; r < nranks; r++)
		seen[r] = entered[r] != 2;
	char missing[512];
	if (dlt_hang_missing(seen, nranks, missing, sizeof(missing), NULL,
			     NULL) == 0)
		return;
	struct dlt_finding *f = dlt_job_finding(
		c, i, c->completed ? DLT_SEV_INFO : DLT_SEV_ERROR,
		"communicator %016" PRIx64 " of %d ranks: rank(s)%s never "
		"entered the split the others wait in",
		parent, hp->comm_nranks, missing);
	dlt_hang_missing(seen, nranks, missing, sizeof(missing), f->evidence,
			 "missing_ranks");
	dlt_ev_hang_comm(f->evidence, hp);
	dlt_obj_bool(f->evidence, "formed", hp->comm_formed);
	dlt_job_fix(c, f,
		    "every rank of a communicator must call ncclCommSplit, "
		    "with NCCL_SPLIT_NOCOLOR if it wants no part of the new "
		    "one: find the code path on which rank(s)%s skip it",
		    missing);
}

/* Processes are grouped by the communicator they split. */
static uint64_t dlt_split_key(const struct dlt_hang_proc *hp)
{
	return hp->split_parent;
}

static void dlt_rule_missing_rank(struct dlt_job_ctx *c)
{
	/* Each communicator and each job once, at its first process. */
	for (size_t i = 0; i < c->n; i++)
		if (dlt_hang_first_by(c, i, dlt_hang_comm_key))
			dlt_comm_missing(c, i);
	for (size_t i = 0; i < c->n; i++)
		if (dlt_hang_first_by(c, i, dlt_split_key))
			dlt_split_missing(c, i);
	for (size_t i = 0; i < c->n; i++)
		if (dlt_hang_first_in_job(c, i))
			dlt_job_missing(c, i);
}

DLT_RULE(missing_rank, 150, "MISSING_RANK", DLT_SEV_ERROR, NULL,
	 dlt_rule_missing_rank,
	 "ranks of a communicator or job never arrived, or left no trace");
