/* The hang analysis's view of a process: the post-mortem of a job that froze
 * needs, of each rank's trace (usually left by a process killed with
 * SIGKILL), which calls were in flight, which waits the watchdog saw, who the
 * process was in the job and how it ended.  The rules that judge these
 * across the job (which rank never arrived, where each one was stuck) are in
 * analyzer/rules/ with every other finding.
 *
 * Streaming: each trace is read once into a small per-process summary;
 * nothing grows with the number of records. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "apinames.h"
#include "demangle.h"
#include "hangs.h"
#include "symbolize.h"
#include "json.h"
#include "job.h"
#include "live.h"
#include "runs.h"
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

const char *dlt_syscall_label(int nr, char *buf, size_t cap)
{
	const char *n = dlt_syscall_name(nr);
	if (n)
		return n;
	snprintf(buf, cap, "syscall %d", nr);
	return buf;
}

/* C++ names read better demangled (analyzer/stacks/demangle.c). */
static void dlt_demangle_frame(const char *frame, char *out, size_t cap)
{
	const char *bang = strchr(frame, '!');
	const char *plus = bang ? strrchr(bang, '+') : NULL;
	snprintf(out, cap, "%s", frame);
	if (bang == NULL || plus == NULL || strncmp(bang + 1, "_Z", 2) != 0)
		return;
	char mangled[512], d[512];
	snprintf(mangled, sizeof(mangled), "%.*s", (int)(plus - bang - 1),
		 bang + 1);
	/* Without the parameter list: the name says enough here. */
	if (dlt_demangle(mangled, 0, d, sizeof(d)) != 0)
		return;
	/* The mangled frame stays where the demangled one would not fit. */
	size_t keep = (size_t)(bang - frame + 1);
	if (keep + strlen(d) + strlen(plus) >= cap)
		return;
	memcpy(out, frame, keep);
	strcpy(out + keep, d);
	strcat(out, plus);
}

/* At most this many objects are kept per process: a stack names few. */
#define DLT_HANG_MAX_OBJS 1024

static void dlt_hp_add_obj(struct dlt_hang_proc *hp,
			   const struct dlt_rec_lib_load *r,
			   struct dlt_trace *t)
{
	const char *path = dlt_trace_strz(t, r->realpath);
	if (path == NULL || path[0] != '/')
		path = dlt_trace_strz(t, r->path);
	if (path == NULL || path[0] != '/' || hp->nobjs >= DLT_HANG_MAX_OBJS)
		return;
	hp->objs = dlt_util_grow(hp->objs, &hp->capobjs, hp->nobjs,
				 sizeof(*hp->objs));
	struct dlt_hang_obj *o = &hp->objs[hp->nobjs++];
	memset(o, 0, sizeof(*o));
	o->path = dlt_xstrdup(path);
	const char *slash = strrchr(o->path, '/');
	o->name = slash ? slash + 1 : o->path;
	if (r->build_id_len <= sizeof(o->build_id)) {
		memcpy(o->build_id, r->build_id, r->build_id_len);
		o->build_id_len = r->build_id_len;
	}
}

static void dlt_hp_mods_free(struct dlt_hang_proc *hp)
{
	for (size_t i = 0; i < hp->nmods; i++) {
		free((char *)hp->mods[i].path);
		free((uint8_t *)hp->mods[i].build_id);
	}
	free(hp->mods);
	hp->mods = NULL;
	hp->nmods = 0;
}

/* A MODMAP: the mappings the next RAWSTACKs are read against. */
static void dlt_hp_modmap(struct dlt_hang_proc *hp,
			  const struct dlt_rec_modmap *r, struct dlt_trace *t)
{
	uint32_t n = dlt_modmap_count(r);
	dlt_hp_mods_free(hp);
	hp->mods = dlt_xcalloc(n ? n : 1, sizeof(*hp->mods));
	for (uint32_t i = 0; i < n; i++) {
		const char *path = dlt_trace_strz(t, r->e[i].path);
		struct dlt_umod *m = &hp->mods[hp->nmods++];
		dlt_umod_of(&r->e[i], path ? dlt_xstrdup(path) : NULL, m);
		/* Kept past the record: its own copy of the build-id. */
		if (m->build_id_len) {
			uint8_t *b = dlt_xmalloc(m->build_id_len);
			memcpy(b, m->build_id, m->build_id_len);
			m->build_id = b;
		}
	}
}

/* A stall's RAWSTACK (written after its STALL): unwound and named here;
 * kept until the PYSTACK that may follow it. */
