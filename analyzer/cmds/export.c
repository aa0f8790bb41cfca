/* "export --format chrome": a timeline in the Chrome trace-event format,
 * which ui.perfetto.dev and chrome://tracing load.  One process track per
 * trace (named by rank, pid, host and program), one thread track per
 * thread; GPU library calls as complete slices, calls that never returned
 * as slices up to the end of the trace, blocking waits (stalls) as slices,
 * library loads, dlopen calls and other events as instants, and check
 * findings as process-wide instant markers.  Calls a bounded trace summed
 * up (format 2.6 AGG records) are counter tracks of calls per second, one
 * per API, and each thread whose calls were summed up has an instant where
 * its individual calls begin.
 *
 * For the report's timeline, each slice says what its thread was doing in
 * args.state (waiting for a peer, blocked elsewhere, sleeping, in a GPU
 * call), a process that died has an instant where it did (state dead),
 * and each process's name carries its pid, rank, program, start and last
 * sign of life.
 *
 * Times are microseconds since the earliest trace started, on the wall
 * clock, so that processes of one job line up.  Each trace is read twice
 * (once for the model and the findings, once to stream its records), and
 * nothing of it is kept once its events are written. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "check.h"
#include "report.h"
#include "commands.h"
#include "sections.h"
#include "conv.h"
#include "job.h"
#include "gpu.h"
#include "hangs.h"
#include "json.h"
#include "death.h"
#include "names.h"
#include "status.h"
#include "waits.h"

const char dlt_export_usage[] =
	"usage: dltrace-analyze export --format chrome [--run ID] PATH... > "
	"trace.json\n"
	"\n"
	"Writes a Chrome trace-event JSON timeline on stdout: a process track\n"
	"per traced process, a thread track per thread, GPU library calls as\n"
	"slices (calls that never returned run to the end of the trace),\n"
	"blocking waits as slices, library loads and other events as instant\n"
	"events, and the findings of `check` (hangs included) as markers.\n"
	"Where a bounded trace kept the early calls of the frequent APIs only\n"
	"as per-second aggregates, each such API has a counter track (\"NAME\n"
	"calls/s\") and each thread a marker where its individual calls "
	"begin.\n"
	"Open it in https://ui.perfetto.dev or chrome://tracing.\n"
	"\n"
	"  --format chrome   the only format so far (and the default)\n"
	"  --run ID          only the traces of that run of the launcher\n"
	"                    (summary shows each run's identity)\n"
	"\n"
	"exit status: 0 the timeline was written (inputs that cannot be read\n"
	"are reported on stderr), 2 bad arguments or no usable trace.\n";

/* Calls of one API in one second of the process (AGG rows' intervals),
 * for the calls-per-second counters of a bounded trace (format 2.6). */
struct dlt_ex_rate {
	uint64_t key; /* api << 32 | interval; 0 an empty slot (+1) */
	uint64_t calls;
};

struct dlt_export {
	struct dlt_json *j;
	struct dlt_trace *t;
	const struct dlt_process *p;
	uint32_t xpid;	    /* the process's track id */
	uint64_t origin_ns; /* realtime of the earliest trace start */
	uint32_t *tids;	    /* threads named so far */
	size_t ntids, captids;
	int64_t cudnn_version;
	/* APIs some AGG summed up (a bit per id): their individual calls
	 * count in the same seconds, so the counter runs on past the
	 * aggregates instead of dropping to nothing. */
	uint8_t *agg_api;
	struct dlt_ex_rate *rates; /* open addressing, caprates slots */
	size_t nrates, caprates;
	/* The hang analysis's summary of the process (NULL none): the
	 * stacks of its waits, and the thread the job waits on (ws), which
	 * say what each wait is for. */
	const struct dlt_hang_proc *hp;
	struct dlt_wait_state ws;
};

/* Microseconds since the origin of one of a process's monotonic
 * timestamps.  In integer nanoseconds first: Unix nanoseconds as a double
 * (about 1.8e18) are 256 ns apart, which made every timestamp a multiple
 * of 0.256 us and back-to-back calls collapse. */
static double dlt_us_on(const struct dlt_ex_track *t, uint64_t origin,
			uint64_t ts)
{
	/* Summed unsigned, where a damaged timestamp wraps instead of
	 * overflowing; read back as the signed offset it is. */
	int64_t ns = (int64_t)((t->start_real - origin) + (ts - t->start_mono));
	return (double)ns / 1000.0;
}

static double dlt_us(const struct dlt_export *x, uint64_t ts)
{
	const struct dlt_file_header *h = &x->p->hdr;
	struct dlt_ex_track t = {x->xpid, h->pid, h->start_realtime_ns,
				 h->start_monotonic_ns};
	return dlt_us_on(&t, x->origin_ns, ts);
}

static void dlt_thread_named(struct dlt_export *x, uint32_t tid)
{
	for (size_t i = 0; i < x->ntids; i++)
		if (x->tids[i] == tid)
			return;
	if (x->ntids == x->captids) {
		x->captids = x->captids ? x->captids * 2 : 16;
		x->tids = dlt_xrealloc(x->tids, x->captids, sizeof(*x->tids));
	}
	x->tids[x->ntids++] = tid;
	char name[64];
	if (tid == x->p->hdr.pid)
		snprintf(name, sizeof(name), "main thread %" PRIu32, tid);
	else
		snprintf(name, sizeof(name), "thread %" PRIu32, tid);
	struct dlt_json *j = x->j;
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", "thread_name");
	dlt_json_kv_string(j, "ph", "M");
	dlt_json_kv_uint(j, "pid", x->xpid);
	dlt_json_kv_uint(j, "tid", tid);
	dlt_json_key(j, "args");
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", name);
	dlt_json_object_end(j);
	dlt_json_object_end(j);
}

