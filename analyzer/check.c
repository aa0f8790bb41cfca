#include "check.h"
#include "hangs.h"
#include "inputs.h"
#include "reaps.h"
#include "apinames.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "status.h"

/* The rules, in the order they run.  Rules that explain failed calls come
 * before API_ERROR, which reports what is left unexplained.  The job rules
 * come last: they run once every trace was read. */
const struct dlt_rule dlt_rules[] = {
	{"LIB_NOT_FOUND", DLT_SEV_ERROR, dlt_rule_lib_not_found, NULL,
	 "a library load failed because no file of that name was found"},
	{"LIB_LOAD_FAILED", DLT_SEV_ERROR, dlt_rule_lib_load_failed, NULL,
	 "a library file was found but would not load"},
	{"LIB_SHADOWED", DLT_SEV_WARNING, dlt_rule_lib_shadowed, NULL,
	 "a library came from elsewhere than its requester's RPATH/RUNPATH "
	 "copy"},
	{"DUPLICATE_LIBRARY", DLT_SEV_ERROR, dlt_rule_duplicate_library, NULL,
	 "two different files of one library are mapped in one process"},
	{"CUDNN_SUBLIB_SKEW", DLT_SEV_ERROR, dlt_rule_cudnn_sublib_skew, NULL,
	 "cuDNN's libraries come from different directories or versions"},
	{"CUDA_DRIVER_INSUFFICIENT", DLT_SEV_ERROR, dlt_rule_cuda_driver, NULL,
	 "no NVIDIA driver, or one older than the CUDA runtime needs"},
	{"CUDNN_CUDART_MISMATCH", DLT_SEV_WARNING, dlt_rule_cudnn_cudart, NULL,
	 "cuDNN was built for another CUDA runtime than the one loaded"},
	{"ALGO_SELECTION_FAILED", DLT_SEV_ERROR, dlt_rule_algo_selection, NULL,
	 "a convolution algorithm selection returned no usable candidate"},
	{"ALGO_FALLBACK", DLT_SEV_WARNING, dlt_rule_algo_fallback, NULL,
	 "a convolution ran with another algorithm than the best candidate"},
	{"API_ERROR", DLT_SEV_WARNING, dlt_rule_api_error, NULL,
	 "traced GPU library calls returned errors"},
	{"DEEPBIND", DLT_SEV_WARNING, dlt_rule_deepbind, NULL,
	 "a library was opened with RTLD_DEEPBIND and bypasses the tracer"},
	{"STATIC_CUDART", DLT_SEV_INFO, dlt_rule_static_cudart, NULL,
	 "objects with their own static CUDA runtime, whose runtime calls "
	 "are not traced"},
	{"TRACE_INCOMPLETE", DLT_SEV_INFO, dlt_rule_trace_incomplete, NULL,
	 "a process ended by a signal, or its trace is cut short or "
	 "damaged"},
	{"INIT_HANG", DLT_SEV_ERROR, NULL, dlt_rule_init_hang,
	 "a communicator init or a rendezvous was entered and never "
	 "completed"},
	{"MISSING_RANK", DLT_SEV_ERROR, NULL, dlt_rule_missing_rank,
	 "ranks of a communicator or job never arrived, or left no trace"},
	{"RANK_MISMATCH", DLT_SEV_ERROR, NULL, dlt_rule_rank_mismatch,
	 "processes of one communicator or job disagree on its size or "
	 "claim the same rank"},
	{"STALL", DLT_SEV_WARNING, NULL, dlt_rule_stall,
	 "a thread waited long in GPU, rendezvous or collective code, or "
	 "in a job that did not finish"},
};
const size_t dlt_nrules = sizeof(dlt_rules) / sizeof(dlt_rules[0]);

const char *dlt_severity_name(enum dlt_severity s)
{
	switch (s) {
	case DLT_SEV_INFO:
		return "info";
	case DLT_SEV_WARNING:
		return "warning";
	case DLT_SEV_ERROR:
		return "error";
	}
	return "?";
}

int dlt_severity_parse(const char *s)
{
	if (strcmp(s, "error") == 0)
		return DLT_SEV_ERROR;
	if (strcmp(s, "warning") == 0)
		return DLT_SEV_WARNING;
	if (strcmp(s, "info") == 0)
		return DLT_SEV_INFO;
	if (strcmp(s, "never") == 0)
		return DLT_SEV_NEVER;
	return -1;
}