static void dlt_hp_rawstack(struct dlt_hang_proc *hp,
			    const struct dlt_rec_rawstack *r)
{
	if (r->h.len < sizeof(*r) || r->why != DLT_RAW_STALL || hp->nmods == 0)
		return;
	size_t si = 0;
	for (size_t i = hp->nstalls; i-- > 0 && si == 0;)
		if (hp->stalls[i].tid == r->tid && hp->stalls[i].nframes == 0)
			si = i + 1;
	if (si == 0)
		return;
	struct dlt_hang_stall *s = &hp->stalls[si - 1];
	struct dlt_ustack st;
	dlt_ustack_of(r, &st);
	struct dlt_umap map = {hp->mods, hp->nmods};
	dlt_sv_free(&hp->pend);
	hp->pend_stall = 0;
	if (dlt_sv_build(&map, &st, NULL, &hp->pend) != 0)
		return;
	dlt_sv_text(&hp->pend, 24, s->stack, sizeof(s->stack));
	dlt_sv_line(&hp->pend, DLT_SV_MAX_ROWS, s->merged, sizeof(s->merged));
	snprintf(s->stack_how, sizeof(s->stack_how), "%s; %s",
		 hp->pend.scanned ? "CFI, then a scan" : "CFI", hp->pend.stop);
	s->nframes = (uint32_t)hp->pend.nnat;
	hp->pend_stall = si;
}

/* Files that gave no name: each is asked once per analysis (a stripped
 * library of a thousand stacks is opened once, not a thousand times). */
static char *dlt_noname[64];
static size_t dlt_nnoname;

/* frame as the process wrote it; out the same, or "object!function+0xoff"
 * when the process could only say "object+0xoff" and the object's file
 * here has the name in its .symtab or a debug file. */
static void dlt_hp_name_frame(const struct dlt_hang_proc *hp, const char *frame,
			      char *out, size_t cap)
{
	snprintf(out, cap, "%s", frame);
	const char *plus = strrchr(frame, '+');
	if (strchr(frame, '!') || plus == NULL || strncmp(plus, "+0x", 3))
		return;
	size_t nlen = (size_t)(plus - frame);
	const struct dlt_hang_obj *o = NULL;
	for (size_t i = hp->nobjs; i-- > 0 && o == NULL;)
		if (strlen(hp->objs[i].name) == nlen &&
		    memcmp(hp->objs[i].name, frame, nlen) == 0)
			o = &hp->objs[i];
	if (o == NULL)
		return;
	for (size_t i = 0; i < dlt_nnoname; i++)
		if (strcmp(dlt_noname[i], o->path) == 0)
			return;
	char *end;
	unsigned long long off = strtoull(plus + 3, &end, 16);
	if (*end != '\0')
		return;
	struct dlt_frame f;
	if (dlt_frame_name_file(o->path, o->build_id, o->build_id_len, off,
				&f) != 0 ||
	    f.func[0] == '\0') {
		if (dlt_nnoname < sizeof(dlt_noname) / sizeof(dlt_noname[0]))
			dlt_noname[dlt_nnoname++] = dlt_xstrdup(o->path);
		return;
	}
	char named[512];
	snprintf(named, sizeof(named), "%.*s!%s+0x%llx", (int)nlen, frame,
		 f.func, (unsigned long long)f.off);
	dlt_demangle_frame(named, out, cap);
}

/* A stall's stack with its unnamed frames named where this machine can
 * (dlt_hp_name_frame). */
static void dlt_hp_name_stack(const struct dlt_hang_proc *hp,
			      struct dlt_hang_stall *s)
{
	if (hp->nobjs == 0 || s->stack[0] == '\0' ||
	    strstr(s->stack, "+0x") == NULL)
		return;
	char in[sizeof(s->stack)];
	memcpy(in, s->stack, sizeof(in));
	size_t used = 0;
	s->stack[0] = '\0';
	for (char *tok = in, *next; tok && used < sizeof(s->stack);
	     tok = next) {
		next = strstr(tok, " < ");
		if (next) {
			*next = '\0';
			next += 3;
		}
		char f[512];
		dlt_hp_name_frame(hp, tok, f, sizeof(f));
		used += (size_t)snprintf(s->stack + used,
					 sizeof(s->stack) - used, "%s%s",
					 used ? " < " : "", f);
	}
}

bool dlt_hang_is_init(uint16_t id)
{
	return (dlt_api_roles(id) & DLT_ROLE_INITS) != 0;
}

/* What an init or a split says about its communicator, when it is entered
 * (values before the call) and when it returns (after, with its status). */
