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
#include <sys/wait.h>

#include "ranges.h"
#include "rules.h"
#include "units.h"
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
	dlt_units_dur(ns, buf, cap);
}

/* The headline's words for what the process does: "sleeping in
 * clock_nanosleep for 3.2 s at train.py:88 in load_batch". */
static void dlt_jh_short(const struct dlt_hang_proc *hp,
			 const struct dlt_wait_state *ws, char *buf, size_t cap)
{
	char d[32], nr[32], fn[256] = "";
	dlt_jh_for(hp, ws, d, sizeof(d));
	const struct dlt_hang_stall *s = ws->stall;
	const char *at = ws->own[0] ? ws->own : ws->py;
	if (!at[0] && ws->where[0]) {
		/* "lib.so!func+0x12" reads "func (lib.so)". */
		dlt_frame_prose(ws->where, fn, sizeof(fn));
		at = fn;
	}
	const char *sep = !at[0] ? "" : at == fn ? " in " : " at ";
	if (ws->call)
		snprintf(buf, cap, "in %s for %s%s%s", ws->what, d, sep, at);
	else if (s && (s->state == 'T' || s->state == 't'))
		snprintf(buf, cap, "stopped (SIGSTOP or a debugger) for %s%s%s",
			 d, sep, at);
	else if (s)
		snprintf(buf, cap, "%s %s for %s%s%s",
			 dlt_wait_sleeps_nr(s->syscall) ? "sleeping in"
			 : s->syscall == 202		? "blocked on a lock in"
							: "blocked in",
			 dlt_syscall_label(s->syscall, nr, sizeof(nr)), d, sep,
			 at);
	else if (hp->ended)
		snprintf(buf, cap, "ended");
	else
		snprintf(buf, cap, "running, never seen waiting%s%s", sep, at);
}

/* The detail's words for a wait: the headline's (dlt_jh_short), with the
 * package's place the program's line called when they differ ("at
 * train.py:12 in step (distributed_c10d.py:1541 in all_reduce)"), and a
 * futex that is the loader's lock. */
static void dlt_jh_doing(const struct dlt_hang_proc *hp,
			 const struct dlt_wait_state *ws, char *buf, size_t cap)
{
	dlt_jh_short(hp, ws, buf, cap);
	size_t used = strlen(buf);
	if (ws->own[0] && ws->py[0] && strcmp(ws->own, ws->py) != 0 &&
	    used < cap)
		used += (size_t)snprintf(buf + used, cap - used, " (%s)",
					 ws->py);
	/* The loader's lock is one futex whose holder the stacks name
	 * (LOADER_LOCK says who). */
	if (ws->stall && ws->stall->syscall == 202 /* futex */ &&
	    dlt_loader_lock_stall(ws->stall) && used < cap)
		snprintf(buf + used, cap - used,
			 " (the loader's lock: see LOADER_LOCK)");
}

/* The code a wait is in, when the headline's words did not name it:
 * "c10d::Work::wait (libtorch_cpu.so.1.13.0)", else "". */
static void dlt_jh_code(const struct dlt_wait_state *ws, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (ws->where[0] && (ws->own[0] || ws->py[0]))
		dlt_frame_prose(ws->where, buf, cap);
	/* A library's address no symbol covers names no code. */
	if (strstr(buf, "(no symbol)"))
		buf[0] = '\0';
}

/* evidence.culprit (dlt_ev_culprit): a stopped straggler's cause says
 * so. */
static struct dlt_val *dlt_jh_culprit(struct dlt_val *ev,
				      const struct dlt_hang_proc *hp,
				      const struct dlt_wait_state *ws,
				      int32_t rank, const char *cause)
{
	const char *at = ws && ws->own[0] ? ws->own : ws ? ws->py : "";
	bool stopped = ws && ws->stall &&
		       (ws->stall->state == 'T' || ws->stall->state == 't');
	return dlt_ev_culprit(ev, rank, hp ? hp->pid : 0, at,
			      stopped ? "stopped" : cause);
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
		/* The Python frames in place of the interpreter's: the stack
		 * people read (check's text shows it, once). */
		if (ws->stall->merged[0])
			dlt_obj_str(o, "merged_stack", ws->stall->merged);
	}
}

