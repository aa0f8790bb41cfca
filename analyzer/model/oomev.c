/* A death by SIGKILL against the memory cgroup readings around it.  The
 * kernel counts every OOM kill in the victim's cgroup (v2 also in each
 * ancestor; v1 only there) and on the machine (/proc/vmstat), and nothing
 * counts a SIGKILL sent by a process: a counter that rose between a
 * reading before the death and one after it is the OOM killer's mark. */
#include "oomev.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static uint64_t dlt_oom_wall(const struct dlt_process *p, uint64_t ts)
{
	return p->hdr.start_realtime_ns + (ts - p->hdr.start_monotonic_ns);
}

void dlt_oom_add(struct dlt_oom_set *s, const struct dlt_process *p,
		 size_t proc)
{
	const char *host = dlt_arena_strdup(&s->arena, p->host ? p->host : "");
	const char *own = "";
	for (size_t i = 0; i < p->nmemcg; i++) {
		const struct dlt_memcg_seen *m = &p->memcg[i];
		s->r = dlt_util_grow(s->r, &s->capr, s->nr, sizeof(*s->r));
		s->r[s->nr++] = (struct dlt_oom_reading){
			host,
			dlt_arena_strdup(&s->arena, m->cgroup),
			dlt_oom_wall(p, m->ts),
			m->flags,
			m->subject,
			m->oom_kills,
			m->limit,
			m->sys_oom_kills};
		if ((m->flags & DLT_MEMCG_OWN) && m->subject == p->hdr.pid &&
		    m->cgroup[0])
			own = s->r[s->nr - 1].cgroup;
	}
	const struct dlt_end *e = &p->end;
	if (e->how != DLT_END_REAPED || !WIFSIGNALED(e->status) ||
	    WTERMSIG(e->status) != SIGKILL || dlt_end_by_dltrace(e))
		return;
	s->d = dlt_util_grow(s->d, &s->capd, s->nd, sizeof(*s->d));
	s->d[s->nd++] = (struct dlt_oom_death){proc,
					       host,
					       p->hdr.pid,
					       dlt_oom_wall(p, p->last_seen_ns),
					       dlt_oom_wall(p, e->ts),
					       own,
					       p->rss_peak_kb};
}

void dlt_oom_free(struct dlt_oom_set *s)
{
	free(s->r);
	free(s->d);
	dlt_arena_free(s->arena);
	memset(s, 0, sizeof(*s));
}

/* Whether reading r, of host and cgroup (NULL: any, for the machine's
 * counter), counts: its counter is known. */
static bool dlt_oom_of(const struct dlt_oom_reading *r, const char *host,
		       const char *cgroup)
{
	if (strcmp(r->host, host) != 0)
		return false;
	if (cgroup == NULL)
		return r->sys_oom_kills != DLT_MEMCG_UNKNOWN;
	return strcmp(r->cgroup, cgroup) == 0 &&
	       r->oom_kills != DLT_MEMCG_UNKNOWN;
}

/* The latest reading taken while the process was alive, and the first
 * taken once its death was seen (a reading about its death counts even
 * when its time is a hair earlier: the launcher reads, then records). */
static void dlt_oom_pair(const struct dlt_oom_set *s,
			 const struct dlt_oom_death *d, const char *cgroup,
			 const struct dlt_oom_reading **before,
			 const struct dlt_oom_reading **after)
{
	*before = *after = NULL;
	for (size_t i = 0; i < s->nr; i++) {
		const struct dlt_oom_reading *r = &s->r[i];
		if (!dlt_oom_of(r, d->host, cgroup))
			continue;
		bool about = (r->flags & DLT_MEMCG_DEATH) &&
			     r->subject == d->pid &&
			     r->wall_ns >= d->alive_wall_ns;
		if (about || r->wall_ns >= d->death_wall_ns) {
			if (*after == NULL || r->wall_ns < (*after)->wall_ns)
				*after = r;
		} else if (r->wall_ns <= d->alive_wall_ns) {
			if (*before == NULL || r->wall_ns > (*before)->wall_ns)
				*before = r;
		}
	}
}

