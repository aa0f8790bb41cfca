/* STALL: a thread stayed in one blocking system call (or a loop of
 * identical ones) longer than DLTRACE_STALL_MS, in a wait that matters
 * (dlt_hang_stall_matters): a sleeping program that then finished is no
 * finding.  Waits that INIT_HANG already tells (the thread of an init in
 * flight, the rendezvous's wait) are not said twice, nor those of the
 * processes of a job or a run without ranks that JOB_HANG judged (they
 * are its evidence).  A warning in a
 * job that did not complete; an info otherwise (a slow collective that
 * finished). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"
#include "waits.h"

static bool dlt_told_by_init_hang(const struct dlt_hang_proc *hp,
				  const struct dlt_hang_stall *s,
				  const struct dlt_hang_call *call)
{
	if (call && dlt_hang_is_init(call->api) &&
	    dlt_hang_stall_of(hp, call->tid) == s)
		return true;
	return dlt_hang_rendezvous_stall(hp) == s;
}

static void dlt_rule_stall(struct dlt_job_ctx *c)
{
	enum dlt_severity sev = c->completed ? DLT_SEV_INFO : DLT_SEV_WARNING;
	/* The waits of a job that JOB_HANG judged are its evidence; a
	 * launcher's (torchrun's agent, mp.spawn's parent, a shell) are
	 * for its ranks, which say more. */
	for (size_t i = 0; i < c->n; i++) {
		const struct dlt_hang_proc *hp = c->procs[i];
		if (c->judged[i] || dlt_wait_in_tree(c->trees, c->ntrees, i) ||
		    c->launcher[i])
			continue;
		for (size_t k = 0; k < hp->nstalls; k++) {
			const struct dlt_hang_stall *s = &hp->stalls[k];
			const struct dlt_hang_call *call =
				dlt_hang_call_of(hp, s->tid);
			/* Recorded early inside a traced call that then
			 * returned before the threshold: a slow call, not a
			 * stall. */
			if ((s->early && s->ended) ||
			    dlt_loader_lock_stall(s) ||
			    dlt_told_by_init_hang(hp, s, call) ||
			    !dlt_hang_stall_matters(c, hp, s))
				continue;
			const struct dlt_api_desc *a =
				call ? dlt_api_by_id(call->api) : NULL;
			char wait[512], py[256];
			bool paren = dlt_hang_wait_short(s, wait, sizeof(wait));
			dlt_pystack_sum_top(s->py, py, sizeof(py));
			/* Who, where and for how long first; the wait's
			 * particulars (its descriptors, a futex's word) after
			 * them, which a long list moves to the detail. */
			struct dlt_finding *f = dlt_job_finding(
				c, i, sev, "thread %" PRIu32 " %s%s%s%s%s%s",
				s->tid, wait, a ? " inside " : "",
				a ? a->name : "", py[0] ? ", Python at " : "",
				py, s->ended ? " (it ended)" : "");
			if (paren)
				dlt_finding_detail_add(c->chk, f, s->detail);
			f->ts = s->since;
			dlt_ev_hang_stall(f->evidence, hp, s);
			dlt_ev_hang_call(f->evidence, hp, call);
			uint32_t roles = a ? a->roles : 0;
			if (roles & (DLT_ROLE_COLLECTIVE | DLT_ROLE_P2P |
				     DLT_ROLE_GROUP_END | DLT_ROLE_COMM_END))
				dlt_job_fix(c, f,
					    "%s waits for the other ranks of "
					    "its communicator: look at what "
					    "they are doing (dltrace-analyze "
					    "hangs shows each one's wait; the "
					    "peers in "
					    "the wait); NCCL_DEBUG=INFO gives "
					    "NCCL's view",
					    a->name);
			else if (roles & DLT_ROLE_SYNC)
				dlt_job_fix(c, f,
					    "%s waits for the GPU: a kernel "
					    "that does not finish, often one "
					    "waiting for a collective of other "
					    "ranks; CUDA_LAUNCH_BLOCKING=1 "
					    "shows which launch",
					    a->name);
			else if (a)
				dlt_job_fix(c, f,
					    "the wait is inside %s: the stack "
					    "shows what it waits for",
					    a->name);
			else
				dlt_job_fix(c, f,
					    "judge by the stack: a wait in "
					    "collective or rendezvous code "
					    "waits for the other ranks (the "
					    "peers in the wait); an ordinary "
					    "wait (a data loader, a barrier) "
					    "needs nothing");
		}
	}
}

DLT_RULE(stall, 170, "STALL", DLT_SEV_WARNING, NULL, dlt_rule_stall,
	 "a thread waited long in GPU, rendezvous or collective code, or in a "
	 "job that did not finish");
