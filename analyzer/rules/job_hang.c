/* JOB_HANG: ranks of a job wait for their peers and the job did not
 * complete: which rank holds them up, where it is, the waits that lead to
 * it, and since when.  The straggler is the rank that waits for nothing
 * the others wait for (it sleeps, reads, computes), ended, never came, or
 * is a collective behind the others (analyzer/analyses/waits.c).  The
 * waits of the job's threads that STALL would list one by one are its
 * evidence.  A run without ranks that dltrace ended after --hang-timeout
 * (or with a process killed while it waited) is judged as a tree: the
 * process at the end of its chain of waits (dlt_wait_trees). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"
#include "waits.h"

/* "3.2 s" of the state's wait, measured to the last sign of life. */
static void dlt_jh_for(const struct dlt_hang_proc *hp,
		       const struct dlt_wait_state *ws, char *buf, size_t cap)
{
	uint64_t ns = 0;
	if (ws->stall && !ws->call)
		ns = ws->stall->dur_ns;
	else if (ws->since && hp->last_ts > ws->since)
		ns = hp->last_ts - ws->since;
	dlt_hang_fmt_dur(ns, buf, cap);
}

/* "in clock_nanosleep for 3.2 s under python3.11!time_sleep+0x8c". */
static void dlt_jh_doing(const struct dlt_hang_proc *hp,
			 const struct dlt_wait_state *ws, char *buf, size_t cap)
{
	char d[32], nr[32];
	dlt_jh_for(hp, ws, d, sizeof(d));
	if (ws->call)
		snprintf(buf, cap, "in %s for %s", ws->what, d);
	else if (ws->stall)
		/* A futex names no owner: which thread would wake it is not
		 * recorded, and the frame is what there is to go on. */
		/* The loader's lock is one futex whose holder the stacks
		 * name (LOADER_LOCK says who). */
		snprintf(buf, cap, "blocked in %s for %s%s%s%s%s%s",
			 dlt_syscall_label(ws->stall->syscall, nr, sizeof(nr)),
			 d,
			 ws->stall->syscall != 202 /* futex */ ? ""
			 : dlt_loader_lock_stall(ws->stall)
				 ? " (the loader's lock: see LOADER_LOCK)"
				 : " (a futex, holder unknown)",
			 ws->py[0] ? " at " : "", ws->py,
			 ws->where[0] ? " under " : "", ws->where);
	else
		snprintf(buf, cap, "not seen waiting (running)");
}

static void dlt_jh_ev_state(struct dlt_val *o, const struct dlt_hang_proc *hp,
			    const struct dlt_wait_state *ws)
{
	if (hp->rank >= 0)
		dlt_obj_int(o, "rank", hp->rank);
	else
		dlt_obj_null(o, "rank");
	dlt_obj_uint(o, "pid", hp->pid);
	dlt_obj_str(o, "host", hp->host);
	dlt_obj_str(o, "state", dlt_wait_kind_name(ws->kind));
	dlt_obj_uint(o, "tid", ws->tid);
	dlt_obj_str(o, "in", ws->what);
	dlt_obj_str(o, "where", ws->where);
	dlt_obj_str(o, "python_at", ws->py[0] ? ws->py : NULL);
	if (ws->stall && ws->stall->py) {
		struct dlt_val *a = dlt_obj_array(o, "python_stack");
		for (uint32_t i = 0; i < ws->stall->py->n; i++)
			dlt_arr_str(a, ws->stall->py->frames[i]);
	}
	if (ws->since)
		dlt_obj_uint(o, "since_unix_ns", dlt_hang_wall(hp, ws->since));
	dlt_ev_hang_call(o, hp, ws->call);
	if (ws->stall) {
		char nr[32];
		dlt_obj_str(
			o, "syscall",
			dlt_syscall_label(ws->stall->syscall, nr, sizeof(nr)));
		dlt_obj_uint(o, "blocked_ns", ws->stall->dur_ns);
		dlt_obj_str(o, "wait", ws->stall->detail);
		dlt_obj_str(o, "stack", ws->stall->stack);
	}
}

