/* Who waits for whom.  A hung job is a set of ranks that wait for each
 * other; the one to look at is the rank that waits for nothing the others
 * wait for (it sleeps, reads, computes, ended, or never came), or the one
 * a collective behind the others.  Everything here comes from the hang
 * summary of each process (hangs.c): the thread the job waits on, the
 * connections its threads are blocked on (the peer address a STALL names
 * is the other process's local end, recorded by SOCK_ENDS), and the
 * collectives counted per communicator. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "apinames.h"
#include "dltrace/format.h"
#include "dltrace/gpu_abi.h"
#include "mem.h"
#include "waits.h"

const char *dlt_wait_kind_name(enum dlt_wait_kind k)
{
	switch (k) {
	case DLT_WAIT_PEERS:
		return "waiting for peers";
	case DLT_WAIT_OTHER:
		return "waiting elsewhere";
	case DLT_WAIT_ENDED:
		return "ended";
	default:
		return "running";
	}
}

bool dlt_wait_in_peer_code(const char *stack)
{
	static const char *const marks[] = {"c10d::",
					    "gloo::",
					    "TCPStore",
					    "waitForWorkers",
					    "rendezvous",
					    "Rendezvous",
					    "init_process_group",
					    "libnccl",
					    "barrier",
					    "Barrier",
					    "allreduce",
					    "all_reduce"};
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(stack, marks[i]))
			return true;
	return false;
}

/* Threads every process of torch.distributed has, idle in collective code
 * whatever the job does: gloo's workers and event loop, the store's
 * server and watchdog threads. */

static int dlt_wait_cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}
static bool dlt_wait_helper_loop(const char *stack)
{
	return strstr(stack, "runLoop") || strstr(stack, "MasterDaemon") ||
	       strstr(stack, "BackgroundThread") ||
	       strstr(stack, "tcp::Loop") || strstr(stack, "Watchdog");
}

/* Frame k of a stack, without its object and offset:
 * "libc10d.so!c10d::Work::wait+0x12" -> "c10d::Work::wait". */
static void dlt_wait_frame_name(const char *f, size_t len, char *out,
				size_t cap)
{
	const char *bang = memchr(f, '!', len);
	const char *s = bang ? bang + 1 : f;
	size_t n = len - (size_t)(s - f);
	const char *plus = NULL;
	for (size_t i = n; i-- > 0;)
		if (s[i] == '+') {
			plus = s + i;
			break;
		}
	if (plus && bang)
		n = (size_t)(plus - s);
	snprintf(out, cap, "%.*s", (int)n, s);
}

/* The first frame for which pick() holds, named ("" none); with full, the
 * frame as recorded. */
static void dlt_wait_find_frame(const char *stack,
				bool (*pick)(const char *f, size_t len),
				bool full, char *out, size_t cap)
{
	out[0] = '\0';
	const char *p = stack;
	while (p && *p) {
		const char *next = strstr(p, " < ");
		size_t l = next ? (size_t)(next - p) : strlen(p);
		if (pick(p, l)) {
			if (full)
				snprintf(out, cap, "%.*s", (int)l, p);
			else
				dlt_wait_frame_name(p, l, out, cap);
			return;
		}
		p = next ? next + 3 : NULL;
	}
}

static bool dlt_frame_own(const char *f, size_t len)
{
	/* dltrace's own wrappers (wait4, waitid) are no frame of the
	 * program's. */
	static const char *const sys[] = {
		"libc.so",  "libpthread", "libstdc++",	  "ld-linux",
		"libgcc_s", "[vdso]",	  "libdltrace.so"};
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (len >= strlen(sys[i]) &&
		    strncmp(f, sys[i], strlen(sys[i])) == 0)
			return false;
	/* The interpreter's code (python3.11!PyObject_Vectorcall, or
	 * python3.11+0x5b50f8 where it is stripped) is no place of the
	 * program's: its Python frame is. */
	if (strncmp(f, "python", 6) == 0 || strncmp(f, "libpython", 9) == 0)
		return false;
	return true;
}

static bool dlt_frame_peer(const char *f, size_t len)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%.*s", (int)len, f);
	return dlt_wait_in_peer_code(buf);
}

/* PyTorch's distributed layer, what the program called (all_reduce,
 * init_process_group): a wait is named after it rather than after gloo's
 * or the store's code below it (gloo::transport::tcp::UnboundBuffer::
 * waitRecv under c10d::ProcessGroupGloo's allreduce). */
static bool dlt_frame_c10d(const char *f, size_t len)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%.*s", (int)len, f);
	return strstr(buf, "c10d::") != NULL;
}

/* The thread's Python frames are torch.distributed's (all_reduce,
 * init_process_group, barrier): it waits for the other ranks, whatever
 * its native frames could be named; the innermost such frame in out. */
static bool dlt_wait_py_peer(const struct dlt_hang_stall *s, char *out,
			     size_t cap)
{
	if (out && cap)
		out[0] = '\0';
	if (s == NULL || s->py == NULL)
		return false;
	for (uint32_t i = 0; i < s->py->n && i < DLT_PYSTACK_KEEP; i++) {
		const char *f = s->py->frames[i];
		if (!strstr(f, "torch/distributed/"))
			continue;
		if (out && cap) {
			const char *slash = strrchr(f, '/');
			snprintf(out, cap, "%s", slash ? slash + 1 : f);
		}
		return true;
	}
	return false;
}

static bool dlt_wait_open(const struct dlt_hang_stall *s)
{
	return s && !s->ended;
}

bool dlt_wait_stall_for_peers(const struct dlt_hang_stall *s)
{
	return s && (dlt_wait_in_peer_code(s->stack) ||
		     dlt_wait_py_peer(s, NULL, 0));
}

