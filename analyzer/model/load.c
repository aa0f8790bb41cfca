/* Loading one trace into a struct dlt_process, in one pass over its
 * records (strings are read in a first pass by the reader). */
#define _GNU_SOURCE
#include "model.h"
#include "pystacks.h"

#include "live.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Sanity bounds against corrupt records: a real command line has far fewer
 * arguments than this (/proc/self/cmdline is read into 64 KiB). */
#define DLT_MAX_ARGC (1u << 20)

#define DLT_COUNTED_TYPES 65 /* every type format.h defines is below */

/* A record kept for the second pass, which needs timestamp order. */
struct dlt_ev {
	const struct dlt_rec_hdr *rec; /* a copy in dlt_load.recs */
	size_t at;		       /* where, until the copies stop moving */
	uint64_t offset;
	uint32_t tid;
	uint32_t seq; /* file order, to keep the sort stable */
};

/* What one thread is doing, for the dlopen correlation. */
struct dlt_thread_state {
	uint32_t tid;
	bool in_dlopen;
	int32_t mode;
	const char *name;
	size_t first_row; /* first library row since its last DLOPEN */
};

struct dlt_load {
	struct dlt_trace *t;
	const struct dlt_load_hook *hook;
	struct dlt_process *p;
	struct dlt_ev *ev;
	size_t nev, evcap;
	/* The reader hands out records only for the time of a callback; the
	 * few kept for the second pass are copied here, back to back. */
	uint64_t *recs;
	size_t recs_len, recs_cap; /* in uint64_t: records are 8-aligned */
	/* Records per type: the types this analyzer knows by index, any
	 * others (newer writers, damage) in a short list. */
	uint64_t counts[DLT_COUNTED_TYPES];
	struct dlt_type_count *other_types;
	size_t nother, othercap;
	/* Trace string pointer to arena copy, open addressing. */
	const char **skeys;
	const char **svals;
	size_t scap, sn;
	struct dlt_thread_state *threads;
	size_t nthreads, threadcap;
	size_t libcap, envcap, notecap, execcap, forkcap, probcap, argvcap;
	size_t vercap;
	size_t reapcap, memcgcap, killcap;
	size_t sigcap, modmapcap;
	/* How the image ended so far, in timestamp order. */
	const struct dlt_rec_exit *reaped;
	bool exec_pending;
	const char *exec_path;
	uint64_t exec_ts;
	const struct dlt_rec_exit *exit_rec;
	uint64_t exit_ts;
	/* The latest RANK record: what the job's code said it is. */
	const struct dlt_rec_rank *rank_rec;
};

static void dlt_model_problem(struct dlt_load *l, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	struct dlt_process *p = l->p;
	for (size_t i = 0; i < p->nproblems; i++)
		if (strcmp(p->problems[i], buf) == 0)
			return;
	p->problems = dlt_util_grow(p->problems, &l->probcap, p->nproblems,
				    sizeof(*p->problems));
	p->problems[p->nproblems++] = dlt_arena_strdup(&p->arena, buf);
}

static size_t dlt_ptr_hash(const char *s, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & mask;
}

/* A string of the trace, copied once into the process's arena however many
 * records refer to it. */