/* The waiting members, "0 1 2", and the first of them. */
static size_t dlt_jh_waiting(const struct dlt_job_ctx *c,
			     const struct dlt_wait_group *g, char *text,
			     size_t cap, struct dlt_val *arr)
{
	size_t first = SIZE_MAX, used = 0;
	text[0] = '\0';
	for (size_t m = 0; m < g->n; m++) {
		const struct dlt_hang_proc *hp = c->procs[g->members[m]];
		struct dlt_wait_state ws;
		dlt_wait_state_of(hp, &ws);
		if (ws.kind != DLT_WAIT_PEERS)
			continue;
		if (first == SIZE_MAX)
			first = g->members[m];
		if (used + 16 < cap)
			used += (size_t)snprintf(text + used, cap - used,
						 " %" PRId32, hp->rank);
		if (arr)
			dlt_jh_ev_state(dlt_arr_object(arr), hp, &ws);
	}
	return first;
}

/* The links between members: the chain of waits, in evidence and as
 * text ("rank 0 -> rank 1 (tcp 127.0.0.1:41234)"). */
static void dlt_jh_chain(const struct dlt_job_ctx *c,
			 const struct dlt_wait_ends *e,
			 const struct dlt_wait_group *g, size_t to_first,
			 char *text, size_t cap, struct dlt_val *arr)
{
	size_t used = 0;
	text[0] = '\0';
	for (size_t m = 0; m < g->n; m++) {
		struct dlt_wait_link l[16];
		size_t nl = dlt_wait_links(c->procs, e, g->members[m], l, 16);
		for (size_t k = 0; k < nl; k++) {
			const struct dlt_hang_proc *a = c->procs[l[k].from];
			const struct dlt_hang_proc *b = c->procs[l[k].to];
			char nr[32];
			const char *sc =
				dlt_syscall_label(l[k].syscall, nr, sizeof(nr));
			if (arr) {
				struct dlt_val *o = dlt_arr_object(arr);
				dlt_obj_int(o, "from_rank", a->rank);
				dlt_obj_uint(o, "from_pid", a->pid);
				dlt_obj_uint(o, "tid", l[k].tid);
				dlt_obj_str(o, "syscall", sc);
				dlt_obj_int(o, "to_rank", b->rank);
				dlt_obj_uint(o, "to_pid", b->pid);
				dlt_obj_str(o, "address", l[k].addr);
			}
			/* The text names the links into the straggler, once
			 * per waiting process. */
			bool into = to_first == SIZE_MAX || l[k].to == to_first;
			for (size_t q = 0; q < k && into; q++)
				into = l[q].to != l[k].to;
			if (into && used + 128 < cap)
				used += (size_t)snprintf(
					text + used, cap - used,
					"%srank %" PRId32 " -> rank %" PRId32
					" (thread %" PRIu32 " in %s on %s)",
					used ? ", " : "", a->rank, b->rank,
					l[k].tid, sc, l[k].addr);
		}
	}
}

static void dlt_jh_stalls(const struct dlt_job_ctx *c,
			  const struct dlt_wait_group *g, struct dlt_val *arr)
{
	for (size_t m = 0; m < g->n; m++) {
		const struct dlt_hang_proc *hp = c->procs[g->members[m]];
		for (size_t k = 0; k < hp->nstalls; k++) {
			struct dlt_val *o = dlt_arr_object(arr);
			dlt_obj_int(o, "rank", hp->rank);
			dlt_obj_uint(o, "pid", hp->pid);
			dlt_ev_hang_stall(o, hp, &hp->stalls[k]);
		}
	}
}