bool dlt_wait_stall_helper(const struct dlt_hang_stall *s)
{
	return s && dlt_wait_helper_loop(s->stack);
}

/* The roles of a call that waits for other ranks (or for the GPU running
 * their collective) as long as it is in flight. */
#define DLT_WAIT_ROLES_RANKS                                   \
	(DLT_ROLE_INITS | DLT_ROLE_COLLECTIVE | DLT_ROLE_P2P | \
	 DLT_ROLE_GROUP_END | DLT_ROLE_COMM_END | DLT_ROLE_SYNC)

bool dlt_wait_api_for_ranks(uint16_t api)
{
	return (dlt_api_roles(api) & DLT_WAIT_ROLES_RANKS) != 0;
}

void dlt_wait_state_of(const struct dlt_hang_proc *hp,
		       struct dlt_wait_state *ws)
{
	memset(ws, 0, sizeof(*ws));
	/* A traced call in flight that waits for other ranks (or for the
	 * GPU running their collective) is where the job waits. */
	for (size_t k = hp->ninflight; k-- > 0;) {
		const struct dlt_hang_call *c = &hp->inflight[k];
		if (dlt_wait_api_for_ranks(c->api)) {
			ws->call = c;
			break;
		}
	}
	if (ws->call) {
		const struct dlt_api_desc *a = dlt_api_by_id(ws->call->api);
		ws->tid = ws->call->tid;
		ws->stall = dlt_hang_stall_of(hp, ws->tid);
		ws->kind = DLT_WAIT_PEERS;
		ws->since = ws->call->ts;
		snprintf(ws->what, sizeof(ws->what), "%s", a ? a->name : "?");
	} else {
		/* Else the main thread; else a thread in collective or
		 * rendezvous code that is not a helper's idle loop (a rank
		 * whose main thread runs Python while another thread
		 * waits for the store). */
		const struct dlt_hang_stall *m = dlt_hang_stall_of(hp, hp->pid);
		if (!dlt_wait_open(m)) {
			m = NULL;
			for (size_t k = 0; k < hp->nstalls && m == NULL; k++) {
				const struct dlt_hang_stall *s = &hp->stalls[k];
				if (dlt_wait_open(s) &&
				    dlt_wait_in_peer_code(s->stack) &&
				    !dlt_wait_helper_loop(s->stack))
					m = s;
			}
		}
		ws->stall = m;
		ws->tid = m ? m->tid : hp->pid;
		if (m) {
			ws->since = m->since;
			ws->kind = dlt_wait_in_peer_code(m->stack) ||
						   dlt_wait_py_peer(m, NULL, 0)
					   ? DLT_WAIT_PEERS
					   : DLT_WAIT_OTHER;
		}
	}
	const struct dlt_hang_stall *s = ws->stall;
	/* A stopped thread (SIGSTOP, a debugger) waits for no peer, even
	 * inside a collective: the others wait for it. */
	if (s && !s->ended && (s->state == 'T' || s->state == 't'))
		ws->kind = DLT_WAIT_OTHER;
	if (s && s->py) {
		dlt_pystack_sum_top(s->py, ws->py, sizeof(ws->py));
		dlt_pystack_sum_own(s->py, ws->own, sizeof(ws->own));
	} else if (s == NULL && ws->call == NULL && hp->run_py &&
		   hp->run_py->tid == hp->pid) {
		/* Running, never seen waiting: where the snapshot found it. */
		dlt_pystack_sum_top(hp->run_py, ws->py, sizeof(ws->py));
		dlt_pystack_sum_own(hp->run_py, ws->own, sizeof(ws->own));
	}
	if (s) {
		dlt_wait_find_frame(s->stack, dlt_frame_own, true, ws->where,
				    sizeof(ws->where));
		if (ws->what[0] == '\0' && ws->kind == DLT_WAIT_PEERS)
			dlt_wait_find_frame(s->stack, dlt_frame_c10d, false,
					    ws->what, sizeof(ws->what));
		/* No native frame of PyTorch's distributed layer has a name
		 * (a stripped libtorch): its Python frame says the call. */
		if (ws->what[0] == '\0' && ws->kind == DLT_WAIT_PEERS)
			dlt_wait_py_peer(s, ws->what, sizeof(ws->what));
		if (ws->what[0] == '\0')
			dlt_wait_find_frame(s->stack,
					    ws->kind == DLT_WAIT_PEERS
						    ? dlt_frame_peer
						    : dlt_frame_own,
					    false, ws->what, sizeof(ws->what));
		/* A Python thread: where its Python stack is. */
		if (ws->what[0] == '\0' && ws->py[0])
			snprintf(ws->what, sizeof(ws->what), "%s", ws->py);
		if (ws->what[0] == '\0') {
			char nr[32];
			snprintf(ws->what, sizeof(ws->what), "%s",
				 dlt_syscall_label(s->syscall, nr, sizeof(nr)));
		}
	}
	/* Ended on its own, or died while it waited for nothing: it is not
	 * where the others' last state was taken (a whole job killed at a
	 * hang timeout is judged by what each rank waited in). */
	if (hp->ended && (dlt_hang_exited(hp) ||
			  (ws->call == NULL && !dlt_wait_open(ws->stall))))
		ws->kind = DLT_WAIT_ENDED;
}

/* Loopback addresses mean one host: the owner must be on the waiter's. */
static bool dlt_wait_loopback(const char *addr)
{
	return strncmp(addr, "tcp 127.", 8) == 0 ||
	       strncmp(addr, "tcp [::1]", 9) == 0 ||
	       strncmp(addr, "tcp [::ffff:127.", 16) == 0 ||
	       strncmp(addr, "unix ", 5) == 0;
}

