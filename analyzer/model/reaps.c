/* A process's end from its parent's trace.  The child's own records say
 * how it meant to end (exit, main's return, abort); only the wait status
 * the parent got says how it did, signals included, so it wins over them
 * as the launcher's does. */
#include "reaps.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

static uint64_t dlt_wall(const struct dlt_process *p, uint64_t ts)
{
	return p->hdr.start_realtime_ns + (ts - p->hdr.start_monotonic_ns);
}

static size_t dlt_pid_bucket(uint32_t pid, size_t nb)
{
	/* Fibonacci hashing: pids of one job are close together. */
	return (size_t)((pid * 2654435769u) >> 8) & (nb - 1);
}

static void dlt_reaps_link(struct dlt_reaps *rs, size_t i)
{
	size_t b = dlt_pid_bucket(rs->r[i].pid, rs->nb);
	rs->next[i] = rs->head[b];
	rs->head[b] = (uint32_t)(i + 1);
}

/* Room for one more reap in the table, rebuilt twice as large when the
 * reaps outnumber its buckets.  The chains keep the newest first. */
static void dlt_reaps_room(struct dlt_reaps *rs)
{
	size_t cap = rs->cap;
	rs->r = dlt_util_grow(rs->r, &rs->cap, rs->n, sizeof(*rs->r));
	if (rs->cap != cap || rs->next == NULL) {
		free(rs->next);
		rs->next = dlt_xcalloc(rs->cap, sizeof(*rs->next));
		cap = 0; /* relink below */
	}
	if (rs->n + 1 > rs->nb || cap == 0) {
		size_t nb = rs->nb ? rs->nb : 64;
		while (nb < rs->n + 1)
			nb *= 2;
		free(rs->head);
		rs->nb = nb;
		rs->head = dlt_xcalloc(nb, sizeof(*rs->head));
		for (size_t i = 0; i < rs->n; i++)
			dlt_reaps_link(rs, i);
	}
}

size_t dlt_reaps_first(const struct dlt_reaps *rs, uint32_t pid)
{
	if (rs->nb == 0)
		return 0;
	size_t i = rs->head[dlt_pid_bucket(pid, rs->nb)];
	while (i && rs->r[i - 1].pid != pid)
		i = rs->next[i - 1];
	return i;
}

size_t dlt_reaps_next(const struct dlt_reaps *rs, size_t i)
{
	uint32_t pid = rs->r[i - 1].pid;
	i = rs->next[i - 1];
	while (i && rs->r[i - 1].pid != pid)
		i = rs->next[i - 1];
	return i;
}

static int dlt_fork_cmp(const void *a, const void *b)
{
	const struct dlt_fork_rec *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The latest fork of pid at or before ts in forks sorted by pid and time,
 * or NULL.  A shell that ran 20,000 commands forked and reaped 20,000
 * times: a pass over its forks per reap was quadratic. */
static const struct dlt_fork_rec *dlt_fork_before(const struct dlt_fork_rec *f,
						  size_t n, uint32_t pid,
						  uint64_t ts)
{
	size_t lo = 0, hi = n; /* the first after (pid, ts) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f[mid].pid < pid || (f[mid].pid == pid && f[mid].ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && f[lo - 1].pid == pid ? &f[lo - 1] : NULL;
}

/* Whether p reaped s->pid already after the same fork, with the same
 * status: the record of a peek (waitid with WNOWAIT), which traces made
 * before the shim told peeks from reaps hold, then the reap itself.  Only
 * a new fork of the pid can make a second child of it; the status must
 * agree too, in case a spawn (which records no fork) reused the pid. */
static bool dlt_reap_again(const struct dlt_reaps *rs,
			   const struct dlt_reap_seen *s)
{
	if (s->forked_wall_ns == 0)
		return false;
	for (size_t i = dlt_reaps_first(rs, s->pid); i;
	     i = dlt_reaps_next(rs, i)) {
		const struct dlt_reap_seen *o = &rs->r[i - 1];
		if (o->reaper_trace == s->reaper_trace &&
		    o->forked_wall_ns == s->forked_wall_ns &&
		    o->status == s->status && o->reaper == s->reaper)
			return true;
	}
	return false;
}

void dlt_reaps_add(struct dlt_reaps *rs, const struct dlt_process *p)
{
	struct dlt_fork_rec *forks = NULL;
	if (p->nreaps && p->nforks) {
		forks = dlt_xcalloc(p->nforks, sizeof(*forks));
		memcpy(forks, p->forks, p->nforks * sizeof(*forks));
		qsort(forks, p->nforks, sizeof(*forks), dlt_fork_cmp);
	}
	for (size_t i = 0; i < p->nreaps; i++) {
		dlt_reaps_room(rs);
		struct dlt_reap_seen *s = &rs->r[rs->n];
		memset(s, 0, sizeof(*s));
		if (p->host)
			strncpy(s->host, p->host, sizeof(s->host) - 1);
		s->run_id = p->hdr.run_id;
		s->reaper = p->hdr.pid;
		s->pid = p->reaps[i].pid;
		s->status = p->reaps[i].status;
		s->ts = p->reaps[i].ts;
		s->wall_ns = dlt_wall(p, p->reaps[i].ts);
		s->reaper_trace = p->hdr.trace_id;
		const struct dlt_fork_rec *f = dlt_fork_before(
			forks, forks ? p->nforks : 0, s->pid, p->reaps[i].ts);
		if (f)
			s->forked_wall_ns = dlt_wall(p, f->ts);
		if (!dlt_reap_again(rs, s))
			dlt_reaps_link(rs, rs->n++);
	}
	free(forks);
}

void dlt_reaps_free(struct dlt_reaps *rs)
{
	free(rs->r);
	free(rs->head);
	free(rs->next);
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
	for (size_t i = dlt_reaps_first(rs, p->hdr.pid); i;
	     i = dlt_reaps_next(rs, i)) {
		const struct dlt_reap_seen *s = &rs->r[i - 1];
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