static void dlt_hp_comm(struct dlt_hang_proc *hp, uint16_t api,
			const uint64_t *v, size_t nv, bool returned,
			int32_t ret, uint64_t ts)
{
	const struct dlt_api_desc *a = dlt_api_by_id(api);
	uint64_t nranks, rank, id, comm, color, key;
	if (a && (a->roles & DLT_ROLE_COMM_INIT) &&
	    dlt_role_val(a, DLT_RV_COMM_INIT_nranks, v, nv, &nranks) &&
	    dlt_role_val(a, DLT_RV_COMM_INIT_rank, v, nv, &rank) &&
	    dlt_role_val(a, DLT_RV_COMM_INIT_id_hash, v, nv, &id)) {
		hp->comm_nranks = (int32_t)nranks;
		hp->comm_rank = (int32_t)rank;
		hp->comm_id = id;
		/* Records come in file order: the earliest by time. */
		if ((int32_t)nranks > 0 && (int32_t)rank >= 0 &&
		    (int32_t)rank < (int32_t)nranks &&
		    (hp->first_comm_rank < 0 || ts < hp->first_comm_ts)) {
			hp->first_comm_rank = (int32_t)rank;
			hp->first_comm_nranks = (int32_t)nranks;
			hp->first_comm_ts = ts;
		}
		hp->comm_formed = returned && ret == 0;
		if (hp->comm_formed &&
		    dlt_role_val(a, DLT_RV_COMM_INIT_comm, v, nv, &comm))
			hp->comm_handle = comm;
	}
	if (a && (a->roles & DLT_ROLE_COMM_SPLIT) &&
	    dlt_role_val(a, DLT_RV_COMM_SPLIT_comm, v, nv, &comm) &&
	    dlt_role_val(a, DLT_RV_COMM_SPLIT_color, v, nv, &color) &&
	    dlt_role_val(a, DLT_RV_COMM_SPLIT_key, v, nv, &key)) {
		/* Handles differ between processes: the communicator split
		 * is known across them by the id hash of its init. */
		hp->split_parent = hp->comm_handle && comm == hp->comm_handle
					   ? hp->comm_id
					   : 0;
		/* int color and key, recorded widened */
		hp->split_color = (int32_t)color;
		hp->split_key = (int32_t)key;
		hp->split_entered = true;
		hp->split_returned = returned;
	}
}

bool dlt_hang_coll_of(uint16_t api, const uint64_t *v, size_t nv,
		      uint64_t *comm, struct dlt_hang_coll *out)
{
	const struct dlt_api_desc *a = dlt_api_by_id(api);
	uint64_t x;
	if (a == NULL || !(a->roles & (DLT_ROLE_COLLECTIVE | DLT_ROLE_P2P)))
		return false;
	memset(out, 0, sizeof(*out));
	out->api = api;
	out->op = out->root = -1;
	if (a->roles & DLT_ROLE_P2P) {
		if (!dlt_role_val(a, DLT_RV_P2P_comm, v, nv, comm))
			return false;
		/* A send and a receive pair up across ranks: the peer
		 * stands where a root would. */
		if (dlt_role_val(a, DLT_RV_P2P_peer, v, nv, &x))
			out->root = (int32_t)x;
		return true;
	}
	if (!dlt_role_val(a, DLT_RV_COLLECTIVE_comm, v, nv, comm))
		return false;
	dlt_role_val(a, DLT_RV_COLLECTIVE_count, v, nv, &out->count);
	dlt_role_val(a, DLT_RV_COLLECTIVE_type, v, nv, &out->type);
	if (dlt_role_val(a, DLT_RV_COLLECTIVE_op, v, nv, &x))
		out->op = (int32_t)x;
	if (dlt_role_val(a, DLT_RV_COLLECTIVE_root, v, nv, &x))
		out->root = (int32_t)x;
	return true;
}

const struct dlt_hang_comm *dlt_hang_comm_of(const struct dlt_hang_proc *hp,
					     uint64_t handle)
{
	for (size_t i = 0; i < hp->ncomms; i++)
		if (hp->comms[i].handle == handle)
			return &hp->comms[i];
	return NULL;
}

static struct dlt_hang_comm *dlt_hp_comm_slot(struct dlt_hang_proc *hp,
					      uint64_t handle)
{
	struct dlt_hang_comm *c =
		(struct dlt_hang_comm *)dlt_hang_comm_of(hp, handle);
	if (c || handle == 0 || hp->ncomms == DLT_HANG_MAX_COMMS)
		return c;
	c = &hp->comms[hp->ncomms++];
	memset(c, 0, sizeof(*c));
	c->handle = handle;
	c->rank = c->nranks = -1;
	return c;
}

/* A returned call: a communicator made (its handle joins its id), or one
 * more collective of one. */