static int dlt_wait_end_cmp(const void *a, const void *b)
{
	const struct dlt_wait_end *x = a, *y = b;
	int c = strcmp(x->addr, y->addr);
	if (c)
		return c;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

void dlt_wait_ends_build(const struct dlt_hang_proc *const *procs, size_t n,
			 struct dlt_wait_ends *e)
{
	size_t total = 0;
	for (size_t j = 0; j < n; j++)
		total += procs[j]->nsocks;
	e->v = dlt_xcalloc(total ? total : 1, sizeof(*e->v));
	e->n = 0;
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; k < procs[j]->nsocks; k++)
			e->v[e->n++] = (struct dlt_wait_end){
				procs[j]->socks[k].local, procs[j]->host, j};
	qsort(e->v, e->n, sizeof(*e->v), dlt_wait_end_cmp);
}

void dlt_wait_ends_free(struct dlt_wait_ends *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
}

size_t dlt_wait_owner(const struct dlt_wait_ends *e, size_t skip,
		      const char *host, const char *addr)
{
	bool local = dlt_wait_loopback(addr);
	size_t lo = 0, hi = e->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(e->v[mid].addr, addr) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < e->n && strcmp(e->v[k].addr, addr) == 0; k++)
		if (e->v[k].proc != skip &&
		    (!local || strcmp(e->v[k].host, host) == 0))
			return e->v[k].proc;
	return SIZE_MAX;
}

size_t dlt_wait_links(const struct dlt_hang_proc *const *procs,
		      const struct dlt_wait_ends *e, size_t i,
		      struct dlt_wait_link *out, size_t cap)
{
	const struct dlt_hang_proc *hp = procs[i];
	/* Waits per thread, the verdict per process: a process waits on
	 * another through the thread the job waits on, or through any of
	 * its threads when that thread waits for peers (gloo's and NCCL's
	 * threads move a collective's data while the caller waits on a
	 * futex).  A process that sleeps, reads or computes waits for no
	 * peer, whatever its helper threads poll. */
	struct dlt_wait_state ws;
	dlt_wait_state_of(hp, &ws);
	bool peers = ws.kind == DLT_WAIT_PEERS;
	size_t nl = 0;
	for (size_t k = 0; k < hp->nstalls && nl < cap; k++) {
		const struct dlt_hang_stall *s = &hp->stalls[k];
		if (s->ended || (!peers && s->tid != ws.tid))
			continue;
		/* The detail names each descriptor waited on and its peer:
		 * "fd 7 tcp 127.0.0.1:41234"; an end not connected says
		 * "(local, not connected)" and leads nowhere. */
		const char *p = s->detail;
		while (nl < cap && (p = strstr(p, "tcp ")) != NULL) {
			size_t l = strcspn(p + 4, " ") + 4;
			char addr[80];
			snprintf(addr, sizeof(addr), "%.*s", (int)l, p);
			p += l;
			if (strncmp(p, " (local", 7) == 0)
				continue;
			size_t to = dlt_wait_owner(e, i, hp->host, addr);
			if (to == SIZE_MAX)
				continue;
			bool dup = false;
			for (size_t q = 0; q < nl && !dup; q++)
				dup = out[q].tid == s->tid && out[q].to == to;
			if (dup)
				continue;
			out[nl] = (struct dlt_wait_link){.from = i,
							 .to = to,
							 .tid = s->tid,
							 .syscall = s->syscall};
			snprintf(out[nl].addr, sizeof(out[nl].addr), "%s",
				 addr);
			nl++;
		}
	}
	return nl;
}

bool dlt_wait_coll_of(const struct dlt_hang_proc *hp, uint64_t id,
		      struct dlt_wait_coll *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < hp->ncomms; k++)
		if (hp->comms[k].id == id && id != 0)
			out->comm = &hp->comms[k];
	if (out->comm == NULL)
		return false;
	for (size_t k = 0; k < hp->ninflight; k++) {
		const struct dlt_hang_call *c = &hp->inflight[k];
		uint64_t comm;
		struct dlt_hang_coll coll;
		if (dlt_hang_coll_of(c->api, c->v, c->nv, &comm, &coll) &&
		    comm == out->comm->handle) {
			out->call = c;
			out->cur = coll;
		}
	}
	return true;
}

/* The first name gpu_abi.def gives a value ("ncclFloat32" comes before
 * its alias "ncclFloat"), or NULL. */
static const char *dlt_wait_nccl_type(uint64_t v)
{
#define DLT_X(name, val)          \
	if (v == (uint64_t)(val)) \
		return #name;
	DLT_ABI_NCCL_DATA_TYPE(DLT_X)
#undef DLT_X
	return NULL;
}

static const char *dlt_wait_nccl_op(int64_t v)
{
#define DLT_X(name, val)         \
	if (v == (int64_t)(val)) \
		return #name;
	DLT_ABI_NCCL_RED_OP(DLT_X)
#undef DLT_X
	return NULL;
}

const char *dlt_wait_coll_text(const struct dlt_hang_coll *c, char *buf,
			       size_t cap)
{
	const struct dlt_api_desc *a = dlt_api_by_id(c->api);
	bool p2p = dlt_api_roles(c->api) & DLT_ROLE_P2P;
	const char *type = dlt_wait_nccl_type(c->type);
	const char *op = dlt_wait_nccl_op(c->op);
	size_t used = (size_t)snprintf(buf, cap, "%s", a ? a->name : "?");
	if (!p2p && used < cap)
		used += (size_t)snprintf(buf + used, cap - used,
					 " count %" PRIu64 " %s", c->count,
					 type ? type : "type?");
	if (c->op >= 0 && used < cap)
		used += (size_t)snprintf(buf + used, cap - used, " %s",
					 op ? op : "op?");
	if (c->root >= 0 && used < cap)
		snprintf(buf + used, cap - used, " %s %" PRId64,
			 p2p ? "peer" : "root", c->root);
	return buf;
}