void dlt_check_init(struct dlt_check *c)
{
	memset(c, 0, sizeof(*c));
}

void dlt_check_free(struct dlt_check *c)
{
	free(c->procs);
	free(c->f);
	dlt_arena_free(c->arena);
	memset(c, 0, sizeof(*c));
}

static const char *dlt_cstr(struct dlt_check *c, const char *s)
{
	return dlt_arena_strdup(&c->arena, s);
}

/* ---- findings ---------------------------------------------------------- */

static struct dlt_finding *dlt_new_finding(struct dlt_check *c, size_t rule,
					   enum dlt_severity sev, size_t proc,
					   const char *message)
{
	if (c->nf == c->capf) {
		c->capf = c->capf ? c->capf * 2 : 32;
		c->f = dlt_xrealloc(c->f, c->capf, sizeof(*c->f));
	}
	struct dlt_finding *f = &c->f[c->nf++];
	memset(f, 0, sizeof(*f));
	f->code = dlt_rules[rule].code;
	f->rule = rule;
	f->seq = c->nf - 1;
	f->severity = sev;
	f->proc = proc;
	f->message = dlt_cstr(c, message);
	f->evidence = dlt_val_object(&c->arena);
	c->counts[sev]++;
	if (proc != DLT_NO_PROC)
		c->procs[proc].counts[sev]++;
	return f;
}

static struct dlt_finding *dlt_vfinding(struct dlt_check *c, size_t rule,
					enum dlt_severity sev, size_t proc,
					const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	return dlt_new_finding(c, rule, sev, proc, buf);
}

static void dlt_vfix(struct dlt_check *c, struct dlt_finding *f,
		     const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	f->fix = dlt_cstr(c, buf);
}

struct dlt_finding *dlt_rule_finding(struct dlt_rule_ctx *c,
				     enum dlt_severity sev, const char *fmt,
				     ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct dlt_finding *f =
		dlt_vfinding(c->chk, c->rule, sev, c->proc, fmt, ap);
	va_end(ap);
	return f;
}

void dlt_finding_fix(struct dlt_rule_ctx *c, struct dlt_finding *f,
		     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dlt_vfix(c->chk, f, fmt, ap);
	va_end(ap);
}

struct dlt_finding *dlt_job_finding(struct dlt_job_ctx *c, size_t i,
				    enum dlt_severity sev, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct dlt_finding *f =
		dlt_vfinding(c->chk, c->rule, sev, c->proc[i], fmt, ap);
	va_end(ap);
	return f;
}

void dlt_job_fix(struct dlt_job_ctx *c, struct dlt_finding *f, const char *fmt,
		 ...)
{
	va_list ap;
	va_start(ap, fmt);
	dlt_vfix(c->chk, f, fmt, ap);
	va_end(ap);
}

void dlt_rule_explain(struct dlt_rule_ctx *c, size_t err_index)
{
	if (c->explained[err_index] == NULL)
		c->explained[err_index] = dlt_rules[c->rule].code;
}

/* ---- processes ----------------------------------------------------------- */

/* What the libraries that were loaded said at their load (LOAD) or their
 * files say (FILE), for the families no call reported: "nccl": "2.28.9",
 * "nccl_path", and "nccl_from": "load" or "file". */
static void dlt_versions_loaded(struct dlt_val *o, const struct dlt_gpu *g)
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
	dlt_versions_loaded(o, g);
}

/* A new, zeroed process slot at c->procs[c->nprocs]; the caller counts
 * it. */
static struct dlt_check_proc *dlt_new_proc(struct dlt_check *c)
{
	if (c->nprocs == c->capprocs) {
		c->capprocs = c->capprocs ? c->capprocs * 2 : 16;
		c->procs =
			dlt_xrealloc(c->procs, c->capprocs, sizeof(*c->procs));
	}
	struct dlt_check_proc *cp = &c->procs[c->nprocs];
	memset(cp, 0, sizeof(*cp));
	return cp;
}