static void dlt_hp_coll(struct dlt_hang_proc *hp, uint16_t api,
			const uint64_t *v, size_t nv, int32_t ret, uint64_t ts)
{
	const struct dlt_api_desc *a = dlt_api_by_id(api);
	uint64_t comm, id, rank, nranks;
	struct dlt_hang_coll coll;
	if (a && (a->roles & DLT_ROLE_COMM_INIT) && ret == 0 &&
	    dlt_role_val(a, DLT_RV_COMM_INIT_comm, v, nv, &comm) &&
	    dlt_role_val(a, DLT_RV_COMM_INIT_id_hash, v, nv, &id) &&
	    dlt_role_val(a, DLT_RV_COMM_INIT_rank, v, nv, &rank) &&
	    dlt_role_val(a, DLT_RV_COMM_INIT_nranks, v, nv, &nranks)) {
		struct dlt_hang_comm *c = dlt_hp_comm_slot(hp, comm);
		if (c) {
			/* A handle freed and made again is a new one; sums of
			 * calls made after this init (read before it) stay. */
			uint32_t after =
				c->agg_first_ts >= ts ? c->agg_done : 0;
			uint64_t first = after ? c->agg_first_ts : 0;
			memset(c, 0, sizeof(*c));
			c->done = c->agg_done = after;
			c->agg_first_ts = first;
			c->handle = comm;
			c->id = id;
			c->rank = (int32_t)rank;
			c->nranks = (int32_t)nranks;
		}
	} else if (dlt_hang_coll_of(api, v, nv, &comm, &coll)) {
		struct dlt_hang_comm *c = dlt_hp_comm_slot(hp, comm);
		if (c) {
			c->done++;
			c->last = coll;
		}
	}
}

/* A ring chunk summed up (format 2.6): its collectives and sends or
 * receives still count in their communicator's sequence, so that the
 * first individual call after them has its true number.  An AGG row's key
 * is the call's communicator.  Aggregated calls carry no values, so the
 * communicator's last call stays the last individual one. */
static void dlt_hp_agg(struct dlt_hang_proc *hp, const struct dlt_rec_agg *r)
{
	uint64_t room = (r->h.len - sizeof(*r)) / sizeof(r->rows[0]);
	uint32_t n = r->n < room ? r->n : (uint32_t)room;
	for (uint32_t i = 0; i < n; i++) {
		const struct dlt_agg_row *row = &r->rows[i];
		if (row->key == 0 || row->count == 0 ||
		    !(dlt_api_roles(row->api) &
		      (DLT_ROLE_COLLECTIVE | DLT_ROLE_P2P)))
			continue;
		struct dlt_hang_comm *c = dlt_hp_comm_slot(hp, row->key);
		if (c == NULL)
			continue;
		c->done += row->count;
		c->agg_done += row->count;
		if (c->agg_first_ts == 0 || r->first_ts < c->agg_first_ts)
			c->agg_first_ts = r->first_ts;
	}
}

static void dlt_hp_add_sock(struct dlt_hang_proc *hp,
			    const struct dlt_rec_sock_ends *r,
			    const struct dlt_trace *t)
{
	if (hp->nsocks == DLT_HANG_MAX_SOCKS)
		return;
	hp->socks = dlt_util_grow(hp->socks, &hp->capsocks, hp->nsocks,
				  sizeof(*hp->socks));
	struct dlt_hang_sock *s = &hp->socks[hp->nsocks++];
	snprintf(s->local, sizeof(s->local), "%s", dlt_trace_strz(t, r->local));
	snprintf(s->peer, sizeof(s->peer), "%s", dlt_trace_strz(t, r->peer));
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
				s->early = r->h.flags & DLT_STALL_EARLY;
			}
			return;
		}
	}
	if (hp->nstalls == DLT_HANG_MAX_STALLS)
		return;
	hp->stalls = dlt_util_grow(hp->stalls, &hp->capstalls, hp->nstalls,
				   sizeof(*hp->stalls));
	struct dlt_hang_stall *s = &hp->stalls[hp->nstalls++];
	memset(s, 0, sizeof(*s));
	s->tid = r->tid;
	s->syscall = r->syscall;
	s->since = r->since;
	s->dur_ns = r->dur_ns;
	s->ended = r->ended;
	s->early = r->h.flags & DLT_STALL_EARLY;
	s->state = (char)r->state;
	s->fd = r->fd;
	s->args[0] = r->args[0];
	s->args[1] = r->args[1];
	snprintf(s->wchan, sizeof(s->wchan), "%s", dlt_trace_strz(t, r->wchan));
	snprintf(s->detail, sizeof(s->detail), "%s",
		 dlt_trace_strz(t, r->detail));
}

struct dlt_hang_load {
	struct dlt_hang_proc *hp;
	struct dlt_trace *t;
};

