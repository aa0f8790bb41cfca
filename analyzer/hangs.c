/* The hang analysis: the post-mortem of a job that froze.  Reads the traces of
 * every rank (usually left by processes killed with SIGKILL) and says which
 * rank never arrived, which call each rank was stuck in, in which wait, since
 * when and for how long, and who was waiting for whom.
 *
 * Streaming: each trace is read once into a small per-process summary
 * (calls in flight, stalls, identity); nothing grows with the number of
 * records. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "apinames.h"
#include "hangs.h"
#include "json.h"
#include "inputs.h"
#include "live.h"
#include "model.h"
#include "reader.h"

const char *dlt_syscall_name(int nr)
{
	switch (nr) {
	case 0:
		return "read";
	case 1:
		return "write";
	case 7:
		return "poll";
	case 23:
		return "select";
	case 35:
		return "nanosleep";
	case 42:
		return "connect";
	case 43:
		return "accept";
	case 44:
		return "sendto";
	case 45:
		return "recvfrom";
	case 46:
		return "sendmsg";
	case 47:
		return "recvmsg";
	case 61:
		return "wait4";
	case 130:
		return "rt_sigsuspend";
	case 202:
		return "futex";
	case 230:
		return "clock_nanosleep";
	case 232:
		return "epoll_wait";
	case 247:
		return "waitid";
	case 270:
		return "pselect6";
	case 271:
		return "ppoll";
	case 281:
		return "epoll_pwait";
	case 288:
		return "accept4";
	default:
		return NULL;
	}
}

typedef char *(*dlt_demangle_fn)(const char *, char *, size_t *, int *);

/* C++ names read better demangled; libstdc++'s demangler is used when the
 * analyzing machine has it (looked up at run time: dltrace is C). */
static void dlt_demangle_frame(const char *frame, char *out, size_t cap)
{
	static dlt_demangle_fn fn;
	static bool tried;
	if (!tried) {
		tried = true;
		void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
		if (h)
			fn = (dlt_demangle_fn)dlsym(h, "__cxa_demangle");
	}
	const char *bang = strchr(frame, '!');
	const char *plus = bang ? strrchr(bang, '+') : NULL;
	snprintf(out, cap, "%s", frame);
	if (fn == NULL || bang == NULL || plus == NULL ||
	    strncmp(bang + 1, "_Z", 2) != 0)
		return;
	char mangled[512];
	snprintf(mangled, sizeof(mangled), "%.*s", (int)(plus - bang - 1),
		 bang + 1);
	int st = 0;
	char *d = fn(mangled, NULL, NULL, &st);
	if (d && st == 0) {
		/* Drop the parameter list: the name says enough here. */
		char *paren = strchr(d, '(');
		if (paren)
			*paren = '\0';
		snprintf(out, cap, "%.*s%s%s", (int)(bang - frame + 1), frame,
			 d, plus);
	}
	free(d);
}

static bool dlt_api_is_init(uint16_t id)
{
	const struct dlt_api_desc *a = dlt_api_by_id(id);
	return a && (strcmp(a->name, "ncclCommInitRank") == 0 ||
		     strcmp(a->name, "ncclCommInitRankConfig") == 0 ||
		     strcmp(a->name, "ncclCommInitAll") == 0 ||
		     strcmp(a->name, "ncclCommSplit") == 0);
}

/* One trace's worth of what matters for a hang. */
static void dlt_hp_add_stall(struct dlt_hang_proc *hp,
			     const struct dlt_rec_stall *r,
			     const struct dlt_trace *t)
{
	/* The latest record of one wait wins: it carries the last duration
	 * (a continuation is written when the first left its chunk). */
	for (size_t i = 0; i < hp->nstalls; i++) {
		struct dlt_hang_stall *s = &hp->stalls[i];
		if (s->tid == r->tid && s->since == r->since) {
			if (r->dur_ns >= s->dur_ns) {
				s->dur_ns = r->dur_ns;
				s->ended = r->ended;
			}
			return;
		}
	}
	if (hp->nstalls == DLT_HANG_MAX_STALLS)
		return;
	struct dlt_hang_stall *s = &hp->stalls[hp->nstalls++];
	memset(s, 0, sizeof(*s));
	s->tid = r->tid;
	s->syscall = r->syscall;
	s->since = r->since;
	s->dur_ns = r->dur_ns;
	s->ended = r->ended;
	s->state = (char)r->state;
	s->fd = r->fd;
	snprintf(s->wchan, sizeof(s->wchan), "%s", dlt_trace_strz(t, r->wchan));
	snprintf(s->detail, sizeof(s->detail), "%s",
		 dlt_trace_strz(t, r->detail));
}

