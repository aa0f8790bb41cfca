/* SIGKILL: a process died of SIGKILL and no out-of-memory kill was
 * counted around its death (or nothing was read to tell), and dltrace
 * did not send it.  A SIGKILL cannot be caught, so the process recorded
 * nothing; who sent it cannot be known from inside the job. */
#include "oomev.h"
#include "rules.h"

static void dlt_sigkill_one(struct dlt_job_ctx *c, const struct dlt_oom_set *s,
			    size_t death, const struct dlt_oom_verdict *v)
{
	char msg[1024];
	if (v->kind == DLT_OOM_NONE && v->cgroup)
		snprintf(msg, sizeof(msg),
			 "killed by SIGKILL, not by the out-of-memory killer: "
			 "memory cgroup %s%s counted no OOM kill while it died "
			 "(%llu before and after)%s; who sent SIGKILL cannot "
			 "be known",
			 v->cgroup, v->own ? "" : " (its parent's)",
			 (unsigned long long)v->after->oom_kills,
			 v->sys_before ? ", nor did the machine" : "");
	else if (v->kind == DLT_OOM_NONE)
		snprintf(msg, sizeof(msg),
			 "killed by SIGKILL, not by the out-of-memory killer: "
			 "the machine counted no OOM kill while it died "
			 "(%llu before and after, /proc/vmstat); who sent "
			 "SIGKILL cannot be known",
			 (unsigned long long)v->sys_after->sys_oom_kills);
	else
		snprintf(msg, sizeof(msg),
			 "killed by SIGKILL: no memory cgroup reading from "
			 "before and after its death tells whether the "
			 "out-of-memory killer sent it; who sent SIGKILL "
			 "cannot be known");
	struct dlt_finding *f = dlt_oom_finding(c, s, death, v, msg);
	dlt_job_fix(c, f,
		    "find who sent it: the job scheduler (a time limit, "
		    "preemption, a node drained: Slurm's and Kubernetes' "
		    "logs say), a supervisor that ended the other ranks after "
		    "one failed (look for the first failure), or a person's "
		    "kill -9");
}

static void dlt_rule_sigkill(struct dlt_job_ctx *c)
{
	dlt_oom_each(c, false, dlt_sigkill_one);
}

DLT_RULE(sigkill, 132, "SIGKILL", DLT_SEV_ERROR, NULL, dlt_rule_sigkill,
	 "a process died of SIGKILL that no out-of-memory kill explains");