/* torchrun's (or `python -m torch.distributed.run`'s) arguments: the
 * nodes a job of it has, its own node and processes a node, which a hang
 * of its rendezvous says who is missing from.  "--nnodes 1:4" counts
 * the most. */
static void dlt_hp_arg(struct dlt_hang_proc *hp, const char *a)
{
	static const char *const opts[] = {"--nnodes", "--node_rank",
					   "--node-rank", "--nproc_per_node",
					   "--nproc-per-node"};
	const char *b = strrchr(a, '/');
	b = b ? b + 1 : a;
	if (strcmp(b, "torchrun") == 0 ||
	    strcmp(a, "torch.distributed.run") == 0 ||
	    strstr(a, "torch/distributed/run.py")) {
		hp->tr_agent = true;
		return;
	}
	if (!hp->tr_agent)
		return;
	const char *val = NULL;
	int opt = hp->tr_opt;
	hp->tr_opt = 0;
	if (opt) {
		val = a;
	} else {
		for (int k = 0; k < 5 && !val; k++) {
			size_t n = strlen(opts[k]);
			if (strncmp(a, opts[k], n) != 0)
				continue;
			if (a[n] == '=')
				val = a + n + 1, opt = k + 1;
			else if (a[n] == '\0')
				hp->tr_opt = k + 1;
		}
	}
	if (val == NULL)
		return;
	const char *colon = strrchr(val, ':');
	long x = strtol(colon ? colon + 1 : val, NULL, 10);
	if (opt == 1)
		hp->tr_nnodes = (int32_t)x;
	else if (opt <= 3)
		hp->tr_node_rank = (int32_t)x;
	else
		hp->tr_nproc = (int32_t)x;
}