/* Starts an event: name, category, phase, track and time; the caller adds
 * members (dur, s, args) and ends the object. */
static void dlt_event(struct dlt_export *x, const char *name, const char *cat,
		      const char *ph, uint32_t tid, uint64_t ts)
{
	struct dlt_json *j = x->j;
	dlt_thread_named(x, tid);
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", name);
	dlt_json_kv_string(j, "cat", cat);
	dlt_json_kv_string(j, "ph", ph);
	dlt_json_kv_uint(j, "pid", x->xpid);
	dlt_json_kv_uint(j, "tid", tid);
	dlt_json_kv_double_fine(j, "ts", dlt_us(x, ts));
}

static void dlt_instant(struct dlt_export *x, const char *name, const char *cat,
			uint32_t tid, uint64_t ts)
{
	dlt_event(x, name, cat, "i", tid, ts);
	dlt_json_kv_string(x->j, "s", "t");
}

static void dlt_args_values(struct dlt_json *j, const struct dlt_api_desc *a,
			    const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char buf[32], hex[32];
		const char *label = dlt_api_value_label(a, i, buf, sizeof(buf));
		if (dlt_label_is_handle(label)) {
			snprintf(hex, sizeof(hex), "0x%" PRIx64, v[i]);
			dlt_json_kv_string(j, label, hex);
		} else {
			dlt_json_kv_int(j, label, (int64_t)v[i]);
		}
	}
}

static void dlt_ex_call(struct dlt_export *x, const struct dlt_rec_view *v)
{
	const struct dlt_rec_api_call *r = (const void *)v->rec;
	const struct dlt_api_desc *a = dlt_api_by_id(r->h.flags);
	char name[64], st[96];
	if (a)
		snprintf(name, sizeof(name), "%s", a->name);
	else
		snprintf(name, sizeof(name), "api#%u", (unsigned)r->h.flags);
	dlt_event(x, name, a ? dlt_family_name(a->family) : "gpu", "X", v->tid,
		  r->h.ts);
	uint64_t dur = dlt_dur_ns(r->dur);
	dlt_json_kv_double_fine(x->j, "dur",
				dur == UINT64_MAX ? 0.0 : (double)dur / 1000.0);
	dlt_json_key(x->j, "args");
	dlt_json_object_begin(x->j);
	dlt_json_kv_int(x->j, "ret", r->ret);
	dlt_json_kv_string(x->j, "state", "gpu");
	if (r->ret != 0)
		dlt_json_kv_string(x->j, "status",
				   dlt_status_describe(a ? a->family : 0,
						       x->cudnn_version, r->ret,
						       st, sizeof(st)));
	dlt_args_values(x->j, a, r->v, (r->h.len - sizeof(*r)) / 8);
	dlt_json_object_end(x->j);
	dlt_json_object_end(x->j);
}

/* ---- a bounded trace's aggregates (format 2.6) ---------------------- */

static uint64_t dlt_ex_rate_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	return k ^ (k >> 33);
}

static void dlt_ex_rate_add(struct dlt_export *x, uint16_t api,
			    uint32_t interval, uint64_t calls)
{
	if (2 * (x->nrates + 1) > x->caprates) {
		struct dlt_ex_rate *old = x->rates;
		size_t oldcap = x->caprates;
		x->caprates = oldcap ? oldcap * 2 : 256;
		x->rates = dlt_xcalloc(x->caprates, sizeof(*x->rates));
		x->nrates = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key) {
				size_t k = dlt_ex_rate_hash(old[i].key) &
					   (x->caprates - 1);
				while (x->rates[k].key)
					k = (k + 1) & (x->caprates - 1);
				x->rates[k] = old[i];
				x->nrates++;
			}
		free(old);
	}
	/* + 1: api 0 in second 0 is a key too. */
	uint64_t key = ((uint64_t)api << 32 | interval) + 1;
	size_t k = dlt_ex_rate_hash(key) & (x->caprates - 1);
	while (x->rates[k].key && x->rates[k].key != key)
		k = (k + 1) & (x->caprates - 1);
	if (x->rates[k].key == 0) {
		x->rates[k].key = key;
		x->nrates++;
	}
	x->rates[k].calls += calls;
}

static bool dlt_ex_agg_api(const struct dlt_export *x, uint16_t api)
{
	return x->agg_api && (x->agg_api[api / 8] >> (api % 8) & 1);
}

static void dlt_ex_agg(struct dlt_export *x, const struct dlt_rec_agg *r)
{
	uint64_t room = (r->h.len - sizeof(*r)) / sizeof(r->rows[0]);
	uint32_t n = r->n < room ? r->n : (uint32_t)room;
	/* A row of a wider interval (span_s seconds: a thread that called
	 * seldom) is spread over its seconds, the remainder on the first. */
	uint32_t span = r->span_s > 1 && r->span_s <= 4096 ? r->span_s : 1;
	for (uint32_t i = 0; i < n; i++) {
		const struct dlt_agg_row *w = &r->rows[i];
		if (w->count == 0)
			continue;
		uint64_t each = w->count / span, rest = w->count % span;
		for (uint32_t s = 0; s < span; s++)
			if (each + (s == 0 ? rest : 0))
				dlt_ex_rate_add(x, w->api, w->interval + s,
						each + (s == 0 ? rest : 0));
	}
}