struct dlt_hang_load {
	struct dlt_hang_proc *hp;
	struct dlt_trace *t;
};

static int dlt_hang_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_hang_load *l = ctx;
	struct dlt_hang_proc *hp = l->hp;
	const struct dlt_rec_hdr *h = v->rec;
	if (h->ts > hp->last_ts && h->type != DLT_REC_STRING)
		hp->last_ts = h->ts;
	switch (h->type) {
	case DLT_REC_PROC: {
		const struct dlt_rec_proc *r = (const void *)h;
		if (r->rank >= 0)
			hp->rank = r->rank;
		hp->world_size = r->world_size;
		snprintf(hp->host, sizeof(hp->host), "%s",
			 dlt_trace_strz(l->t, r->host));
		break;
	}
	case DLT_REC_ENV: {
		const struct dlt_rec_env *r = (const void *)h;
		const char *n = dlt_trace_strz(l->t, r->name);
		const char *val = dlt_trace_strz(l->t, r->value);
		if (strcmp(n, "MASTER_ADDR") == 0)
			snprintf(hp->master_addr, sizeof(hp->master_addr), "%s",
				 val);
		else if (strcmp(n, "MASTER_PORT") == 0)
			snprintf(hp->master_port, sizeof(hp->master_port), "%s",
				 val);
		break;
	}
	case DLT_REC_API_ENTER: {
		const struct dlt_rec_api_enter *r = (const void *)h;
		size_t nv = (h->len - sizeof(*r)) / 8;
		if (hp->ninflight == DLT_HANG_MAX_INFLIGHT)
			break;
		struct dlt_hang_call *c = &hp->inflight[hp->ninflight++];
		c->tid = v->tid;
		c->api = h->flags;
		c->ts = h->ts;
		c->nv = nv < 4 ? (uint32_t)nv : 4;
		for (uint32_t i = 0; i < c->nv; i++)
			c->v[i] = r->v[i];
		if (dlt_api_is_init(h->flags) && nv >= 3) {
			/* nranks, rank, id hash */
			hp->comm_nranks = (int32_t)r->v[0];
			hp->comm_rank = (int32_t)r->v[1];
			hp->comm_id = r->v[2];
		}
		break;
	}
	case DLT_REC_API_CALL: {
		/* The call returned: it is no longer in flight. */
		for (size_t i = hp->ninflight; i-- > 0;) {
			struct dlt_hang_call *c = &hp->inflight[i];
			if (c->tid == v->tid && c->api == h->flags) {
				*c = hp->inflight[--hp->ninflight];
				break;
			}
		}
		hp->last_api = h->flags;
		hp->last_api_ts = h->ts;
		hp->last_api_tid = v->tid;
		break;
	}
	case DLT_REC_STALL:
		dlt_hp_add_stall(hp, (const void *)h, l->t);
		break;
	case DLT_REC_STACK: {
		const struct dlt_rec_stack *r = (const void *)h;
		uint32_t room = (h->len - sizeof(*r)) / 4;
		uint32_t n = r->n < room ? r->n : room;
		for (size_t i = 0; i < hp->nstalls; i++) {
			struct dlt_hang_stall *s = &hp->stalls[i];
			if (s->tid != r->tid || s->nframes)
				continue;
			size_t used = 0;
			for (uint32_t k = 0; k < n && k < 12; k++) {
				char f[512];
				dlt_demangle_frame(
					dlt_trace_strz(l->t, r->frames[k]), f,
					sizeof(f));
				used += (size_t)snprintf(
					s->stack + used,
					used < sizeof(s->stack)
						? sizeof(s->stack) - used
						: 0,
					"%s%s", k ? " < " : "", f);
				if (used >= sizeof(s->stack))
					break;
			}
			s->nframes = n;
		}
		break;
	}
	case DLT_REC_SOCK: {
		const struct dlt_rec_sock *r = (const void *)h;
		if (h->flags == DLT_SOCK_CONNECT && r->ret < 0 &&
		    r->err != 115 /* EINPROGRESS */) {
			hp->connect_fail++;
			hp->connect_fail += r->repeat;
			hp->connect_err = r->err;
			snprintf(hp->connect_addr, sizeof(hp->connect_addr),
				 "%s", dlt_trace_strz(l->t, r->addr));
		}
		break;
	}
	case DLT_REC_EXIT:
		if (hp->ended && hp->exit_how == DLT_EXIT_REAPED)
			break;
		hp->ended = true;
		hp->exit_how = h->flags;
		hp->exit_status =
			((const struct dlt_rec_exit *)(const void *)h)->status;
		break;
	}
	return 0;
}