static uint64_t dlt_oom_count(const struct dlt_oom_reading *r, bool sys)
{
	return sys ? r->sys_oom_kills : r->oom_kills;
}

/* The other deaths of the same machine (and cgroup, when known of them)
 * between the two readings. */
static void dlt_oom_others(const struct dlt_oom_set *s, size_t i,
			   const char *cgroup, struct dlt_oom_verdict *v,
			   const struct dlt_oom_reading *b,
			   const struct dlt_oom_reading *a)
{
	const struct dlt_oom_death *d = &s->d[i];
	for (size_t k = 0; k < s->nd && v->nothers < DLT_OOM_MAX_OTHERS; k++) {
		const struct dlt_oom_death *o = &s->d[k];
		if (k == i || strcmp(o->host, d->host) != 0 ||
		    o->death_wall_ns < b->wall_ns ||
		    o->alive_wall_ns > a->wall_ns)
			continue;
		if (cgroup && o->cgroup[0] && strcmp(o->cgroup, cgroup) != 0)
			continue;
		v->others[v->nothers++] = k;
	}
}

void dlt_oom_judge(const struct dlt_oom_set *s, size_t i,
		   struct dlt_oom_verdict *v)
{
	memset(v, 0, sizeof(*v));
	const struct dlt_oom_death *d = &s->d[i];
	/* Its own cgroup first, then those its parent and the launcher read
	 * when they saw it die (a child shares its parent's unless it
	 * moved). */
	const struct dlt_oom_reading *nb = NULL, *na = NULL;
	const char *none = NULL;
	bool own_quiet = false;
	for (size_t k = 0; k <= s->nr; k++) {
		const char *cg;
		if (k == 0) {
			cg = d->cgroup;
		} else {
			const struct dlt_oom_reading *r = &s->r[k - 1];
			if (!(r->flags & DLT_MEMCG_DEATH) ||
			    r->subject != d->pid ||
			    strcmp(r->host, d->host) != 0)
				continue;
			cg = r->cgroup;
		}
		if (cg[0] == '\0')
			continue;
		const struct dlt_oom_reading *b, *a;
		dlt_oom_pair(s, d, cg, &b, &a);
		if (b == NULL || a == NULL)
			continue;
		if (a->oom_kills > b->oom_kills) {
			v->kind = DLT_OOM_CGROUP;
			v->cgroup = cg;
			v->own = k == 0;
			v->before = b;
			v->after = a;
			break;
		}
		if (none == NULL) {
			none = cg;
			nb = b;
			na = a;
			own_quiet = k == 0;
		}
	}
	const struct dlt_oom_reading *sb, *sa;
	dlt_oom_pair(s, d, NULL, &sb, &sa);
	if (sb && sa) {
		v->sys_before = sb;
		v->sys_after = sa;
	}
	if (v->kind == DLT_OOM_CGROUP) {
		dlt_oom_others(s, i, v->cgroup, v, v->before, v->after);
		return;
	}
	/* The machine counted one and its own cgroup is not known to have
	 * stayed quiet (v1 counts a kill only in the victim's cgroup, which
	 * its parent's reading does not show when it moved). */
	if (sb && sa && dlt_oom_count(sa, true) > dlt_oom_count(sb, true) &&
	    !own_quiet) {
		v->kind = DLT_OOM_MACHINE;
		dlt_oom_others(s, i, NULL, v, sb, sa);
		if (none) {
			v->cgroup = none;
			v->before = nb;
			v->after = na;
		}
		return;
	}
	if (none || (sb && sa)) {
		v->kind = DLT_OOM_NONE;
		v->cgroup = none;
		v->own = own_quiet;
		v->before = nb;
		v->after = na;
	}
}