/* The waiting members, "0 1 2", and the first of them. */
static size_t dlt_jh_waiting(const struct dlt_job_ctx *c,
			     const struct dlt_wait_group *g, char *text,
			     size_t cap, struct dlt_val *arr, size_t *count)
{
	size_t first = SIZE_MAX, nr = 0;
	int64_t *ranks = dlt_xcalloc(g->n ? g->n : 1, sizeof(*ranks));
	for (size_t m = 0; m < g->n; m++) {
		const struct dlt_hang_proc *hp = c->procs[g->members[m]];
		struct dlt_wait_state ws;
		dlt_wait_state_of(hp, &ws);
		if (ws.kind != DLT_WAIT_PEERS)
			continue;
		if (first == SIZE_MAX)
			first = g->members[m];
		ranks[nr++] = hp->rank;
		if (arr)
			dlt_jh_ev_state(dlt_arr_object(arr), hp, &ws);
	}
	/* Members are in rank order: thousands of ranks read as ranges,
	 * " 0–4,998, 5,000–9,999". */
	text[0] = ' ';
	dlt_ranges_text(ranks, nr, text + 1, cap - 1);
	free(ranks);
	if (count)
		*count = nr;
	return first;
}

/* The links between members: the chain of waits, in evidence and as
 * text ("rank 0 -> rank 1 (tcp 127.0.0.1:41234)"). */
