/* Evidence the job rules share: every hang finding names the call in
 * flight, the wait and the communicator or job with the same keys, in
 * `check`, `hangs` and the export's markers alike. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "rules.h"
#include "waits.h"

void dlt_ev_hang_call(struct dlt_val *o, const struct dlt_hang_proc *hp,
		      const struct dlt_hang_call *c)
{
	if (c == NULL)
		return;
	const struct dlt_api_desc *a = dlt_api_by_id(c->api);
	dlt_obj_str(o, "call", a ? a->name : NULL);
	dlt_obj_uint(o, "call_tid", c->tid);
	dlt_obj_uint(o, "call_since_unix_ns", dlt_hang_wall(hp, c->ts));
	dlt_obj_uint(o, "in_call_ns",
		     hp->last_ts > c->ts ? hp->last_ts - c->ts : 0);
	dlt_ev_api_values(dlt_obj_object(o, "call_values"), a, c->v, c->nv);
}

void dlt_ev_hang_stall(struct dlt_val *o, const struct dlt_hang_proc *hp,
		       const struct dlt_hang_stall *s)
{
	if (s == NULL)
		return;
	char nr[32];
	dlt_obj_uint(o, "tid", s->tid);
	dlt_obj_str(o, "syscall",
		    dlt_syscall_label(s->syscall, nr, sizeof(nr)));
	dlt_obj_int(o, "syscall_nr", s->syscall);
	dlt_obj_uint(o, "blocked_ns", s->dur_ns);
	dlt_obj_uint(o, "blocked_since_unix_ns", dlt_hang_wall(hp, s->since));
	dlt_obj_str(o, "wait", s->detail);
	dlt_obj_str(o, "wchan", s->wchan);
	dlt_obj_str(o, "stack", s->stack);
	if (s->merged[0]) {
		dlt_obj_str(o, "merged_stack", s->merged);
		dlt_obj_str(o, "stack_unwound", s->stack_how);
	}
	dlt_obj_bool(o, "ended", s->ended);
	if (s->py == NULL)
		return;
	struct dlt_val *a = dlt_obj_array(o, "python_stack");
	for (uint32_t i = 0; i < s->py->n; i++)
		dlt_arr_str(a, s->py->frames[i]);
	dlt_obj_uint(o, "python_depth", s->py->depth);
	dlt_obj_str(o, "python_stack_why", s->py->why[0] ? s->py->why : NULL);
}

void dlt_ev_hang_comm(struct dlt_val *o, const struct dlt_hang_proc *hp)
{
	if (hp->comm_id == 0)
		return;
	dlt_obj_strf(o, "comm_id_hash", "%016" PRIx64, hp->comm_id);
	dlt_obj_int(o, "nranks", hp->comm_nranks);
	dlt_obj_int(o, "comm_rank", hp->comm_rank);
}

void dlt_ev_hang_job(struct dlt_val *o, const struct dlt_hang_proc *hp)
{
	dlt_obj_str(o, "master_addr",
		    hp->master_addr[0] ? hp->master_addr : NULL);
	dlt_obj_str(o, "master_port",
		    hp->master_port[0] ? hp->master_port : NULL);
	if (hp->world_size > 0)
		dlt_obj_int(o, "world_size", hp->world_size);
	else
		dlt_obj_null(o, "world_size");
}

size_t dlt_hang_missing(const uint8_t *seen, int n, char *text, size_t cap,
			struct dlt_val *o, const char *key)
{
	size_t nmiss = 0, used = 0;
	struct dlt_val *a = o ? dlt_obj_array(o, key) : NULL;
	if (cap)
		text[0] = '\0';
	for (int r = 0; r < n; r++) {
		if (seen[r])
			continue;
		nmiss++;
		dlt_arr_int(a, r);
		if (used + 16 < cap)
			used += (size_t)snprintf(text + used, cap - used, " %d",
						 r);
	}
	return nmiss;
}

bool dlt_hang_first_by(const struct dlt_job_ctx *c, size_t i,
		       uint64_t (*key)(const struct dlt_hang_proc *hp))
{
	uint64_t k = key(c->procs[i]);
	if (k == 0)
		return false;
	for (size_t j = 0; j < i; j++)
		if (key(c->procs[j]) == k)
			return false;
	return true;
}

uint64_t dlt_hang_comm_key(const struct dlt_hang_proc *hp)
{
	return hp->comm_id;
}

bool dlt_hang_first_in_job(const struct dlt_job_ctx *c, size_t i)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	if (!dlt_hang_job_rank(hp))
		return false;
	for (size_t j = 0; j < i; j++)
		if (dlt_hang_job_rank(c->procs[j]) &&
		    dlt_hang_same_job(c->procs[j], hp))
			return false;
	return true;
}

/* Code that waits for other ranks: the store and rendezvous of
 * torch.distributed, its process groups and collectives. */
