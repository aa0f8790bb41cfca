/* STALL: a thread stayed in one blocking system call (or a loop of
 * identical ones) longer than DLTRACE_STALL_MS, with the traced call in
 * flight in that thread if any. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

void dlt_rule_stall(struct dlt_job_ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct dlt_hang_proc *hp = c->procs[i];
		for (size_t k = 0; k < hp->nstalls; k++) {
			const struct dlt_hang_stall *s = &hp->stalls[k];
			const struct dlt_hang_call *call =
				dlt_hang_call_of(hp, s->tid);
			const struct dlt_api_desc *a =
				call ? dlt_api_by_id(call->api) : NULL;
			char wait[512];
			dlt_hang_wait_text(s, wait, sizeof(wait));
			struct dlt_finding *f = dlt_job_finding(
				c, i, DLT_SEV_WARNING,
				"thread %" PRIu32 " %s%s%s%s", s->tid, wait,
				a ? " inside " : "", a ? a->name : "",
				s->ended ? " (it ended)" : "");
			f->ts = s->since;
			dlt_ev_hang_stall(f->evidence, hp, s);
			dlt_ev_hang_call(f->evidence, hp, call);
			dlt_job_fix(c, f,
				    "a wait inside an init or a collective is "
				    "the hang itself: the peers in the wait "
				    "are the ranks to look at; elsewhere it "
				    "can be an ordinary wait (a data loader, "
				    "a barrier): judge by the call and the "
				    "stack");
		}
	}
}
