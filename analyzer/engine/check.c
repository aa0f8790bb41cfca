/* The check engine: reads each trace of a job, runs every rule of the
 * table on it and the job rules over all of them, into the findings sink
 * (findings.h).  It knows no rule by name but TRACE_INCOMPLETE, the code
 * of inputs that could not be read. */
#include "check.h"
#include "waits.h"
#include "hangs.h"
#include "job.h"
#include "oomev.h"
#include "reaps.h"
#include "apinames.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "envprof.h"
#include "rules.h"
#include "status.h"

/* ---- processes ----------------------------------------------------------- */

/* What the libraries that were loaded said at their load (LOAD) or their
 * files say (FILE), for the families no call reported: "nccl": "2.28.9",
 * "nccl_path", and "nccl_from": "load" or "file". */
static void dlt_engine_versions_loaded(struct dlt_val *o,
				       const struct dlt_gpu *g)
{
	static const struct {
		int family;
		const char *key;
		int slot; /* of the version */
	} keys[] = {
		{DLT_FAM_CUDART, "cuda_runtime", DLT_FV_CUDART_runtime_version},
		{DLT_FAM_CUDNN, "cudnn", DLT_FV_CUDNN_version},
		{DLT_FAM_NCCL, "nccl", DLT_FV_NCCL_version},
		{DLT_FAM_CUBLAS, "cublas", DLT_FV_CUBLAS_version},
		{DLT_FAM_CUBLASLT, "cublaslt", DLT_FV_CUBLASLT_version}};
	char buf[64], key[64];
	/* The library's own answer first, then its file's. */
	for (uint32_t src = DLT_FAMSRC_LOAD; src <= DLT_FAMSRC_FILE; src++)
		for (size_t i = 0; i < g->nloaded; i++) {
			const struct dlt_gpu_family *f = &g->loaded[i];
			if (f->source != src)
				continue;
			if (f->family == DLT_FAM_CUDA && f->kdrv &&
			    !dlt_val_get(o, "kernel_driver"))
				dlt_obj_str(o, "kernel_driver", f->kdrv);
			const char *k = NULL;
			int64_t v = 0;
			for (size_t n = 0; n < sizeof(keys) / sizeof(keys[0]);
			     n++)
				if (keys[n].family == f->family) {
					k = keys[n].key;
					v = f->v[keys[n].slot];
				}
			int64_t cu = f->v[DLT_FV_NCCL_file_cuda_version];
			if (f->family == DLT_FAM_NCCL && cu > 0 &&
			    !dlt_val_get(o, "nccl_cuda_runtime"))
				dlt_obj_str(o, "nccl_cuda_runtime",
					    dlt_cuda_version_str(cu, buf,
								 sizeof(buf)));
			if (k == NULL || dlt_val_get(o, k) || v <= 0)
				continue;
			if (f->family == DLT_FAM_CUDART)
				dlt_cuda_version_str(v, buf, sizeof(buf));
			else if (f->family == DLT_FAM_CUDNN)
				dlt_cudnn_version_str(v, buf, sizeof(buf));
			else if (f->family == DLT_FAM_NCCL)
				dlt_nccl_version_str(v, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf),
					 "%" PRId64 ".%" PRId64 ".%" PRId64,
					 v / 10000, v / 100 % 100, v % 100);
			dlt_obj_str(o, k, buf);
			snprintf(key, sizeof(key), "%s_path", k);
			dlt_obj_str(o, key, f->path);
			snprintf(key, sizeof(key), "%s_from", k);
			dlt_obj_str(o, key,
				    src == DLT_FAMSRC_LOAD ? "load" : "file");
		}
}