static int dlt_hang_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_hang_load *l = ctx;
	struct dlt_hang_proc *hp = l->hp;
	const struct dlt_rec_hdr *h = v->rec;
	/* The launcher writes its record after the process ended: not a
	 * sign of its life. */
	if (h->ts > hp->last_ts && h->type != DLT_REC_STRING &&
	    v->writer != DLT_WRITER_LAUNCHER)
		hp->last_ts = h->ts;
	switch (h->type) {
	case DLT_REC_ARG: {
		const struct dlt_rec_arg *r = (const void *)h;
		const char *a = dlt_trace_strz(l->t, r->str);
		if (a && r->index < 64)
			dlt_hp_arg(hp, a);
		break;
	}
	case DLT_REC_PROC: {
		const struct dlt_rec_proc *r = (const void *)h;
		if (r->rank >= 0)
			hp->rank = r->rank;
		hp->world_size = r->world_size;
		snprintf(hp->host, sizeof(hp->host), "%s",
			 dlt_trace_strz(l->t, r->host));
		snprintf(hp->exe, sizeof(hp->exe), "%s",
			 dlt_trace_strz(l->t, r->exe));
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
		/* The variable the tracer took PROC's rank from: the first,
		 * in common/rankvars.h's order, that holds a number. */
		int order;
		const char *rv = dlt_rankvar_name(n, &order);
		char *end;
		long x = rv && *val ? strtol(val, &end, 10) : -1;
		if (rv && x >= 0 && *end == '\0' &&
		    (hp->env_rank_var == NULL || order < hp->env_rank_order)) {
			hp->env_rank_var = rv;
			hp->env_rank_order = order;
		}
		break;
	}
	case DLT_REC_RANK: {
		const struct dlt_rec_rank *r = (const void *)h;
		if (r->rank >= 0 && r->world_size > 0 &&
		    (hp->rec_rank < 0 || h->ts >= hp->rec_ts)) {
			hp->rec_rank = r->rank;
			hp->rec_world_size = r->world_size;
			hp->rec_source = r->source;
			hp->rec_ts = h->ts;
		}
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
		c->nv = nv < DLT_HANG_CALL_VALS ? (uint32_t)nv
						: DLT_HANG_CALL_VALS;
		memcpy(c->v, r->v, c->nv * sizeof(c->v[0]));
		dlt_hp_comm(hp, h->flags, r->v, nv, false, 0, h->ts);
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
		const struct dlt_rec_api_call *r = (const void *)h;
		dlt_hp_comm(hp, h->flags, r->v, (h->len - sizeof(*r)) / 8, true,
			    r->ret, h->ts);
		dlt_hp_coll(hp, h->flags, r->v, (h->len - sizeof(*r)) / 8,
			    r->ret, h->ts);
		hp->last_api = h->flags;
		hp->last_api_ts = h->ts;
		hp->last_api_tid = v->tid;
		break;
	}
	case DLT_REC_AGG:
		dlt_hp_agg(hp, (const void *)h);
		break;
	case DLT_REC_STALL:
		dlt_hp_add_stall(hp, (const void *)h, l->t);
		break;
	case DLT_REC_LIB_LOAD:
		dlt_hp_add_obj(hp, (const void *)h, l->t);
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
	case DLT_REC_MODMAP:
		dlt_hp_modmap(hp, (const void *)h, l->t);
		break;
	case DLT_REC_RAWSTACK:
		dlt_hp_rawstack(hp, (const void *)h);
		break;
	case DLT_REC_PYSTACK: {
		/* Written right after its stall's STALL and STACK. */
		const struct dlt_rec_pystack *r = (const void *)h;
		struct dlt_hang_stall *ps =
			hp->pend_stall ? &hp->stalls[hp->pend_stall - 1] : NULL;
		if (ps && ps->tid == r->tid && hp->pend.rows) {
			dlt_sv_merge(&hp->pend, r);
			dlt_sv_line(&hp->pend, DLT_SV_MAX_ROWS, ps->merged,
				    sizeof(ps->merged));
			dlt_sv_free(&hp->pend);
			hp->pend_stall = 0;
		}
		bool waits = false;
		for (size_t i = 0; i < hp->nstalls; i++) {
			struct dlt_hang_stall *s = &hp->stalls[i];
			if (s->tid != r->tid)
				continue;
			waits = true;
			if (s->py)
				continue;
			s->py = dlt_xmalloc(sizeof(*s->py));
			dlt_pystack_sum_of(r, s->py);
		}
		/* A thread that ran when --hang-timeout's snapshot was taken
		 * (the watcher reads its Python stack without a wait): where
		 * a rank that never waits computes. */
		if (!waits) {
			/* Which thread is main is known at the end (the
			 * header's pid): waits.c asks run_py->tid. */
			if (hp->run_py == NULL)
				hp->run_py = dlt_xmalloc(sizeof(*hp->run_py));
			dlt_pystack_sum_of(r, hp->run_py);
		}
		break;
	}
	case DLT_REC_SOCK: {
		const struct dlt_rec_sock *r = (const void *)h;
		/* A non-blocking connect (the store's client) says nothing
		 * when it returns, and its SOCK_ENDS is written in progress:
		 * the same address tried again and again, up to the last
		 * connect the process made, is a rendezvous not found (one
		 * found moves on to its peers' addresses). */
		if (h->flags == DLT_SOCK_CONNECT && r->ret < 0 &&
		    r->err == 115 /* EINPROGRESS */) {
			const char *a = dlt_trace_strz(l->t, r->addr);
			if (hp->connect_tries && strcmp(a, hp->try_addr) == 0) {
				hp->connect_tries++;
			} else {
				hp->connect_tries = 1;
				snprintf(hp->try_addr, sizeof(hp->try_addr),
					 "%s", a);
			}
		}
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
	case DLT_REC_SOCK_ENDS:
		dlt_hp_add_sock(hp, (const void *)h, l->t);
		break;
	case DLT_REC_EXIT:
		if (h->flags == DLT_EXIT_REAPED)
			hp->reaped_ts = h->ts;
		if (hp->ended && hp->exit_how == DLT_EXIT_REAPED)
			break;
		{
			int32_t st =
				((const struct dlt_rec_exit *)(const void *)h)
					->status;
			/* main returned its status, then exit() ran without
			 * knowing it (-1): the status is main's. */
			if (hp->ended && hp->exit_how == DLT_EXIT_MAIN &&
			    st == -1 &&
			    (h->flags == DLT_EXIT_NORMAL ||
			     h->flags == DLT_EXIT_UNDERSCORE))
				st = hp->exit_status;
			hp->ended = true;
			hp->exit_how = h->flags;
			hp->exit_status = st;
		}
		break;
	case DLT_REC_KILL: {
		const struct dlt_rec_kill *k = (const void *)h;
		if (k->err == 0 && hp->dltrace_sig != SIGKILL)
			hp->dltrace_sig = k->signal;
		break;
	}
	}
	return 0;
}

void dlt_hang_proc_free(struct dlt_hang_proc *hp)
{
	dlt_hp_mods_free(hp);
	dlt_sv_free(&hp->pend);
	hp->pend_stall = 0;
	for (size_t i = 0; i < hp->nobjs; i++)
		free(hp->objs[i].path);
	free(hp->objs);
	for (size_t i = 0; i < hp->nstalls; i++)
		free(hp->stalls[i].py);
	free(hp->stalls);
	free(hp->socks);
	free(hp->run_py);
	memset(hp, 0, sizeof(*hp));
}

void dlt_hang_procs_free(struct dlt_hang_proc *procs, size_t n)
{
	for (size_t i = 0; procs && i < n; i++)
		dlt_hang_proc_free(&procs[i]);
	free(procs);
}