/* ---- processes by pid ------------------------------------------------- */

struct dlt_wait_pid {
	uint32_t pid;
	size_t i;
};

static int dlt_wait_pid_cmp(const void *a, const void *b)
{
	const struct dlt_wait_pid *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The process of pid on host in the run of procs[like], or SIZE_MAX. */
static size_t dlt_wait_by_pid(const struct dlt_hang_proc *const *procs,
			      const struct dlt_wait_pid *by, size_t n,
			      uint32_t pid, const struct dlt_hang_proc *like)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < n && by[k].pid == pid; k++) {
		const struct dlt_hang_proc *o = procs[by[k].i];
		if (o != like && o->run_group == like->run_group &&
		    strcmp(o->host, like->host) == 0)
			return by[k].i;
	}
	return SIZE_MAX;
}

/* ---- groups and their verdict ----------------------------------------- */

static bool dlt_same_coll(const struct dlt_hang_coll *a,
			  const struct dlt_hang_coll *b)
{
	return a->api == b->api && a->count == b->count && a->type == b->type &&
	       a->op == b->op && a->root == b->root;
}

/* Collectives in order: a member behind the others (fewer collectives
 * of the communicator started), or one in another collective at the same
 * number while the others wait in theirs. */
static void dlt_wait_order(const struct dlt_hang_proc *const *procs,
			   struct dlt_wait_group *g, uint64_t id)
{
	uint32_t most = 0, *pos = dlt_xcalloc(g->n, sizeof(*pos));
	struct dlt_wait_coll *wc = dlt_xcalloc(g->n, sizeof(*wc));
	bool *has = dlt_xcalloc(g->n, sizeof(*has)), waiting = false;
	for (size_t m = 0; m < g->n; m++) {
		has[m] = dlt_wait_coll_of(procs[g->members[m]], id, &wc[m]);
		pos[m] = has[m] ? wc[m].comm->done + (wc[m].call != NULL) : 0;
		if (has[m] && pos[m] > most)
			most = pos[m];
		waiting |= has[m] && wc[m].call != NULL;
	}
	for (size_t m = 0; waiting && m < g->n && g->why == DLT_WHY_NONE; m++)
		if (has[m] && pos[m] < most) {
			g->straggler = g->members[m];
			g->why = DLT_WHY_BEHIND;
			g->seq_straggler = pos[m];
			g->seq_others = most;
		}
	/* All at one number: the member whose collective differs from most
	 * others'. */
	for (size_t m = 0; waiting && m < g->n && g->why == DLT_WHY_NONE; m++) {
		if (!has[m] || wc[m].call == NULL)
			continue;
		size_t same = 0, other = 0;
		for (size_t q = 0; q < g->n; q++)
			if (has[q] && wc[q].call) {
				if (dlt_same_coll(&wc[m].cur, &wc[q].cur))
					same++;
				else
					other++;
			}
		if (other > 0 && same <= other) {
			g->straggler = g->members[m];
			g->why = DLT_WHY_OTHER_OP;
			g->seq_straggler = g->seq_others = pos[m];
		}
	}
	free(pos);
	free(wc);
	free(has);
}