static void dlt_versions(struct dlt_check *c, struct dlt_val *o,
			 const struct dlt_gpu *g)
{
	char buf[64];
	for (size_t i = 0; i < g->nfams; i++) {
		const struct dlt_gpu_family *f = &g->fams[i];
		const int64_t *v = f->v;
		switch (f->family) {
		case DLT_FAM_CUDART: {
			if (dlt_val_get(o, "cuda_runtime"))
				break;
			int64_t rt = v[DLT_FV_CUDART_runtime_version];
			int64_t drv = v[DLT_FV_CUDART_driver_version];
			if (rt > 0)
				dlt_obj_str(o, "cuda_runtime",
					    dlt_cuda_version_str(rt, buf,
								 sizeof(buf)));
			if (drv != DLT_VERSION_ABSENT &&
			    v[DLT_FV_CUDART_driver_status] == 0)
				dlt_obj_str(
					o, "driver_api",
					drv > 0 ? dlt_cuda_version_str(
							  drv, buf, sizeof(buf))
						: "none");
			dlt_obj_str(o, "cuda_runtime_path", f->path);
			break;
		}
		case DLT_FAM_CUDA: {
			int64_t drv = v[DLT_FV_CUDA_driver_version];
			if (!dlt_val_get(o, "driver_api") &&
			    v[DLT_FV_CUDA_driver_status] == 0 && drv > 0)
				dlt_obj_str(o, "driver_api",
					    dlt_cuda_version_str(drv, buf,
								 sizeof(buf)));
			break;
		}
		case DLT_FAM_CUDNN: {
			if (dlt_val_get(o, "cudnn"))
				break;
			int64_t ver = v[DLT_FV_CUDNN_version];
			int64_t rt = v[DLT_FV_CUDNN_cudart_version];
			if (ver > 0)
				dlt_obj_str(o, "cudnn",
					    dlt_cudnn_version_str(ver, buf,
								  sizeof(buf)));
			if (rt > 0)
				dlt_obj_str(o, "cudnn_cuda_runtime",
					    dlt_cuda_version_str(rt, buf,
								 sizeof(buf)));
			dlt_obj_str(o, "cudnn_path", f->path);
			break;
		}
		case DLT_FAM_NCCL:
			if (dlt_val_get(o, "nccl"))
				break;
			if (v[DLT_FV_NCCL_version] > 0)
				dlt_obj_str(o, "nccl",
					    dlt_nccl_version_str(
						    v[DLT_FV_NCCL_version], buf,
						    sizeof(buf)));
			dlt_obj_str(o, "nccl_path", f->path);
			break;
		}
		if (f->kdrv && !dlt_val_get(o, "kernel_driver"))
			dlt_obj_str(o, "kernel_driver", f->kdrv);
	}
	(void)c;
	dlt_engine_versions_loaded(o, g);
}

/* The whole run's calls per API (gpu.h), raw: nanoseconds and counts for
 * programs, as every JSON output gives them. */
static struct dlt_val *dlt_gpu_calls_val(struct dlt_check *c,
					 const struct dlt_gpu *g)
{
	struct dlt_val *arr = dlt_val_array(&c->arena);
	for (size_t i = 0; i < g->run.napi; i++) {
		const struct dlt_call_stats *st = &g->run.api[i];
		const struct dlt_api_desc *a = dlt_api_by_id(st->api);
		struct dlt_val *o = dlt_arr_object(arr);
		if (a)
			dlt_obj_str(o, "api", a->name);
		else
			dlt_obj_strf(o, "api", "api#%u", (unsigned)st->api);
		dlt_obj_uint(o, "calls", st->calls);
		dlt_obj_uint(o, "errors", st->errors);
		dlt_obj_uint(o, "aggregated", st->aggregated);
		dlt_obj_uint(o, "timed", st->timed);
		dlt_obj_uint(o, "total_ns", st->total_ns);
		if (st->timed) {
			dlt_obj_uint(o, "min_ns", st->min_ns);
			dlt_obj_uint(o, "max_ns", st->max_ns);
			dlt_obj_uint(o, "median_ns",
				     dlt_call_stats_quantile(st, 0.5));
			dlt_obj_uint(o, "p99_ns",
				     dlt_call_stats_quantile(st, 0.99));
		} else {
			dlt_obj_null(o, "min_ns");
			dlt_obj_null(o, "max_ns");
			dlt_obj_null(o, "median_ns");
			dlt_obj_null(o, "p99_ns");
		}
		struct dlt_val *h = dlt_obj_array(o, "hist");
		for (unsigned b = 0; b < DLT_AGG_HIST; b++)
			dlt_arr_int(h, (int64_t)st->hist[b]);
	}
	return arr;
}