static void dlt_jh_fix(struct dlt_job_ctx *c, struct dlt_finding *f,
		       const struct dlt_wait_group *g, const char *who,
		       const char *where)
{
	switch (g->why) {
	case DLT_WHY_NOT_WAITING:
		dlt_job_fix(c, f,
			    "look at what %s does%s%s: the others wait for it "
			    "in a collective or the rendezvous.  A rank that "
			    "sleeps, reads, computes or loads data longer "
			    "than the others (work done on one rank only, a "
			    "condition only it takes) holds every one of them "
			    "up; torch.distributed gives up only at its "
			    "timeout",
			    who, where[0] ? " at " : "", where);
		break;
	case DLT_WHY_ENDED:
		dlt_job_fix(c, f,
			    "%s ended while the others still wait for it: its "
			    "output says why (an exception on that rank only, "
			    "a path on which it skips the remaining "
			    "collectives); the others wait until their "
			    "timeout",
			    who);
		break;
	case DLT_WHY_MISSING:
		dlt_job_fix(c, f,
			    "%s left no trace: it never started (its node, "
			    "its log, the launcher's process count), was "
			    "started elsewhere without dltrace, or with "
			    "another MASTER_ADDR, MASTER_PORT or WORLD_SIZE",
			    who);
		break;
	case DLT_WHY_BEHIND:
	case DLT_WHY_OTHER_OP:
		dlt_job_fix(c, f,
			    "every rank of a communicator must call the same "
			    "collectives in the same order: find the code path "
			    "on which %s skips or changes one (a condition on "
			    "the rank, data of another length on one rank, an "
			    "exception caught on one rank)",
			    who);
		break;
	default:
		dlt_job_fix(c, f,
			    "every rank waits for another: follow the chain "
			    "(evidence); waits that form a cycle are a "
			    "deadlock in the order the ranks send and "
			    "receive, or collectives entered in a different "
			    "order on different ranks");
	}
}