static int dlt_wait_cmp_place(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every member waits for peers and no collective count tells them apart
 * (gloo keeps none dltrace sees): the one member waiting at a Python place
 * no other member is at, while the others share theirs, called another
 * collective there (broadcast while the others all_reduce). */

static void dlt_wait_odd_place(const struct dlt_hang_proc *const *procs,
			       struct dlt_wait_group *g)
{
	if (g->n < 3 || g->nwaiting != g->n)
		return;
	/* Each member's place, sorted (thousands of ranks): a place held
	 * once, with another held more than once. */
	struct dlt_wait_state ws;
	char(*place)[256] = dlt_xcalloc(g->n, sizeof(*place));
	const char **sorted = dlt_xcalloc(g->n, sizeof(*sorted));
	bool known = true;
	for (size_t m = 0; m < g->n; m++) {
		dlt_wait_state_of(procs[g->members[m]], &ws);
		memcpy(place[m], ws.py, sizeof(place[m]));
		sorted[m] = place[m];
		known &= place[m][0] != '\0';
	}
	qsort(sorted, g->n, sizeof(*sorted), dlt_wait_cmp_place);
	const char *alone = NULL;
	size_t nalone = 0;
	bool shared = false;
	for (size_t i = 0; known && i < g->n;) {
		size_t j = i;
		while (j < g->n && strcmp(sorted[j], sorted[i]) == 0)
			j++;
		if (j - i == 1) {
			alone = sorted[i];
			nalone++;
		} else {
			shared = true;
		}
		i = j;
	}
	for (size_t m = 0; nalone == 1 && shared && m < g->n; m++)
		if (place[m] == alone) {
			g->straggler = g->members[m];
			g->why = DLT_WHY_OTHER_OP;
		}
	free(sorted);
	free(place);
}

/* The store's client retrying its connect (gloo's pairs connect to one
 * peer address several times, the store's client only when it does not
 * answer): the same address tried at least three times in a row, and the
 * judged thread still in the store client's constructor, not in the
 * master's wait for its workers. */
static bool dlt_wait_retrying(const struct dlt_hang_proc *hp)
{
	if (hp->connect_tries < 3)
		return false;
	struct dlt_wait_state ws;
	dlt_wait_state_of(hp, &ws);
	return ws.stall && strstr(ws.stall->stack, "TCPStore::TCPStore") &&
	       !strstr(ws.stall->stack, "waitForWorkers");
}

static void dlt_wait_judge(const struct dlt_hang_proc *const *procs,
			   struct dlt_wait_group *g)
{
	g->straggler = SIZE_MAX;
	g->missing_rank = -1;
	struct dlt_wait_state ws;
	size_t ended = SIZE_MAX, other = SIZE_MAX, running = SIZE_MAX;
	for (size_t m = 0; m < g->n; m++) {
		dlt_wait_state_of(procs[g->members[m]], &ws);
		if (ws.kind == DLT_WAIT_PEERS)
			g->nwaiting++;
		else if (ws.kind == DLT_WAIT_ENDED && ended == SIZE_MAX)
			ended = g->members[m];
		else if (ws.kind == DLT_WAIT_OTHER && other == SIZE_MAX)
			other = g->members[m];
		else if (ws.kind == DLT_WAIT_RUNNING && running == SIZE_MAX)
			running = g->members[m];
	}
	if (g->nwaiting == 0)
		return;
	uint64_t id = g->comm_id;
	for (size_t m = 0; m < g->n && id == 0; m++)
		id = procs[g->members[m]]->comm_id;
	if (id)
		dlt_wait_order(procs, g, id);
	if (g->why != DLT_WHY_NONE)
		return;
	if (ended != SIZE_MAX) {
		g->straggler = ended;
		g->why = DLT_WHY_ENDED;
		return;
	}
	/* A rank without a trace, when the size is known. */
	if (g->size > 0) {
		/* The lowest rank no member has: from the members' ranks
		 * sorted, not a table of the size a trace claims (a damaged
		 * one may claim millions). */
		size_t cap = (size_t)g->size, k = 0;
		int32_t *have = dlt_xcalloc(g->n ? g->n : 1, sizeof(*have));
		for (size_t m = 0; m < g->n; m++) {
			const struct dlt_hang_proc *hp = procs[g->members[m]];
			int32_t r = g->comm_id ? hp->comm_rank : hp->rank;
			if (g->comm_id && r < 0)
				r = hp->rank;
			if (r >= 0 && (size_t)r < cap)
				have[k++] = r;
		}
		qsort(have, k, sizeof(*have), dlt_wait_cmp_i32);
		size_t want = 0;
		for (size_t i = 0; i < k && want < cap; i++) {
			if ((size_t)have[i] > want)
				break;
			if ((size_t)have[i] == want)
				want++;
		}
		if (want < cap)
			g->missing_rank = (int32_t)want;
		free(have);
		if (g->missing_rank >= 0) {
			g->why = DLT_WHY_MISSING;
			return;
		}
	}
	/* Every rank came, and one keeps failing to connect while the
	 * others reached each other: it looks for the store elsewhere. */
	size_t failing = SIZE_MAX, nfail = 0;
	for (size_t m = 0; m < g->n; m++)
		if (procs[g->members[m]]->connect_fail ||
		    dlt_wait_retrying(procs[g->members[m]])) {
			nfail++;
			if (failing == SIZE_MAX)
				failing = g->members[m];
		}
	if (nfail && nfail < g->n) {
		g->straggler = failing;
		g->why = DLT_WHY_UNREACHABLE;
		return;
	}
	size_t s = other != SIZE_MAX ? other : running;
	if (s != SIZE_MAX) {
		g->straggler = s;
		g->why = DLT_WHY_NOT_WAITING;
		return;
	}
	dlt_wait_odd_place(procs, g);
}

/* The straggler procs[s] waits for data from its workers (its Python stack
 * is in torch.utils.data or multiprocessing's queues) while one of its
 * children is blocked in the program's own code (a Dataset's
 * __getitem__ on a lock): that child, else SIZE_MAX.  Idle workers wait
 * in the library's loop, not in the program's code. */
static size_t dlt_wait_worker(const struct dlt_hang_proc *const *procs,
			      size_t n, size_t s)
{
	const struct dlt_hang_proc *sp = procs[s];
	struct dlt_wait_state ws;
	dlt_wait_state_of(sp, &ws);
	const struct dlt_pystack_sum *py = ws.stall ? ws.stall->py : NULL;
	bool feeds = false;
	for (uint32_t i = 0; py && i < py->n && i < DLT_PYSTACK_KEEP && !feeds;
	     i++)
		feeds = strstr(py->frames[i], "torch/utils/data/") ||
			strstr(py->frames[i], "multiprocessing/queues.py") ||
			strstr(py->frames[i], "multiprocessing/connection.py");
	if (!feeds || (ws.stall && dlt_wait_sleeps_nr(ws.stall->syscall)))
		return SIZE_MAX;
	for (size_t j = 0; j < n; j++) {
		const struct dlt_hang_proc *c = procs[j];
		if (c->ppid != sp->pid || c->run_group != sp->run_group ||
		    strcmp(c->host, sp->host) != 0 || dlt_hang_exited(c))
			continue;
		struct dlt_wait_state cs;
		dlt_wait_state_of(c, &cs);
		if (dlt_wait_open(cs.stall) && cs.own[0])
			return j;
	}
	return SIZE_MAX;
}

/* The one process of g's run with no rank, a child of a member's parent
 * (the launcher that started the ranks) and blocked or running in the
 * program's own Python code: it never reached init_process_group, which
 * is where its rank would have been read.  SIZE_MAX when there is none,
 * or more than one (which one is which rank is not known). */
static size_t dlt_wait_stand_in(const struct dlt_hang_proc *const *procs,
				size_t n, const struct dlt_wait_group *g)
{
	const struct dlt_hang_proc *m0 = procs[g->members[0]];
	size_t found = SIZE_MAX, nfound = 0;
	/* The ranks run the program: the stand-in waits in the same file's
	 * code (a helper of the launcher, the resource tracker, does not). */
	struct dlt_wait_state ms;
	dlt_wait_state_of(m0, &ms);
	size_t flen = strcspn(ms.own, ":");
	if (flen == 0)
		return SIZE_MAX;
	for (size_t j = 0; j < n; j++) {
		const struct dlt_hang_proc *c = procs[j];
		if (c->rank >= 0 || c->comm_id || c->ppid != m0->ppid ||
		    c->ppid == 0 || c->run_group != m0->run_group ||
		    strcmp(c->host, m0->host) != 0 || dlt_hang_exited(c))
			continue;
		struct dlt_wait_state cs;
		dlt_wait_state_of(c, &cs);
		if (strncmp(cs.own, ms.own, flen) != 0 || cs.own[flen] != ':')
			continue;
		found = j;
		nfound++;
	}
	return nfound == 1 ? found : SIZE_MAX;
}

static void dlt_wait_add(struct dlt_wait_group *g, size_t i, bool *assigned)
{
	if (!assigned[i]) {
		g->members[g->n++] = i;
		assigned[i] = true;
	}
}

/* procs are in rank order: members too, by index. */
static int dlt_wait_cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

size_t dlt_wait_groups(const struct dlt_hang_proc *const *procs, size_t n,
		       bool completed, struct dlt_wait_group **out)
{
	*out = NULL;
	if (completed || n == 0)
		return 0;
	bool *assigned = dlt_xcalloc(n, sizeof(*assigned));
	/* A rank's forked children (DataLoader workers) inherit its
	 * launcher's RANK: the rank is their parent, they are no member. */
	struct dlt_wait_pid *by = dlt_xcalloc(n, sizeof(*by));
	for (size_t i = 0; i < n; i++)
		by[i] = (struct dlt_wait_pid){procs[i]->pid, i};
	qsort(by, n, sizeof(*by), dlt_wait_pid_cmp);
	for (size_t i = 0; i < n; i++) {
		if (procs[i]->rank < 0 || procs[i]->ppid == 0)
			continue;
		size_t p =
			dlt_wait_by_pid(procs, by, n, procs[i]->ppid, procs[i]);
		assigned[i] = p != SIZE_MAX && procs[p]->rank == procs[i]->rank;
	}
	free(by);
	struct dlt_wait_group *gs = NULL;
	size_t ng = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct dlt_hang_proc *hp = procs[i];
		bool job = dlt_hang_job_rank(hp);
		if (assigned[i] || hp->rank < 0 || (!job && hp->comm_id == 0))
			continue;
		struct dlt_wait_group g = {.first = i, .size = -1};
		g.members = dlt_xcalloc(n, sizeof(size_t));
		if (job) {
			g.size = hp->world_size;
			for (size_t j = i; j < n; j++)
				if (dlt_hang_job_rank(procs[j]) &&
				    dlt_hang_same_job(hp, procs[j]))
					dlt_wait_add(&g, j, assigned);
		} else {
			g.comm_id = hp->comm_id;
			g.size = hp->comm_nranks;
			for (size_t j = i; j < n; j++)
				if (procs[j]->comm_id == hp->comm_id &&
				    procs[j]->run_group == hp->run_group)
					dlt_wait_add(&g, j, assigned);
			/* Ranks of the same run that never entered the
			 * communicator's init belong to it too. */
			for (size_t j = 0; j < n; j++)
				if (procs[j]->comm_id == 0 &&
				    procs[j]->rank >= 0 &&
				    procs[j]->rank < hp->comm_nranks &&
				    procs[j]->master_port[0] == '\0' &&
				    procs[j]->run_group == hp->run_group)
					dlt_wait_add(&g, j, assigned);
		}
		qsort(g.members, g.n, sizeof(*g.members), dlt_wait_cmp_index);
		dlt_wait_judge(procs, &g);
		g.worker = g.why == DLT_WHY_NOT_WAITING
				   ? dlt_wait_worker(procs, n, g.straggler)
				   : SIZE_MAX;
		g.stand_in = g.why == DLT_WHY_MISSING
				     ? dlt_wait_stand_in(procs, n, &g)
				     : SIZE_MAX;
		if (g.nwaiting == 0) {
			free(g.members);
			continue;
		}
		gs = dlt_util_grow(gs, &cap, ng, sizeof(*gs));
		gs[ng++] = g;
	}
	free(assigned);
	*out = gs;
	return ng;
}