static size_t dlt_add_proc(struct dlt_check *c, const struct dlt_process *p,
			   const struct dlt_gpu *g)
{
	struct dlt_check_proc *cp = dlt_check_new_proc(c);
	char how[1024];
	cp->trace = dlt_check_str(c, p->trace);
	cp->pid = p->hdr.pid;
	cp->ppid = p->hdr.ppid;
	cp->rank = p->rank;
	cp->world_size = p->world_size;
	cp->rank_source = p->rank_source;
	cp->host = dlt_check_str(c, p->host);
	cp->exe = dlt_check_str(c, p->exe);
	cp->start_realtime_ns = p->hdr.start_realtime_ns;
	cp->start_monotonic_ns = p->hdr.start_monotonic_ns;
	cp->trace_id = p->hdr.trace_id;
	cp->run_id = p->hdr.run_id;
	cp->ended =
		dlt_check_str(c, dlt_end_describe(&p->end, how, sizeof(how)));
	cp->exit_code = dlt_end_exit_code(&p->end);
	cp->signal = dlt_end_signal(&p->end);
	cp->end_failure = dlt_end_is_failure(&p->end);
	cp->end_handled = dlt_end_handleable(&p->end);
	cp->reaper_trace = p->end.reaper_trace;
	cp->rss_peak_kb = p->rss_peak_kb;
	cp->killed_by_dltrace = dlt_end_by_dltrace(&p->end);
	cp->dltrace_ts = p->end.dltrace_sig ? p->end.dltrace_ts : 0;
	cp->versions = dlt_val_object(&c->arena);
	dlt_versions(c, cp->versions, g);
	cp->gpu_calls = dlt_gpu_calls_val(c, g);
	cp->individual_from_ns = g->run.individual_from;
	cp->lost_calls = p->hdr.lost_calls;
	cp->lost_records = p->hdr.lost_records;
	return c->nprocs++;
}

size_t dlt_check_process(struct dlt_check *c, const struct dlt_process *p,
			 const struct dlt_gpu *g)
{
	size_t proc = dlt_add_proc(c, p, g);
	struct dlt_rule_ctx ctx = {c, p, g, proc, 0, NULL, NULL, NULL};
	ctx.explained =
		dlt_xcalloc(g->nerrs ? g->nerrs : 1, sizeof(*ctx.explained));
	for (size_t r = 0; r < dlt_nrules; r++) {
		if (dlt_rules[r]->run == NULL)
			continue;
		ctx.rule = r;
		ctx.code = dlt_rules[r]->code;
		dlt_rules[r]->run(&ctx);
	}
	dlt_ctx_free(&ctx);
	free(ctx.explained);
	return proc;
}

static size_t dlt_rule_index(const char *code)
{
	for (size_t r = 0; r < dlt_nrules; r++)
		if (strcmp(dlt_rules[r]->code, code) == 0)
			return r;
	return 0;
}

/* What one pass over a trace feeds besides the model. */
struct dlt_check_load {
	struct dlt_gpu *gpu;
	struct dlt_hang_proc *hang;
};

static void dlt_check_rec(void *ctx, struct dlt_trace *t,
			  const struct dlt_rec_view *v)
{
	struct dlt_check_load *cl = ctx;
	dlt_gpu_rec(cl->gpu, t, v);
	dlt_hang_hook_rec(cl->hang, t, v);
}

struct dlt_process *dlt_check_read_one(struct dlt_trace *t, struct dlt_gpu *g,
				       struct dlt_hang_proc *hp)
{
	struct dlt_check_load cl = {g, hp};
	struct dlt_load_hook hook = {dlt_check_rec, &cl};
	dlt_gpu_init(g);
	dlt_hang_begin(hp, dlt_reader_path(t));
	struct dlt_process *p = dlt_process_read_hooked(t, &hook);
	dlt_gpu_finish(g);
	dlt_hang_end(hp, &p->hdr);
	return p;
}

/* Traced processes by a key (pid, trace_id), sorted: a job can have
 * thousands of processes, and a pass over all of them per reap or per
 * process was quadratic. */
