/* What a trace says about how its process died beyond its end records:
 * the memory cgroup readings (MEMCG), the signals dltrace's launcher sent
 * it (KILL), its peak resident set, and whether the trace is damaged,
 * which makes "no end recorded" mean "not known" rather than "killed". */
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "model.h"

/* The record's path, or "" when its length or NUL is wrong. */
static const char *dlt_death_path(struct dlt_process *p,
				  const struct dlt_rec_memcg *r)
{
	size_t room = r->h.len - sizeof(*r);
	if (r->path_len >= room || r->path[r->path_len] != '\0')
		return "";
	return dlt_arena_strdup(&p->arena, r->path);
}

void dlt_death_on_memcg(struct dlt_process *p, const struct dlt_rec_memcg *r,
			size_t *cap)
{
	const char *cgroup = dlt_death_path(p, r);
	p->memcg = dlt_util_grow(p->memcg, cap, p->nmemcg, sizeof(*p->memcg));
	p->memcg[p->nmemcg++] = (struct dlt_memcg_seen){
		r->h.ts,	  r->h.flags,	 r->subject,
		cgroup,		  r->oom_kills,	 r->limit,
		r->sys_oom_kills, r->max_rss_kb, r->status};
}

void dlt_death_on_kill(struct dlt_process *p, const struct dlt_rec_kill *r,
		       size_t *cap)
{
	p->kills = dlt_util_grow(p->kills, cap, p->nkills, sizeof(*p->kills));
	p->kills[p->nkills++] =
		(struct dlt_kill_rec){r->h.ts, r->h.flags, r->signal, r->err};
}

void dlt_death_rss(struct dlt_process *p, uint64_t rusage_kb)
{
	/* The kernel gives a reaper the larger of the child's peak and its
	 * own reaped children's: only a value above all of theirs is its
	 * own. */
	for (size_t i = 0; i < p->nreaps; i++)
		if (p->reaps[i].max_rss_kb >= rusage_kb)
			return;
	if (rusage_kb > p->rss_peak_kb)
		p->rss_peak_kb = rusage_kb;
}

void dlt_death_finish(struct dlt_process *p, const struct dlt_trace *t)
{
	struct dlt_end *e = &p->end;
	if (p->hdr.rss_peak_kb > p->rss_peak_kb)
		p->rss_peak_kb = p->hdr.rss_peak_kb;
	/* The launcher's reading after it reaped this process. */
	for (size_t i = 0; i < p->nmemcg; i++) {
		const struct dlt_memcg_seen *m = &p->memcg[i];
		if ((m->flags & DLT_MEMCG_DEATH) && m->subject == p->hdr.pid)
			dlt_death_rss(p, m->max_rss_kb);
	}
	for (size_t i = 0; i < p->nkills; i++) {
		const struct dlt_kill_rec *k = &p->kills[i];
		if (k->err != 0)
			continue;
		if (e->dltrace_sig == 0)
			e->dltrace_ts = k->ts;
		/* SIGKILL wins: it is the one nothing survives. */
		if (e->dltrace_sig != SIGKILL)
			e->dltrace_sig = k->signal;
	}
	e->dltrace_after = e->dltrace_sig && p->last_seen_ns >= e->dltrace_ts;
	uint64_t off;
	if (dlt_trace_damage(t, &off)) {
		e->damaged = true;
		e->damage_off = off;
	}
}

bool dlt_end_by_dltrace(const struct dlt_end *e)
{
	if (e->dltrace_sig == 0)
		return false;
	if (e->how == DLT_END_NONE)
		return true;
	int sig = dlt_end_signal(e);
	if (sig == SIGTERM || sig == SIGKILL)
		return true;
	return e->dltrace_after && e->how != DLT_END_EXEC;
}

const char *dlt_death_dltrace_words(const struct dlt_end *e)
{
	if (e->dltrace_sig == SIGKILL)
		return "SIGTERM, then SIGKILL";
	if (e->dltrace_sig == SIGTERM)
		return "SIGTERM";
	return "a signal";
}