static size_t dlt_add_proc(struct dlt_check *c, const struct dlt_process *p,
			   const struct dlt_gpu *g)
{
	struct dlt_check_proc *cp = dlt_new_proc(c);
	char how[1024];
	cp->trace = dlt_cstr(c, p->trace);
	cp->pid = p->hdr.pid;
	cp->ppid = p->hdr.ppid;
	cp->rank = p->rank;
	cp->world_size = p->world_size;
	cp->host = dlt_cstr(c, p->host);
	cp->exe = dlt_cstr(c, p->exe);
	cp->start_realtime_ns = p->hdr.start_realtime_ns;
	cp->start_monotonic_ns = p->hdr.start_monotonic_ns;
	cp->trace_id = p->hdr.trace_id;
	cp->run_id = p->hdr.run_id;
	cp->ended = dlt_cstr(c, dlt_end_describe(&p->end, how, sizeof(how)));
	cp->exit_code = dlt_end_exit_code(&p->end);
	cp->signal = dlt_end_signal(&p->end);
	cp->end_failure = dlt_end_is_failure(&p->end);
	cp->end_handled = dlt_end_handleable(&p->end);
	cp->reaper_trace = p->end.reaper_trace;
	cp->versions = dlt_val_object(&c->arena);
	dlt_versions(c, cp->versions, g);
	return c->nprocs++;
}

size_t dlt_check_process(struct dlt_check *c, const struct dlt_process *p,
			 const struct dlt_gpu *g)
{
	size_t proc = dlt_add_proc(c, p, g);
	struct dlt_rule_ctx ctx = {c, p, g, proc, 0, NULL, NULL};
	ctx.explained =
		dlt_xcalloc(g->nerrs ? g->nerrs : 1, sizeof(*ctx.explained));
	for (size_t r = 0; r < dlt_nrules; r++) {
		if (dlt_rules[r].run == NULL)
			continue;
		ctx.rule = r;
		dlt_rules[r].run(&ctx);
	}
	dlt_ctx_free(&ctx);
	free(ctx.explained);
	return proc;
}