struct dlt_key_slot {
	uint64_t key;
	size_t proc;
};

static int dlt_key_slot_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct dlt_key_slot *)a)->key;
	uint64_t y = ((const struct dlt_key_slot *)b)->key;
	return x < y ? -1 : x > y;
}

/* The traced processes (those with a trace) keyed by pid or trace_id. */
static struct dlt_key_slot *dlt_proc_index(const struct dlt_check *c,
					   bool by_pid, size_t *n)
{
	struct dlt_key_slot *ix =
		dlt_xcalloc(c->nprocs ? c->nprocs : 1, sizeof(*ix));
	*n = 0;
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].trace)
			ix[(*n)++] = (struct dlt_key_slot){
				by_pid ? c->procs[i].pid : c->procs[i].trace_id,
				i};
	qsort(ix, *n, sizeof(*ix), dlt_key_slot_cmp);
	return ix;
}

/* The first slot with this key, or n. */
static size_t dlt_proc_lower(const struct dlt_key_slot *ix, size_t n,
			     uint64_t key)
{
	struct dlt_key_slot probe = {key, 0};
	return dlt_lower_bound(ix, n, sizeof(*ix), &probe, dlt_key_slot_cmp);
}

/* The process of the slot with this key, or NULL. */
static const struct dlt_check_proc *dlt_proc_by(const struct dlt_check *c,
						const struct dlt_key_slot *ix,
						size_t n, uint64_t key)
{
	size_t k = dlt_proc_lower(ix, n, key);
	return k < n && ix[k].key == key ? &c->procs[ix[k].proc] : NULL;
}

/* The forked children that left no trace (reaps.h) are processes of the
 * job too: each gets an entry with what its parent's reap says, the
 * parent's program (a fork runs it) and the parent's run, and no trace. */
static void dlt_check_untraced(struct dlt_check *c, const struct dlt_reaps *rs)
{
	size_t npid, ntrace;
	struct dlt_key_slot *by_pid = dlt_proc_index(c, true, &npid);
	struct dlt_key_slot *by_trace = dlt_proc_index(c, false, &ntrace);
	for (size_t i = 0; i < rs->n; i++) {
		const struct dlt_reap_seen *s = &rs->r[i];
		if (s->forked_wall_ns == 0)
			continue;
		const struct dlt_check_proc *reaper =
			dlt_proc_by(c, by_trace, ntrace, s->reaper_trace);
		bool seen = false;
		for (size_t k = dlt_proc_lower(by_pid, npid, s->pid);
		     k < npid && by_pid[k].key == s->pid && !seen; k++) {
			const struct dlt_check_proc *q =
				&c->procs[by_pid[k].proc];
			seen = dlt_reap_is_of(s, q->pid, q->host, q->run_id,
					      q->start_realtime_ns);
		}
		if (seen || reaper == NULL)
			continue;
		struct dlt_end e;
		char how[1024];
		const char *ended = dlt_reap_untraced(s, &e, how, sizeof(how));
		const char *exe = reaper->exe;
		uint32_t group = reaper->run_group;
		struct dlt_check_proc *cp = dlt_check_new_proc(c);
		cp->pid = s->pid;
		cp->ppid = s->reaper;
		cp->rank = -1;
		cp->world_size = -1;
		cp->host = dlt_check_str(c, s->host);
		cp->exe = exe;
		cp->start_realtime_ns = s->forked_wall_ns;
		cp->run_id = s->run_id;
		cp->run_group = group;
		cp->ended = dlt_check_str(c, ended);
		cp->exit_code = dlt_end_exit_code(&e);
		cp->signal = dlt_end_signal(&e);
		cp->end_failure = dlt_end_is_failure(&e);
		cp->end_handled = dlt_end_handleable(&e);
		cp->reaper_trace = s->reaper_trace;
		cp->versions = dlt_val_object(&c->arena);
		c->nprocs++;
	}
	free(by_pid);
	free(by_trace);
}