void dlt_wait_groups_free(struct dlt_wait_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++)
		free(g[i].members);
	free(g);
}

static bool dlt_wait_member(const size_t *members, size_t n, size_t i)
{
	for (size_t m = 0; m < n; m++)
		if (members[m] == i)
			return true;
	return false;
}

bool dlt_wait_in_group(const struct dlt_wait_group *g, size_t ng, size_t i)
{
	for (size_t k = 0; k < ng; k++)
		if (dlt_wait_member(g[k].members, g[k].n, i))
			return true;
	return false;
}

/* ---- hangs without ranks ---------------------------------------------- */

static bool dlt_wait_ranked(const struct dlt_hang_proc *hp)
{
	return hp->rank >= 0 || hp->comm_id != 0;
}

/* Killed by a signal that ends a hung job (a person's ^C, a scheduler's
 * TERM or KILL at its time limit) while its thread waited. */
static bool dlt_wait_killed_waiting(const struct dlt_hang_proc *hp)
{
	if (!hp->ended || hp->exit_how != DLT_EXIT_REAPED ||
	    !WIFSIGNALED(hp->exit_status))
		return false;
	int sig = WTERMSIG(hp->exit_status);
	if (sig != SIGKILL && sig != SIGTERM && sig != SIGINT && sig != SIGHUP)
		return false;
	struct dlt_wait_state ws;
	dlt_wait_state_of(hp, &ws);
	return dlt_wait_open(ws.stall);
}

/* The pid a wait for children names, or -1 for any child (wait4 with -1,
 * 0 or a process group; waitid with P_ALL or P_PGID). */
