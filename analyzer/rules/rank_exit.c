/* RANK_EXIT: ranks of a job ended with a failure (an exception, a non-zero
 * exit status) and the job did not complete: the first of them is where
 * the job failed, those after it followed (gloo and NCCL fail a rank whose
 * peer's connections closed; a launcher stops the others).  A rank the
 * others still wait for is JOB_HANG's (it names it, "ended"); a death by a
 * signal is CRASH's, OOM_KILL's, SIGKILL's or SIGNAL_SENT's; a rank
 * dltrace ended after --hang-timeout failed at no one's hand. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "rules.h"
#include "units.h"
#include "waits.h"

/* Ended on its own with a non-zero status. */
static bool dlt_rx_failed(const struct dlt_hang_proc *hp)
{
	return dlt_hang_exited(hp) && !dlt_hang_completed(hp) &&
	       hp->dltrace_sig == 0 && hp->exit_how != DLT_EXIT_EXEC;
}

/* A signal that is a failure of the process's own: a crash, or the
 * SIGKILL the out-of-memory killer sends. */
static bool dlt_rx_death(int sig)
{
	return sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS ||
	       sig == SIGFPE || sig == SIGILL || sig == SIGKILL ||
	       sig == SIGSYS || sig == SIGTRAP;
}

/* The members of procs[i]'s job (or communicator), by index. */
static bool dlt_rx_same(const struct dlt_hang_proc *a,
			const struct dlt_hang_proc *b)
{
	if (dlt_hang_job_rank(a) && dlt_hang_job_rank(b))
		return dlt_hang_same_job(a, b);
	return a->comm_id && a->comm_id == b->comm_id &&
	       a->run_group == b->run_group;
}

static bool dlt_rx_straggler(const struct dlt_job_ctx *c, size_t i)
{
	for (size_t k = 0; k < c->ngroups; k++)
		if (c->groups[k].straggler == i)
			return true;
	return false;
}

/* RANK_MISMATCH found an error about the job: ranks that disagree on its
 * size or address fail at the rendezvous, that is the cause. */
static bool dlt_rx_mismatch(const struct dlt_job_ctx *c, size_t i0)
{
	for (size_t k = 0; k < c->chk->nf; k++) {
		const struct dlt_finding *f = &c->chk->f[k];
		if (f->severity != DLT_SEV_ERROR ||
		    strcmp(f->code, "RANK_MISMATCH") != 0)
			continue;
		for (size_t j = i0; j < c->n; j++)
			if (c->proc[j] == f->proc &&
			    dlt_rx_same(c->procs[i0], c->procs[j]))
				return true;
	}
	return false;
}

static void dlt_rank_exit_job(struct dlt_job_ctx *c, size_t i0)
{
	size_t first = SIZE_MAX, nfailed = 0;
	uint64_t first_wall = 0, death_wall = 0;
	for (size_t j = i0; j < c->n; j++) {
		const struct dlt_hang_proc *hp = c->procs[j];
		if (hp->rank < 0 || !dlt_rx_same(c->procs[i0], hp))
			continue;
		/* A rank that crashed or was SIGKILLed (its reaper saw the
		 * signal): CRASH's, OOM_KILL's, SIGKILL's.  One stopped by
		 * another's SIGTERM or SIGINT (mp.spawn's parent, torchrun
		 * after the first failure) followed the failure. */
		int sig = c->chk->procs[c->proc[j]].signal;
		if (hp->dltrace_sig == 0 && dlt_rx_death(sig)) {
			uint64_t w = dlt_hang_wall(hp, hp->last_ts);
			if (death_wall == 0 || w < death_wall)
				death_wall = w;
			continue;
		}
		if (!dlt_rx_failed(hp))
			continue;
		nfailed++;
		/* Wall-clock times: ranks on several hosts. */
		uint64_t w = dlt_hang_wall(hp, hp->last_ts);
		if (first == SIZE_MAX || w < first_wall) {
			first = j;
			first_wall = w;
		}
	}
	/* A rank died of a signal: its death has an error of its own and
	 * the exits around it are its consequence (a peer's abort closes
	 * the connections, and which side noticed first is a matter of
	 * microseconds). */
	if (first == SIZE_MAX || dlt_rx_straggler(c, first) || death_wall ||
	    dlt_rx_mismatch(c, i0))
		return;
	const struct dlt_hang_proc *fp = c->procs[first];
	char who[64], how[96], after[1024] = "";
	dlt_hang_who(fp, who, sizeof(who));
	dlt_hang_end_words(fp, how, sizeof(how));
	/* The first three that followed, in one clause that fits a line;
	 * the others counted (the evidence of their own findings says how
	 * each ended). */
	size_t used = 0, listed = 0, more = 0;
	for (size_t j = i0; j < c->n && used < sizeof(after); j++) {
		const struct dlt_hang_proc *hp = c->procs[j];
		if (j == first || hp->rank < 0 ||
		    !dlt_rx_same(c->procs[i0], hp) || !hp->ended)
			continue;
		if (listed == 3) {
			more++;
			continue;
		}
		listed++;
		char w[96], d[32];
		dlt_hang_end_words(hp, w, sizeof(w));
		uint64_t at = dlt_hang_wall(hp, hp->last_ts);
		dlt_units_dur(at > first_wall ? at - first_wall : 0, d,
			      sizeof(d));
		used += (size_t)snprintf(after + used, sizeof(after) - used,
					 "%srank %" PRId32 " %s %s later",
					 used ? ", " : "", hp->rank, w, d);
	}
	struct dlt_finding *f = dlt_job_finding(
		c, first, DLT_SEV_ERROR, "%s %s first%s", who, how,
		nfailed > 1 ? "; the other failures followed it" : "");
	f->ts = fp->last_ts;
	char rest[64] = "";
	if (more)
		snprintf(rest, sizeof(rest), "; and %zu more ended after it",
			 more);
	if (after[0])
		dlt_finding_detail(c->chk, f, "then: %s%s", after, rest);
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "ended", how);
	dlt_obj_uint(ev, "failed_ranks", nfailed);
	dlt_obj_uint(ev, "ended_unix_ns", first_wall);
	/* Its Python place is not known: the traceback went to its stderr
	 * and the interpreter had unwound before it exited. */
	dlt_ev_culprit(ev, fp->rank, fp->pid, NULL, how);
	dlt_job_fix(c, f,
		    "look at %s's output (its traceback or its last lines): "
		    "it failed while the others ran, and they failed or were "
		    "stopped after it",
		    who);
}

static void dlt_rule_rank_exit(struct dlt_job_ctx *c)
{
	if (c->completed)
		return;
	/* Each job and each communicator of ranks without one, once, at its
	 * first process. */
	for (size_t i = 0; i < c->n; i++) {
		const struct dlt_hang_proc *hp = c->procs[i];
		if (hp->rank < 0)
			continue;
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = c->procs[j]->rank < 0 ||
				!dlt_rx_same(c->procs[j], hp);
		if (first)
			dlt_rank_exit_job(c, i);
	}
}

DLT_RULE(rank_exit, 163, "RANK_EXIT", DLT_SEV_ERROR, NULL, dlt_rule_rank_exit,
	 "ranks of a job failed (an exception, a non-zero exit status) and "
	 "the job did not complete: the first of them");