/* The message's first part: who holds the job up, and how. */
static void dlt_jh_headline(const struct dlt_job_ctx *c,
			    const struct dlt_wait_group *g,
			    const struct dlt_hang_proc *sp,
			    const struct dlt_wait_state *ws, const char *who,
			    char *buf, size_t cap)
{
	char doing[1024] = "", coll[160] = "", cur[160] = "";
	if (sp)
		dlt_jh_doing(sp, ws, doing, sizeof(doing));
	switch (g->why) {
	case DLT_WHY_NOT_WAITING:
		/* A rank that never connected anywhere never reached the
		 * rendezvous at all. */
		snprintf(buf, cap,
			 "%s holds the job up: it is in no collective and no "
			 "rendezvous%s, %s",
			 who,
			 sp->nsocks == 0 ? " and never connected to another "
					   "rank"
					 : "",
			 doing);
		break;
	case DLT_WHY_ENDED:
		snprintf(buf, cap, "%s holds the job up: it ended (%s)", who,
			 dlt_hang_exited(sp) ? "exited" : "killed");
		break;
	case DLT_WHY_MISSING:
		snprintf(buf, cap,
			 "%s holds the job up: it has no trace (never started, "
			 "or not under dltrace)",
			 who);
		break;
	case DLT_WHY_BEHIND:
	case DLT_WHY_OTHER_OP: {
		struct dlt_wait_coll wc;
		uint64_t id = g->comm_id ? g->comm_id : sp->comm_id;
		dlt_wait_coll_of(sp, id, &wc);
		if (wc.comm && wc.comm->done)
			dlt_wait_coll_text(&wc.comm->last, coll, sizeof(coll));
		if (wc.call)
			dlt_wait_coll_text(&wc.cur, cur, sizeof(cur));
		/* What the others are in: the first other member in flight
		 * at their number. */
		char theirs[192] = "";
		for (size_t m = 0; m < g->n && !theirs[0]; m++) {
			struct dlt_wait_coll oc;
			char t[160];
			if (g->members[m] != g->straggler &&
			    dlt_wait_coll_of(c->procs[g->members[m]], id,
					     &oc) &&
			    oc.call && oc.comm->done + 1 == g->seq_others)
				snprintf(theirs, sizeof(theirs), " (%s)",
					 dlt_wait_coll_text(&oc.cur, t,
							    sizeof(t)));
		}
		if (g->why == DLT_WHY_BEHIND && wc.call)
			snprintf(buf, cap,
				 "%s holds communicator %016" PRIx64
				 " up: it waits in its collective #%" PRIu32
				 " (%s) while others are at #%" PRIu32 "%s",
				 who, id, g->seq_straggler, cur, g->seq_others,
				 theirs);
		else if (g->why == DLT_WHY_BEHIND)
			snprintf(buf, cap,
				 "%s holds communicator %016" PRIx64
				 " up: it made %" PRIu32
				 " collectives (the last %s) and is in none, "
				 "others wait in #%" PRIu32 "%s; it is %s",
				 who, id, g->seq_straggler,
				 coll[0] ? coll : "none", g->seq_others, theirs,
				 doing);
		else
			snprintf(buf, cap,
				 "%s holds communicator %016" PRIx64
				 " up: its collective #%" PRIu32
				 " is %s, not the one the others are in%s",
				 who, id, g->seq_straggler, cur, theirs);
		break;
	}
	default: {
		/* Ranks waiting at different places of their Python code
		 * (all_reduce on one, broadcast on another) entered
		 * different collectives: the places say which. */
		size_t used = (size_t)snprintf(
			buf, cap,
			"every rank of the job waits for another; none is "
			"elsewhere");
		char first[256] = "", list[1024] = "";
		bool differ = false;
		size_t lu = 0;
		for (size_t m = 0; m < g->n; m++) {
			const struct dlt_hang_proc *hp =
				c->procs[g->members[m]];
			struct dlt_wait_state mw;
			dlt_wait_state_of(hp, &mw);
			if (mw.kind != DLT_WAIT_PEERS || mw.py[0] == '\0')
				continue;
			if (first[0] == '\0')
				snprintf(first, sizeof(first), "%s", mw.py);
			differ |= strcmp(first, mw.py) != 0;
			if (lu < sizeof(list))
				lu += (size_t)snprintf(
					list + lu, sizeof(list) - lu,
					"%srank %" PRId32 " at %s",
					lu ? ", " : "", hp->rank, mw.py);
		}
		if (differ && used < cap)
			snprintf(buf + used, cap - used,
				 ", at different places: %s", list);
	}
	}
}