void dlt_hang_begin(struct dlt_hang_proc *hp, const char *path)
{
	/* A slot is reused after a trace that could not be read: what that
	 * one held goes first (slots start zeroed). */
	dlt_hang_proc_free(hp);
	hp->rank = -1;
	hp->world_size = -1;
	hp->comm_rank = -1;
	hp->comm_nranks = -1;
	hp->first_comm_rank = -1;
	hp->first_comm_nranks = -1;
	hp->rec_rank = -1;
	hp->rec_world_size = -1;
	hp->tr_node_rank = -1;
	snprintf(hp->trace, sizeof(hp->trace), "%s", path);
}

void dlt_hang_hook_rec(void *hp, struct dlt_trace *t,
		       const struct dlt_rec_view *v)
{
	struct dlt_hang_load l = {hp, t};
	dlt_hang_rec(&l, v);
}

void dlt_hang_read(struct dlt_trace *t, struct dlt_hang_proc *hp)
{
	dlt_hang_begin(hp, dlt_reader_path(t));
	struct dlt_hang_load l = {hp, t};
	dlt_trace_foreach(t, dlt_hang_rec, &l);
	dlt_hang_end(hp, dlt_trace_header(t));
}

/* The rank and world size, in this order: what the job's code passed
 * (RANK), the launcher's variables (PROC), the first NCCL communicator the
 * process joined; and where they came from. */
static void dlt_hp_identity(struct dlt_hang_proc *hp)
{
	const char *src = NULL;
	if (hp->rec_rank >= 0) {
		hp->rank = hp->rec_rank;
		hp->world_size = hp->rec_world_size;
		src = dlt_rank_source_name(hp->rec_source);
		if (src == NULL)
			src = "RANK record";
	} else if (hp->rank >= 0) {
		src = hp->env_rank_var ? hp->env_rank_var : "launcher";
	} else if (hp->first_comm_rank >= 0) {
		hp->rank = hp->first_comm_rank;
		if (hp->world_size <= 0)
			hp->world_size = hp->first_comm_nranks;
		src = "ncclCommInitRank";
	}
	snprintf(hp->rank_source, sizeof(hp->rank_source), "%s",
		 src ? src : "");
}

void dlt_hang_end(struct dlt_hang_proc *hp, const struct dlt_file_header *h)
{
	hp->pid = h->pid;
	hp->ppid = h->ppid;
	hp->run_id = h->run_id;
	hp->start_real = h->start_realtime_ns;
	hp->start_mono = h->start_monotonic_ns;
	dlt_hp_identity(hp);
	/* A killed process left no end record, and its stall records carry
	 * durations up to the last update: the latest of them is when it
	 * was last seen alive.  The watchdog's heartbeat (format 2.1) is
	 * later still: it is stored at every tick. */
	for (size_t i = 0; i < hp->nstalls; i++) {
		uint64_t end = hp->stalls[i].since + hp->stalls[i].dur_ns;
		if (end > hp->last_ts)
			hp->last_ts = end;
	}
	if (h->alive_ns > hp->last_ts)
		hp->last_ts = h->alive_ns;
	for (size_t i = 0; i < hp->nstalls; i++)
		dlt_hp_name_stack(hp, &hp->stalls[i]);
	/* A directory read while its job runs (or hangs right now). */
	hp->live = hp->ended ? DLT_LIVE_UNKNOWN
			     : (int)dlt_live_state(hp->host, hp->pid,
						   hp->start_mono);
}

void dlt_hang_own_frame(const struct dlt_hang_stall *s, char *out, size_t cap)
{
	out[0] = '\0';
	const char *p = s->stack;
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

bool dlt_hang_exited(const struct dlt_hang_proc *hp)
{
	if (!hp->ended)
		return false;
	if (hp->exit_how == DLT_EXIT_REAPED)
		return WIFEXITED(hp->exit_status);
	return true;
}

bool dlt_hang_completed(const struct dlt_hang_proc *hp)
{
	if (!dlt_hang_exited(hp))
		return false;
	switch (hp->exit_how) {
	case DLT_EXIT_REAPED:
		return WEXITSTATUS(hp->exit_status) == 0;
	case DLT_EXIT_NORMAL:
	case DLT_EXIT_UNDERSCORE:
	case DLT_EXIT_MAIN:
		/* -1: main returned and the status was not seen. */
		return hp->exit_status == -1 || (hp->exit_status & 0xff) == 0;
	default:
		return true;
	}
}

int dlt_hang_rank_order(const struct dlt_hang_proc *x,
			const struct dlt_hang_proc *y)
{
	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->trace, y->trace);
}