/* A failure is handled when the image that reaped it carried on: it went
 * on to exec, or ended well, or its own failure was handled in turn (a
 * shell's `cmd || fallback`, pyenv's readlink probes, a script that
 * retries).  The verdict leaves handled failures out; check and summary
 * still say how each process ended.  Every candidate starts handled and a
 * pass takes the flag off where the reaper failed unhandled: in start
 * order (a reaper mostly before what it reaped) one pass settles a chain,
 * and the passes stop when nothing changes. */
static void dlt_check_handled(struct dlt_check *c)
{
	size_t n;
	struct dlt_key_slot *ix = dlt_proc_index(c, false, &n);
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < c->nprocs; i++) {
			struct dlt_check_proc *cp = &c->procs[i];
			if (!cp->end_handled)
				continue;
			const struct dlt_check_proc *q =
				dlt_proc_by(c, ix, n, cp->reaper_trace);
			if (q && q != cp && (!q->end_failure || q->end_handled))
				continue;
			cp->end_handled = false;
			changed = true;
		}
	}
	free(ix);
}

size_t dlt_check_read(struct dlt_check *c, struct dlt_job *j, FILE *diag)
{
	return dlt_check_read_each(c, j, diag, NULL);
}

size_t dlt_check_read_each(struct dlt_check *c, struct dlt_job *j, FILE *diag,
			   const struct dlt_check_each *each)
{
	struct dlt_reaps reaps = {0};
	struct dlt_oom_set oom = {0};
	size_t incomplete = dlt_rule_index("TRACE_INCOMPLETE");
	for (size_t i = 0; i < j->nerrors; i++) {
		const struct dlt_input_error *e = &j->errors[i];
		struct dlt_finding *f = dlt_check_finding(
			c, "TRACE_INCOMPLETE", incomplete, DLT_SEV_INFO,
			DLT_NO_PROC,
			e->trace
				? "a trace could not be read; it is left out"
				: "an input could not be read; it is left out");
		dlt_obj_str(f->evidence, "input", e->path);
		if (e->trace) {
			char why[1024];
			snprintf(why, sizeof(why), "%s: %s", e->path,
				 e->message);
			dlt_obj_str(f->evidence, "reason", why);
		} else {
			dlt_obj_str(f->evidence, "reason", e->message);
		}
		c->unusable++;
	}
	/* The hang analysis spans processes: what it needs of each trace is
	 * gathered in the same pass as the rest, and judged at the end. */
	struct dlt_hang_proc *hangs =
		dlt_xcalloc(j->ntraces ? j->ntraces : 1, sizeof(*hangs));
	size_t *hang_proc =
		dlt_xcalloc(j->ntraces ? j->ntraces : 1, sizeof(*hang_proc));
	size_t nhangs = 0;
	for (size_t i = 0; i < j->ntraces; i++) {
		struct dlt_gpu g;
		struct dlt_trace *t = dlt_job_take(j, i);
		struct dlt_process *p =
			dlt_check_read_one(t, &g, &hangs[nhangs]);
		if (diag)
			for (size_t k = 0; k < p->nproblems; k++)
				fprintf(diag, "dltrace-analyze: %s: %s\n",
					p->trace, p->problems[k]);
		dlt_reaps_apply(&reaps, p);
		dlt_reaps_add(&reaps, p);
		size_t k = dlt_check_process(c, p, &g);
		dlt_oom_add(&oom, p, k);
		/* A rank known only from the communicator it joined. */
		if (c->procs[k].rank < 0 && hangs[nhangs].rank >= 0) {
			c->procs[k].rank = hangs[nhangs].rank;
			if (c->procs[k].world_size <= 0)
				c->procs[k].world_size =
					hangs[nhangs].world_size;
			c->procs[k].rank_source =
				hangs[nhangs].rank_source[0]
					? dlt_check_str(
						  c, hangs[nhangs].rank_source)
					: NULL;
		}
		if (c->procs[k].rank >= 0) {
			/* For the ranks' comparison (ENV_DIFFERS). */
			c->procs[k].env =
				dlt_envprof_build(&c->arena, p, &g, false);
			c->procs[k].env->rank = c->procs[k].rank;
		}
		if (each)
			each->trace(each->ctx, t, p, &g, &hangs[nhangs], k);
		dlt_trace_close(t);
		hang_proc[nhangs++] = k;
		dlt_process_free(p);
		dlt_gpu_free(&g);
	}
	c->nruns = dlt_hang_group_runs(hangs, nhangs);
	for (size_t i = 0; i < nhangs; i++)
		c->procs[hang_proc[i]].run_group = hangs[i].run_group;
	c->oom = &oom;
	dlt_check_job(c, hangs, nhangs, hang_proc);
	if (each && each->job)
		each->job(each->ctx, hangs, nhangs);
	c->oom = NULL;
	dlt_oom_free(&oom);
	dlt_check_untraced(c, &reaps);
	dlt_check_handled(c);
	dlt_hang_procs_free(hangs, nhangs);
	dlt_reaps_free(&reaps);
	free(hang_proc);
	dlt_check_sort(c);
	return nhangs;
}

