/* OOM_KILL: a process died of SIGKILL while its memory cgroup (or, where
 * its own cgroup was not read, the machine) counted an out-of-memory
 * kill.  Nothing else counts there: the kernel adds one for each process
 * its OOM killer ends, and a kill -9 adds none. */
#include "oomev.h"
#include "rules.h"

static void dlt_oom_kill_one(struct dlt_job_ctx *c, const struct dlt_oom_set *s,
			     size_t death, const struct dlt_oom_verdict *v)
{
	const struct dlt_oom_death *d = &s->d[death];
	char msg[1024], lim[64] = "", rss[64] = "", more[512] = "";
	const struct dlt_oom_reading *a = v->after;
	if (a && a->limit != DLT_MEMCG_UNKNOWN &&
	    a->limit != DLT_MEMCG_NO_LIMIT)
		snprintf(lim, sizeof(lim), "limit %s",
			 dlt_oom_bytes(a->limit, lim + 32, 32));
	else if (a && a->limit == DLT_MEMCG_NO_LIMIT)
		snprintf(lim, sizeof(lim), "no limit");
	if (d->rss_peak_kb)
		dlt_oom_bytes(d->rss_peak_kb * 1024, rss, sizeof(rss));
	if (v->nothers) {
		size_t l = (size_t)snprintf(
			more, sizeof(more),
			"; %zu other process%s died of SIGKILL meanwhile (pid",
			v->nothers, v->nothers == 1 ? "" : "es");
		for (size_t k = 0; k < v->nothers && l < sizeof(more); k++)
			l += (size_t)snprintf(more + l, sizeof(more) - l, " %u",
					      s->d[v->others[k]].pid);
		if (l < sizeof(more))
			snprintf(more + l, sizeof(more) - l,
				 "): which of them the killer ended is "
				 "ambiguous");
	}
	/* The headline: the verdict and the numbers that make it; the
	 * cgroup's path (as long as a line) in the detail. */
	if (v->kind == DLT_OOM_CGROUP)
		snprintf(msg, sizeof(msg),
			 "killed by the out-of-memory killer: %s memory "
			 "cgroup counted %llu OOM kill%s before it died and "
			 "%llu after (%s%s%s%s); the cgroup: %s%s",
			 v->own ? "its" : "its parent's",
			 (unsigned long long)v->before->oom_kills,
			 v->before->oom_kills == 1 ? "" : "s",
			 (unsigned long long)a->oom_kills, lim,
			 rss[0] ? (lim[0] ? ", " : "") : "",
			 rss[0] ? "peak RSS " : "", rss, v->cgroup, more);
	else
		snprintf(msg, sizeof(msg),
			 "probably killed by the out-of-memory killer: the "
			 "machine counted %llu OOM kill%s before it died and "
			 "%llu after (/proc/vmstat); its own cgroup was not "
			 "read%s%s%s",
			 (unsigned long long)v->sys_before->sys_oom_kills,
			 v->sys_before->sys_oom_kills == 1 ? "" : "s",
			 (unsigned long long)v->sys_after->sys_oom_kills,
			 rss[0] ? " (peak RSS " : "", rss, rss[0] ? ")" : "");
	if (v->kind != DLT_OOM_CGROUP && more[0])
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s",
			 more);
	struct dlt_finding *f = dlt_oom_finding(c, s, death, v, msg);
	if (lim[0] && strcmp(lim, "no limit") != 0)
		dlt_job_fix(c, f,
			    "the job needs more memory than cgroup %s allows "
			    "(%s): raise the limit (the scheduler's memory "
			    "request: --mem in Slurm, resources.limits in "
			    "Kubernetes) or use less (a smaller batch, fewer "
			    "DataLoader workers, each of which holds its own "
			    "copies)",
			    v->cgroup, lim);
	else
		dlt_job_fix(c, f,
			    "the machine ran out of memory: use less (a "
			    "smaller batch, fewer DataLoader workers, fewer "
			    "processes per machine) or run where there is "
			    "more; the kernel log (dmesg) names the victim and "
			    "what each process held");
}

static void dlt_rule_oom_kill(struct dlt_job_ctx *c)
{
	dlt_oom_each(c, true, dlt_oom_kill_one);
}

DLT_RULE(oom_kill, 131, "OOM_KILL", DLT_SEV_ERROR, NULL, dlt_rule_oom_kill,
	 "a process died of SIGKILL while its memory cgroup counted an "
	 "out-of-memory kill");