const struct dlt_hang_call *dlt_hang_call_of(const struct dlt_hang_proc *hp,
					     uint32_t tid)
{
	const struct dlt_hang_call *c = NULL;
	for (size_t q = 0; q < hp->ninflight; q++)
		if (hp->inflight[q].tid == tid)
			c = &hp->inflight[q];
	return c;
}

const char *dlt_hang_who(const struct dlt_hang_proc *hp, char *buf, size_t cap)
{
	if (hp->rank >= 0)
		snprintf(buf, cap, "rank %" PRId32 " (pid %" PRIu32 ")",
			 hp->rank, hp->pid);
	else
		snprintf(buf, cap, "pid %" PRIu32, hp->pid);
	return buf;
}

/* Wall-clock ns of a process's monotonic timestamp: traces of several hosts
 * line up through the two clocks read together at each trace's start. */
uint64_t dlt_hang_wall(const struct dlt_hang_proc *hp, uint64_t ts)
{
	return hp->start_real + (ts - hp->start_mono);
}

void dlt_hang_fmt_dur(uint64_t ns, char *buf, size_t cap)
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
	char scbuf[32], d[32];
	const char *sc = dlt_syscall_label(s->syscall, scbuf, sizeof(scbuf));
	dlt_hang_fmt_dur(s->dur_ns, d, sizeof(d));
	/* Stopped (SIGSTOP, a debugger): in a system call or between two. */
	if (s->state == 'T' || s->state == 't')
		snprintf(buf, cap, "stopped (%s) for %s%s%s",
			 s->state == 't' ? "by a debugger"
					 : "SIGSTOP, SIGTSTP or a debugger",
			 d, s->syscall >= 0 ? " in " : "",
			 s->syscall >= 0 ? sc : "");
	else
		snprintf(buf, cap, "blocked in %s for %s%s%s%s", sc, d,
			 s->detail[0] ? " (" : "", s->detail,
			 s->detail[0] ? ")" : "");
}

bool dlt_hang_wait_short(const struct dlt_hang_stall *s, char *buf, size_t cap)
{
	dlt_hang_wait_text(s, buf, cap);
	size_t dl = strlen(s->detail);
	char *paren = strstr(buf, " (");
	if (paren == NULL || dl == 0 || strlen(paren) != dl + 3 ||
	    strncmp(paren + 2, s->detail, dl) != 0)
		return false;
	*paren = '\0';
	return true;
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

size_t dlt_hang_read_job(struct dlt_job *j, struct dlt_hang_proc **out)
{
	struct dlt_hang_proc *procs =
		dlt_xcalloc(j->ntraces ? j->ntraces : 1, sizeof(*procs));
	for (size_t i = 0; i < j->ntraces; i++) {
		struct dlt_trace *t = dlt_job_take(j, i);
		dlt_hang_read(t, &procs[i]);
		dlt_trace_close(t);
	}
	*out = procs;
	return j->ntraces;
}

size_t dlt_hang_group_runs(struct dlt_hang_proc *procs, size_t n)
{
	struct dlt_run_trace *t = dlt_xcalloc(n ? n : 1, sizeof(*t));
	uint32_t *group = dlt_xcalloc(n ? n : 1, sizeof(*group));
	for (size_t i = 0; i < n; i++)
		t[i] = (struct dlt_run_trace){
			procs[i].run_id, procs[i].start_real,
			procs[i].reaped_ts
				? dlt_hang_wall(&procs[i], procs[i].reaped_ts)
				: 0};
	size_t runs = dlt_runs_group(t, n, group);
	for (size_t i = 0; i < n; i++)
		procs[i].run_group = group[i];
	free(t);
	free(group);
	return runs;
}

bool dlt_hang_job_rank(const struct dlt_hang_proc *hp)
{
	return hp->rank >= 0 && hp->world_size > 0 &&
	       strcmp(hp->rank_source, "ncclCommInitRank") != 0;
}

bool dlt_hang_same_job(const struct dlt_hang_proc *a,
		       const struct dlt_hang_proc *b)
{
	/* A script run twice into one directory uses the same address and
	 * port both times: a job is one run's (launchers that overlap in
	 * time, one per rank under srun, are one run).  Ranks that know
	 * their rank from init_process_group's arguments (mp.spawn) and not
	 * from the launcher's variables have no MASTER_PORT: in one run,
	 * those of one size are one job. */
	if (a->run_group != b->run_group)
		return false;
	if (a->master_port[0] || b->master_port[0])
		return strcmp(a->master_addr, b->master_addr) == 0 &&
		       strcmp(a->master_port, b->master_port) == 0;
	return a->world_size > 0 && a->world_size == b->world_size;
}
