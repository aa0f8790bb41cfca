/* INIT_HANG: a communicator init (or split) was entered and never
 * returned, or a rank's rendezvous never completed: where the job froze
 * (dlt_hang_rendezvous_stall says how a rendezvous is recognised). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "live.h"
#include "rules.h"
#include "units.h"

/* Whether ranks of hp's communicator (comm) or job have no process that
 * entered it (comm) or left a trace (job): what MISSING_RANK reports. */
static bool dlt_init_ranks_missing(const struct dlt_job_ctx *c,
				   const struct dlt_hang_proc *hp, bool comm)
{
	int32_t size = comm ? hp->comm_nranks : hp->world_size;
	if (size <= 0)
		return false;
	int32_t found = 0;
	uint8_t seen[DLT_HANG_MAX_RANKS] = {0};
	for (size_t j = 0; j < c->n; j++) {
		const struct dlt_hang_proc *o = c->procs[j];
		int32_t r = comm ? o->comm_rank : o->rank;
		bool same = comm ? o->comm_id == hp->comm_id
				 : dlt_hang_same_job(o, hp);
		if (same && r >= 0 && r < size && r < DLT_HANG_MAX_RANKS &&
		    !seen[r]) {
			seen[r] = 1;
			found++;
		}
	}
	return found < (size < DLT_HANG_MAX_RANKS ? size : DLT_HANG_MAX_RANKS);
}

/* The culprit JOB_HANG names for this hang, in the same words. */
static void dlt_init_told(struct dlt_job_ctx *c, struct dlt_finding *f,
			  const char *who)
{
	if (who[0] == '\0')
		return;
	dlt_obj_str(f->evidence, "culprit", who);
	dlt_obj_str(f->evidence, "reported_by", "JOB_HANG");
	(void)c;
}

static void dlt_init_call(struct dlt_job_ctx *c, size_t i,
			  const struct dlt_hang_call *call)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	const struct dlt_api_desc *a = dlt_api_by_id(call->api);
	const struct dlt_hang_stall *s = dlt_hang_stall_of(hp, call->tid);
	char d[32], wait[512] = "";
	dlt_units_dur(hp->last_ts - call->ts, d, sizeof(d));
	/* The wait's particulars (a futex's word, descriptors) go to the
	 * detail: "blocked in futex for 2.0 s; futex op=9 word=0x7ffc…". */
	bool paren = s && dlt_hang_wait_short(s, wait, sizeof(wait));
	/* Ended on its own while inside: it did not wait for ever, and a
	 * job that completed did not hang. */
	char who[96];
	enum dlt_severity sev = dlt_hang_told(
		c, i, c->completed ? DLT_SEV_WARNING : DLT_SEV_ERROR, who,
		sizeof(who));
	/* The time inside is up to the last sign of life (the heartbeat):
	 * a lower bound for a process that died, the time so far for one
	 * that runs now. */
	struct dlt_finding *f =
		hp->live == DLT_LIVE_RUNNING
			? dlt_job_finding(c, i, sev,
					  "%s has not returned; inside it for "
					  "%s so far (the process is running)"
					  "%s%s",
					  a ? a->name : "?", d,
					  wait[0] ? ", " : "", wait)
			: dlt_job_finding(c, i, sev,
					  "%s never returned; inside it for at "
					  "least %s%s%s",
					  a ? a->name : "?", d,
					  wait[0] ? ", " : "", wait);
	if (paren)
		dlt_finding_detail_add(c->chk, f, s->detail);
	f->ts = call->ts;
	dlt_ev_hang_call(f->evidence, hp, call);
	dlt_ev_hang_stall(f->evidence, hp, s);
	dlt_ev_hang_comm(f->evidence, hp);
	dlt_init_told(c, f, who);
	if (who[0])
		dlt_job_fix(c, f,
			    "an init returns once every rank of the "
			    "communicator has joined: %s holds it up (see "
			    "JOB_HANG)",
			    who);
	else if (dlt_init_ranks_missing(c, hp, true))
		dlt_job_fix(c, f,
			    "an init returns once every rank of the "
			    "communicator has joined: see MISSING_RANK for "
			    "ranks that never entered it");
	else
		dlt_job_fix(c, f,
			    "an init returns once every rank of the "
			    "communicator has joined: JOB_HANG names the rank "
			    "the others wait for; if every rank is in the "
			    "init, rerun with NCCL_DEBUG=INFO to see which "
			    "connection it waits for (NCCL_SOCKET_IFNAME picks "
			    "the interface the ranks share)");
}

