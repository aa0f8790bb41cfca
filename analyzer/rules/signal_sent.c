/* SIGNAL_SENT: another process ended this one with a signal (SIGTERM from
 * `timeout`, a shell's kill, the job's launcher, SIGINT, SIGHUP ...),
 * named by its pid, user and command.  The processes come from the CRASH
 * rule, which notes them as each process is checked (sigdeath.h): here
 * every process of the check is known, so that a sender that was only
 * reacting to an earlier failure is not reported as the cause.  When the
 * sender is dltrace itself after --hang-timeout, or a traced process (the
 * job's launcher: torchrun, a parent script) while another process had
 * failed, the finding is info and points at that failure. */
#include <signal.h>

#include "rules.h"
#include "sigdeath.h"

/* "pid 123 (timeout, uid 0)" */
static const char *dlt_sent_who(int32_t pid, uint32_t uid, const char *comm,
				char *buf, size_t cap)
{
	if (comm)
		snprintf(buf, cap, "pid %" PRId32 " (%s, uid %" PRIu32 ")", pid,
			 comm, uid);
	else
		snprintf(buf, cap,
			 "pid %" PRId32 " (uid %" PRIu32
			 ", gone before its name could be read)",
			 pid, uid);
	return buf;
}

/* The traced process that sent it, on the same host, or SIZE_MAX. */
static size_t dlt_sent_by_traced(const struct dlt_check *chk,
				 const struct dlt_sigdeath *d)
{
	const struct dlt_check_proc *me = &chk->procs[d->proc];
	for (size_t i = 0; i < chk->nprocs; i++) {
		const struct dlt_check_proc *q = &chk->procs[i];
		if (i != d->proc && q->trace &&
		    q->pid == (uint32_t)d->sender_pid &&
		    q->run_group == me->run_group &&
		    (q->host == NULL || me->host == NULL ||
		     strcmp(q->host, me->host) == 0))
			return i;
	}
	return SIZE_MAX;
}

/* The failure another process of the run had before d: its CRASH finding
 * (the earliest), else the first process of the run that failed on its
 * own (not ended by a signal sent to it).  NULL when none. */
static const struct dlt_finding *
dlt_sent_first_crash(const struct dlt_check *chk, const struct dlt_sigdeath *d)
{
	const struct dlt_finding *best = NULL;
	uint32_t group = chk->procs[d->proc].run_group;
	for (size_t i = 0; i < chk->nf; i++) {
		const struct dlt_finding *f = &chk->f[i];
		if (f->proc == DLT_NO_PROC || f->proc == d->proc ||
		    chk->procs[f->proc].run_group != group ||
		    strcmp(f->code, "CRASH") != 0 || f->ts > d->ts)
			continue;
		if (best == NULL || f->ts < best->ts)
			best = f;
	}
	return best;
}

static size_t dlt_sent_first_failure(const struct dlt_check *chk,
				     const struct dlt_sigdeath *d,
				     const struct dlt_sigdeath *all, size_t n,
				     size_t sender)
{
	uint32_t group = chk->procs[d->proc].run_group;
	for (size_t i = 0; i < chk->nprocs; i++) {
		const struct dlt_check_proc *q = &chk->procs[i];
		if (i == d->proc || i == sender || q->run_group != group ||
		    !q->end_failure || q->signal == SIGKILL)
			continue;
		bool sent = false;
		for (size_t k = 0; k < n; k++)
			sent |= all[k].proc == i;
		if (!sent)
			return i;
	}
	return SIZE_MAX;
}

/* When dltrace began ending d's run after --hang-timeout, if it did
 * before d (its first signal to any process of the run on d's host, whose
 * clock d's time shares), else 0. */
static uint64_t dlt_sent_dltrace_ended(const struct dlt_check *chk,
				       const struct dlt_sigdeath *d)
{
	const struct dlt_check_proc *me = &chk->procs[d->proc];
	uint64_t first = 0;
	for (size_t i = 0; i < chk->nprocs; i++) {
		const struct dlt_check_proc *q = &chk->procs[i];
		if (q->dltrace_ts == 0 || q->run_group != me->run_group ||
		    (q->host && me->host && strcmp(q->host, me->host) != 0))
			continue;
		if (first == 0 || q->dltrace_ts < first)
			first = q->dltrace_ts;
	}
	return first && first <= d->ts ? first : 0;
}