void dlt_hang_begin(struct dlt_hang_proc *hp, const char *path)
{
	memset(hp, 0, sizeof(*hp));
	hp->rank = -1;
	hp->world_size = -1;
	hp->comm_rank = -1;
	hp->comm_nranks = -1;
	snprintf(hp->trace, sizeof(hp->trace), "%s", path);
}

void dlt_hang_hook_rec(void *hp, struct dlt_trace *t,
		       const struct dlt_rec_view *v)
{
	struct dlt_hang_load l = {hp, t};
	dlt_hang_rec(&l, v);
}

int dlt_hang_load_one(const char *path, struct dlt_hang_proc *hp, char *err,
		      size_t errlen)
{
	dlt_hang_begin(hp, path);
	struct dlt_trace *t = dlt_trace_open(path, err, errlen);
	if (t == NULL)
		return -1;
	struct dlt_hang_load l = {hp, t};
	dlt_trace_foreach(t, dlt_hang_rec, &l);
	dlt_hang_end(hp, dlt_trace_header(t));
	dlt_trace_close(t);
	return 0;
}

void dlt_hang_end(struct dlt_hang_proc *hp, const struct dlt_file_header *h)
{
	hp->pid = h->pid;
	hp->run_id = h->run_id;
	hp->start_real = h->start_realtime_ns;
	hp->start_mono = h->start_monotonic_ns;
	if (hp->rank < 0 && hp->comm_rank >= 0)
		hp->rank = hp->comm_rank;
	/* A killed process left no end record, and its stall records carry
	 * durations up to the last update: the latest of them is when it
	 * was last seen alive.  The watchdog's heartbeat (format 1.3) is
	 * later still: it is stored at every tick. */
	for (size_t i = 0; i < hp->nstalls; i++) {
		uint64_t end = hp->stalls[i].since + hp->stalls[i].dur_ns;
		if (end > hp->last_ts)
			hp->last_ts = end;
	}
	if (h->alive_ns > hp->last_ts)
		hp->last_ts = h->alive_ns;
	/* A directory read while its job runs (or hangs right now). */
	hp->live = hp->ended ? DLT_LIVE_UNKNOWN
			     : (int)dlt_live_state(hp->host, hp->pid,
						   hp->start_mono);
}

/* The first frame of a " < "-separated stack outside the C library: where
 * the program's own code waits. */
static void dlt_first_own_frame(const char *stack, char *out, size_t cap)
{
	out[0] = '\0';
	const char *p = stack;
	while (p && *p) {
		const char *next = strstr(p, " < ");
		size_t l = next ? (size_t)(next - p) : strlen(p);
		if (strncmp(p, "libc.so", 7) != 0 &&
		    strncmp(p, "libpthread", 10) != 0) {
			snprintf(out, cap, "%.*s", (int)l, p);
			return;
		}
		p = next ? next + 3 : NULL;
	}
}

