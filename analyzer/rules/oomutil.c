/* What OOM_KILL and SIGKILL share: the deaths by SIGKILL of a job, each
 * judged once against the memory cgroup readings (model/oomev.c), and the
 * evidence both codes give. */
#include "oomev.h"
#include "rules.h"

void dlt_oom_each(struct dlt_job_ctx *c, bool oom,
		  void (*fn)(struct dlt_job_ctx *c, const struct dlt_oom_set *s,
			     size_t death, const struct dlt_oom_verdict *v))
{
	const struct dlt_oom_set *s = c->chk->oom;
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nd; i++) {
		struct dlt_oom_verdict v;
		dlt_oom_judge(s, i, &v);
		bool is_oom =
			v.kind == DLT_OOM_CGROUP || v.kind == DLT_OOM_MACHINE;
		if (is_oom == oom)
			fn(c, s, i, &v);
	}
}

const char *dlt_oom_bytes(uint64_t bytes, char *buf, size_t cap)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, cap, "%.1f GiB", (double)bytes / (1ull << 30));
	else
		snprintf(buf, cap, "%.1f MiB", (double)bytes / (1ull << 20));
	return buf;
}

static void dlt_ev_count(struct dlt_val *ev, const char *key, uint64_t v)
{
	if (v == DLT_MEMCG_UNKNOWN)
		dlt_obj_null(ev, key);
	else
		dlt_obj_uint(ev, key, v);
}

struct dlt_finding *dlt_oom_finding(struct dlt_job_ctx *c,
				    const struct dlt_oom_set *s, size_t death,
				    const struct dlt_oom_verdict *v,
				    const char *msg)
{
	struct dlt_finding *f = dlt_check_finding(
		c->chk, c->code, c->rule, DLT_SEV_ERROR, s->d[death].proc, msg);
	dlt_ev_oom(f->evidence, s, death, v);
	/* Killed while it ran: no Python place is known (the watcher reads
	 * a thread's stack when it waits). */
	const struct dlt_check_proc *cp = &c->chk->procs[s->d[death].proc];
	dlt_ev_culprit(f->evidence, cp->rank, s->d[death].pid, NULL,
		       strcmp(c->code, "OOM_KILL") == 0
			       ? "killed by the out-of-memory killer"
			       : "killed by SIGKILL");
	return f;
}

void dlt_ev_oom(struct dlt_val *ev, const struct dlt_oom_set *s, size_t death,
		const struct dlt_oom_verdict *v)
{
	const struct dlt_oom_death *d = &s->d[death];
	static const char *const kinds[] = {"none recorded", "not counted",
					    "machine", "cgroup"};
	dlt_obj_str(ev, "signal_name", "SIGKILL");
	dlt_obj_str(ev, "oom_evidence", kinds[v->kind]);
	dlt_obj_str(ev, "cgroup", v->cgroup);
	dlt_obj_bool(ev, "cgroup_own", v->own);
	if (v->before && v->after) {
		dlt_ev_count(ev, "oom_kills_before", v->before->oom_kills);
		dlt_ev_count(ev, "oom_kills_after", v->after->oom_kills);
		dlt_obj_uint(ev, "before_unix_ns", v->before->wall_ns);
		dlt_obj_uint(ev, "after_unix_ns", v->after->wall_ns);
		uint64_t lim = v->after->limit;
		if (lim == DLT_MEMCG_UNKNOWN || lim == DLT_MEMCG_NO_LIMIT)
			dlt_obj_null(ev, "limit_bytes");
		else
			dlt_obj_uint(ev, "limit_bytes", lim);
	}
	if (v->sys_before && v->sys_after) {
		dlt_obj_uint(ev, "machine_oom_kills_before",
			     v->sys_before->sys_oom_kills);
		dlt_obj_uint(ev, "machine_oom_kills_after",
			     v->sys_after->sys_oom_kills);
	}
	if (d->rss_peak_kb)
		dlt_obj_uint(ev, "peak_rss_kb", d->rss_peak_kb);
	else
		dlt_obj_null(ev, "peak_rss_kb");
	struct dlt_val *o = dlt_obj_array(ev, "died_meanwhile");
	for (size_t k = 0; k < v->nothers; k++)
		dlt_arr_int(o, s->d[v->others[k]].pid);
}