static int64_t dlt_wait_child_pid(const struct dlt_hang_stall *s)
{
	if (s->syscall == 61 /* wait4 */ && (int32_t)s->args[0] > 0)
		return (int32_t)s->args[0];
	if (s->syscall == 247 /* waitid */ && s->args[0] == 1 /* P_PID */)
		return (int32_t)s->args[1];
	return -1;
}

bool dlt_wait_sleeps_nr(int32_t nr)
{
	return nr == 35 /* nanosleep */ || nr == 230 /* clock_nanosleep */;
}

static bool dlt_wait_sleeps(const struct dlt_hang_stall *s)
{
	return dlt_wait_sleeps_nr(s->syscall);
}

/* The member procs[i] waits for and how (via), or SIZE_MAX: a child in a
 * wait for children, else the holder of a connection's other end, else a
 * child that sleeps. */
static size_t dlt_wait_next(const struct dlt_hang_proc *const *procs,
			    const struct dlt_wait_ends *e,
			    const struct dlt_wait_tree *t, const bool *seen,
			    size_t i, char *via, size_t cap)
{
	const struct dlt_hang_proc *hp = procs[i];
	struct dlt_wait_state ws;
	dlt_wait_state_of(hp, &ws);
	const struct dlt_hang_stall *s = ws.stall;
	if (dlt_wait_open(s) &&
	    (s->syscall == 61 /* wait4 */ || s->syscall == 247 /* waitid */)) {
		int64_t want = dlt_wait_child_pid(s);
		/* A child still there: an image replaced by exec is
		 * not, the one that replaced it is. */
		for (size_t m = 0; m < t->nmembers; m++) {
			size_t j = t->members[m];
			const struct dlt_hang_proc *c = procs[j];
			if (seen[j] || c->ppid != hp->pid ||
			    strcmp(c->host, hp->host) != 0 ||
			    dlt_hang_exited(c) || (want >= 0 && c->pid != want))
				continue;
			if (want >= 0)
				snprintf(via, cap, "for pid %" PRIu32, c->pid);
			else
				snprintf(via, cap, "for any child");
			return j;
		}
	}
	struct dlt_wait_link l[16];
	size_t nl = dlt_wait_links(procs, e, i, l, 16);
	for (size_t k = 0; k < nl; k++)
		if (!seen[l[k].to] &&
		    dlt_wait_member(t->members, t->nmembers, l[k].to)) {
			snprintf(via, cap, "on %s", l[k].addr);
			return l[k].to;
		}
	/* Waits the trace cannot follow (a pipe, a futex, polls shorter than
	 * the threshold, as a DataLoader's for its workers' queue) while a
	 * child sleeps or waits for its own children: the child holds the
	 * work up, unless the process sleeps itself. */
	if (s && dlt_wait_sleeps(s))
		return SIZE_MAX;
	for (size_t m = 0; m < t->nmembers; m++) {
		size_t j = t->members[m];
		const struct dlt_hang_proc *c = procs[j];
		if (seen[j] || c->ppid != hp->pid ||
		    strcmp(c->host, hp->host) != 0 || dlt_hang_exited(c))
			continue;
		struct dlt_wait_state cs;
		dlt_wait_state_of(c, &cs);
		if (dlt_wait_open(cs.stall) &&
		    (dlt_wait_sleeps(cs.stall) ||
		     cs.stall->syscall == 61 /* wait4 */ ||
		     cs.stall->syscall == 247 /* waitid */)) {
			snprintf(via, cap, "for a child, no traced wait");
			return j;
		}
	}
	return SIZE_MAX;
}

/* The image that replaced procs[i] by exec, and the one that replaced
 * that, up to the last (a pyenv shim: env, then bash, then python, all one
 * pid): what the process is doing is the last image's.  procs[i] itself
 * when it did not exec. */
static size_t dlt_wait_last_image(const struct dlt_hang_proc *const *procs,
				  const struct dlt_wait_tree *t, size_t i)
{
	for (size_t hops = 0; hops < t->nmembers && procs[i]->ended &&
			      procs[i]->exit_how == DLT_EXIT_EXEC;
	     hops++) {
		size_t next = SIZE_MAX;
		for (size_t m = 0; m < t->nmembers; m++) {
			const struct dlt_hang_proc *c = procs[t->members[m]];
			if (c->pid != procs[i]->pid ||
			    strcmp(c->host, procs[i]->host) != 0 ||
			    c->start_mono <= procs[i]->start_mono)
				continue;
			if (next == SIZE_MAX ||
			    c->start_mono < procs[next]->start_mono)
				next = t->members[m];
		}
		if (next == SIZE_MAX)
			break;
		i = next;
	}
	return i;
}

/* The chain of run g from its first process (the one whose parent is
 * not of the run, the earliest of them). */
static void dlt_wait_tree_chain(const struct dlt_hang_proc *const *procs,
				size_t n, const struct dlt_wait_ends *e,
				struct dlt_wait_tree *t)
{
	size_t root = SIZE_MAX;
	for (size_t m = 0; m < t->nmembers; m++) {
		const struct dlt_hang_proc *hp = procs[t->members[m]];
		bool child = false;
		for (size_t q = 0; q < t->nmembers && !child; q++) {
			const struct dlt_hang_proc *o = procs[t->members[q]];
			child = o->pid == hp->ppid &&
				strcmp(o->host, hp->host) == 0;
		}
		if (!child && (root == SIZE_MAX ||
			       hp->start_real < procs[root]->start_real))
			root = t->members[m];
	}
	if (root == SIZE_MAX)
		root = t->members[0];
	root = dlt_wait_last_image(procs, t, root);
	bool *seen = dlt_xcalloc(n, sizeof(*seen));
	t->chain = dlt_xcalloc(t->nmembers, sizeof(*t->chain));
	for (size_t i = root; i != SIZE_MAX && t->n < t->nmembers;) {
		seen[i] = true;
		struct dlt_wait_hop *h = &t->chain[t->n++];
		h->proc = i;
		i = dlt_wait_next(procs, e, t, seen, i, h->via, sizeof(h->via));
		if (i != SIZE_MAX)
			i = dlt_wait_last_image(procs, t, i);
	}
	free(seen);
}