/* ---- the job rules --------------------------------------------------- */

struct dlt_job_slot {
	const struct dlt_hang_proc *hp;
	size_t proc;
};

static int dlt_job_slot_order(const void *a, const void *b)
{
	return dlt_hang_rank_order(((const struct dlt_job_slot *)a)->hp,
				   ((const struct dlt_job_slot *)b)->hp);
}

void dlt_check_job(struct dlt_check *c, const struct dlt_hang_proc *procs,
		   size_t n, const size_t *proc)
{
	if (n == 0)
		return;
	struct dlt_job_slot *slots = dlt_xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < n; i++)
		slots[i] = (struct dlt_job_slot){&procs[i], proc[i]};
	qsort(slots, n, sizeof(*slots), dlt_job_slot_order);
	const struct dlt_hang_proc **sorted = dlt_xcalloc(n, sizeof(*sorted));
	size_t *index = dlt_xcalloc(n, sizeof(*index));
	struct dlt_job_ctx ctx = {.chk = c,
				  .procs = sorted,
				  .n = n,
				  .proc = index,
				  .completed = true};
	for (size_t i = 0; i < n; i++) {
		sorted[i] = slots[i].hp;
		index[i] = slots[i].proc;
		ctx.completed &= dlt_hang_completed(sorted[i]);
	}
	struct dlt_wait_group *groups;
	struct dlt_wait_tree *trees;
	ctx.ngroups = dlt_wait_groups(sorted, n, ctx.completed, &groups);
	ctx.ntrees = dlt_wait_trees(sorted, n, ctx.completed, &trees);
	ctx.groups = groups;
	ctx.trees = trees;
	bool *launcher = dlt_wait_launchers(sorted, n);
	ctx.launcher = launcher;
	bool *judged = dlt_wait_judged(sorted, n, groups, ctx.ngroups);
	ctx.judged = judged;
	for (size_t r = 0; r < dlt_nrules; r++) {
		if (dlt_rules[r]->run_job == NULL)
			continue;
		ctx.rule = r;
		ctx.code = dlt_rules[r]->code;
		dlt_rules[r]->run_job(&ctx);
	}
	dlt_wait_groups_free(groups, ctx.ngroups);
	dlt_wait_trees_free(trees, ctx.ntrees);
	free(launcher);
	free(judged);
	free(slots);
	free(sorted);
	free(index);
}

size_t dlt_check_hang_proc(struct dlt_check *c, const struct dlt_hang_proc *hp)
{
	struct dlt_check_proc *cp = dlt_check_new_proc(c);
	cp->trace = dlt_check_str(c, hp->trace);
	cp->pid = hp->pid;
	cp->ppid = hp->ppid;
	cp->rank = hp->rank;
	cp->world_size = hp->world_size;
	cp->rank_source =
		hp->rank_source[0] ? dlt_check_str(c, hp->rank_source) : NULL;
	cp->host = dlt_check_str(c, hp->host);
	cp->exe = hp->exe[0] ? dlt_check_str(c, hp->exe) : NULL;
	cp->start_realtime_ns = hp->start_real;
	cp->start_monotonic_ns = hp->start_mono;
	cp->run_id = hp->run_id;
	cp->run_group = hp->run_group;
	cp->exit_code = -1;
	cp->end_failure = !dlt_hang_completed(hp);
	cp->versions = dlt_val_object(&c->arena);
	return c->nprocs++;
}