/* Ended on its own (exit, _exit, exec) rather than killed or cut off. */
bool dlt_hang_exited(const struct dlt_hang_proc *hp)
{
	if (!hp->ended)
		return false;
	if (hp->exit_how == DLT_EXIT_REAPED)
		return WIFEXITED(hp->exit_status);
	return true;
}

/* Wall-clock ns of a process's monotonic timestamp: traces of several hosts
 * line up through the two clocks read together at each trace's start. */
uint64_t dlt_hang_wall(const struct dlt_hang_proc *hp, uint64_t ts)
{
	return hp->start_real + (ts - hp->start_mono);
}

static void dlt_fmt_dur(uint64_t ns, char *buf, size_t cap)
{
	if (ns >= 60ull * 1000000000ull)
		snprintf(buf, cap, "%.1f min", (double)ns / 60e9);
	else if (ns >= 1000000000ull)
		snprintf(buf, cap, "%.1f s", (double)ns / 1e9);
	else
		snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
}

void dlt_hang_wait_text(const struct dlt_hang_stall *s, char *buf, size_t cap)
{
	const char *sc = dlt_syscall_name(s->syscall);
	char d[32];
	dlt_fmt_dur(s->dur_ns, d, sizeof(d));
	char scbuf[16];
	if (sc == NULL) {
		snprintf(scbuf, sizeof(scbuf), "syscall %d", s->syscall);
		sc = scbuf;
	}
	snprintf(buf, cap, "blocked in %s for %s%s%s%s", sc, d,
		 s->detail[0] ? " (" : "", s->detail, s->detail[0] ? ")" : "");
}

/* The stall of thread tid that covers time ts, if any. */
const struct dlt_hang_stall *dlt_hang_stall_of(const struct dlt_hang_proc *hp,
					       uint32_t tid)
{
	const struct dlt_hang_stall *best = NULL;
	for (size_t i = 0; i < hp->nstalls; i++)
		if (hp->stalls[i].tid == tid &&
		    (best == NULL || hp->stalls[i].since > best->since))
			best = &hp->stalls[i];
	return best;
}