size_t dlt_wait_trees(const struct dlt_hang_proc *const *procs, size_t n,
		      bool completed, struct dlt_wait_tree **out)
{
	*out = NULL;
	if (completed || n == 0)
		return 0;
	struct dlt_wait_tree *ts = NULL;
	size_t nt = 0, cap = 0;
	bool *done = dlt_xcalloc(n, sizeof(*done));
	struct dlt_wait_ends e = {NULL, 0};
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		uint32_t run = procs[i]->run_group;
		struct dlt_wait_tree t = {.run_group = run};
		t.members = dlt_xcalloc(n, sizeof(size_t));
		bool ranked = false, hung = false;
		for (size_t j = i; j < n; j++) {
			if (procs[j]->run_group != run)
				continue;
			done[j] = true;
			ranked |= dlt_wait_ranked(procs[j]);
			t.by_dltrace |= procs[j]->dltrace_sig != 0;
			hung |= dlt_wait_killed_waiting(procs[j]);
			t.members[t.nmembers++] = j;
		}
		/* A run with ranks is JOB_HANG's by rank. */
		if (ranked || !(hung || t.by_dltrace)) {
			free(t.members);
			continue;
		}
		if (e.v == NULL)
			dlt_wait_ends_build(procs, n, &e);
		dlt_wait_tree_chain(procs, n, &e, &t);
		ts = dlt_util_grow(ts, &cap, nt, sizeof(*ts));
		ts[nt++] = t;
	}
	dlt_wait_ends_free(&e);
	free(done);
	*out = ts;
	return nt;
}

void dlt_wait_trees_free(struct dlt_wait_tree *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++) {
		free(t[i].chain);
		free(t[i].members);
	}
	free(t);
}

bool dlt_wait_in_tree(const struct dlt_wait_tree *t, size_t nt, size_t i)
{
	for (size_t k = 0; k < nt; k++)
		if (dlt_wait_member(t[k].members, t[k].nmembers, i))
			return true;
	return false;
}

bool *dlt_wait_launchers(const struct dlt_hang_proc *const *procs, size_t n)
{
	bool *l = dlt_xcalloc(n ? n : 1, sizeof(*l));
	struct dlt_wait_pid *by = dlt_xcalloc(n ? n : 1, sizeof(*by));
	for (size_t i = 0; i < n; i++)
		by[i] = (struct dlt_wait_pid){procs[i]->pid, i};
	qsort(by, n, sizeof(*by), dlt_wait_pid_cmp);
	/* Up from each rank through its traced ancestors (a shell, srun's
	 * step, torchrun's agent, mp.spawn's parent), which are no rank;
	 * bounded, as a damaged trace may make a cycle of pids. */
	for (size_t i = 0; i < n; i++) {
		if (!dlt_wait_ranked(procs[i]))
			continue;
		const struct dlt_hang_proc *c = procs[i];
		for (int depth = 0; depth < 32 && c->ppid; depth++) {
			size_t p = dlt_wait_by_pid(procs, by, n, c->ppid, c);
			if (p == SIZE_MAX || l[p] || dlt_wait_ranked(procs[p]))
				break;
			l[p] = true;
			c = procs[p];
		}
	}
	/* Their other children, and theirs, that are no rank and started
	 * none (multiprocessing's resource tracker, torchrun's log tailers)
	 * belong to the launcher too: the first of their ancestors that is
	 * a rank or a launcher is a launcher. */
	bool *helper = dlt_xcalloc(n ? n : 1, sizeof(*helper));
	for (size_t i = 0; i < n; i++) {
		if (l[i] || dlt_wait_ranked(procs[i]))
			continue;
		const struct dlt_hang_proc *c = procs[i];
		for (int depth = 0; depth < 32 && c->ppid; depth++) {
			size_t p = dlt_wait_by_pid(procs, by, n, c->ppid, c);
			if (p == SIZE_MAX || dlt_wait_ranked(procs[p]))
				break;
			if (l[p]) {
				helper[i] = true;
				break;
			}
			c = procs[p];
		}
	}
	for (size_t i = 0; i < n; i++)
		l[i] |= helper[i];
	free(helper);
	free(by);
	return l;
}

bool *dlt_wait_judged(const struct dlt_hang_proc *const *procs, size_t n,
		      const struct dlt_wait_group *g, size_t ng)
{
	bool *in = dlt_xcalloc(n ? n : 1, sizeof(*in));
	bool *out = dlt_xcalloc(n ? n : 1, sizeof(*out));
	for (size_t k = 0; k < ng; k++)
		for (size_t m = 0; m < g[k].n; m++)
			in[g[k].members[m]] = out[g[k].members[m]] = true;
	struct dlt_wait_pid *by = dlt_xcalloc(n ? n : 1, sizeof(*by));
	for (size_t i = 0; i < n; i++)
		by[i] = (struct dlt_wait_pid){procs[i]->pid, i};
	qsort(by, n, sizeof(*by), dlt_wait_pid_cmp);
	/* A member's children (its DataLoader workers, their children):
	 * their waits are the member's, JOB_HANG's evidence. */
	for (size_t i = 0; i < n && ng; i++) {
		const struct dlt_hang_proc *c = procs[i];
		for (int depth = 0; depth < 16 && !out[i] && c->ppid; depth++) {
			size_t p = dlt_wait_by_pid(procs, by, n, c->ppid, c);
			if (p == SIZE_MAX)
				break;
			out[i] = in[p];
			c = procs[p];
		}
	}
	free(by);
	free(in);
	return out;
}