static void dlt_init_hang_rendezvous(struct dlt_job_ctx *c, size_t i,
				     const struct dlt_hang_stall *s)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	char wait[512], raw[256], where[300], who[96];
	/* The wait's particulars (its descriptors) after the code it waits
	 * in: a long list of them goes to the detail. */
	bool paren = dlt_hang_wait_short(s, wait, sizeof(wait));
	/* "lib.so!func+0x12" reads "func (lib.so)" in prose. */
	dlt_hang_own_frame(s, raw, sizeof(raw));
	dlt_frame_prose(raw, where, sizeof(where));
	struct dlt_finding *f = dlt_job_finding(
		c, i, dlt_hang_told(c, i, DLT_SEV_ERROR, who, sizeof(who)),
		"the rendezvous (%s%s%s) never completed: thread %" PRIu32
		" %s%s%s",
		hp->master_addr[0] ? hp->master_addr : "store",
		hp->master_port[0] ? ":" : "", hp->master_port, s->tid, wait,
		where[0] ? " in " : "", where);
	if (paren)
		dlt_finding_detail_add(c->chk, f, s->detail);
	f->ts = s->since;
	dlt_ev_hang_stall(f->evidence, hp, s);
	dlt_ev_hang_job(f->evidence, hp);
	dlt_obj_uint(f->evidence, "connect_failures", hp->connect_fail);
	dlt_init_told(c, f, who);
	if (who[0] && !hp->connect_fail) {
		dlt_job_fix(c, f,
			    "the store waits until every rank has joined: %s "
			    "holds it up (see JOB_HANG)",
			    who);
	} else if (hp->connect_fail) {
		dlt_obj_str(f->evidence, "connect_address", hp->connect_addr);
		dlt_obj_str(f->evidence, "connect_error",
			    strerror(hp->connect_err));
		dlt_job_fix(c, f,
			    "nothing accepted the connection to %s (%s): "
			    "start the rank that hosts the store (rank 0) "
			    "first, or correct MASTER_ADDR and MASTER_PORT; "
			    "a firewall between the nodes looks the same",
			    hp->connect_addr, strerror(hp->connect_err));
	} else if (dlt_init_ranks_missing(c, hp, false)) {
		dlt_job_fix(c, f,
			    "the store waits until WORLD_SIZE ranks have "
			    "joined: see MISSING_RANK for those that never "
			    "came; start them, or set WORLD_SIZE to the "
			    "number of processes launched");
	} else {
		dlt_job_fix(c, f,
			    "the store waits until WORLD_SIZE ranks have "
			    "joined, and every rank has a trace: JOB_HANG "
			    "names the one that did not join (it never called "
			    "init_process_group, or called it with another "
			    "MASTER_ADDR, MASTER_PORT or WORLD_SIZE)");
	}
}

static void dlt_rule_init_hang(struct dlt_job_ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct dlt_hang_proc *hp = c->procs[i];
		for (size_t k = 0; k < hp->ninflight; k++)
			if (dlt_hang_is_init(hp->inflight[k].api))
				dlt_init_call(c, i, &hp->inflight[k]);
		const struct dlt_hang_stall *s = dlt_hang_rendezvous_stall(hp);
		if (s)
			dlt_init_hang_rendezvous(c, i, s);
	}
}

DLT_RULE(init_hang, 140, "INIT_HANG", DLT_SEV_ERROR, NULL, dlt_rule_init_hang,
	 "a communicator init or a rendezvous was entered and never completed");