static void dlt_jh_chain(const struct dlt_job_ctx *c,
			 const struct dlt_wait_ends *e,
			 const struct dlt_wait_group *g, size_t to_first,
			 char *text, size_t cap, struct dlt_val *arr)
{
	size_t used = 0, shown = 0, more = 0;
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
			 * per waiting process, a clause each; the first few
			 * (the evidence has them all). */
			bool into = to_first == SIZE_MAX || l[k].to == to_first;
			for (size_t q = 0; q < k && into; q++)
				into = l[q].to != l[k].to;
			if (into && shown >= 4)
				more++;
			else if (into && used + 160 < cap) {
				used += (size_t)snprintf(
					text + used, cap - used,
					"%srank %" PRId32 " -> rank %" PRId32
					" (thread %" PRIu32 " in %s on %s)",
					used ? "; " : "", a->rank, b->rank,
					l[k].tid, sc, l[k].addr);
				shown++;
			}
		}
	}
	if (more && used < cap)
		snprintf(text + used, cap - used,
			 "; and %zu more link%s (evidence: chain)", more,
			 more == 1 ? "" : "s");
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
	case DLT_WHY_UNREACHABLE:
		dlt_job_fix(c, f,
			    "%s looks for the rendezvous where it is not: give "
			    "it the MASTER_ADDR and MASTER_PORT (or the "
			    "init_method address) the others use; a firewall "
			    "between the nodes looks the same",
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

/* The headline: who holds the job up, where and why, in one terminal
 * line; what the others do and the chain of waits are its detail. */
static void dlt_jh_headline(const struct dlt_job_ctx *c,
			    const struct dlt_wait_group *g,
			    const struct dlt_hang_proc *sp,
			    const struct dlt_wait_state *ws, const char *who,
			    char *buf, size_t cap)
{
	char doing[512] = "", coll[160] = "", cur[160] = "";
	if (sp)
		dlt_jh_short(sp, ws, doing, sizeof(doing));
	switch (g->why) {
	case DLT_WHY_NOT_WAITING:
		snprintf(buf, cap, "%s holds the job up: %s", who, doing);
		break;
	case DLT_WHY_ENDED: {
		char how[96];
		dlt_hang_end_words(sp, how, sizeof(how));
		snprintf(buf, cap,
			 "%s holds the job up: it %s while the others wait "
			 "for it",
			 who, how);
		break;
	}
	case DLT_WHY_MISSING:
		snprintf(buf, cap,
			 "%s holds the job up: it has no trace (never started, "
			 "or not under dltrace)",
			 who);
		break;
	case DLT_WHY_UNREACHABLE:
		if (sp->connect_fail)
			snprintf(buf, cap,
				 "%s holds the job up: it cannot connect, "
				 "%" PRIu64 " connects to %s failed (%s) while "
				 "the others met",
				 who, sp->connect_fail, sp->connect_addr,
				 strerror(sp->connect_err));
		else
			snprintf(buf, cap,
				 "%s holds the job up: it cannot connect, "
				 "%" PRIu32
				 " tries to reach %s while the others met",
				 who, sp->connect_tries, sp->try_addr);
		break;
	case DLT_WHY_OTHER_OP:
		if (g->comm_id == 0 && sp->comm_id == 0) {
			/* Told apart by their Python places (waits.c). */
			char theirs[256] = "";
			for (size_t m = 0; m < g->n && !theirs[0]; m++) {
				struct dlt_wait_state o;
				if (g->members[m] == g->straggler)
					continue;
				dlt_wait_state_of(c->procs[g->members[m]], &o);
				snprintf(theirs, sizeof(theirs), "%s", o.py);
			}
			snprintf(buf, cap,
				 "%s holds the job up: it waits at %s, every "
				 "other rank at %s",
				 who, ws->py, theirs);
			break;
		}
		/* fall through */
	case DLT_WHY_BEHIND: {
		struct dlt_wait_coll wc;
		uint64_t id = g->comm_id ? g->comm_id : sp->comm_id;
		dlt_wait_coll_of(sp, id, &wc);
		if (wc.comm && wc.comm->done)
			dlt_wait_coll_text(&wc.comm->last, coll, sizeof(coll));
		if (wc.call)
			dlt_wait_coll_text(&wc.cur, cur, sizeof(cur));
		/* What the others are in: the first other member in flight
		 * at their number. */
		char theirs[160] = "";
		for (size_t m = 0; m < g->n && !theirs[0]; m++) {
			struct dlt_wait_coll oc;
			if (g->members[m] != g->straggler &&
			    dlt_wait_coll_of(c->procs[g->members[m]], id,
					     &oc) &&
			    oc.call && oc.comm->done + 1 == g->seq_others)
				dlt_wait_coll_text(&oc.cur, theirs,
						   sizeof(theirs));
		}
		if (g->why == DLT_WHY_BEHIND && wc.call)
			snprintf(buf, cap,
				 "%s holds its communicator up: it waits in "
				 "collective #%" PRIu32 " (%s), the others in "
				 "#%" PRIu32 "%s%s%s",
				 who, g->seq_straggler, cur, g->seq_others,
				 theirs[0] ? " (" : "", theirs,
				 theirs[0] ? ")" : "");
		else if (g->why == DLT_WHY_BEHIND)
			snprintf(
				buf, cap,
				"%s holds its communicator up: it made %" PRIu32
				" collectives, the others wait in #%" PRIu32
				"; it is %s",
				who, g->seq_straggler, g->seq_others, doing);
		else
			snprintf(buf, cap,
				 "%s holds its communicator up: its collective "
				 "#%" PRIu32 " is %s, the others' %s",
				 who, g->seq_straggler, cur,
				 theirs[0] ? theirs : "another");
		break;
	}
	default:
		/* A job of one rank waits for nobody else: it is the one. */
		if (g->n == 1) {
			const struct dlt_hang_proc *one =
				c->procs[g->members[0]];
			struct dlt_wait_state os;
			char name[64];
			dlt_wait_state_of(one, &os);
			dlt_hang_who(one, name, sizeof(name));
			dlt_jh_short(one, &os, doing, sizeof(doing));
			snprintf(buf, cap,
				 "%s holds the job up: %s; the job has no "
				 "other rank",
				 name, doing);
		} else
			snprintf(
				buf, cap,
				"every rank of the job waits for another; none "
				"is elsewhere");
	}
}

/* Ranks waiting at different places of their Python code (all_reduce on
 * one, broadcast on another) entered different collectives: the places
 * say which ("" when they agree). */
static void dlt_jh_places(const struct dlt_job_ctx *c,
			  const struct dlt_wait_group *g, char *buf, size_t cap)
{
	char first[256] = "";
	bool differ = false;
	size_t lu = 0, named = 0, more = 0;
	buf[0] = '\0';
	for (size_t m = 0; m < g->n; m++) {
		const struct dlt_hang_proc *hp = c->procs[g->members[m]];
		struct dlt_wait_state mw;
		dlt_wait_state_of(hp, &mw);
		if (mw.kind != DLT_WAIT_PEERS || mw.py[0] == '\0')
			continue;
		if (first[0] == '\0')
			snprintf(first, sizeof(first), "%s", mw.py);
		differ |= strcmp(first, mw.py) != 0;
		if (named < 4 && lu < cap)
			lu += (size_t)snprintf(buf + lu, cap - lu,
					       "%srank %" PRId32 " at %s",
					       lu ? ", " : "", hp->rank, mw.py);
		else
			more++;
		named++;
	}
	if (more && lu < cap)
		snprintf(buf + lu, cap - lu, " and %zu more ranks", more);
	if (!differ)
		buf[0] = '\0';
}

/* The code of an error already found about procs[i]'s death, or NULL. */
static const char *dlt_jh_death_error(const struct dlt_job_ctx *c, size_t i)
{
	static const char *const deaths[] = {"CRASH", "OOM_KILL", "SIGKILL"};
	for (size_t d = 0; d < sizeof(deaths) / sizeof(deaths[0]); d++)
		if (dlt_job_error_about(c, i, deaths[d]))
			return deaths[d];
	return NULL;
}

static const char *dlt_jh_why(enum dlt_wait_why w)
{
	static const char *const words[] = {
		"none",	  "missing",	      "not waiting",   "ended",
		"behind", "other collective", "cannot connect"};
	return (size_t)w < sizeof(words) / sizeof(words[0]) ? words[w] : "none";
}

static void dlt_job_hang_one(struct dlt_job_ctx *c,
			     const struct dlt_wait_ends *e,
			     const struct dlt_wait_group *g, const bool *split)
{
	bool member = g->straggler != SIZE_MAX;
	const struct dlt_hang_proc *sp = member ? c->procs[g->straggler] : NULL;
	struct dlt_wait_state ws;
	memset(&ws, 0, sizeof(ws));
	if (sp)
		dlt_wait_state_of(sp, &ws);
	char who[64], head[1024], waiting[256], chain[1024], wdoing[1024];
	if (sp)
		dlt_hang_who(sp, who, sizeof(who));
	else if (g->missing_rank >= 0)
		snprintf(who, sizeof(who), "rank %" PRId32, g->missing_rank);
	else
		snprintf(who, sizeof(who), "no rank");
	dlt_jh_headline(c, g, sp, &ws, who, head, sizeof(head));
	/* The straggler waits for its DataLoader worker, which is stuck in
	 * the program's own code: the worker is where to look. */
	const struct dlt_hang_proc *wp =
		g->worker != SIZE_MAX ? c->procs[g->worker] : NULL;
	struct dlt_wait_state wk;
	char wdo[1024] = "";
	if (wp) {
		char wshort[512];
		dlt_wait_state_of(wp, &wk);
		dlt_jh_short(wp, &wk, wshort, sizeof(wshort));
		dlt_jh_doing(wp, &wk, wdo, sizeof(wdo));
		snprintf(head, sizeof(head),
			 "%s holds the job up: its worker pid %" PRIu32
			 " is %s",
			 who, wp->pid, wshort);
	}
	/* The missing rank's own process, which never said its rank. */
	const struct dlt_hang_proc *ip =
		g->stand_in != SIZE_MAX ? c->procs[g->stand_in] : NULL;
	struct dlt_wait_state is;
	if (ip) {
		char ishort[512];
		dlt_wait_state_of(ip, &is);
		dlt_jh_short(ip, &is, ishort, sizeof(ishort));
		snprintf(head, sizeof(head),
			 "%s holds the job up: pid %" PRIu32
			 ", started for it, never reached init_process_group; "
			 "%s",
			 who, ip->pid, ishort);
	}
	size_t nwait = 0;
	size_t w0 =
		dlt_jh_waiting(c, g, waiting, sizeof(waiting), NULL, &nwait);
	struct dlt_wait_state wws;
	dlt_wait_state_of(c->procs[w0], &wws);
	dlt_jh_doing(c->procs[w0], &wws, wdoing, sizeof(wdoing));
	dlt_jh_chain(c, e, g, member ? g->straggler : SIZE_MAX, chain,
		     sizeof(chain), NULL);
	char places[1024], sdoing[1024] = "";
	dlt_jh_places(c, g, places, sizeof(places));
	if (sp && g->why != DLT_WHY_ENDED)
		dlt_jh_doing(sp, &ws, sdoing, sizeof(sdoing));
	/* A straggler that died of something with an error of its own
	 * (CRASH, OOM_KILL, SIGKILL): that is the cause, the hang its
	 * consequence. */
	const char *cause = g->why == DLT_WHY_ENDED
				    ? dlt_jh_death_error(c, g->straggler)
				    : NULL;
	/* A job split by its address (a rank given another MASTER_PORT):
	 * RANK_MISMATCH names the rank; each half waits for the other. */
	for (size_t m = 0; m < g->n && cause == NULL && split; m++)
		if (split[g->members[m]])
			cause = "RANK_MISMATCH";
	/* Ranks that disagree on the job's size or a communicator's: the
	 * job cannot form, RANK_MISMATCH says who. */
	for (size_t k = 0; k < c->chk->nf && cause == NULL; k++) {
		const struct dlt_finding *mf = &c->chk->f[k];
		if (mf->severity != DLT_SEV_ERROR ||
		    strcmp(mf->code, "RANK_MISMATCH") != 0)
			continue;
		for (size_t m = 0; m < g->n && cause == NULL; m++)
			if (c->proc[g->members[m]] == mf->proc)
				cause = "RANK_MISMATCH";
	}
	struct dlt_finding *f = dlt_job_finding(
		c, member ? g->straggler : g->first,
		cause ? DLT_SEV_INFO : DLT_SEV_ERROR, "%s%s%s%s", head,
		cause ? " (see " : "", cause ? cause : "", cause ? ")" : "");
	/* Detail, a clause each (a line each in check's text): what the
	 * headline leaves out of the straggler's wait and the code it is in,
	 * who waits and where, the links into it, the places that differ. */
	char detail[4096], code[400];
	size_t du = 0;
	detail[0] = '\0';
	if (wp) {
		char wshort[512];
		dlt_jh_short(wp, &wk, wshort, sizeof(wshort));
		if (strcmp(wdo, wshort) != 0)
			du += (size_t)snprintf(detail, sizeof(detail),
					       "its worker pid %" PRIu32
					       ": %s; ",
					       wp->pid, wdo);
		dlt_jh_code(&wk, code, sizeof(code));
		if (code[0] && du < sizeof(detail))
			du += (size_t)snprintf(detail + du, sizeof(detail) - du,
					       "its worker waits in %s; ",
					       code);
	}
	bool alone = g->why == DLT_WHY_NOT_WAITING && sp->nsocks == 0;
	/* The headline said the straggler's wait in these words already,
	 * unless it spoke of its worker. */
	if (sdoing[0] && du < sizeof(detail) &&
	    (wp || alone || strstr(head, sdoing) == NULL))
		du += (size_t)snprintf(detail + du, sizeof(detail) - du,
				       "%s: %s%s; ", who, sdoing,
				       alone ? ", never connected to "
					       "another rank"
					     : "");
	if (sp && g->why != DLT_WHY_ENDED && du < sizeof(detail)) {
		dlt_jh_code(&ws, code, sizeof(code));
		if (code[0])
			du += (size_t)snprintf(detail + du, sizeof(detail) - du,
					       "%s waits in %s; ", who, code);
	}
	/* "for it" when the straggler is not among them (a rank behind or
	 * in another collective waits too). */
	const char *them =
		(member && ws.kind != DLT_WAIT_PEERS) || g->missing_rank >= 0
			? " for it"
			: "";
	if (du < sizeof(detail) && nwait > 1)
		du += (size_t)snprintf(detail + du, sizeof(detail) - du,
				       "ranks%s wait%s; rank %" PRId32 ": %s",
				       waiting, them, c->procs[w0]->rank,
				       wdoing);
	else if (du < sizeof(detail))
		du += (size_t)snprintf(detail + du, sizeof(detail) - du,
				       "rank %" PRId32 " waits%s: %s",
				       c->procs[w0]->rank, them, wdoing);
	dlt_jh_code(&wws, code, sizeof(code));
	if (code[0] && du < sizeof(detail))
		du += (size_t)snprintf(detail + du, sizeof(detail) - du,
				       "; rank %" PRId32 " waits in %s",
				       c->procs[w0]->rank, code);
	if (chain[0] && du < sizeof(detail))
		du += (size_t)snprintf(detail + du, sizeof(detail) - du, "; %s",
				       chain);
	if (places[0] && du < sizeof(detail))
		snprintf(detail + du, sizeof(detail) - du,
			 "; at different places: %s", places);
	dlt_finding_detail(c->chk, f, "%s", detail);
	f->ts = ws.since ? ws.since : wws.since;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "why", dlt_jh_why(g->why));
	if (sp)
		dlt_jh_ev_state(dlt_obj_object(ev, "straggler"), sp, &ws);
	else
		dlt_obj_null(ev, "straggler");
	/* The straggler's DataLoader worker: where to look, its wait and
	 * stack (it is no member of the job, its waits no stalls of it). */
	if (wp)
		dlt_jh_ev_state(dlt_obj_object(ev, "worker"), wp, &wk);
	if (wp)
		dlt_obj_int(dlt_jh_culprit(ev, wp, &wk, -1,
					   "not waiting: its worker"),
			    "worker_of", sp->rank);
	else if (ip)
		dlt_jh_culprit(ev, ip, &is, g->missing_rank,
			       "not waiting: never reached init_process_group");
	else
		dlt_jh_culprit(ev, sp, sp ? &ws : NULL,
			       sp ? sp->rank : g->missing_rank,
			       dlt_jh_why(g->why));
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
		       dlt_obj_array(ev, "waiting"), NULL);
	dlt_jh_chain(c, e, g, member ? g->straggler : SIZE_MAX, chain,
		     sizeof(chain), dlt_obj_array(ev, "chain"));
	dlt_jh_stalls(c, g, dlt_obj_array(ev, "stalls"));
	char where[300];
	/* A frame in prose: "main (train)", not "train!main+0xd6". */
	if (ws.py[0])
		snprintf(where, sizeof(where), "%s", ws.py);
	else
		dlt_frame_prose(ws.where, where, sizeof(where));
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
		/* A clause per link, "pid 4711 (sh) waits for pid 4712
		 * (sleep) in wait4", the first few (the evidence has them
		 * all); the last of the chain is the straggler, which the
		 * detail's first clause describes. */
		if (k + 1 < t->n && k < 6 && used < cap) {
			const struct dlt_hang_proc *nx =
				c->procs[t->chain[k + 1].proc];
			char own[64], fr[300] = "";
			snprintf(own, sizeof(own), "for pid %" PRIu32, nx->pid);
			if (!ws.py[0] && ws.where[0])
				dlt_frame_prose(ws.where, fr, sizeof(fr));
			/* An address no symbol covers names no code. */
			if (strstr(fr, "(no symbol)"))
				fr[0] = '\0';
			used += (size_t)snprintf(
				text + used, cap - used,
				"%spid %" PRIu32 " (%s) waits for pid %" PRIu32
				" (%s)%s%s%s%s%s%s%s%s",
				used ? "; " : "", hp->pid, dlt_jh_exe(hp),
				nx->pid, dlt_jh_exe(nx), ws.stall ? " in " : "",
				sc, via[0] && strcmp(via, own) ? " " : "",
				strcmp(via, own) ? via : "",
				ws.py[0] ? " at " : "", ws.py,
				fr[0] ? " in " : "", fr);
		} else if (k + 1 < t->n && k == 6 && used < cap) {
			used += (size_t)snprintf(
				text + used, cap - used,
				"; and %zu more links (evidence: chain)",
				t->n - 1 - k);
		}
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

