/* RANK_MISMATCH: processes of one communicator disagree on its size or
 * claim the same rank in it, or processes of one job (one
 * MASTER_ADDR:MASTER_PORT) disagree on WORLD_SIZE.  Such a job cannot form:
 * an error, a warning only in a job that completed anyway. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

static const char *const dlt_mismatch_fix =
	"start every rank with the same WORLD_SIZE (or nranks) and a "
	"distinct RANK: torchrun and srun set both, a hand-written launch "
	"script often gets one wrong";

/* Each process's view: pid, rank and the size it says. */
static void dlt_ev_views(struct dlt_val *o, const struct dlt_job_ctx *c,
			 size_t from, bool comm)
{
	const struct dlt_hang_proc *hp = c->procs[from];
	struct dlt_val *a = dlt_obj_array(o, "processes");
	for (size_t j = from; j < c->n; j++) {
		const struct dlt_hang_proc *q = c->procs[j];
		if (comm ? q->comm_id != hp->comm_id
			 : !dlt_hang_same_job(q, hp))
			continue;
		struct dlt_val *e = dlt_arr_object(a);
		dlt_obj_uint(e, "pid", q->pid);
		dlt_obj_int(e, "rank", comm ? q->comm_rank : q->rank);
		dlt_obj_int(e, comm ? "nranks" : "world_size",
			    comm ? q->comm_nranks : q->world_size);
	}
}

static void dlt_comm_mismatch(struct dlt_job_ctx *c, size_t i)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	enum dlt_severity sev = c->completed ? DLT_SEV_WARNING : DLT_SEV_ERROR;
	uint8_t seen[DLT_HANG_MAX_RANKS] = {0};
	bool sizes = false;
	char dups[256] = "";
	for (size_t j = i; j < c->n; j++) {
		const struct dlt_hang_proc *o = c->procs[j];
		if (o->comm_id != hp->comm_id)
			continue;
		sizes |= o->comm_nranks != hp->comm_nranks;
		int r = o->comm_rank;
		if (r >= 0 && r < DLT_HANG_MAX_RANKS && seen[r]++ == 1 &&
		    strlen(dups) + 16 < sizeof(dups))
			snprintf(dups + strlen(dups),
				 sizeof(dups) - strlen(dups), " %d", r);
	}
	if (sizes) {
		struct dlt_finding *f = dlt_job_finding(
			c, i, sev,
			"communicator %016" PRIx64
			": ranks disagree on its size (rank %d says %d)",
			hp->comm_id, hp->comm_rank, hp->comm_nranks);
		dlt_ev_hang_comm(f->evidence, hp);
		dlt_ev_views(f->evidence, c, i, true);
		dlt_job_fix(c, f, "%s", dlt_mismatch_fix);
	}
	if (dups[0]) {
		struct dlt_finding *f = dlt_job_finding(
			c, i, sev,
			"communicator %016" PRIx64
			": rank(s)%s claimed by more than one process",
			hp->comm_id, dups);
		dlt_ev_hang_comm(f->evidence, hp);
		dlt_ev_views(f->evidence, c, i, true);
		dlt_job_fix(c, f, "%s", dlt_mismatch_fix);
	}
}

static void dlt_job_mismatch(struct dlt_job_ctx *c, size_t i)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	bool sizes = false;
	for (size_t j = i; j < c->n; j++) {
		const struct dlt_hang_proc *o = c->procs[j];
		if (dlt_hang_same_job(o, hp) && o->world_size > 0)
			sizes |= o->world_size != hp->world_size;
	}
	if (!sizes)
		return;
	char who[64];
	struct dlt_finding *f = dlt_job_finding(
		c, i, c->completed ? DLT_SEV_WARNING : DLT_SEV_ERROR,
		"job %s:%s: processes disagree on WORLD_SIZE (%s says %d)",
		hp->master_addr, hp->master_port,
		dlt_hang_who(hp, who, sizeof(who)), hp->world_size);
	dlt_ev_hang_job(f->evidence, hp);
	dlt_ev_views(f->evidence, c, i, false);
	dlt_job_fix(c, f, "%s", dlt_mismatch_fix);
}

static void dlt_rule_rank_mismatch(struct dlt_job_ctx *c)
{
	/* Each communicator and each job once, at its first process. */
	for (size_t i = 0; i < c->n; i++)
		if (dlt_hang_first_by(c, i, dlt_hang_comm_key))
			dlt_comm_mismatch(c, i);
	for (size_t i = 0; i < c->n; i++)
		if (dlt_hang_first_in_job(c, i))
			dlt_job_mismatch(c, i);
}

DLT_RULE(rank_mismatch, 160, "RANK_MISMATCH", DLT_SEV_ERROR, NULL,
	 dlt_rule_rank_mismatch,
	 "processes of one communicator or job disagree on its size or claim "
	 "the same rank");