static size_t dlt_rule_index(const char *code)
{
	for (size_t r = 0; r < dlt_nrules; r++)
		if (strcmp(dlt_rules[r].code, code) == 0)
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

struct dlt_process *dlt_check_load(const char *path, struct dlt_gpu *g,
				   struct dlt_hang_proc *hp, char *err,
				   size_t errlen)
{
	struct dlt_check_load cl = {g, hp};
	struct dlt_load_hook hook = {dlt_check_rec, &cl};
	dlt_gpu_init(g);
	dlt_hang_begin(hp, path);
	struct dlt_process *p =
		dlt_process_load_hooked(path, &hook, err, errlen);
	dlt_gpu_finish(g);
	if (p)
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
		struct dlt_check_proc *cp = dlt_new_proc(c);
		cp->pid = s->pid;
		cp->ppid = s->reaper;
		cp->rank = -1;
		cp->world_size = -1;
		cp->host = dlt_cstr(c, s->host);
		cp->exe = exe;
		cp->start_realtime_ns = s->forked_wall_ns;
		cp->run_id = s->run_id;
		cp->run_group = group;
		cp->ended = dlt_cstr(c, ended);
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

size_t dlt_check_paths(struct dlt_check *c, int nargs, char *const args[],
		       FILE *diag)
{
	struct dlt_inputs in;
	dlt_inputs_collect(&in, nargs, args);
	/* Parents before their children: when a child's trace is checked,
	 * the status its parent reaped (REAP records) is known. */
	dlt_inputs_sort_by_start(&in);
	struct dlt_reaps reaps = {0};
	size_t incomplete = dlt_rule_index("TRACE_INCOMPLETE");
	size_t checked = 0;
	for (size_t i = 0; i < in.nerrors; i++) {
		if (diag)
			fprintf(diag, "dltrace-analyze: %s: %s\n",
				in.errors[i].path, in.errors[i].message);
		struct dlt_finding *f = dlt_new_finding(
			c, incomplete, DLT_SEV_INFO, DLT_NO_PROC,
			"an input could not be read; it is left out");
		dlt_obj_str(f->evidence, "input", in.errors[i].path);
		dlt_obj_str(f->evidence, "reason", in.errors[i].message);
		c->unusable++;
	}
	/* The hang analysis spans processes: what it needs of each trace is
	 * gathered in the same pass as the rest, and judged at the end. */
	struct dlt_hang_proc *hangs =
		dlt_xcalloc(in.npaths ? in.npaths : 1, sizeof(*hangs));
	size_t *hang_proc =
		dlt_xcalloc(in.npaths ? in.npaths : 1, sizeof(*hang_proc));
	size_t nhangs = 0;
	for (size_t i = 0; i < in.npaths; i++) {
		char err[1024] = "";
		struct dlt_gpu g;
		struct dlt_process *p = dlt_check_load(
			in.paths[i], &g, &hangs[nhangs], err, sizeof(err));
		if (p == NULL) {
			if (diag)
				fprintf(diag, "dltrace-analyze: %s\n", err);
			struct dlt_finding *f = dlt_new_finding(
				c, incomplete, DLT_SEV_INFO, DLT_NO_PROC,
				"a trace could not be read; it is left out");
			dlt_obj_str(f->evidence, "input", in.paths[i]);
			dlt_obj_str(f->evidence, "reason", err);
			c->unusable++;
			dlt_gpu_free(&g);
			dlt_hang_proc_free(&hangs[nhangs]);
			continue;
		}
		if (diag)
			for (size_t k = 0; k < p->nproblems; k++)
				fprintf(diag, "dltrace-analyze: %s: %s\n",
					p->trace, p->problems[k]);
		dlt_reaps_apply(&reaps, p);
		dlt_reaps_add(&reaps, p);
		size_t k = dlt_check_process(c, p, &g);
		/* A rank known only from the communicator it joined. */
		if (c->procs[k].rank < 0)
			c->procs[k].rank = hangs[nhangs].rank;
		hang_proc[nhangs++] = k;
		checked++;
		dlt_process_free(p);
		dlt_gpu_free(&g);
	}
	c->nruns = dlt_hang_group_runs(hangs, nhangs);
	for (size_t i = 0; i < nhangs; i++)
		c->procs[hang_proc[i]].run_group = hangs[i].run_group;
	dlt_check_job(c, hangs, nhangs, hang_proc);
	dlt_check_untraced(c, &reaps);
	dlt_check_handled(c);
	dlt_hang_procs_free(hangs, nhangs);
	dlt_reaps_free(&reaps);
	free(hang_proc);
	dlt_inputs_free(&in);
	dlt_check_sort(c);
	return checked;
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
	struct dlt_job_ctx ctx = {c, sorted, n, index, 0, true};
	for (size_t i = 0; i < n; i++) {
		sorted[i] = slots[i].hp;
		index[i] = slots[i].proc;
		ctx.completed &= dlt_hang_completed(sorted[i]);
	}
	for (size_t r = 0; r < dlt_nrules; r++) {
		if (dlt_rules[r].run_job == NULL)
			continue;
		ctx.rule = r;
		dlt_rules[r].run_job(&ctx);
	}
	free(slots);
	free(sorted);
	free(index);
}

size_t dlt_check_hang_proc(struct dlt_check *c, const struct dlt_hang_proc *hp)
{
	struct dlt_check_proc *cp = dlt_new_proc(c);
	cp->trace = dlt_cstr(c, hp->trace);
	cp->pid = hp->pid;
	cp->ppid = hp->ppid;
	cp->rank = hp->rank;
	cp->world_size = hp->world_size;
	cp->host = dlt_cstr(c, hp->host);
	cp->exe = hp->exe[0] ? dlt_cstr(c, hp->exe) : NULL;
	cp->start_realtime_ns = hp->start_real;
	cp->start_monotonic_ns = hp->start_mono;
	cp->run_id = hp->run_id;
	cp->run_group = hp->run_group;
	cp->exit_code = -1;
	cp->end_failure = !dlt_hang_completed(hp);
	cp->versions = dlt_val_object(&c->arena);
	return c->nprocs++;
}

/* ---- ordering ------------------------------------------------------------ */

struct dlt_proc_slot {
	struct dlt_check_proc p;
	size_t old;
};

static int dlt_proc_order(const void *a, const void *b)
{
	const struct dlt_check_proc *x = &((const struct dlt_proc_slot *)a)->p;
	const struct dlt_check_proc *y = &((const struct dlt_proc_slot *)b)->p;
	if (x->start_realtime_ns != y->start_realtime_ns)
		return x->start_realtime_ns < y->start_realtime_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->trace ? x->trace : "", y->trace ? y->trace : "");
}

static int dlt_finding_order(const void *a, const void *b)
{
	const struct dlt_finding *x = a, *y = b;
	/* Findings about no process (unreadable inputs) come last. */
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void dlt_check_sort(struct dlt_check *c)
{
	size_t n = c->nprocs;
	struct dlt_proc_slot *slots = dlt_xcalloc(n ? n : 1, sizeof(*slots));
	size_t *where = dlt_xcalloc(n ? n : 1, sizeof(*where));
	for (size_t i = 0; i < n; i++)
		slots[i] = (struct dlt_proc_slot){c->procs[i], i};
	qsort(slots, n, sizeof(*slots), dlt_proc_order);
	for (size_t i = 0; i < n; i++) {
		c->procs[i] = slots[i].p;
		where[slots[i].old] = i;
	}
	for (size_t i = 0; i < c->nf; i++)
		if (c->f[i].proc != DLT_NO_PROC)
			c->f[i].proc = where[c->f[i].proc];
	free(slots);
	free(where);
	if (c->nf > 1)
		qsort(c->f, c->nf, sizeof(*c->f), dlt_finding_order);
	for (size_t i = 0; i < c->nf; i++)
		c->f[i].seq = i;
}

size_t dlt_check_runs(const struct dlt_check *c)
{
	return c->nruns;
}

int dlt_check_worst(const struct dlt_check *c)
{
	for (int s = DLT_SEV_ERROR; s >= DLT_SEV_INFO; s--)
		if (c->counts[s])
			return s;
	return -1;
}

/* ---- output ----------------------------------------------------------------
 */

/* A run's identity as summary and --run write it. */
static const char *dlt_run_hex(uint64_t run, char buf[64])
{
	snprintf(buf, 64, "%016" PRIx64, run);
	return buf;
}

static void dlt_json_proc(struct dlt_json *j, const struct dlt_check_proc *p)
{
	char when[64];
	dlt_json_object_begin(j);
	dlt_json_kv_uint(j, "pid", p->pid);
	dlt_json_kv_uint(j, "ppid", p->ppid);
	if (p->rank >= 0)
		dlt_json_kv_int(j, "rank", p->rank);
	else
		dlt_json_kv_null(j, "rank");
	if (p->world_size > 0)
		dlt_json_kv_int(j, "world_size", p->world_size);
	else
		dlt_json_kv_null(j, "world_size");
	dlt_json_kv_string(j, "host", p->host);
	dlt_json_kv_string(j, "exe", p->exe);
	dlt_json_kv_string(j, "trace", p->trace);
	if (p->run_id)
		dlt_json_kv_string(j, "run", dlt_run_hex(p->run_id, when));
	else
		dlt_json_kv_null(j, "run");
	dlt_format_utc(p->start_realtime_ns, when, sizeof(when));
	dlt_json_kv_string(j, "started", when);
	dlt_json_kv_string(j, "ended", p->ended);
	if (p->exit_code >= 0)
		dlt_json_kv_int(j, "exit_code", p->exit_code);
	else
		dlt_json_kv_null(j, "exit_code");
	if (p->signal)
		dlt_json_kv_int(j, "signal", p->signal);
	else
		dlt_json_kv_null(j, "signal");
	dlt_json_kv_bool(j, "failure_handled",
			 p->end_failure && p->end_handled);
	dlt_json_key(j, "versions");
	dlt_val_json(j, p->versions);
	dlt_json_key(j, "findings");
	dlt_json_object_begin(j);
	for (int s = DLT_SEV_ERROR; s >= DLT_SEV_INFO; s--)
		dlt_json_kv_uint(j, dlt_severity_name(s), p->counts[s]);
	dlt_json_object_end(j);
	dlt_json_object_end(j);
}

void dlt_finding_json(struct dlt_json *j, const struct dlt_check *c,
		      const struct dlt_finding *f)
{
	const struct dlt_check_proc *p =
		f->proc == DLT_NO_PROC ? NULL : &c->procs[f->proc];
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "code", f->code);
	dlt_json_kv_string(j, "severity", dlt_severity_name(f->severity));
	if (p)
		dlt_json_kv_uint(j, "pid", p->pid);
	else
		dlt_json_kv_null(j, "pid");
	if (p && p->rank >= 0)
		dlt_json_kv_int(j, "rank", p->rank);
	else
		dlt_json_kv_null(j, "rank");
	dlt_json_kv_string(j, "trace", p ? p->trace : NULL);
	dlt_json_kv_string(j, "message", f->message);
	dlt_json_kv_string(j, "fix", f->fix);
	dlt_json_key(j, "evidence");
	dlt_val_json(j, f->evidence);
	dlt_json_object_end(j);
}

void dlt_check_json_findings(struct dlt_json *j, const struct dlt_check *c)
{
	dlt_json_key(j, "findings");
	dlt_json_array_begin(j);
	/* Most severe first, as in the text report. */
	for (int s = DLT_SEV_ERROR; s >= DLT_SEV_INFO; s--)
		for (size_t i = 0; i < c->nf; i++)
			if ((int)c->f[i].severity == s)
				dlt_finding_json(j, c, &c->f[i]);
	dlt_json_array_end(j);
	dlt_json_key(j, "summary");
	dlt_json_object_begin(j);
	for (int s = DLT_SEV_ERROR; s >= DLT_SEV_INFO; s--)
		dlt_json_kv_uint(j, dlt_severity_name(s), c->counts[s]);
	dlt_json_kv_uint(j, "processes", c->nprocs);
	dlt_json_kv_uint(j, "runs", dlt_check_runs(c));
	dlt_json_kv_uint(j, "unreadable_inputs", c->unusable);
	dlt_json_object_end(j);
}

int dlt_check_json(FILE *out, const struct dlt_check *c)
{
	struct dlt_json j;
	dlt_json_init(&j, out, true);
	dlt_json_object_begin(&j);
	dlt_json_key(&j, "processes");
	dlt_json_array_begin(&j);
	for (size_t i = 0; i < c->nprocs; i++)
		dlt_json_proc(&j, &c->procs[i]);
	dlt_json_array_end(&j);
	dlt_check_json_findings(&j, c);
	dlt_json_object_end(&j);
	return dlt_json_finish(&j);
}

static void dlt_put_proc_ref(FILE *out, const struct dlt_check_proc *p)
{
	fprintf(out, "pid %" PRIu32, p->pid);
	if (p->rank >= 0)
		fprintf(out, " rank %" PRId32, p->rank);
	if (p->exe) {
		fputs(" (", out);
		dlt_fput_text(out, dlt_basename(p->exe), "");
		fputc(')', out);
	}
}

void dlt_finding_line(FILE *out, const struct dlt_check *c,
		      const struct dlt_finding *f)
{
	fprintf(out, "%s %s ", dlt_severity_name(f->severity), f->code);
	if (f->proc != DLT_NO_PROC)
		dlt_put_proc_ref(out, &c->procs[f->proc]);
	else
		fputs("(no process)", out);
	fputs(": ", out);
	dlt_fput_text(out, f->message, "");
	fputc('\n', out);
}

/* Findings that say the same thing about several processes (ranks of one
 * job) are shown once, with the list of processes. */
static bool dlt_same_finding(const struct dlt_finding *a,
			     const struct dlt_finding *b)
{
	return a->rule == b->rule && a->severity == b->severity &&
	       strcmp(a->code, b->code) == 0 &&
	       strcmp(a->message, b->message) == 0;
}

static void dlt_lower(const char *s, char *buf, size_t cap)
{
	size_t i = 0;
	for (; s[i] && i + 1 < cap; i++)
		buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	buf[i] = '\0';
}

/* Findings in groups of the same thing said, each group's members in
 * finding order: sorted once, since comparing every pair took F^2 string
 * comparisons (minutes for a hostile trace of many failed loads). */
static int dlt_group_cmp(const void *a, const void *b)
{
	const struct dlt_finding *x = *(const struct dlt_finding *const *)a;
	const struct dlt_finding *y = *(const struct dlt_finding *const *)b;
	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	if (x->severity != y->severity)
		return x->severity < y->severity ? -1 : 1;
	int d = strcmp(x->code, y->code);
	if (d == 0)
		d = strcmp(x->message, y->message);
	if (d)
		return d;
	return x < y ? -1 : x > y; /* one array: finding order */
}

/* next[i]: the next finding of i's group, or nf; returns whether i comes
 * first in its group. */
static bool *dlt_group(const struct dlt_check *c, size_t *next)
{
	size_t n = c->nf;
	const struct dlt_finding **order =
		dlt_xcalloc(n ? n : 1, sizeof(*order));
	bool *first = dlt_xcalloc(n ? n : 1, sizeof(*first));
	for (size_t i = 0; i < n; i++)
		order[i] = &c->f[i];
	if (n > 1)
		qsort(order, n, sizeof(*order), dlt_group_cmp);
	for (size_t j = 0; j < n; j++) {
		size_t i = (size_t)(order[j] - c->f);
		next[i] = j + 1 < n && dlt_same_finding(order[j], order[j + 1])
				  ? (size_t)(order[j + 1] - c->f)
				  : n;
		first[i] = j == 0 || !dlt_same_finding(order[j - 1], order[j]);
	}
	free(order);
	return first;
}

size_t dlt_check_text_findings(FILE *out, const struct dlt_check *c)
{
	size_t *next = dlt_xcalloc(c->nf ? c->nf : 1, sizeof(*next));
	bool *first = dlt_group(c, next);
	/* Per process (the last slot for no process): the group that last
	 * listed it, so that each process counts once per group. */
	size_t *seen = dlt_xcalloc(c->nprocs + 1, sizeof(*seen));
	size_t groups = 0;
	for (int s = DLT_SEV_ERROR; s >= DLT_SEV_INFO; s--) {
		for (size_t i = 0; i < c->nf; i++) {
			const struct dlt_finding *f = &c->f[i];
			if ((int)f->severity != s || !first[i])
				continue;
			/* Processes saying the same thing (ranks). */
			size_t same = 0;
			for (size_t k = i; k < c->nf; k = next[k]) {
				size_t slot = c->f[k].proc == DLT_NO_PROC
						      ? c->nprocs
						      : c->f[k].proc;
				same += seen[slot] != i + 1;
				seen[slot] = i + 1;
			}
			if (groups++)
				fputc('\n', out);
			fprintf(out, "%-7s %s  ", dlt_severity_name(s),
				f->code);
			if (f->proc == DLT_NO_PROC) {
				fputs("(no process)", out);
			} else if (same == 1) {
				dlt_put_proc_ref(out, &c->procs[f->proc]);
			} else {
				fprintf(out, "%zu processes: ", same);
				size_t listed = 0;
				/* Marks of this group's second pass. */
				size_t mark = c->nf + i + 1;
				for (size_t k = i; k < c->nf; k = next[k]) {
					if (c->f[k].proc == DLT_NO_PROC ||
					    seen[c->f[k].proc] == mark)
						continue;
					seen[c->f[k].proc] = mark;
					if (listed < 8)
						fprintf(out, "%s%" PRIu32,
							listed ? ", " : "pid ",
							c->procs[c->f[k].proc]
								.pid);
					listed++;
				}
				if (listed > 8)
					fprintf(out, ", … (%zu more)",
						listed - 8);
			}
			fputs("\n  ", out);
			dlt_fput_text(out, f->message, "");
			fputc('\n', out);
			if (f->evidence && f->evidence->n) {
				fputs("  evidence:\n", out);
				dlt_val_text(out, f->evidence, 4);
			}
			if (f->fix) {
				fputs("  fix: ", out);
				dlt_fput_text(out, f->fix, "");
				fputc('\n', out);
			}
			char lower[64];
			dlt_lower(f->code, lower, sizeof(lower));
			fprintf(out, "  see: docs/findings.md#%s\n", lower);
		}
	}
	free(next);
	free(first);
	free(seen);
	return groups;
}

void dlt_check_text(FILE *out, const struct dlt_check *c)
{
	if (dlt_check_text_findings(out, c))
		fputc('\n', out);
	fprintf(out,
		"%zu process%s checked: %zu error%s, %zu warning%s, %zu "
		"info\n",
		c->nprocs, c->nprocs == 1 ? "" : "es", c->counts[DLT_SEV_ERROR],
		c->counts[DLT_SEV_ERROR] == 1 ? "" : "s",
		c->counts[DLT_SEV_WARNING],
		c->counts[DLT_SEV_WARNING] == 1 ? "" : "s",
		c->counts[DLT_SEV_INFO]);
	size_t runs = dlt_check_runs(c);
	if (runs > 1)
		fprintf(out,
			"These traces come from %zu runs (a directory used "
			"more than once): dltrace-analyze summary shows them "
			"apart,\ndltrace-analyze check --run ID PATH checks "
			"one.\n",
			runs);
}