/* The first node of torchrun's --nnodes that no agent of the run came
 * from, when the tree's straggler is an agent waiting in the rendezvous
 * (its store or the elastic rendezvous code) and no rank started; else
 * -1.  Agents of other nodes traced into the same directory count as
 * present. */
static int32_t dlt_jh_missing_node(const struct dlt_job_ctx *c,
				   const struct dlt_wait_tree *t,
				   const struct dlt_hang_proc *sp)
{
	if (!sp->tr_agent || sp->tr_nnodes < 2 || sp->tr_nnodes > 4096)
		return -1;
	struct dlt_wait_state ws;
	dlt_wait_state_of(sp, &ws);
	if (ws.stall == NULL ||
	    !(strstr(ws.stall->stack, "TCPStore") ||
	      strstr(ws.stall->stack, "endezvous") ||
	      (ws.stall->py &&
	       strstr(ws.stall->py->frames[0], "elastic/rendezvous"))))
		return -1;
	for (int32_t node = 0; node < sp->tr_nnodes; node++) {
		bool present = false;
		for (size_t m = 0; m < t->nmembers && !present; m++) {
			const struct dlt_hang_proc *a = c->procs[t->members[m]];
			present = a->tr_agent && a->tr_node_rank == node;
		}
		if (!present && sp->tr_node_rank >= 0)
			return node;
	}
	return -1;
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
	char head[640];
	dlt_jh_short(sp, &ws, head, sizeof(head));
	/* torchrun's agent in its rendezvous, in a run without ranks: the
	 * nodes of --nnodes that never joined it hold the job up. */
	int32_t node = dlt_jh_missing_node(c, t, sp);
	struct dlt_finding *f;
	if (node >= 0)
		f = dlt_job_finding(c, si, DLT_SEV_ERROR,
				    "node %" PRId32 " of --nnodes %" PRId32
				    " holds the job up: it never joined "
				    "torchrun's rendezvous; %s waits for it",
				    node, sp->tr_nnodes, who);
	else
		f = dlt_job_finding(c, si, DLT_SEV_ERROR,
				    "%s holds the run up: %s", who, head);
	/* The straggler's whole wait, unless the headline said it in these
	 * words. */
	char mine[1400] = "";
	if (strstr(f->message, doing) == NULL)
		snprintf(mine, sizeof(mine), "%s: %s; ", who, doing);
	if (t->n > 1)
		dlt_finding_detail(c->chk, f, "%s%s; %s", mine, chain, ended);
	else
		dlt_finding_detail(c->chk, f,
				   "%sno other process waits for it; %s", mine,
				   ended);
	f->ts = ws.since;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "why", "end of the chain");
	if (node >= 0) {
		struct dlt_val *o = dlt_ev_culprit(
			ev, sp->tr_nproc > 0 ? node * sp->tr_nproc : -1, 0,
			NULL, "missing: a node never joined the rendezvous");
		dlt_obj_int(o, "node", node);
	} else {
		dlt_jh_culprit(ev, sp, &ws, sp->rank, "end of the chain");
	}
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
	char atb[300];
	const char *at =
		ws.py[0] ? ws.py : dlt_frame_prose(ws.where, atb, sizeof(atb));
	dlt_job_fix(c, f,
		    "look at what %s does%s%s: the processes before it in the "
		    "chain wait for it.  A child that sleeps, reads input "
		    "that never comes or waits for a lock holds its parent's "
		    "wait, and so the whole run, up",
		    who, at[0] ? " at " : "", at);
}

static void dlt_rule_job_hang(struct dlt_job_ctx *c)
{
	struct dlt_wait_ends e = {NULL, 0};
	if (c->ngroups)
		dlt_wait_ends_build(c->procs, c->n, &e);
	/* Both halves of jobs split by their address: the ranks with
	 * another one and the rank 0 they were meant to join. */
	bool *split = c->ngroups ? dlt_xcalloc(c->n, sizeof(*split)) : NULL;
	for (size_t j = 0; split && j < c->n; j++) {
		size_t z = dlt_hang_split_from(c, j);
		if (z != SIZE_MAX)
			split[j] = split[z] = true;
	}
	for (size_t k = 0; k < c->ngroups; k++)
		dlt_job_hang_one(c, &e, &c->groups[k], split);
	free(split);
	dlt_wait_ends_free(&e);
	for (size_t k = 0; k < c->ntrees; k++)
		if (c->trees[k].n)
			dlt_job_hang_tree(c, &c->trees[k]);
}

DLT_RULE(job_hang, 165, "JOB_HANG", DLT_SEV_ERROR, NULL, dlt_rule_job_hang,
	 "ranks wait for their peers and the job did not complete, or a run "
	 "without ranks was ended while it waited: the rank or process that "
	 "holds them up");
