/* RANK_MISMATCH: processes of one communicator disagree on its size or
 * claim the same rank in it, or processes of one job (one
 * MASTER_ADDR:MASTER_PORT) disagree on WORLD_SIZE.  Such a job cannot form:
 * an error, a warning only in a job that completed anyway. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"
#include "waits.h"

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

/* The size procs[j] says: of the communicator, or of the job. */
static int32_t dlt_mm_size(const struct dlt_hang_proc *q, bool comm)
{
	return comm ? q->comm_nranks : q->world_size;
}

/* The process whose size fewest others of its communicator or job (that of
 * procs[i]) share: the odd one the finding is about, and the size most
 * say.  Ties keep the earlier process. */
static size_t dlt_mm_odd(const struct dlt_job_ctx *c, size_t i, bool comm,
			 int32_t *most)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	size_t odd = i, odd_n = SIZE_MAX, most_n = 0, nranks = 0;
	*most = dlt_mm_size(hp, comm);
	/* Between two sizes said as often, the one that is the number of
	 * ranks there are is right (two ranks, one started with
	 * WORLD_SIZE=3): counted in halves, it weighs half a process. */
	for (size_t j = i; j < c->n; j++) {
		const struct dlt_hang_proc *q = c->procs[j];
		nranks += (comm ? q->comm_id == hp->comm_id
				: dlt_hang_same_job(q, hp) && q->rank >= 0);
	}
	for (size_t j = i; j < c->n; j++) {
		const struct dlt_hang_proc *q = c->procs[j];
		if (comm ? q->comm_id != hp->comm_id
			 : !dlt_hang_same_job(q, hp) || q->world_size <= 0)
			continue;
		size_t same = 0;
		for (size_t k = i; k < c->n; k++) {
			const struct dlt_hang_proc *o = c->procs[k];
			if ((comm ? o->comm_id == hp->comm_id
				  : dlt_hang_same_job(o, hp)) &&
			    dlt_mm_size(o, comm) == dlt_mm_size(q, comm))
				same += 2;
		}
		same += (size_t)dlt_mm_size(q, comm) == nranks;
		if (same < odd_n) {
			odd_n = same;
			odd = j;
		}
		if (same > most_n) {
			most_n = same;
			*most = dlt_mm_size(q, comm);
		}
	}
	return odd;
}

/* evidence.culprit: the odd process, at its place in the program's code
 * where it waits (none known when it ended). */
static void dlt_mm_culprit(struct dlt_finding *f,
			   const struct dlt_hang_proc *op, int32_t rank,
			   const char *cause)
{
	struct dlt_wait_state ws;
	dlt_wait_state_of(op, &ws);
	dlt_ev_culprit(f->evidence, rank, op->pid, ws.own[0] ? ws.own : ws.py,
		       cause);
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
		int32_t most;
		size_t odd = dlt_mm_odd(c, i, true, &most);
		const struct dlt_hang_proc *op = c->procs[odd];
		struct dlt_finding *f = dlt_job_finding(
			c, odd, sev,
			"communicator %016" PRIx64
			": ranks disagree on its size (rank %d says %d, the "
			"others %d)",
			hp->comm_id, op->comm_rank, op->comm_nranks, most);
		dlt_ev_hang_comm(f->evidence, op);
		dlt_ev_views(f->evidence, c, i, true);
		char cause[64];
		snprintf(cause, sizeof(cause), "nranks %d, the others %d",
			 op->comm_nranks, most);
		dlt_mm_culprit(f, op, op->comm_rank, cause);
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
	int32_t most;
	size_t odd = dlt_mm_odd(c, i, false, &most);
	const struct dlt_hang_proc *op = c->procs[odd];
	/* The size it gave its communicator too (NCCL's nranks from
	 * WORLD_SIZE): said once as an error, by the communicator's. */
	bool told = dlt_job_error_about(c, odd, "RANK_MISMATCH") != NULL;
	struct dlt_finding *f = dlt_job_finding(
		c, odd,
		told	       ? DLT_SEV_INFO
		: c->completed ? DLT_SEV_WARNING
			       : DLT_SEV_ERROR,
		"job %s:%s: processes disagree on WORLD_SIZE (%s says %d, the "
		"others %d)",
		hp->master_addr, hp->master_port,
		dlt_hang_who(op, who, sizeof(who)), op->world_size, most);
	dlt_ev_hang_job(f->evidence, op);
	dlt_ev_views(f->evidence, c, i, false);
	char cause[64];
	snprintf(cause, sizeof(cause), "WORLD_SIZE %d, the others %d",
		 op->world_size, most);
	dlt_mm_culprit(f, op, op->rank, cause);
	dlt_job_fix(c, f, "%s", dlt_mismatch_fix);
}

/* Ranks of one run and size with another MASTER_ADDR:MASTER_PORT than
 * rank 0's: they wait at an address where the store is not. */
static void dlt_addr_mismatch(struct dlt_job_ctx *c, size_t i)
{
	size_t z = dlt_hang_split_from(c, i);
	if (z == SIZE_MAX)
		return;
	const struct dlt_hang_proc *hp = c->procs[i], *zp = c->procs[z];
	char who[64];
	struct dlt_finding *f = dlt_job_finding(
		c, i, c->completed ? DLT_SEV_WARNING : DLT_SEV_ERROR,
		"%s uses MASTER_ADDR:MASTER_PORT %s:%s, rank 0 (the store's "
		"host) %s:%s",
		dlt_hang_who(hp, who, sizeof(who)), hp->master_addr,
		hp->master_port, zp->master_addr, zp->master_port);
	dlt_ev_hang_job(f->evidence, hp);
	dlt_obj_strf(f->evidence, "store_address", "%s:%s", zp->master_addr,
		     zp->master_port);
	char cause[96];
	snprintf(cause, sizeof(cause), "MASTER_PORT %s, the store's %s",
		 hp->master_port, zp->master_port);
	dlt_mm_culprit(f, hp, hp->rank, cause);
	dlt_job_fix(c, f,
		    "give every rank the MASTER_ADDR and MASTER_PORT of rank "
		    "0 (%s:%s): a rank with another one waits for a store that "
		    "is not there, and the others wait for it",
		    zp->master_addr, zp->master_port);
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
	for (size_t i = 0; i < c->n; i++)
		if (dlt_hang_job_rank(c->procs[i]))
			dlt_addr_mismatch(c, i);
}

DLT_RULE(rank_mismatch, 160, "RANK_MISMATCH", DLT_SEV_ERROR, NULL,
	 dlt_rule_rank_mismatch,
	 "processes of one communicator or job disagree on its size or claim "
	 "the same rank");