static bool dlt_in_store(const struct dlt_hang_stall *s)
{
	return strstr(s->stack, "TCPStore") || strstr(s->stack, "Rendezvous") ||
	       strstr(s->stack, "rendezvous") ||
	       strstr(s->stack, "init_process_group") ||
	       strstr(s->stack, "waitForWorkers");
}

const struct dlt_hang_stall *
dlt_hang_rendezvous_stall(const struct dlt_hang_proc *hp)
{
	for (size_t k = 0; k < hp->ninflight; k++)
		if (dlt_hang_is_init(hp->inflight[k].api))
			return NULL;
	if (dlt_hang_exited(hp))
		return NULL;
	for (size_t k = 0; k < hp->nstalls; k++)
		if (dlt_in_store(&hp->stalls[k]) || hp->connect_fail)
			return &hp->stalls[k];
	return NULL;
}

bool dlt_hang_stall_matters(const struct dlt_job_ctx *c,
			    const struct dlt_hang_proc *hp,
			    const struct dlt_hang_stall *s)
{
	static const char *const waits_for_others[] = {
		/* GPU libraries */
		"libcuda.so", "libcudart", "libcudnn", "libnccl", "libcublas",
		"libnvidia",
		/* rendezvous, process groups, collectives */
		"TCPStore", "Rendezvous", "rendezvous", "init_process_group",
		"waitForWorkers", "ProcessGroup", "gloo", "c10d", "allreduce",
		"all_reduce", "barrier", "Barrier"};
	if (dlt_hang_call_of(hp, s->tid))
		return true;
	for (size_t i = 0;
	     i < sizeof(waits_for_others) / sizeof(waits_for_others[0]); i++)
		if (strstr(s->stack, waits_for_others[i]))
			return true;
	if (c->completed)
		return false;
	/* In a job that did not finish any wait may be the one, except a
	 * parent's wait for its children: the children say more. */
	if (s->syscall == 61 /* wait4 */ || s->syscall == 247 /* waitid */)
		return false;
	if (s->syscall == 130 /* rt_sigsuspend */ ||
	    s->syscall == 34 /* pause */)
		for (size_t j = 0; j < c->n; j++)
			if (c->procs[j]->ppid == hp->pid)
				return false;
	return true;
}

const struct dlt_wait_group *dlt_hang_group_of(const struct dlt_job_ctx *c,
					       size_t i)
{
	for (size_t k = 0; k < c->ngroups; k++)
		for (size_t m = 0; m < c->groups[k].n; m++)
			if (c->groups[k].members[m] == i)
				return &c->groups[k];
	return NULL;
}

enum dlt_severity dlt_hang_told(const struct dlt_job_ctx *c, size_t i,
				enum dlt_severity sev, char *who, size_t cap)
{
	const struct dlt_wait_group *g = dlt_hang_group_of(c, i);
	who[0] = '\0';
	/* A run without ranks that JOB_HANG judged as a tree: its error. */
	if (g == NULL && dlt_wait_in_tree(c->trees, c->ntrees, i))
		return sev == DLT_SEV_ERROR ? DLT_SEV_INFO : sev;
	if (g == NULL)
		return sev;
	if (g->straggler != SIZE_MAX)
		dlt_hang_who(c->procs[g->straggler], who, cap);
	else if (g->missing_rank >= 0)
		snprintf(who, cap, "rank %" PRId32, g->missing_rank);
	/* JOB_HANG is the error of this hang: the others say where each
	 * rank is, in its terms. */
	return sev == DLT_SEV_ERROR ? DLT_SEV_INFO : sev;
}