static const char *dlt_load_str(struct dlt_load *l, uint32_t id)
{
	const char *s = dlt_trace_str(l->t, id);
	if (s == NULL)
		return NULL;
	if (l->sn * 2 >= l->scap) {
		size_t ncap = l->scap ? l->scap * 2 : 1024;
		const char **nk = dlt_xcalloc(ncap, sizeof(*nk));
		const char **nv = dlt_xcalloc(ncap, sizeof(*nv));
		for (size_t i = 0; i < l->scap; i++) {
			if (l->skeys[i] == NULL)
				continue;
			size_t j = dlt_ptr_hash(l->skeys[i], ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = l->skeys[i];
			nv[j] = l->svals[i];
		}
		free(l->skeys);
		free(l->svals);
		l->skeys = nk;
		l->svals = nv;
		l->scap = ncap;
	}
	size_t j = dlt_ptr_hash(s, l->scap - 1);
	while (l->skeys[j]) {
		if (l->skeys[j] == s)
			return l->svals[j];
		j = (j + 1) & (l->scap - 1);
	}
	l->skeys[j] = s;
	l->svals[j] = dlt_arena_strdup(&l->p->arena, s);
	l->sn++;
	return l->svals[j];
}

static void dlt_count_other(struct dlt_load *l, uint16_t type)
{
	for (size_t i = 0; i < l->nother; i++)
		if (l->other_types[i].type == type) {
			l->other_types[i].count++;
			return;
		}
	l->other_types = dlt_util_grow(l->other_types, &l->othercap, l->nother,
				       sizeof(*l->other_types));
	l->other_types[l->nother++] = (struct dlt_type_count){type, 1};
}

static int dlt_collect(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_load *l = ctx;
	l->p->records++;
	/* The launcher writes after the process ended: not a sign of its
	 * life. */
	if (v->rec->ts > l->p->last_seen_ns && v->writer != DLT_WRITER_LAUNCHER)
		l->p->last_seen_ns = v->rec->ts;
	if (v->rec->type < DLT_COUNTED_TYPES)
		l->counts[v->rec->type]++;
	else
		dlt_count_other(l, v->rec->type);
	if (l->hook && l->hook->rec)
		l->hook->rec(l->hook->ctx, l->t, v);
	switch (v->rec->type) {
	case DLT_REC_PROC:
	case DLT_REC_ARG:
	case DLT_REC_ENV:
	case DLT_REC_NOTE:
	case DLT_REC_LIB_LOAD:
	case DLT_REC_LIB_FAIL:
	case DLT_REC_LIB_UNLOAD:
	case DLT_REC_DLOPEN:
	case DLT_REC_DLERROR:
	case DLT_REC_EXIT:
	case DLT_REC_FORK:
	case DLT_REC_REAP:
	case DLT_REC_EXEC:
	case DLT_REC_LIB_FAMILY:
	case DLT_REC_MEMCG:
	case DLT_REC_KILL:
	case DLT_REC_SYSTEM:
	case DLT_REC_RUNTIME_VERSION:
	case DLT_REC_SIGNAL:
	case DLT_REC_MODMAP:
	case DLT_REC_RANK:
		break;
	case DLT_REC_RAWSTACK:
		/* Only a crash's (the watcher's are hangs.c's). */
		if (((const struct dlt_rec_rawstack *)(const void *)v->rec)
				    ->why == DLT_RAW_CRASH &&
		    v->rec->len >= sizeof(struct dlt_rec_rawstack))
			break;
		return 0;
	case DLT_REC_PYSTACK:
		/* Only a signal handler's (the watchdog's are hangs.c's). */
		if (v->rec->flags & DLT_PYSTACK_F_SIGNAL)
			break;
		return 0;
	default:
		return 0;
	}
	size_t words = v->rec->len / 8; /* the reader checked len % 8 */
	if (l->recs_cap - l->recs_len < words) {
		size_t cap = l->recs_cap ? l->recs_cap : 512;
		while (cap - l->recs_len < words)
			cap *= 2;
		l->recs = dlt_xrealloc(l->recs, cap, sizeof(*l->recs));
		l->recs_cap = cap;
	}
	memcpy(l->recs + l->recs_len, v->rec, v->rec->len);
	l->ev = dlt_util_grow(l->ev, &l->evcap, l->nev, sizeof(*l->ev));
	l->ev[l->nev] = (struct dlt_ev){NULL, l->recs_len, v->offset, v->tid,
					(uint32_t)l->nev};
	l->recs_len += words;
	l->nev++;
	return 0;
}

static int dlt_ev_cmp(const void *a, const void *b)
{
	const struct dlt_ev *x = a, *y = b;
	if (x->rec->ts != y->rec->ts)
		return x->rec->ts < y->rec->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct dlt_thread_state *dlt_thread(struct dlt_load *l, uint32_t tid)
{
	for (size_t i = 0; i < l->nthreads; i++)
		if (l->threads[i].tid == tid)
			return &l->threads[i];
	l->threads = dlt_util_grow(l->threads, &l->threadcap, l->nthreads,
				   sizeof(*l->threads));
	struct dlt_thread_state *th = &l->threads[l->nthreads++];
	*th = (struct dlt_thread_state){.tid = tid};
	return th;
}

/* Every argument has an ARG record of its own, so a trace cannot describe
 * more arguments than it has room for such records: a forged count or index
 * must not make the argv table larger than the file (found by fuzzing). */
static uint32_t dlt_argc_limit(const struct dlt_process *p)
{
	uint64_t room = p->stats.bytes / sizeof(struct dlt_rec_arg);
	return room < DLT_MAX_ARGC ? (uint32_t)room : DLT_MAX_ARGC;
}

static void dlt_on_proc(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_proc *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	if (p->has_proc)
		return; /* the first one describes the image */
	p->has_proc = true;
	p->host = dlt_load_str(l, r->host);
	p->exe = dlt_load_str(l, r->exe);
	p->cwd = dlt_load_str(l, r->cwd);
	p->rank = r->rank;
	p->world_size = r->world_size;
	if (r->h.flags & DLT_PROC_ARGV_CUT) {
		/* argc counts arguments that have no ARG record: they are
		 * said to be missing, not shown one by one as lost.  ARG
		 * records (time 0) were all seen before this. */
		p->argv_more = r->argc > p->argc ? r->argc - p->argc : 0;
	} else if (r->argc > dlt_argc_limit(p)) {
		dlt_model_problem(l,
				  "PROC record at offset %" PRIu64
				  " claims %" PRIu32 " arguments; ignored",
				  e->offset, r->argc);
	} else if (r->argc > p->argc) {
		p->argv = dlt_xrealloc(p->argv, r->argc, sizeof(*p->argv));
		memset(p->argv + p->argc, 0,
		       (r->argc - p->argc) * sizeof(*p->argv));
		p->argc = r->argc;
	}
}

static void dlt_on_arg(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_arg *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	if (r->index >= dlt_argc_limit(p)) {
		dlt_model_problem(l,
				  "ARG record at offset %" PRIu64
				  " has index %" PRIu32 "; ignored",
				  e->offset, r->index);
		return;
	}
	if (r->index >= p->argc) {
		p->argv = dlt_xrealloc(p->argv, r->index + 1, sizeof(*p->argv));
		memset(p->argv + p->argc, 0,
		       (r->index + 1 - p->argc) * sizeof(*p->argv));
		p->argc = r->index + 1;
	}
	if (p->argv[r->index] == NULL)
		p->argv[r->index] = dlt_load_str(l, r->str);
	if (r->h.flags & 1)
		p->argv_cut = true;
}

static void dlt_on_env(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_env *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	const char *name = dlt_load_str(l, r->name);
	if (name == NULL)
		return;
	/* Both library instances may record the environment. */
	for (size_t i = 0; i < p->nenv; i++)
		if (p->env[i].name == name)
			return;
	p->env = dlt_util_grow(p->env, &l->envcap, p->nenv, sizeof(*p->env));
	p->env[p->nenv++] = (struct dlt_env_var){
		name, dlt_load_str(l, r->value), (r->h.flags & 1) != 0};
}

/* The rank and world size, and where they came from: what the job's code
 * passed to torch.distributed (RANK), else the launcher's variable PROC's
 * rank was read from, named by the recorded environment (the first of
 * common/rankvars.h's order that holds that number, as the tracer took
 * it).  A forked child's PROC carries its parent's rank from the
 * environment, as before: it works for that rank. */
static void dlt_decide_rank(struct dlt_load *l)
{
	struct dlt_process *p = l->p;
	const struct dlt_rec_rank *r = l->rank_rec;
	if (r && r->rank >= 0 && r->world_size > 0) {
		p->rank = r->rank;
		p->world_size = r->world_size;
		p->rank_source = dlt_rank_source_name(r->source);
		if (p->rank_source == NULL)
			p->rank_source = "RANK record";
		return;
	}
	if (p->rank < 0)
		return;
	int best = -1;
	for (size_t i = 0; i < p->nenv; i++) {
		int order;
		const char *n = dlt_rankvar_name(p->env[i].name, &order);
		char *end;
		const char *v = p->env[i].value;
		if (n == NULL || v == NULL || (best >= 0 && order >= best))
			continue;
		long x = strtol(v, &end, 10);
		if (end != v && *end == '\0' && x == p->rank) {
			best = order;
			p->rank_source = n;
		}
	}
	/* Variables not recorded (an older trace, a forked child's): a
	 * launcher's all the same. */
	if (p->rank_source == NULL)
		p->rank_source = "launcher";
}

static void dlt_on_note(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_note *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	p->notes = dlt_util_grow(p->notes, &l->notecap, p->nnotes,
				 sizeof(*p->notes));
	p->notes[p->nnotes++] = (struct dlt_note_entry){
		r->h.ts, r->h.flags, dlt_load_str(l, r->text)};
}

/* Copies a tried list, cut to what the record really holds. */
static void dlt_copy_tried(struct dlt_load *l, const struct dlt_ev *e,
			   struct dlt_lib *lib, size_t fixed,
			   const struct dlt_tried *tried, uint32_t n)
{
	uint32_t room = (uint32_t)((e->rec->len - fixed) / sizeof(*tried));
	if (n > room) {
		dlt_model_problem(
			l,
			"%s record at offset %" PRIu64 " lists %" PRIu32
			" tried paths but holds %" PRIu32 "; the list is cut",
			dlt_rec_type_name(e->rec->type), e->offset, n, room);
		n = room;
	}
	lib->n_tried = n;
	if (n == 0)
		return;
	lib->tried = dlt_arena_alloc(&l->p->arena, n * sizeof(*lib->tried));
	for (uint32_t i = 0; i < n; i++) {
		lib->tried[i].path = dlt_load_str(l, tried[i].path);
		lib->tried[i].via = tried[i].via;
	}
}

static struct dlt_lib *dlt_new_row(struct dlt_load *l, const struct dlt_ev *e)
{
	struct dlt_process *p = l->p;
	p->libs =
		dlt_util_grow(p->libs, &l->libcap, p->nlibs, sizeof(*p->libs));
	struct dlt_lib *lib = &p->libs[p->nlibs++];
	memset(lib, 0, sizeof(*lib));
	lib->ts = e->rec->ts;
	lib->offset = e->offset;
	lib->tid = e->tid;
	lib->dlopen_mode = -1;
	struct dlt_thread_state *th = dlt_thread(l, e->tid);
	if (th->in_dlopen) {
		lib->dlopen_mode = th->mode;
		lib->dlopen_name = th->name;
	}
	return lib;
}

static void dlt_on_lib_load(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_lib_load *r = (const void *)e->rec;
	struct dlt_lib *lib = dlt_new_row(l, e);
	lib->requested = dlt_load_str(l, r->requested);
	lib->requester = dlt_load_str(l, r->requester);
	lib->path = dlt_load_str(l, r->path);
	lib->realpath = dlt_load_str(l, r->realpath);
	lib->soname = dlt_load_str(l, r->soname);
	lib->runpath = dlt_load_str(l, r->runpath);
	lib->rpath = dlt_load_str(l, r->rpath);
	lib->found_via = r->found_via;
	lib->flags = r->h.flags;
	lib->obj = r->obj;
	lib->requester_obj = r->requester_obj;
	lib->base = r->base;
	lib->dev = r->dev;
	lib->ino = r->ino;
	lib->size = r->size;
	lib->mtime_ns = r->mtime_ns;
	lib->lmid = r->lmid;
	lib->build_id_len = r->build_id_len;
	if (lib->build_id_len > sizeof(lib->build_id)) {
		dlt_model_problem(l,
				  "LIB_LOAD record at offset %" PRIu64
				  " has a build id of %" PRIu32
				  " bytes; it is cut to 32",
				  e->offset, r->build_id_len);
		lib->build_id_len = sizeof(lib->build_id);
	}
	memcpy(lib->build_id, r->build_id, lib->build_id_len);
	dlt_copy_tried(l, e, lib, sizeof(*r), r->tried, r->n_tried);
}

static void dlt_on_lib_fail(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_lib_fail *r = (const void *)e->rec;
	struct dlt_lib *lib = dlt_new_row(l, e);
	lib->from_fail_record = true;
	lib->failed = true;
	lib->requested = dlt_load_str(l, r->requested);
	lib->requester = dlt_load_str(l, r->requester);
	lib->requester_obj = r->requester_obj;
	lib->flags = r->h.flags;
	dlt_copy_tried(l, e, lib, sizeof(*r), r->tried, r->n_tried);
}

static void dlt_on_lib_unload(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_lib_unload *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	/* The latest mapping with that id: a link_map address can be reused
	 * after an earlier object was closed. */
	for (size_t i = p->nlibs; i-- > 0;) {
		struct dlt_lib *lib = &p->libs[i];
		if (!lib->from_fail_record && lib->obj == r->obj) {
			lib->unloaded = true;
			if (r->h.flags & 1)
				lib->failed = true;
			return;
		}
	}
	if ((r->h.flags & 1) == 0)
		return; /* a dlclose, or the exit, of something older */
	dlt_model_problem(l,
			  "LIB_UNLOAD record at offset %" PRIu64
			  " names object 0x%" PRIx64 ", which no LIB_LOAD "
			  "record loaded",
			  e->offset, r->obj);
}

static void dlt_on_dlopen(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_dlopen *r = (const void *)e->rec;
	struct dlt_thread_state *th = dlt_thread(l, e->tid);
	th->in_dlopen = true;
	th->mode = r->mode;
	th->name = dlt_load_str(l, r->name);
	th->first_row = l->p->nlibs;
}

/* The text a program got from dlerror() explains every failure of its
 * thread since that thread's last dlopen: a dlopen fails as a whole, and a
 * missing dependency also unloads what had been mapped for it. */
/* Only the version word is kept: the rest of a LIB_FAMILY record is the
 * GPU analysis's (analyses/gpu.c), which reads it with the records. */
static void dlt_on_family(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_family *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	if (r->h.len < sizeof(*r) || r->v[0] <= 0)
		return;
	p->versions = dlt_util_grow(p->versions, &l->vercap, p->nversions,
				    sizeof(*p->versions));
	p->versions[p->nversions++] = (struct dlt_reported_version){
		r->h.flags, r->source, dlt_load_str(l, r->path), r->v[0]};
}

/* The first of each: a forked child's trace has its own. */
static void dlt_on_system(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_system *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	if (r->h.len < sizeof(*r) || p->sys.kernel)
		return;
	p->sys.os = dlt_load_str(l, r->os);
	p->sys.kernel = dlt_load_str(l, r->kernel);
	p->sys.glibc = dlt_load_str(l, r->glibc);
	p->sys.machine = dlt_load_str(l, r->machine);
}

static void dlt_on_runtime(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_runtime_version *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	const char **ver = r->h.flags == DLT_RUNTIME_PYTHON  ? &p->sys.python
			   : r->h.flags == DLT_RUNTIME_TORCH ? &p->sys.torch
							     : NULL;
	if (r->h.len < sizeof(*r) || ver == NULL || *ver)
		return;
	*ver = dlt_load_str(l, r->version);
	if (r->h.flags == DLT_RUNTIME_TORCH)
		p->sys.torch_path = dlt_load_str(l, r->path);
	else
		p->sys.python_path = dlt_load_str(l, r->path);
}

static void dlt_on_dlerror(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_dlerror *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	struct dlt_thread_state *th = dlt_thread(l, e->tid);
	const char *text = NULL;
	/* The loader reports a relocation failure (undefined symbol) after
	 * the new objects were announced as consistent, so their unmapping
	 * looks like a dlclose.  A message that names one of the objects
	 * unmapped since this thread's last dlopen says they all went with
	 * the failed load. */
	const char *msg = dlt_trace_str(l->t, r->text);
	bool named = false;
	for (size_t i = th->first_row; msg && i < p->nlibs && !named; i++) {
		const struct dlt_lib *lib = &p->libs[i];
		const char *n[2] = {lib->path, lib->requested};
		for (int k = 0; k < 2 && !named; k++) {
			size_t len = n[k] ? strlen(n[k]) : 0;
			named = lib->tid == e->tid && lib->unloaded && len &&
				strncmp(msg, n[k], len) == 0 && msg[len] == ':';
		}
	}
	for (size_t i = th->first_row; named && i < p->nlibs; i++) {
		struct dlt_lib *lib = &p->libs[i];
		if (lib->tid == e->tid && lib->unloaded &&
		    !lib->from_fail_record)
			lib->failed = true;
	}
	for (size_t i = th->first_row; i < p->nlibs; i++) {
		struct dlt_lib *lib = &p->libs[i];
		if (lib->tid != e->tid || !lib->failed || lib->error)
			continue;
		if (text == NULL)
			text = dlt_load_str(l, r->text);
		lib->error = text;
	}
	/* dlerror() clears the thread's error: a later message explains only
	 * later failures.  Without this, a trace of many failed loads and
	 * many dlerror records and no dlopen made the load quadratic (a
	 * hostile 2 MiB trace took seconds, 10 MiB minutes). */
	th->first_row = p->nlibs;
}

static void dlt_on_exit(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_exit *r = (const void *)e->rec;
	switch (r->h.flags) {
	case DLT_EXIT_REAPED:
		l->reaped = r;
		break;
	case DLT_EXIT_EXEC:
		l->exec_pending = true;
		l->exec_ts = r->h.ts;
		break;
	case DLT_EXIT_NORMAL:
	case DLT_EXIT_UNDERSCORE:
	case DLT_EXIT_MAIN:
	case DLT_EXIT_ABORT:
		/* "Status not seen" adds nothing to a status already seen. */
		if (l->exit_rec && r->h.flags == DLT_EXIT_NORMAL &&
		    r->status == -1)
			break;
		l->exit_rec = r;
		l->exit_ts = r->h.ts;
		break;
	default:
		dlt_model_problem(l,
				  "EXIT record at offset %" PRIu64
				  " has unknown kind %u; ignored",
				  e->offset, (unsigned)r->h.flags);
	}
}

static void dlt_on_exec(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_exec *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	const char *path = dlt_load_str(l, r->path);
	if (r->h.flags & 1) {
		l->exec_pending = false;
		p->exec_fails =
			dlt_util_grow(p->exec_fails, &l->execcap,
				      p->nexec_fails, sizeof(*p->exec_fails));
		p->exec_fails[p->nexec_fails++] =
			(struct dlt_exec_fail){r->h.ts, path, r->err};
		return;
	}
	l->exec_pending = true;
	l->exec_path = path;
	l->exec_ts = r->h.ts;
}

static void dlt_on_fork(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_fork *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	p->forks = dlt_util_grow(p->forks, &l->forkcap, p->nforks,
				 sizeof(*p->forks));
	p->forks[p->nforks++] = (struct dlt_fork_rec){r->h.ts, r->child_pid};
}

static void dlt_on_reap(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_reap *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	p->reaps = dlt_util_grow(p->reaps, &l->reapcap, p->nreaps,
				 sizeof(*p->reaps));
	/* max_rss_kb since 2.2 (an older REAP is 24 bytes). */
	p->reaps[p->nreaps++] = (struct dlt_reap_rec){
		r->h.ts, r->pid, r->status,
		r->h.len >= sizeof(*r) ? r->max_rss_kb : 0};
}

static void dlt_on_signal(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_signal *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	uint32_t room =
		(uint32_t)((r->h.len - sizeof(*r)) / sizeof(r->frames[0]));
	uint32_t n = r->n < room ? r->n : room;
	struct dlt_sig_frame_ev *frames = NULL;
	if (n)
		frames = dlt_arena_alloc(&p->arena, sizeof(*frames) * n);
	for (uint32_t i = 0; i < n; i++)
		frames[i] = (struct dlt_sig_frame_ev){
			r->frames[i].pc, r->frames[i].off,
			dlt_load_str(l, r->frames[i].obj)};
	char comm[sizeof(r->sender_comm) + 1];
	memcpy(comm, r->sender_comm, sizeof(r->sender_comm));
	comm[sizeof(r->sender_comm)] = '\0';
	p->signals = dlt_util_grow(p->signals, &l->sigcap, p->nsignals,
				   sizeof(*p->signals));
	/* Named: the Python stack and the raw stack come with later
	 * records, and a field added to the struct must not shift them. */
	p->signals[p->nsignals++] = (struct dlt_signal_ev){
		.ts = r->h.ts,
		.signo = r->signo,
		.code = r->code,
		.addr = r->addr,
		.tid = r->tid,
		.sender_pid = r->sender_pid,
		.sender_uid = r->sender_uid,
		.sender_comm =
			comm[0] ? dlt_arena_strdup(&p->arena, comm) : NULL,
		.action = r->action,
		.flags = r->h.flags,
		.nframes = n,
		.frames = frames};
}

/* A MODMAP: the mappings later RAWSTACKs are read against. */
static void dlt_on_modmap(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_modmap *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	uint32_t n = dlt_modmap_count(r);
	struct dlt_umod *m = dlt_arena_alloc(&p->arena, sizeof(*m) * (n + 1));
	for (uint32_t i = 0; i < n; i++) {
		dlt_umod_of(&r->e[i], dlt_load_str(l, r->e[i].path), &m[i]);
		/* The record is a copy that moves: the build-id's own. */
		if (m[i].build_id_len) {
			uint8_t *bid =
				dlt_arena_alloc(&p->arena, m[i].build_id_len);
			memcpy(bid, m[i].build_id, m[i].build_id_len);
			m[i].build_id = bid;
		}
	}
	p->modmaps = dlt_util_grow(p->modmaps, &l->modmapcap, p->nmodmaps,
				   sizeof(*p->modmaps));
	p->modmaps[p->nmodmaps++] = (struct dlt_modmap_ev){
		r->h.ts, {m, n}, (r->h.flags & DLT_MODMAP_F_TRUNC) != 0};
}

/* A crash's RAWSTACK: the registers and stack of the signal's thread,
 * with the latest MODMAP (the handler writes it first). */
static void dlt_on_rawstack(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_rawstack *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	struct dlt_signal_ev *ev = NULL;
	for (size_t i = p->nsignals; i-- > 0 && ev == NULL;)
		if (p->signals[i].tid == r->tid && p->signals[i].raw == NULL)
			ev = &p->signals[i];
	if (ev == NULL || p->nmodmaps == 0)
		return;
	struct dlt_ustack *st = dlt_arena_alloc(&p->arena, sizeof(*st));
	if (dlt_ustack_of(r, st) != 0)
		return;
	if (st->len) {
		uint8_t *b = dlt_arena_alloc(&p->arena, st->len);
		memcpy(b, st->bytes, st->len);
		st->bytes = b;
	} else {
		st->bytes = NULL;
	}
	/* Its own copy: p->modmaps moves as it grows. */
	struct dlt_umap *um = dlt_arena_alloc(&p->arena, sizeof(*um));
	*um = p->modmaps[p->nmodmaps - 1].map;
	ev->raw = st;
	ev->map = um;
}

/* A signal handler's PYSTACK: the stack of the signal's thread. */
static void dlt_on_sig_pystack(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_pystack *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	struct dlt_signal_ev *ev = NULL;
	if (r->h.flags & DLT_PYSTACK_F_MAIN) {
		/* The main thread's, with the latest signal of another
		 * thread: its innermost frame of the program's own code (the
		 * line that called all_reduce, not torch's all_reduce). */
		if (p->nsignals == 0 || p->signals[p->nsignals - 1].main_py)
			return;
		static struct dlt_pystack_sum msum;
		dlt_pystack_sum_of(r, &msum);
		char top[256];
		dlt_pystack_sum_own(&msum, top, sizeof(top));
		if (top[0] == '\0')
			dlt_pystack_sum_top(&msum, top, sizeof(top));
		if (top[0])
			p->signals[p->nsignals - 1].main_py =
				dlt_arena_strdup(&p->arena, top);
		return;
	}
	for (size_t i = p->nsignals; i-- > 0 && ev == NULL;)
		if (p->signals[i].tid == r->tid && p->signals[i].npy == 0 &&
		    p->signals[i].py_why == NULL)
			ev = &p->signals[i];
	if (ev == NULL)
		return;
	static struct dlt_pystack_sum sum;
	dlt_pystack_sum_of(r, &sum);
	char top[256];
	dlt_pystack_sum_top(&sum, top, sizeof(top));
	ev->py_top = top[0] ? dlt_arena_strdup(&p->arena, top) : NULL;
	void *copy = dlt_arena_alloc(&p->arena, r->h.len);
	memcpy(copy, r, r->h.len);
	ev->py_rec = copy;
	ev->py_why = sum.why[0] ? dlt_arena_strdup(&p->arena, sum.why) : "";
	if (sum.n) {
		const char **fr =
			dlt_arena_alloc(&p->arena, sizeof(*fr) * sum.n);
		for (uint32_t i = 0; i < sum.n; i++)
			fr[i] = dlt_arena_strdup(&p->arena, sum.frames[i]);
		ev->py_frames = fr;
		ev->npy = sum.n;
	}
}

/* The launcher's wait status is the ground truth; otherwise whichever of an
 * exec and an exit came last, since an exec that returned means the process
 * carried on (and its failure record may be missing). */
static void dlt_decide_end(struct dlt_load *l)
{
	struct dlt_end *end = &l->p->end;
	memset(end, 0, sizeof(*end));
	if (l->reaped) {
		end->how = DLT_END_REAPED;
		end->status = l->reaped->status;
		end->ts = l->reaped->h.ts;
	} else if (l->exec_pending &&
		   (l->exit_rec == NULL || l->exec_ts >= l->exit_ts)) {
		end->how = DLT_END_EXEC;
		end->ts = l->exec_ts;
		end->exec_path = l->exec_path;
	} else if (l->exit_rec) {
		end->how = (enum dlt_end_how)l->exit_rec->h.flags;
		end->status = l->exit_rec->status;
		end->ts = l->exit_ts;
	}
	struct dlt_process *p = l->p;
	if (p->hdr.alive_ns > p->last_seen_ns)
		p->last_seen_ns = p->hdr.alive_ns;
	if (end->how == DLT_END_NONE) {
		uint64_t start = p->hdr.start_monotonic_ns;
		end->seen_for_ns =
			p->last_seen_ns > start ? p->last_seen_ns - start : 0;
		end->live = (int)dlt_live_state(p->host, p->hdr.pid, start);
	}
}

static void dlt_finish_libs(struct dlt_load *l)
{
	struct dlt_process *p = l->p;
	for (size_t i = 0; i < p->nlibs; i++) {
		struct dlt_lib *lib = &p->libs[i];
		if (!lib->failed) {
			p->nlibs_loaded++;
			continue;
		}
		p->nlibs_failed++;
		if (lib->error)
			continue;
		char buf[128];
		if (lib->from_fail_record)
			snprintf(buf, sizeof(buf),
				 "not found; tried %" PRIu32 " path%s%s",
				 lib->n_tried, lib->n_tried == 1 ? "" : "s",
				 lib->flags & DLT_LIB_TRIED_CUT
					 ? " (more were not recorded)"
					 : "");
		else
			snprintf(buf, sizeof(buf),
				 "mapped, then unloaded by a failed load");
		lib->error = dlt_arena_strdup(&p->arena, buf);
	}
}

static int dlt_type_count_cmp(const void *a, const void *b)
{
	const struct dlt_type_count *x = a, *y = b;
	return (x->type > y->type) - (x->type < y->type);
}

static void dlt_build_types(struct dlt_load *l)
{
	struct dlt_process *p = l->p;
	size_t n = l->nother;
	for (size_t t = 0; t < DLT_COUNTED_TYPES; t++)
		n += l->counts[t] != 0;
	p->types = dlt_xcalloc(n, sizeof(*p->types));
	for (size_t t = 0; t < DLT_COUNTED_TYPES; t++)
		if (l->counts[t])
			p->types[p->ntypes++] = (struct dlt_type_count){
				(uint16_t)t, l->counts[t]};
	/* All above the indexed ones, so ascending order is kept. */
	if (l->nother > 1)
		qsort(l->other_types, l->nother, sizeof(*l->other_types),
		      dlt_type_count_cmp);
	for (size_t i = 0; i < l->nother; i++)
		p->types[p->ntypes++] = l->other_types[i];
}

struct dlt_process *dlt_process_read(struct dlt_trace *t)
{
	return dlt_process_read_hooked(t, NULL);
}

struct dlt_process *dlt_process_read_hooked(struct dlt_trace *t,
					    const struct dlt_load_hook *hook)
{
	const char *path = dlt_reader_path(t);
	struct dlt_process *p = dlt_xcalloc(1, sizeof(*p));
	struct dlt_load l = {.t = t, .p = p, .hook = hook};
	p->trace = dlt_arena_strdup(&p->arena, path);
	p->hdr = *dlt_trace_header(t);
	p->rank = -1;
	p->world_size = -1;

	dlt_trace_foreach(t, dlt_collect, &l);
	dlt_trace_stats(t, &p->stats);
	for (size_t i = 0; i < l.nev; i++)
		l.ev[i].rec = (const void *)(l.recs + l.ev[i].at);
	/* Threads write into their own chunks, and the two library copies
	 * into separate chunks of the same thread: only timestamps (all
	 * CLOCK_MONOTONIC) put a DLOPEN before the loads it caused. */
	if (l.nev > 1)
		qsort(l.ev, l.nev, sizeof(*l.ev), dlt_ev_cmp);

	/* Reader problems first: they explain the model's. */
	for (size_t i = 0; i < dlt_trace_problem_count(t); i++) {
		p->problems = dlt_util_grow(p->problems, &l.probcap,
					    p->nproblems, sizeof(*p->problems));
		p->problems[p->nproblems++] =
			dlt_arena_strdup(&p->arena, dlt_trace_problem(t, i));
	}

	for (size_t i = 0; i < l.nev; i++) {
		const struct dlt_ev *e = &l.ev[i];
		switch (e->rec->type) {
		case DLT_REC_PROC:
			dlt_on_proc(&l, e);
			break;
		case DLT_REC_ARG:
			dlt_on_arg(&l, e);
			break;
		case DLT_REC_ENV:
			dlt_on_env(&l, e);
			break;
		case DLT_REC_NOTE:
			dlt_on_note(&l, e);
			break;
		case DLT_REC_LIB_LOAD:
			dlt_on_lib_load(&l, e);
			break;
		case DLT_REC_LIB_FAIL:
			dlt_on_lib_fail(&l, e);
			break;
		case DLT_REC_LIB_UNLOAD:
			dlt_on_lib_unload(&l, e);
			break;
		case DLT_REC_DLOPEN:
			dlt_on_dlopen(&l, e);
			break;
		case DLT_REC_DLERROR:
			dlt_on_dlerror(&l, e);
			break;
		case DLT_REC_EXIT:
			dlt_on_exit(&l, e);
			break;
		case DLT_REC_EXEC:
			dlt_on_exec(&l, e);
			break;
		case DLT_REC_FORK:
			dlt_on_fork(&l, e);
			break;
		case DLT_REC_REAP:
			dlt_on_reap(&l, e);
			break;
		case DLT_REC_SIGNAL:
			dlt_on_signal(&l, e);
			break;
		case DLT_REC_PYSTACK:
			dlt_on_sig_pystack(&l, e);
			break;
		case DLT_REC_MODMAP:
			dlt_on_modmap(&l, e);
			break;
		case DLT_REC_RAWSTACK:
			dlt_on_rawstack(&l, e);
			break;
		case DLT_REC_LIB_FAMILY:
			dlt_on_family(&l, e);
			break;
		case DLT_REC_MEMCG:
			dlt_death_on_memcg(p, (const void *)e->rec,
					   &l.memcgcap);
			break;
		case DLT_REC_KILL:
			dlt_death_on_kill(p, (const void *)e->rec, &l.killcap);
			break;
		case DLT_REC_SYSTEM:
			dlt_on_system(&l, e);
			break;
		case DLT_REC_RUNTIME_VERSION:
			dlt_on_runtime(&l, e);
			break;
		case DLT_REC_RANK:
			/* In time order: the latest is the process's rank
			 * now. */
			l.rank_rec = (const void *)e->rec;
			break;
		}
	}
	dlt_decide_rank(&l);
	dlt_decide_end(&l);
	dlt_death_finish(p, t);
	dlt_finish_libs(&l);
	dlt_build_types(&l);

	free(l.ev);
	free(l.recs);
	free(l.other_types);
	free(l.skeys);
	free(l.svals);
	free(l.threads);
	return p;
}

void dlt_process_free(struct dlt_process *p)
{
	if (p == NULL)
		return;
	free(p->argv);
	free(p->env);
	free(p->versions);
	free(p->exec_fails);
	free(p->forks);
	free(p->reaps);
	free(p->signals);
	free(p->modmaps);
	free(p->memcg);
	free(p->kills);
	free(p->libs);
	free(p->notes);
	free(p->types);
	free(p->problems);
	dlt_arena_free(p->arena);
	free(p);
}

uint64_t dlt_process_count(const struct dlt_process *p, uint16_t type)
{
	for (size_t i = 0; i < p->ntypes; i++)
		if (p->types[i].type == type)
			return p->types[i].count;
	return 0;
}

const struct dlt_reported_version *
dlt_lib_reported_version(const struct dlt_process *p, const struct dlt_lib *lib)
{
	/* The library's own answer (source CALL or LOAD) over what its
	 * file says (FILE). */
	const struct dlt_reported_version *best = NULL;
	for (size_t i = 0; i < p->nversions; i++) {
		const struct dlt_reported_version *v = &p->versions[i];
		if (v->path == NULL ||
		    !((lib->path && strcmp(v->path, lib->path) == 0) ||
		      (lib->realpath && strcmp(v->path, lib->realpath) == 0)))
			continue;
		if (best == NULL || (best->source == DLT_FAMSRC_FILE &&
				     v->source != DLT_FAMSRC_FILE))
			best = v;
	}
	return best;
}

void dlt_lib_file_version(const char *path, char *buf, size_t cap)
{
	const char *b = dlt_basename(path ? path : "");
	const char *so = strstr(b, ".so.");
	snprintf(buf, cap, "%s", so ? so + 4 : "");
}