static void dlt_job_hang_one(struct dlt_job_ctx *c,
			     const struct dlt_wait_ends *e,
			     const struct dlt_wait_group *g)
{
	bool member = g->straggler != SIZE_MAX;
	const struct dlt_hang_proc *sp = member ? c->procs[g->straggler] : NULL;
	struct dlt_wait_state ws;
	memset(&ws, 0, sizeof(ws));
	if (sp)
		dlt_wait_state_of(sp, &ws);
	char who[64], head[2048], waiting[256], chain[1024], wdoing[1024];
	if (sp)
		dlt_hang_who(sp, who, sizeof(who));
	else if (g->missing_rank >= 0)
		snprintf(who, sizeof(who), "rank %" PRId32, g->missing_rank);
	else
		snprintf(who, sizeof(who), "no rank");
	dlt_jh_headline(c, g, sp, &ws, who, head, sizeof(head));
	size_t w0 = dlt_jh_waiting(c, g, waiting, sizeof(waiting), NULL);
	struct dlt_wait_state wws;
	dlt_wait_state_of(c->procs[w0], &wws);
	dlt_jh_doing(c->procs[w0], &wws, wdoing, sizeof(wdoing));
	dlt_jh_chain(c, e, g, member ? g->straggler : SIZE_MAX, chain,
		     sizeof(chain), NULL);
	struct dlt_finding *f = dlt_job_finding(
		c, member ? g->straggler : g->first, DLT_SEV_ERROR,
		"%s; rank(s)%s wait (rank %" PRId32 " %s)%s%s", head, waiting,
		c->procs[w0]->rank, wdoing, chain[0] ? "; " : "", chain);
	f->ts = ws.since ? ws.since : wws.since;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "why",
		    (const char *[]){"none", "missing", "not waiting", "ended",
				     "behind", "other collective"}[g->why]);
	if (sp)
		dlt_jh_ev_state(dlt_obj_object(ev, "straggler"), sp, &ws);
	else
		dlt_obj_null(ev, "straggler");
	if (g->missing_rank >= 0)
		dlt_obj_int(ev, "missing_rank", g->missing_rank);
	if (g->comm_id)
		dlt_obj_strf(ev, "comm_id_hash", "%016" PRIx64, g->comm_id);
	if (g->why == DLT_WHY_BEHIND || g->why == DLT_WHY_OTHER_OP) {
		dlt_obj_uint(ev, "straggler_collective", g->seq_straggler);
		dlt_obj_uint(ev, "others_collective", g->seq_others);
	}
	dlt_obj_int(ev, "size", g->size);
	dlt_jh_waiting(c, g, waiting, sizeof(waiting),
		       dlt_obj_array(ev, "waiting"));
	dlt_jh_chain(c, e, g, member ? g->straggler : SIZE_MAX, chain,
		     sizeof(chain), dlt_obj_array(ev, "chain"));
	dlt_jh_stalls(c, g, dlt_obj_array(ev, "stalls"));
	char where[256];
	snprintf(where, sizeof(where), "%s", ws.py[0] ? ws.py : ws.where);
	dlt_jh_fix(c, f, g, who, where);
}

/* ---- a run without ranks ---------------------------------------------- */

static const char *dlt_jh_exe(const struct dlt_hang_proc *hp)
{
	const char *b = strrchr(hp->exe, '/');
	return b ? b + 1 : hp->exe[0] ? hp->exe : "?";
}

/* "pid 4711 (sh) in wait4 -> pid 4712 (sleep) in clock_nanosleep at
 * <string>:4 in <module>", and the same as evidence, innermost last. */
static void dlt_jh_tree_chain(const struct dlt_job_ctx *c,
			      const struct dlt_wait_tree *t, char *text,
			      size_t cap, struct dlt_val *arr)
{
	size_t used = 0;
	text[0] = '\0';
	for (size_t k = 0; k < t->n; k++) {
		const struct dlt_hang_proc *hp = c->procs[t->chain[k].proc];
		struct dlt_wait_state ws;
		dlt_wait_state_of(hp, &ws);
		char nr[32];
		const char *sc = ws.stall ? dlt_syscall_label(ws.stall->syscall,
							      nr, sizeof(nr))
					  : "";
		const char *via = t->chain[k].via;
		if (used < cap)
			used += (size_t)snprintf(
				text + used, cap - used,
				"%spid %" PRIu32 " (%s) %s%s%s%s%s%s%s%s%s",
				k ? " -> " : "", hp->pid, dlt_jh_exe(hp),
				ws.stall ? "in " : "not seen waiting", sc,
				via[0] ? " (" : "", via, via[0] ? ")" : "",
				ws.py[0] ? " at " : "", ws.py,
				!ws.py[0] && ws.where[0] ? " under " : "",
				ws.py[0] ? "" : ws.where);
		if (arr == NULL)
			continue;
		struct dlt_val *o = dlt_arr_object(arr);
		dlt_obj_uint(o, "pid", hp->pid);
		dlt_obj_str(o, "exe", hp->exe);
		dlt_obj_str(o, "host", hp->host);
		dlt_obj_str(o, "state", dlt_wait_kind_name(ws.kind));
		dlt_obj_str(o, "in", ws.stall ? ws.what : NULL);
		dlt_obj_str(o, "where", ws.where);
		dlt_obj_str(o, "python_at", ws.py[0] ? ws.py : NULL);
		if (ws.since)
			dlt_obj_uint(o, "since_unix_ns",
				     dlt_hang_wall(hp, ws.since));
		dlt_obj_str(o, "waits_for_next",
			    t->chain[k].via[0] ? t->chain[k].via : NULL);
	}
}