struct dlt_val *dlt_ev_culprit(struct dlt_val *ev, int32_t rank, uint32_t pid,
			       const char *python_at, const char *cause)
{
	struct dlt_val *o = dlt_obj_object(ev, "culprit");
	if (rank >= 0)
		dlt_obj_int(o, "rank", rank);
	else
		dlt_obj_null(o, "rank");
	if (pid)
		dlt_obj_uint(o, "pid", pid);
	else
		dlt_obj_null(o, "pid");
	/* "train.py:88 in load_batch": the file without its directory, as
	 * every finding names a Python place. */
	const char *at = python_at && python_at[0] ? python_at : NULL;
	if (at) {
		const char *colon = strrchr(at, ':'), *base = at;
		for (const char *q = at; *q && (colon == NULL || q < colon);
		     q++)
			if (*q == '/')
				base = q + 1;
		at = base;
	}
	dlt_obj_str(o, "python_at", at);
	dlt_obj_str(o, "cause", cause);
	return o;
}

/* "exited with status 1", "killed by signal 11 (SIGSEGV)", "ended
 * without an end record" (SIGKILL, a crash its handler could not
 * write, a lost trace). */
void dlt_hang_end_words(const struct dlt_hang_proc *hp, char *buf, size_t cap)
{
	if (hp->exit_how == DLT_EXIT_REAPED && WIFSIGNALED(hp->exit_status)) {
		const char *n = dlt_signal_name(WTERMSIG(hp->exit_status));
		snprintf(buf, cap, "killed by %s", n ? n : "a signal");
	} else if (hp->exit_how == DLT_EXIT_REAPED) {
		snprintf(buf, cap, "exited with status %d",
			 WEXITSTATUS(hp->exit_status));
	} else if (hp->ended && hp->exit_status >= 0 &&
		   (hp->exit_how == DLT_EXIT_NORMAL ||
		    hp->exit_how == DLT_EXIT_UNDERSCORE ||
		    hp->exit_how == DLT_EXIT_MAIN)) {
		snprintf(buf, cap, "exited with status %d",
			 hp->exit_status & 0xff);
	} else if (hp->ended) {
		snprintf(buf, cap, "%s",
			 dlt_hang_exited(hp) ? "exited" : "was killed");
	} else {
		snprintf(buf, cap, "died without an end record");
	}
}

size_t dlt_hang_split_from(const struct dlt_job_ctx *c, size_t i)
{
	const struct dlt_hang_proc *hp = c->procs[i];
	if (!dlt_hang_job_rank(hp) || hp->master_port[0] == '\0')
		return SIZE_MAX;
	/* procs are in rank order: the first rank 0 of the run with this
	 * size and another address is the store's host. */
	for (size_t j = 0; j < c->n && c->procs[j]->rank <= 0; j++) {
		const struct dlt_hang_proc *o = c->procs[j];
		if (o->rank == 0 && dlt_hang_job_rank(o) &&
		    o->run_group == hp->run_group &&
		    o->world_size == hp->world_size && o->master_port[0] &&
		    !dlt_hang_same_job(o, hp))
			return j;
	}
	return SIZE_MAX;
}

const struct dlt_finding *dlt_job_error_about(const struct dlt_job_ctx *c,
					      size_t i, const char *code)
{
	for (size_t k = 0; k < c->chk->nf; k++) {
		const struct dlt_finding *f = &c->chk->f[k];
		if (f->proc == c->proc[i] && f->severity == DLT_SEV_ERROR &&
		    strcmp(f->code, code) == 0)
			return f;
	}
	return NULL;
}
