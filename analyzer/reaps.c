/* A process's end from its parent's trace.  The child's own records say
 * how it meant to end (exit, main's return, abort); only the wait status
 * the parent got says how it did, signals included, so it wins over them
 * as the launcher's does. */
#include "reaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

static uint64_t dlt_wall(const struct dlt_process *p, uint64_t ts)
{
	return p->hdr.start_realtime_ns + (ts - p->hdr.start_monotonic_ns);
}

void dlt_reaps_add(struct dlt_reaps *rs, const struct dlt_process *p)
{
	for (size_t i = 0; i < p->nreaps; i++) {
		rs->r = dlt_grow(rs->r, &rs->cap, rs->n, sizeof(*rs->r));
		struct dlt_reap_seen *s = &rs->r[rs->n++];
		memset(s, 0, sizeof(*s));
		if (p->host)
			strncpy(s->host, p->host, sizeof(s->host) - 1);
		s->run_id = p->hdr.run_id;
		s->reaper = p->hdr.pid;
		s->pid = p->reaps[i].pid;
		s->status = p->reaps[i].status;
		s->wall_ns = dlt_wall(p, p->reaps[i].ts);
		s->reaper_trace = p->hdr.trace_id;
		for (size_t k = 0; k < p->nforks; k++)
			if (p->forks[k].pid == s->pid &&
			    p->forks[k].ts <= p->reaps[i].ts)
				s->forked_wall_ns = dlt_wall(p, p->forks[k].ts);
	}
}

void dlt_reaps_free(struct dlt_reaps *rs)
{
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

int dlt_reap_is_of(const struct dlt_reap_seen *s, uint32_t pid,
		   const char *host, uint64_t run_id, uint64_t start_wall_ns)
{
	return s->pid == pid && s->run_id == run_id &&
	       strncmp(s->host, host ? host : "", sizeof(s->host) - 1) == 0 &&
	       s->wall_ns >= start_wall_ns;
}

const char *dlt_reap_untraced(const struct dlt_reap_seen *s, struct dlt_end *e,
			      char *buf, size_t len)
{
	memset(e, 0, sizeof(*e));
	e->how = DLT_END_REAPED;
	e->status = s->status;
	e->reaped_by = s->reaper;
	e->reaper_trace = s->reaper_trace;
	char how[512];
	snprintf(buf, len,
		 "%s; it left no trace of its own (forked, it ended before "
		 "recording anything)",
		 dlt_end_describe(e, how, sizeof(how)));
	return buf;
}

int dlt_reaps_apply(const struct dlt_reaps *rs, struct dlt_process *p)
{
	if (p->end.how == DLT_END_EXEC ||
	    (p->end.how == DLT_END_REAPED && p->end.reaped_by == 0))
		return 0;
	const struct dlt_reap_seen *best = NULL;
	for (size_t i = 0; i < rs->n; i++) {
		const struct dlt_reap_seen *s = &rs->r[i];
		if (!dlt_reap_is_of(s, p->hdr.pid, p->host, p->hdr.run_id,
				    p->hdr.start_realtime_ns))
			continue;
		if (best == NULL || s->wall_ns < best->wall_ns)
			best = s;
	}
	if (best == NULL)
		return 0;
	struct dlt_end *e = &p->end;
	e->own = e->how == DLT_END_REAPED ? e->own : e->how;
	e->how = DLT_END_REAPED;
	e->status = best->status;
	e->reaped_by = best->reaper;
	e->reaper_trace = best->reaper_trace;
	/* Same machine, so the same monotonic clock as the reaper's. */
	e->ts = best->wall_ns - p->hdr.start_realtime_ns +
		p->hdr.start_monotonic_ns;
	e->exec_path = NULL;
	e->seen_for_ns = 0;
	e->live = 0;
	return 1;
}