static int dlt_ex_rate_order(const void *a, const void *b)
{
	uint64_t x = ((const struct dlt_ex_rate *)a)->key;
	uint64_t y = ((const struct dlt_ex_rate *)b)->key;
	return (x > y) - (x < y);
}

static void dlt_ex_counter(struct dlt_export *x, const char *name,
			   uint32_t interval, uint64_t calls)
{
	struct dlt_json *j = x->j;
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", name);
	dlt_json_kv_string(j, "cat", "gpu");
	dlt_json_kv_string(j, "ph", "C");
	dlt_json_kv_uint(j, "pid", x->xpid);
	dlt_json_kv_double_fine(
		j, "ts",
		dlt_us(x, x->p->hdr.start_monotonic_ns +
				  (uint64_t)interval * DLT_AGG_INTERVAL_NS));
	dlt_json_key(j, "args");
	dlt_json_object_begin(j);
	dlt_json_kv_uint(j, "calls", calls);
	dlt_json_object_end(j);
	dlt_json_object_end(j);
}

/* A counter track per API, "cudaLaunchKernel calls/s": one point per
 * second with calls, and a 0 after each run of seconds (a counter holds
 * its value until the next point). */
static void dlt_ex_rates(struct dlt_export *x)
{
	size_t n = 0;
	for (size_t i = 0; i < x->caprates; i++)
		if (x->rates[i].key)
			x->rates[n++] = x->rates[i];
	if (n == 0)
		return;
	qsort(x->rates, n, sizeof(*x->rates), dlt_ex_rate_order);
	for (size_t i = 0; i < n; i++) {
		uint64_t key = x->rates[i].key - 1;
		uint16_t api = (uint16_t)(key >> 32);
		uint32_t interval = (uint32_t)key;
		const struct dlt_api_desc *a = dlt_api_by_id(api);
		char name[96];
		if (a)
			snprintf(name, sizeof(name), "%s calls/s", a->name);
		else
			snprintf(name, sizeof(name), "api#%u calls/s",
				 (unsigned)api);
		dlt_ex_counter(x, name, interval, x->rates[i].calls);
		uint64_t next = i + 1 < n ? x->rates[i + 1].key - 1 : 0;
		if (interval < UINT32_MAX && next != key + 1)
			dlt_ex_counter(x, name, interval + 1, 0);
	}
}

/* Where each thread's individual calls begin: before it, its calls of
 * the frequent APIs are only the counters' per-second aggregates. */
static void dlt_ex_agg_marks(struct dlt_export *x, const struct dlt_gpu *g)
{
	for (size_t i = 0; i < g->run.nthreads; i++) {
		const struct dlt_agg_thread *th = &g->run.threads[i];
		dlt_instant(x,
			    "individual calls from here (earlier: aggregates)",
			    "dltrace", th->tid, th->individual_from);
		dlt_json_key(x->j, "args");
		dlt_json_object_begin(x->j);
		dlt_json_kv_string(x->j, "before",
				   "calls of the frequent APIs are counted "
				   "per second (the calls/s counters), not "
				   "shown one by one");
		dlt_json_object_end(x->j);
		dlt_json_object_end(x->j);
	}
}

static void dlt_ex_args_str(struct dlt_export *x, const char *key, uint32_t id)
{
	const char *s = dlt_trace_str(x->t, id);
	if (s)
		dlt_json_kv_string(x->j, key, s);
}