static void dlt_job_hang_tree(struct dlt_job_ctx *c,
			      const struct dlt_wait_tree *t)
{
	size_t si = t->chain[t->n - 1].proc;
	const struct dlt_hang_proc *sp = c->procs[si];
	struct dlt_wait_state ws;
	dlt_wait_state_of(sp, &ws);
	char who[300], doing[1024], chain[2048], text[1];
	snprintf(who, sizeof(who), "pid %" PRIu32 " (%s)", sp->pid,
		 dlt_jh_exe(sp));
	dlt_jh_doing(sp, &ws, doing, sizeof(doing));
	dlt_jh_tree_chain(c, t, chain, sizeof(chain), NULL);
	const char *ended =
		t->by_dltrace ? "dltrace ended the run after --hang-timeout"
			      : "it was killed while it waited";
	struct dlt_finding *f;
	if (t->n > 1)
		f = dlt_job_finding(c, si, DLT_SEV_ERROR,
				    "%s holds the run up: %s; the chain of "
				    "waits: %s; %s",
				    who, doing, chain, ended);
	else
		f = dlt_job_finding(c, si, DLT_SEV_ERROR,
				    "%s holds the run up: %s; no other process "
				    "waits for it; %s",
				    who, doing, ended);
	f->ts = ws.since;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "why", "end of the chain");
	dlt_obj_str(ev, "ended_by",
		    t->by_dltrace ? "dltrace --hang-timeout"
				  : "killed while waiting");
	dlt_jh_ev_state(dlt_obj_object(ev, "straggler"), sp, &ws);
	dlt_jh_tree_chain(c, t, text, sizeof(text), dlt_obj_array(ev, "chain"));
	struct dlt_val *st = dlt_obj_array(ev, "stalls");
	for (size_t m = 0; m < t->nmembers; m++) {
		const struct dlt_hang_proc *hp = c->procs[t->members[m]];
		for (size_t k = 0; k < hp->nstalls; k++) {
			struct dlt_val *o = dlt_arr_object(st);
			dlt_obj_uint(o, "pid", hp->pid);
			dlt_ev_hang_stall(o, hp, &hp->stalls[k]);
		}
	}
	const char *at = ws.py[0] ? ws.py : ws.where;
	dlt_job_fix(c, f,
		    "look at what %s does%s%s: the processes before it in the "
		    "chain wait for it.  A child that sleeps, reads input "
		    "that never comes or waits for a lock holds its parent's "
		    "wait, and so the whole run, up",
		    who, at[0] ? " at " : "", at);
}

static void dlt_rule_job_hang(struct dlt_job_ctx *c)
{
	struct dlt_wait_group *g;
	size_t ng = dlt_wait_groups(c->procs, c->n, c->completed, &g);
	struct dlt_wait_ends e = {NULL, 0};
	if (ng)
		dlt_wait_ends_build(c->procs, c->n, &e);
	for (size_t k = 0; k < ng; k++)
		dlt_job_hang_one(c, &e, &g[k]);
	dlt_wait_ends_free(&e);
	dlt_wait_groups_free(g, ng);
	struct dlt_wait_tree *t;
	size_t nt = dlt_wait_trees(c->procs, c->n, c->completed, &t);
	for (size_t k = 0; k < nt; k++)
		if (t[k].n)
			dlt_job_hang_tree(c, &t[k]);
	dlt_wait_trees_free(t, nt);
}

DLT_RULE(job_hang, 165, "JOB_HANG", DLT_SEV_ERROR, NULL, dlt_rule_job_hang,
	 "ranks wait for their peers and the job did not complete, or a run "
	 "without ranks was ended while it waited: the rank or process that "
	 "holds them up");