static void dlt_sent_one(struct dlt_job_ctx *c, const struct dlt_sigdeath *d,
			 const struct dlt_sigdeath *all, size_t n)
{
	const struct dlt_check *chk = c->chk;
	size_t ji = 0;
	while (ji < c->n && c->proc[ji] != d->proc)
		ji++;
	if (ji == c->n)
		return;
	const char *name = dlt_signal_name(d->signo);
	char who[256], orig[320] = "";
	dlt_sent_who(d->sender_pid, d->sender_uid, d->sender_comm, who,
		     sizeof(who));
	if (d->forwarded) {
		char o[256];
		snprintf(orig, sizeof(orig),
			 ", which passed on what %s sent it",
			 d->orig_pid > 0
				 ? dlt_sent_who(d->orig_pid, d->orig_uid,
						d->orig_comm, o, sizeof(o))
				 : "an unknown process");
	}
	size_t sender = dlt_sent_by_traced(chk, d);
	bool by_dltrace = !d->forwarded && d->sender_comm &&
			  strcmp(d->sender_comm, "dltrace") == 0;
	/* Sent by a process of the run after dltrace began to end it
	 * (mp.spawn's parent passes SIGINT on to its children, a launcher
	 * cleans up): dltrace's own doing, not a cause. */
	uint64_t ended_at = dlt_sent_dltrace_ended(chk, d);
	bool after_dltrace =
		!by_dltrace && ended_at && (sender != SIZE_MAX || d->forwarded);
	/* dltrace's own SIGTERM after --hang-timeout: the hang is the
	 * failure, whatever the processes did once signalled. */
	const struct dlt_finding *crash =
		by_dltrace || after_dltrace ? NULL
					    : dlt_sent_first_crash(chk, d);
	size_t failed = crash ? crash->proc
			: sender != SIZE_MAX
				? dlt_sent_first_failure(chk, d, all, n, sender)
				: SIZE_MAX;
	/* Only a traced sender is known to react to failures: `kill` and
	 * `timeout` act on their own. */
	bool reaction = !by_dltrace && !after_dltrace &&
			(sender != SIZE_MAX || crash) && failed != SIZE_MAX;
	struct dlt_finding *f;
	if (by_dltrace) {
		f = dlt_job_finding(c, ji, DLT_SEV_INFO,
				    "ended by %s from dltrace (pid %" PRId32
				    ") when --hang-timeout ran out",
				    name ? name : "a signal", d->sender_pid);
		dlt_job_fix(c, f,
			    "see the hang findings: they say where each "
			    "process waited");
	} else if (after_dltrace) {
		f = dlt_job_finding(
			c, ji, DLT_SEV_INFO,
			"ended by %s from %s%s, after dltrace ended "
			"the run at --hang-timeout",
			name ? name : "a signal", who, orig);
		dlt_job_fix(c, f,
			    "nothing: the sender passed on or followed "
			    "dltrace's own ending; see the hang findings for "
			    "where each process waited");
	} else if (reaction) {
		const struct dlt_check_proc *q = &chk->procs[failed];
		f = dlt_job_finding(c, ji, DLT_SEV_INFO,
				    "ended by %s from %s%s after pid %" PRIu32
				    " (%s) %s",
				    name ? name : "a signal", who, orig, q->pid,
				    q->exe ? dlt_basename(q->exe) : "?",
				    crash ? "crashed" : q->ended);
		dlt_job_fix(c, f,
			    "the first failure is pid %" PRIu32
			    "'s: see %s; this process was stopped "
			    "because of it",
			    q->pid,
			    crash ? "its CRASH finding" : "how it ended");
	} else {
		f = dlt_job_finding(c, ji, DLT_SEV_ERROR,
				    "ended by %s sent by %s%s",
				    name ? name : "a signal", who, orig);
		dlt_job_fix(c, f,
			    "find out why %s sent it (a time limit, a "
			    "scheduler's preemption, a person): the "
			    "process itself did not fail",
			    d->forwarded && d->orig_comm ? d->orig_comm
			    : d->sender_comm		 ? d->sender_comm
							 : "the sender");
	}
	f->ts = d->ts;
	struct dlt_val *e = f->evidence;
	dlt_obj_int(e, "signal", d->signo);
	dlt_obj_str(e, "signal_name", name);
	dlt_obj_int(e, "si_code", d->code);
	struct dlt_val *s = dlt_obj_object(e, "sender");
	dlt_obj_int(s, "pid", d->sender_pid);
	dlt_obj_uint(s, "uid", d->sender_uid);
	dlt_obj_str(s, "command", d->sender_comm);
	dlt_obj_bool(s, "traced", sender != SIZE_MAX);
	if (d->forwarded) {
		struct dlt_val *o = dlt_obj_object(e, "forwarded_from");
		dlt_obj_int(o, "pid", d->orig_pid);
		dlt_obj_uint(o, "uid", d->orig_uid);
		dlt_obj_str(o, "command", d->orig_comm);
	}
	if (reaction)
		dlt_obj_uint(e, "first_failure_pid", chk->procs[failed].pid);
	if (after_dltrace)
		dlt_obj_str(e, "consequence_of", "dltrace --hang-timeout");
	dlt_obj_str(e, "ended", chk->procs[d->proc].ended);
}

static void dlt_rule_signal_sent(struct dlt_job_ctx *c)
{
	size_t n;
	const struct dlt_sigdeath *all = dlt_sigdeath_of(c->chk, &n);
	for (size_t i = 0; all && i < n; i++)
		dlt_sent_one(c, &all[i], all, n);
	dlt_sigdeath_clear();
}

DLT_RULE(signal_sent, 175, "SIGNAL_SENT", DLT_SEV_ERROR, NULL,
	 dlt_rule_signal_sent,
	 "another process ended this one with a signal: who sent it");