static void dlt_ex_loader(struct dlt_export *x, const struct dlt_rec_view *v)
{
	const struct dlt_rec_hdr *h = v->rec;
	struct dlt_json *j = x->j;
	char name[512];
	switch (h->type) {
	case DLT_REC_LIB_LOAD: {
		const struct dlt_rec_lib_load *r = (const void *)h;
		const char *path = dlt_trace_str(x->t, r->path);
		snprintf(name, sizeof(name), "load %s",
			 path && path[0] ? dlt_basename(path) : "(main)");
		dlt_instant(x, name, "loader", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "path", r->realpath ? r->realpath : r->path);
		dlt_ex_args_str(x, "requested", r->requested);
		dlt_ex_args_str(x, "requester", r->requester);
		dlt_json_kv_string(j, "found_via",
				   dlt_found_via_name(r->found_via));
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_LIB_FAIL: {
		const struct dlt_rec_lib_fail *r = (const void *)h;
		const char *req = dlt_trace_str(x->t, r->requested);
		snprintf(name, sizeof(name), "not found %s", req ? req : "?");
		dlt_instant(x, name, "loader", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "requester", r->requester);
		dlt_json_kv_uint(j, "paths_tried", r->n_tried);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_DLOPEN: {
		const struct dlt_rec_dlopen *r = (const void *)h;
		const char *n = dlt_trace_str(x->t, r->name);
		char modes[16][DLT_NAME_LEN], mode[256] = "";
		size_t nm = dlt_rtld_mode_names(r->mode, modes, 16), at = 0;
		for (size_t i = 0; i < nm && at < sizeof(mode); i++)
			at += (size_t)snprintf(mode + at, sizeof(mode) - at,
					       "%s%s", i ? "|" : "", modes[i]);
		snprintf(name, sizeof(name), "dlopen %s",
			 n ? dlt_basename(n) : "NULL");
		dlt_instant(x, name, "loader", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "name", r->name);
		dlt_json_kv_string(j, "mode", mode);
		dlt_ex_args_str(x, "caller", r->caller_obj);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_DLERROR: {
		const struct dlt_rec_dlerror *r = (const void *)h;
		dlt_instant(x, "dlerror", "loader", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "text", r->text);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_LIB_UNLOAD:
		if ((h->flags & 1) == 0)
			return;
		dlt_instant(x, "load failed, object unmapped", "loader", v->tid,
			    h->ts);
		break;
	default:
		return;
	}
	dlt_json_object_end(j);
}

static void dlt_ex_process_event(struct dlt_export *x,
				 const struct dlt_rec_view *v)
{
	const struct dlt_rec_hdr *h = v->rec;
	struct dlt_json *j = x->j;
	char name[256];
	switch (h->type) {
	case DLT_REC_EXIT: {
		const struct dlt_rec_exit *r = (const void *)h;
		struct dlt_end e = {.how = (enum dlt_end_how)h->flags,
				    .status = r->status};
		char how[256];
		dlt_end_describe(&e, how, sizeof(how));
		/* The launcher's record of the status it reaped is written
		 * from the launcher's process: it belongs on the process's
		 * main thread, not on a thread named after the launcher. */
		uint32_t tid = v->writer == DLT_WRITER_LAUNCHER ? x->p->hdr.pid
								: v->tid;
		dlt_instant(x, h->flags == DLT_EXIT_EXEC ? "exec" : "exit",
			    "process", tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "how", how);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_FORK: {
		const struct dlt_rec_fork *r = (const void *)h;
		snprintf(name, sizeof(name), "fork %" PRIu32, r->child_pid);
		dlt_instant(x, name, "process", v->tid, h->ts);
		break;
	}
	case DLT_REC_REAP: {
		const struct dlt_rec_reap *r = (const void *)h;
		struct dlt_end e = {.how = DLT_END_REAPED, .status = r->status};
		char how[256];
		dlt_end_describe(&e, how, sizeof(how));
		snprintf(name, sizeof(name), "reaped %" PRIu32, r->pid);
		dlt_instant(x, name, "process", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "how", how);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_EXEC: {
		const struct dlt_rec_exec *r = (const void *)h;
		dlt_instant(x, h->flags & 1 ? "execve failed" : "execve",
			    "process", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "path", r->path);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_NOTE: {
		const struct dlt_rec_note *r = (const void *)h;
		dlt_instant(x, "dltrace note", "dltrace", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "level", dlt_note_level_name(h->flags));
		dlt_ex_args_str(x, "text", r->text);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_MARK: {
		const struct dlt_rec_mark *r = (const void *)h;
		snprintf(name, sizeof(name), "mark %" PRIu32, r->id);
		dlt_instant(x, name, "mark", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_json_kv_uint(j, "aux", r->aux);
		dlt_json_kv_uint(j, "value", r->value);
		dlt_json_object_end(j);
		break;
	}
	default:
		return;
	}
	dlt_json_object_end(j);
}

/* The hang summary's record of a wait (one wait can have several STALL
 * records: a continuation when the first left its chunk), or NULL: the
 * summary keeps a process's first DLT_HANG_MAX_STALLS waits. */
static const struct dlt_hang_stall *
dlt_ex_hang_stall(const struct dlt_export *x, const struct dlt_rec_stall *r)
{
	if (x->hp == NULL)
		return NULL;
	for (size_t i = 0; i < x->hp->nstalls; i++)
		if (x->hp->stalls[i].tid == r->tid &&
		    x->hp->stalls[i].since == r->since)
			return &x->hp->stalls[i];
	return NULL;
}

/* A poll or select given no descriptor: a sleep by another name (Python's
 * time.sleep before 3.11 was a select). */
static bool dlt_ex_sleeps(const struct dlt_rec_stall *r)
{
	switch (r->syscall) {
	case 7:	  /* poll */
	case 271: /* ppoll */
		return r->args[1] == 0;
	case 23:  /* select */
	case 270: /* pselect6 */
		return r->args[0] == 0;
	default:
		return dlt_wait_sleeps_nr(r->syscall);
	}
}

/* What a wait says its thread does, for the report's timeline (args.state):
 * "sleeping" (a sleep, a poll without descriptors), "waiting" for a peer
 * (the thread the hang analysis found waiting for other ranks, a wait in
 * collective or rendezvous code, on a connection), else "blocked" (a lock,
 * a pipe, a child, the disk).  args.background: the wait of a thread
 * other than the main one that says nothing of what the process does (a
 * helper's idle loop: gloo's, the store's; a pool's idle worker), which
 * the timeline's row of the process leaves out. */
static void dlt_ex_stall_state(struct dlt_export *x,
			       const struct dlt_rec_stall *r)
{
	const struct dlt_hang_stall *s = dlt_ex_hang_stall(x, r);
	const char *detail = dlt_trace_str(x->t, r->detail);
	bool judged = s && s == x->ws.stall;
	bool peers = dlt_wait_stall_for_peers(s);
	bool helper = dlt_wait_stall_helper(s);
	const char *state = "blocked";
	if (dlt_ex_sleeps(r))
		state = "sleeping";
	else if ((judged && x->ws.kind == DLT_WAIT_PEERS) || peers ||
		 (detail && (strstr(detail, "tcp ") || strstr(detail, "udp ") ||
			     strstr(detail, "unix "))))
		state = "waiting";
	/* A stopped thread (SIGSTOP, a debugger) waits for nobody: the
	 * others wait for it. */
	if (s && (s->state == 'T' || s->state == 't'))
		state = "blocked";
	dlt_json_kv_string(x->j, "state", state);
	dlt_json_kv_bool(x->j, "background",
			 r->tid != x->p->hdr.pid && !judged &&
				 (!peers || helper));
}

static void dlt_ex_gpu_event(struct dlt_export *x, const struct dlt_rec_view *v)
{
	const struct dlt_rec_hdr *h = v->rec;
	struct dlt_json *j = x->j;
	char name[256], st[96];
	switch (h->type) {
	case DLT_REC_LIB_FAMILY: {
		const struct dlt_rec_family *r = (const void *)h;
		snprintf(name, sizeof(name), "%s library",
			 dlt_family_name(h->flags));
		dlt_instant(x, name, "gpu", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "path", r->path);
		dlt_ex_args_str(x, "kernel_driver", r->kdrv);
		/* Each slot by its name (docs/apis.md), absent ones null. */
		dlt_json_key(j, "versions");
		dlt_json_object_begin(j);
		for (size_t i = 0; i < 8; i++) {
			char vn[16];
			const char *n = dlt_family_slot_name(h->flags, i);
			if (n == NULL && r->v[i] == DLT_VERSION_ABSENT)
				continue;
			if (n == NULL) {
				snprintf(vn, sizeof(vn), "v%zu", i);
				n = vn;
			}
			if (r->v[i] == DLT_VERSION_ABSENT)
				dlt_json_kv_null(j, n);
			else
				dlt_json_kv_int(j, n, r->v[i]);
		}
		dlt_json_object_end(j);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_STATIC_RUNTIME: {
		const struct dlt_rec_static_rt *r = (const void *)h;
		dlt_instant(x, "static CUDA runtime", "gpu", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "object", r->object);
		dlt_ex_args_str(x, "via", r->symbol);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_ALGO_RESULT: {
		const struct dlt_rec_algo_result *r = (const void *)h;
		int dir = 0;
		enum dlt_conv_kind k = dlt_conv_api(h->flags, &dir);
		if (k == DLT_CONV_NONE || k == DLT_CONV_EXEC)
			return; /* executions are their API_CALL's slice */
		const struct dlt_api_desc *a = dlt_api_by_id(h->flags);
		uint64_t room = (h->len - sizeof(*r)) / sizeof(r->c[0]);
		uint32_t n = r->n < room ? r->n : (uint32_t)room;
		snprintf(name, sizeof(name), "selection %s",
			 dlt_conv_dir_name(dir));
		dlt_instant(x, name, "cudnn", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "api", a ? a->name : NULL);
		snprintf(name, sizeof(name), "%016" PRIx64, r->problem);
		dlt_json_kv_string(j, "problem", name);
		dlt_json_kv_string(
			j, "status",
			dlt_status_describe(DLT_FAM_CUDNN, x->cudnn_version,
					    r->status, st, sizeof(st)));
		dlt_json_key(j, "candidates");
		dlt_json_array_begin(j);
		for (uint32_t i = 0; i < n; i++) {
			char c[160];
			snprintf(c, sizeof(c),
				 "algo %" PRId32 " status %" PRId32 " %.3f ms",
				 r->c[i].algo, r->c[i].status,
				 (double)r->c[i].time_ms);
			dlt_json_string(j, c);
		}
		dlt_json_array_end(j);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_BK_FINALIZE: {
		const struct dlt_rec_bk_finalize *r = (const void *)h;
		snprintf(name, sizeof(name), "finalize engine %" PRId32,
			 r->engine);
		dlt_instant(x, name, "cudnn", v->tid, h->ts);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_json_kv_uint(j, "descriptor_type", h->flags);
		snprintf(name, sizeof(name), "%016" PRIx64, r->problem);
		dlt_json_kv_string(j, "problem", name);
		dlt_json_kv_string(
			j, "status",
			dlt_status_describe(DLT_FAM_CUDNN, x->cudnn_version,
					    r->status, st, sizeof(st)));
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_STALL: {
		const struct dlt_rec_stall *r = (const void *)h;
		char nr[32];
		snprintf(name, sizeof(name), "blocked in %s",
			 dlt_syscall_label(r->syscall, nr, sizeof(nr)));
		dlt_event(x, name, "stall", "X", r->tid, r->since);
		dlt_json_kv_double_fine(j, "dur", (double)r->dur_ns / 1000.0);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "wchan", r->wchan);
		dlt_ex_args_str(x, "detail", r->detail);
		dlt_json_kv_int(j, "fd", r->fd);
		dlt_json_kv_bool(j, "ended", r->ended != 0);
		dlt_ex_stall_state(x, r);
		dlt_json_object_end(j);
		break;
	}
	case DLT_REC_SOCK: {
		const struct dlt_rec_sock *r = (const void *)h;
		static const char *const ops[] = {"socket", "connect", "bind",
						  "accept", "listen"};
		const char *op = h->flags < 5 ? ops[h->flags] : "socket";
		dlt_event(x, op, "socket", "X", v->tid, h->ts);
		uint64_t dur = dlt_dur_ns(r->dur);
		dlt_json_kv_double_fine(
			j, "dur",
			dur == UINT64_MAX ? 0.0 : (double)dur / 1000.0);
		dlt_json_key(j, "args");
		dlt_json_object_begin(j);
		dlt_ex_args_str(x, "address", r->addr);
		dlt_json_kv_int(j, "ret", r->ret);
		if (r->ret < 0)
			dlt_json_kv_string(j, "error", strerror(r->err));
		dlt_json_kv_uint(j, "repeated", r->repeat);
		dlt_json_object_end(j);
		break;
	}
	default:
		return;
	}
	dlt_json_object_end(j);
}

static int dlt_ex_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_export *x = ctx;
	const struct dlt_rec_hdr *h = v->rec;
	if (h->ts == 0 && h->type != DLT_REC_STALL)
		return 0; /* ARG, ENV: no time */
	/* The watcher writes from outside the process (a companion): the
	 * thread of its chunks is none of the process's, and what it says
	 * of the process goes on the main thread. */
	struct dlt_rec_view own;
	if (v->writer == DLT_WRITER_WATCHER) {
		own = *v;
		own.tid = x->p->hdr.pid;
		v = &own;
	}
	switch (h->type) {
	case DLT_REC_API_CALL:
		dlt_ex_call(x, v);
		if (dlt_ex_agg_api(x, h->flags) &&
		    h->ts >= x->p->hdr.start_monotonic_ns)
			dlt_ex_rate_add(
				x, h->flags,
				(uint32_t)((h->ts -
					    x->p->hdr.start_monotonic_ns) /
					   DLT_AGG_INTERVAL_NS),
				1);
		break;
	case DLT_REC_AGG:
		dlt_ex_agg(x, (const void *)h);
		break;
	case DLT_REC_LIB_LOAD:
	case DLT_REC_LIB_FAIL:
	case DLT_REC_LIB_UNLOAD:
	case DLT_REC_DLOPEN:
	case DLT_REC_DLERROR:
		dlt_ex_loader(x, v);
		break;
	case DLT_REC_EXIT:
	case DLT_REC_FORK:
	case DLT_REC_REAP:
	case DLT_REC_EXEC:
	case DLT_REC_NOTE:
	case DLT_REC_MARK:
		dlt_ex_process_event(x, v);
		break;
	default:
		dlt_ex_gpu_event(x, v);
	}
	return 0;
}

/* Whether the process died (a signal it did not survive, a crash, killed
 * by its launcher or by dltrace after --hang-timeout), when (monotonic) and
 * how, in words.  An exit, whatever its status, is no death. */
static bool dlt_ex_death(const struct dlt_process *p, uint64_t *ts, char *how,
			 size_t cap)
{
	const struct dlt_signal_ev *s = dlt_death_signal(p);
	const char *name;
	if (s) {
		name = dlt_signal_name(s->signo);
		*ts = s->ts;
		if (name)
			snprintf(how, cap, "killed by %s (signal %" PRId32 ")",
				 name, s->signo);
		else
			snprintf(how, cap, "killed by signal %" PRId32,
				 s->signo);
		return true;
	}
	/* An exit in answer to dltrace's SIGTERM is an exit. */
	bool by_dltrace =
		dlt_end_by_dltrace(&p->end) && dlt_end_exit_code(&p->end) < 0;
	if (dlt_end_signal(&p->end) == 0 && p->end.how != DLT_END_ABORT &&
	    !by_dltrace)
		return false;
	/* Without an end record, killed by dltrace: its last sign of life,
	 * or the signal if that came later. */
	*ts = p->end.ts ? p->end.ts : p->last_seen_ns;
	if (by_dltrace && p->end.how == DLT_END_NONE && p->end.dltrace_ts > *ts)
		*ts = p->end.dltrace_ts;
	dlt_end_describe(&p->end, how, cap);
	return *ts != 0;
}

static void dlt_ex_metadata(struct dlt_export *x, const struct dlt_process *p,
			    size_t index)
{
	struct dlt_json *j = x->j;
	char name[512];
	int at = 0;
	if (p->rank >= 0)
		at = snprintf(name, sizeof(name), "rank %" PRId32 " ", p->rank);
	snprintf(name + at, sizeof(name) - (size_t)at,
		 "pid %" PRIu32 " %s on %s", p->hdr.pid,
		 p->exe ? dlt_basename(p->exe) : "?", p->host ? p->host : "?");
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", "process_name");
	dlt_json_kv_string(j, "ph", "M");
	dlt_json_kv_uint(j, "pid", x->xpid);
	dlt_json_kv_uint(j, "tid", 0);
	dlt_json_key(j, "args");
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", name);
	/* For the report's timeline: who, and the span of its row (times
	 * as ts, microseconds since the job's start). */
	dlt_json_kv_uint(j, "os_pid", p->hdr.pid);
	if (p->rank >= 0)
		dlt_json_kv_int(j, "rank", p->rank);
	dlt_json_kv_string(j, "program", p->exe ? dlt_basename(p->exe) : NULL);
	dlt_json_kv_double_fine(j, "start",
				dlt_us(x, p->hdr.start_monotonic_ns));
	uint64_t last =
		p->last_seen_ns > p->end.ts ? p->last_seen_ns : p->end.ts;
	if (last)
		dlt_json_kv_double_fine(j, "last_seen", dlt_us(x, last));
	dlt_json_object_end(j);
	dlt_json_object_end(j);
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", "process_sort_index");
	dlt_json_kv_string(j, "ph", "M");
	dlt_json_kv_uint(j, "pid", x->xpid);
	dlt_json_kv_uint(j, "tid", 0);
	dlt_json_key(j, "args");
	dlt_json_object_begin(j);
	dlt_json_kv_int(j, "sort_index",
			p->rank >= 0 ? p->rank : (int64_t)index + 100000);
	dlt_json_object_end(j);
	dlt_json_object_end(j);
}

/* Where the process died: an instant on its main thread, after which the
 * timeline's row of it is dead. */
static void dlt_ex_died(struct dlt_export *x)
{
	uint64_t ts;
	char how[256];
	if (!dlt_ex_death(x->p, &ts, how, sizeof(how)))
		return;
	dlt_instant(x, "died", "process", x->p->hdr.pid, ts);
	dlt_json_key(x->j, "args");
	dlt_json_object_begin(x->j);
	dlt_json_kv_string(x->j, "state", "dead");
	dlt_json_kv_string(x->j, "how", how);
	dlt_json_object_end(x->j);
	dlt_json_object_end(x->j);
}

/* Calls that never returned: slices from their start to the trace's end. */
static void dlt_ex_open_calls(struct dlt_export *x, const struct dlt_gpu *g)
{
	uint64_t end = g->last_ts;
	if (x->p->end.ts > end)
		end = x->p->end.ts;
	for (size_t i = 0; i < g->nopens; i++) {
		const struct dlt_gpu_open *o = &g->opens[i];
		const struct dlt_api_desc *a = dlt_api_by_id(o->api);
		char name[96];
		snprintf(name, sizeof(name), "%s (never returned)",
			 a ? a->name : "?");
		dlt_event(x, name, a ? dlt_family_name(a->family) : "gpu", "X",
			  o->tid, o->ts);
		dlt_json_kv_double_fine(
			x->j, "dur",
			end > o->ts ? (double)(end - o->ts) / 1000.0 : 0.0);
		dlt_json_key(x->j, "args");
		dlt_json_object_begin(x->j);
		dlt_json_kv_bool(x->j, "unfinished", true);
		/* An init, a collective or a synchronisation that never
		 * returned waits for the other ranks (waits.c). */
		dlt_json_kv_string(x->j, "state",
				   dlt_wait_api_for_ranks(o->api) ? "waiting"
								  : "gpu");
		dlt_args_values(x->j, a, o->v, o->nv);
		dlt_json_object_end(x->j);
		dlt_json_object_end(x->j);
	}
}

/* A finding as a process-wide marker, at its time or the process's
 * start. */
void dlt_export_marker(struct dlt_json *j, const struct dlt_ex_track *t,
		       uint64_t origin, const struct dlt_finding *f)
{
	char name[128];
	snprintf(name, sizeof(name), "%s %s", dlt_severity_name(f->severity),
		 f->code);
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "name", name);
	dlt_json_kv_string(j, "cat", "finding");
	dlt_json_kv_string(j, "ph", "i");
	dlt_json_kv_uint(j, "pid", t->xpid);
	dlt_json_kv_uint(j, "tid", t->pid);
	dlt_json_kv_double_fine(
		j, "ts", dlt_us_on(t, origin, f->ts ? f->ts : t->start_mono));
	dlt_json_kv_string(j, "s", "p");
	dlt_json_key(j, "args");
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "message", f->message);
	dlt_json_kv_string(j, "fix", f->fix);
	dlt_json_key(j, "evidence");
	dlt_val_json(j, f->evidence);
	dlt_json_object_end(j);
	dlt_json_object_end(j);
}

/* The job rules (hangs) span the traces: what they need of each is kept
 * while the traces are written, and their findings are marked at the
 * end, each on its process's track. */
struct dlt_ex_job {
	struct dlt_check c;
	struct dlt_hang_proc *hangs;
	size_t *proc;
	struct dlt_ex_track *tracks;
	size_t n;
};

static void dlt_ex_job_findings(struct dlt_json *j, struct dlt_ex_job *job,
				uint64_t origin)
{
	dlt_check_job(&job->c, job->hangs, job->n, job->proc);
	for (size_t i = 0; i < job->c.nf; i++)
		if (job->c.f[i].proc != DLT_NO_PROC)
			dlt_export_marker(j, &job->tracks[job->c.f[i].proc],
					  origin, &job->c.f[i]);
}

void dlt_export_events(struct dlt_json *j, struct dlt_trace *t,
		       const struct dlt_process *p, const struct dlt_gpu *g,
		       const struct dlt_hang_proc *hp, size_t index,
		       uint64_t origin, struct dlt_ex_track *track)
{
	struct dlt_export x = {0};
	x.j = j;
	x.p = p;
	x.hp = hp;
	if (hp)
		dlt_wait_state_of(hp, &x.ws);
	x.xpid = (uint32_t)index + 1;
	x.origin_ns = origin;
	x.cudnn_version = dlt_gpu_cudnn_version(g);
	dlt_ex_metadata(&x, p, index);
	if (g->run.aggs) {
		x.agg_api = dlt_xcalloc(65536 / 8, 1);
		for (size_t i = 0; i < g->run.napi; i++)
			if (g->run.api[i].aggregated) {
				uint16_t api = g->run.api[i].api;
				x.agg_api[api / 8] |=
					(uint8_t)(1u << (api % 8));
			}
	}
	x.t = t;
	dlt_trace_foreach(x.t, dlt_ex_rec, &x);
	dlt_ex_open_calls(&x, g);
	dlt_ex_died(&x);
	dlt_ex_rates(&x);
	dlt_ex_agg_marks(&x, g);
	free(x.agg_api);
	free(x.rates);
	*track = (struct dlt_ex_track){x.xpid, p->hdr.pid,
				       p->hdr.start_realtime_ns,
				       p->hdr.start_monotonic_ns};
	free(x.tids);
}

/* Reads the trace twice through its one handle: the model and the
 * findings first, then the events, which need the model's names. */
static void dlt_export_one(struct dlt_json *j, struct dlt_trace *t,
			   size_t index, uint64_t origin,
			   struct dlt_ex_job *job)
{
	struct dlt_gpu g;
	struct dlt_hang_proc *hp = &job->hangs[job->n];
	struct dlt_process *p = dlt_check_read_one(t, &g, hp);
	for (size_t k = 0; k < p->nproblems; k++)
		fprintf(stderr, "dltrace-analyze: %s: %s\n", p->trace,
			p->problems[k]);
	struct dlt_check c;
	dlt_check_init(&c);
	dlt_check_process(&c, p, &g);
	struct dlt_ex_track tr;
	dlt_export_events(j, t, p, &g, hp, index, origin, &tr);
	for (size_t i = 0; i < c.nf; i++)
		dlt_export_marker(j, &tr, origin, &c.f[i]);
	job->tracks[job->n] = tr;
	job->proc[job->n] = dlt_check_hang_proc(&job->c, hp);
	job->n++;
	dlt_check_free(&c);
	dlt_process_free(p);
	dlt_gpu_free(&g);
}

uint64_t dlt_export_origin(const struct dlt_job *jb)
{
	uint64_t origin = UINT64_MAX;
	for (size_t i = 0; i < jb->ntraces; i++) {
		uint64_t s =
			dlt_trace_header(jb->traces[i].t)->start_realtime_ns;
		if (s < origin)
			origin = s;
	}
	return origin;
}

void dlt_export_begin(struct dlt_json *j, uint64_t origin)
{
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "displayTimeUnit", "ms");
	dlt_json_key(j, "otherData");
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "producer", "dltrace-analyze export");
	char when[64];
	dlt_format_utc(origin, when, sizeof(when));
	dlt_json_kv_string(j, "time_zero_utc", when);
	dlt_json_object_end(j);
	dlt_json_key(j, "traceEvents");
	dlt_json_array_begin(j);
}

int dlt_cmd_export(int argc, char **argv)
{
	const char *format = "chrome", *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--format", NULL, &format},
					    {"--run", NULL, &run}};
	int npaths;
	int rc = dlt_cmd_args("export", dlt_export_usage, argc, argv, opts, 2,
			      &npaths);
	if (rc >= 0)
		return rc;
	if (strcmp(format, "chrome") != 0 && strcmp(format, "perfetto") != 0) {
		fprintf(stderr,
			"dltrace-analyze export: unknown format '%s' (chrome "
			"is the one there is)\n",
			format);
		return DLT_EXIT_USAGE;
	}
	struct dlt_job jb;
	rc = dlt_cmd_job("export", run, NULL, npaths, argv, &jb);
	if (rc >= 0)
		return rc;
	/* The common origin: the earliest start among the traces. */
	uint64_t origin = dlt_export_origin(&jb);
	size_t usable = jb.ntraces;
	struct dlt_json j;
	dlt_json_init(&j, stdout, false);
	dlt_export_begin(&j, origin);
	struct dlt_ex_job job = {0};
	dlt_check_init(&job.c);
	job.hangs = dlt_xcalloc(usable, sizeof(*job.hangs));
	job.proc = dlt_xcalloc(usable, sizeof(*job.proc));
	job.tracks = dlt_xcalloc(usable, sizeof(*job.tracks));
	for (size_t i = 0; i < jb.ntraces; i++) {
		struct dlt_trace *t = dlt_job_take(&jb, i);
		dlt_export_one(&j, t, i, origin, &job);
		dlt_trace_close(t);
	}
	dlt_ex_job_findings(&j, &job, origin);
	dlt_check_free(&job.c);
	dlt_hang_procs_free(job.hangs, job.n);
	free(job.proc);
	free(job.tracks);
	dlt_json_array_end(&j);
	dlt_json_object_end(&j);
	int bad = dlt_json_finish(&j);
	dlt_job_close(&jb);
	if (bad && !ferror(stdout)) {
		fputs("dltrace-analyze: internal error: malformed JSON "
		      "output\n",
		      stderr);
		return DLT_EXIT_USAGE;
	}
	return DLT_EXIT_OK;
}