void dlt_hang_analyze(struct dlt_hang_proc *procs, size_t n,
		      dlt_hang_finding_fn emit, void *ctx)
{
	char msg[4096], wait[512];
	/* INIT_HANG: an init call in flight, or a rendezvous that is still
	 * waiting (connects failing, or a stall whose stack is in a store or
	 * rendezvous). */
	for (size_t i = 0; i < n; i++) {
		struct dlt_hang_proc *hp = &procs[i];
		for (size_t k = 0; k < hp->ninflight; k++) {
			const struct dlt_hang_call *c = &hp->inflight[k];
			if (!dlt_api_is_init(c->api))
				continue;
			const struct dlt_api_desc *a = dlt_api_by_id(c->api);
			const struct dlt_hang_stall *s =
				dlt_hang_stall_of(hp, c->tid);
			uint64_t since = c->ts;
			char d[32];
			dlt_fmt_dur(hp->last_ts - since, d, sizeof(d));
			wait[0] = '\0';
			if (s)
				dlt_hang_wait_text(s, wait, sizeof(wait));
			/* Its last sign of life is a lower bound of how long
			 * it was inside: it died or was seen later.  A process
			 * that runs now is inside it still. */
			if (hp->live == DLT_LIVE_RUNNING)
				snprintf(
					msg, sizeof(msg),
					"rank %d (pid %u, running): %s has not "
					"returned; inside it for %s so far%s%s",
					hp->rank, hp->pid, a ? a->name : "?", d,
					wait[0] ? ", " : "", wait);
			else
				snprintf(msg, sizeof(msg),
					 "rank %d (pid %u): %s never returned; "
					 "inside it for at least %s%s%s",
					 hp->rank, hp->pid, a ? a->name : "?",
					 d, wait[0] ? ", " : "", wait);
			struct dlt_hang_finding f = {
				"INIT_HANG", "error", hp, c, s, NULL, msg};
			emit(ctx, &f);
		}
		bool in_init = false;
		for (size_t k = 0; k < hp->ninflight; k++)
			in_init |= dlt_api_is_init(hp->inflight[k].api);
		if (in_init || dlt_hang_exited(hp))
			continue;
		for (size_t k = 0; k < hp->nstalls; k++) {
			const struct dlt_hang_stall *s = &hp->stalls[k];
			bool store = strstr(s->stack, "TCPStore") ||
				     strstr(s->stack, "Rendezvous") ||
				     strstr(s->stack, "rendezvous") ||
				     strstr(s->stack, "init_process_group") ||
				     strstr(s->stack, "waitForWorkers");
			if (!store && hp->connect_fail == 0)
				continue;
			dlt_hang_wait_text(s, wait, sizeof(wait));
			char where[256];
			dlt_first_own_frame(s->stack, where, sizeof(where));
			snprintf(msg, sizeof(msg),
				 "rank %d (pid %u): the rendezvous (%s%s%s) "
				 "never completed; thread %u %s%s%s",
				 hp->rank, hp->pid,
				 hp->master_addr[0] ? hp->master_addr : "store",
				 hp->master_port[0] ? ":" : "", hp->master_port,
				 s->tid, wait, where[0] ? " under " : "",
				 where);
			struct dlt_hang_finding f = {
				"INIT_HANG", "error", hp, NULL, s, NULL, msg};
			emit(ctx, &f);
			break;
		}
	}
	/* MISSING_RANK and RANK_MISMATCH per communicator (id hash) and per
	 * job (MASTER_ADDR:MASTER_PORT, WORLD_SIZE). */
	for (size_t i = 0; i < n; i++) {
		struct dlt_hang_proc *hp = &procs[i];
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			if (procs[j].comm_id && procs[j].comm_id == hp->comm_id)
				first = false;
		if (hp->comm_id == 0 || !first)
			continue;
		int32_t nranks = hp->comm_nranks;
		bool mismatch = false;
		uint8_t seen[4096] = {0};
		char dups[256] = "";
		for (size_t j = i; j < n; j++) {
			if (procs[j].comm_id != hp->comm_id)
				continue;
			if (procs[j].comm_nranks != nranks)
				mismatch = true;
			int r = procs[j].comm_rank;
			if (r >= 0 && r < 4096) {
				if (seen[r]++)
					snprintf(dups + strlen(dups),
						 sizeof(dups) - strlen(dups),
						 " %d", r);
			}
		}
		if (mismatch) {
			snprintf(msg, sizeof(msg),
				 "communicator %016" PRIx64
				 ": ranks disagree on its size (rank %d says "
				 "%d)",
				 hp->comm_id, hp->comm_rank, nranks);
			struct dlt_hang_finding f = {"RANK_MISMATCH",
						     "error",
						     hp,
						     NULL,
						     NULL,
						     NULL,
						     msg};
			emit(ctx, &f);
		}
		if (dups[0]) {
			snprintf(msg, sizeof(msg),
				 "communicator %016" PRIx64
				 ": rank(s)%s claimed by more than one process",
				 hp->comm_id, dups);
			struct dlt_hang_finding f = {"RANK_MISMATCH",
						     "error",
						     hp,
						     NULL,
						     NULL,
						     NULL,
						     msg};
			emit(ctx, &f);
		}
		char missing[512] = "";
		int nmiss = 0;
		for (int r = 0; r < nranks && r < 4096; r++)
			if (!seen[r]) {
				nmiss++;
				if (strlen(missing) < sizeof(missing) - 16)
					snprintf(missing + strlen(missing),
						 sizeof(missing) -
							 strlen(missing),
						 " %d", r);
			}
		if (nmiss) {
			snprintf(msg, sizeof(msg),
				 "communicator %016" PRIx64 " of %d ranks: "
				 "rank(s)%s never reached init (no trace "
				 "entered it)",
				 hp->comm_id, nranks, missing);
			struct dlt_hang_finding f = {
				"MISSING_RANK", "error", hp, NULL,
				NULL,		missing, msg};
			emit(ctx, &f);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct dlt_hang_proc *hp = &procs[i];
		if (hp->world_size <= 0 || hp->master_port[0] == '\0')
			continue;
		bool first = true;
		/* A job is one run's: a script run twice into one directory
		 * uses the same address and port both times. */
		for (size_t j = 0; j < i && first; j++)
			if (procs[j].world_size == hp->world_size &&
			    procs[j].run_id == hp->run_id &&
			    strcmp(procs[j].master_addr, hp->master_addr) ==
				    0 &&
			    strcmp(procs[j].master_port, hp->master_port) == 0)
				first = false;
		if (!first)
			continue;
		uint8_t seen[4096] = {0};
		bool size_mismatch = false;
		for (size_t j = i; j < n; j++) {
			if (procs[j].run_id != hp->run_id ||
			    strcmp(procs[j].master_addr, hp->master_addr) ||
			    strcmp(procs[j].master_port, hp->master_port))
				continue;
			if (procs[j].world_size != hp->world_size)
				size_mismatch = true;
			if (procs[j].rank >= 0 && procs[j].rank < 4096)
				seen[procs[j].rank] = 1;
		}
		if (size_mismatch) {
			snprintf(msg, sizeof(msg),
				 "job %s:%s: processes disagree on WORLD_SIZE "
				 "(rank %d says %d)",
				 hp->master_addr, hp->master_port, hp->rank,
				 hp->world_size);
			struct dlt_hang_finding f = {"RANK_MISMATCH",
						     "error",
						     hp,
						     NULL,
						     NULL,
						     NULL,
						     msg};
			emit(ctx, &f);
		}
		char missing[512] = "";
		int nmiss = 0;
		for (int r = 0; r < hp->world_size && r < 4096; r++)
			if (!seen[r]) {
				nmiss++;
				if (strlen(missing) < sizeof(missing) - 16)
					snprintf(missing + strlen(missing),
						 sizeof(missing) -
							 strlen(missing),
						 " %d", r);
			}
		if (nmiss) {
			snprintf(
				msg, sizeof(msg),
				"job %s:%s of WORLD_SIZE %d: rank(s)%s have no "
				"trace (never started, or started "
				"elsewhere without dltrace)",
				hp->master_addr, hp->master_port,
				hp->world_size, missing);
			struct dlt_hang_finding f = {
				"MISSING_RANK", "error", hp, NULL,
				NULL,		missing, msg};
			emit(ctx, &f);
		}
	}
	/* STALL: every long wait, with the call in flight if any. */
	for (size_t i = 0; i < n; i++) {
		struct dlt_hang_proc *hp = &procs[i];
		for (size_t k = 0; k < hp->nstalls; k++) {
			const struct dlt_hang_stall *s = &hp->stalls[k];
			const struct dlt_hang_call *c = NULL;
			for (size_t q = 0; q < hp->ninflight; q++)
				if (hp->inflight[q].tid == s->tid)
					c = &hp->inflight[q];
			const struct dlt_api_desc *a =
				c ? dlt_api_by_id(c->api) : NULL;
			dlt_hang_wait_text(s, wait, sizeof(wait));
			snprintf(msg, sizeof(msg),
				 "rank %d (pid %u) thread %u %s%s%s%s",
				 hp->rank, hp->pid, s->tid, wait,
				 a ? " inside " : "", a ? a->name : "",
				 s->ended ? " (it ended)" : "");
			struct dlt_hang_finding f = {"STALL", "warning", hp, c,
						     s,	      NULL,	 msg};
			emit(ctx, &f);
		}
	}
}

size_t dlt_hang_load_inputs(const struct dlt_inputs *in,
			    struct dlt_hang_proc **out, FILE *errs)
{
	struct dlt_hang_proc *procs =
		dlt_xcalloc(in->npaths ? in->npaths : 1, sizeof(*procs));
	size_t n = 0;
	for (size_t i = 0; i < in->npaths; i++) {
		char err[512];
		if (dlt_hang_load_one(in->paths[i], &procs[n], err,
				      sizeof(err)) == 0)
			n++;
		else if (errs)
			fprintf(errs, "dltrace-analyze: %s\n", err);
	}
	*out = procs;
	return n;
}
