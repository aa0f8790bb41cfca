/* ALGO_SELECTION_FAILED: the latest selection for a convolution problem
 * returned an error, or no candidate succeeded (jax#10989: "All algorithms
 * tried ... failed", CUDNN_STATUS_ALLOC_FAILED); for the backend API, no
 * execution plan of the problem could be finalized.  An earlier failed
 * selection that a later one made good is left to `algos`. */
#include <stdio.h>
#include <string.h>

#include "rules.h"

/* "6 x CUDNN_STATUS_ALLOC_FAILED, 2 x CUDNN_STATUS_NOT_SUPPORTED". */
static void dlt_status_tally(const struct dlt_conv_sel *sel, int64_t ver,
			     char *buf, size_t cap, bool *alloc)
{
	int32_t st[DLT_CONV_MAX_CANDS];
	uint32_t cnt[DLT_CONV_MAX_CANDS];
	size_t n = 0, at = 0;
	*alloc = false;
	for (uint32_t i = 0; i < sel->n; i++) {
		size_t k = 0;
		while (k < n && st[k] != sel->c[i].status)
			k++;
		if (k == n) {
			st[n] = sel->c[i].status;
			cnt[n++] = 0;
		}
		cnt[k]++;
		*alloc |= dlt_cudnn_alloc_failed(
			dlt_cudnn_status_major(ver, sel->c[i].status),
			sel->c[i].status);
	}
	buf[0] = '\0';
	for (size_t k = 0; k < n && at < cap; k++) {
		char d[96];
		dlt_status_describe(DLT_FAM_CUDNN, ver, st[k], d, sizeof(d));
		at += (size_t)snprintf(buf + at, cap - at, "%s%u x %s",
				       k ? ", " : "", cnt[k], d);
	}
}

static void dlt_explain_api(struct dlt_rule_ctx *c, uint16_t api,
			    int32_t status, bool any_status)
{
	for (size_t i = 0; i < c->g->nerrs; i++)
		if (c->g->errs[i].api == api &&
		    (any_status || c->g->errs[i].status == status))
			dlt_rule_explain(c, i);
}

static void dlt_selection_legacy(struct dlt_rule_ctx *c,
				 const struct dlt_conv_entry *e)
{
	const struct dlt_conv_sel *sel = &e->last;
	int64_t ver = dlt_gpu_cudnn_version(c->g);
	const struct dlt_api_desc *a = dlt_api_by_id(sel->api);
	char label[768], tally[512], st[96];
	bool alloc = false;
	dlt_problem_label(e, label, sizeof(label));
	dlt_status_tally(sel, ver, tally, sizeof(tally), &alloc);
	struct dlt_finding *f;
	if (sel->status != 0)
		f = dlt_rule_finding(c, DLT_SEV_ERROR, "%s for %s returned %s",
				     a ? a->name : "the selection", label,
				     dlt_status_describe(DLT_FAM_CUDNN, ver,
							 sel->status, st,
							 sizeof(st)));
	else if (sel->n == 0)
		f = dlt_rule_finding(c, DLT_SEV_ERROR,
				     "%s for %s returned no candidate",
				     a ? a->name : "the selection", label);
	else
		f = dlt_rule_finding(c, DLT_SEV_ERROR,
				     "%s for %s: every candidate failed (%s)",
				     a ? a->name : "the selection", label,
				     tally);
	f->ts = sel->ts;
	struct dlt_val *ev = f->evidence;
	dlt_ev_problem(ev, e);
	dlt_obj_str(ev, "selection", a ? a->name : NULL);
	dlt_obj_int(ev, "status", sel->status);
	dlt_obj_str(ev, "status_name",
		    dlt_status_name(DLT_FAM_CUDNN, ver, sel->status));
	if (sel->requested >= 0)
		dlt_obj_int(ev, "requested", sel->requested);
	if (sel->have_call)
		dlt_obj_double(ev, "call_ms", (double)sel->call_ns / 1e6);
	dlt_ev_candidates(dlt_obj_array(ev, "candidates"), e, sel, ver);
	dlt_obj_uint(ev, "selections", e->nsel);
	dlt_obj_uint(ev, "failed_selections", e->nsel_failed);
	dlt_explain_api(c, sel->api, sel->status, false);
	if (alloc ||
	    dlt_cudnn_alloc_failed(dlt_cudnn_status_major(ver, sel->status),
				   sel->status))
		dlt_finding_fix(c, f,
				"cuDNN could not get GPU memory for any "
				"algorithm's workspace: lower the batch size, "
				"free GPU memory, or stop the framework from "
				"taking it all (XLA_PYTHON_CLIENT_PREALLOCATE="
				"false, PYTORCH_CUDA_ALLOC_CONF=expandable_"
				"segments:True)");
	else
		dlt_finding_fix(c, f,
				"no algorithm of this cuDNN runs this problem: "
				"check its data type and layout, or try "
				"another cuDNN version");
}

static void dlt_selection_backend(struct dlt_rule_ctx *c,
				  const struct dlt_conv_entry *e)
{
	int64_t ver = dlt_gpu_cudnn_version(c->g);
	char label[768];
	dlt_problem_label(e, label, sizeof(label));
	struct dlt_finding *f = dlt_rule_finding(
		c, DLT_SEV_ERROR,
		"no execution plan could be finalized for %s (%zu tried)",
		label, e->nplans);
	f->ts = e->plans[0].ts;
	struct dlt_val *ev = f->evidence;
	dlt_ev_problem(ev, e);
	dlt_obj_str(ev, "selection", "cudnnBackendFinalize");
	struct dlt_val *arr = dlt_obj_array(ev, "plans");
	bool alloc = false;
	for (size_t i = 0; i < e->nplans; i++) {
		const struct dlt_bk_plan *p = &e->plans[i];
		struct dlt_val *o = dlt_arr_object(arr);
		dlt_obj_int(o, "engine", p->engine);
		dlt_obj_int(o, "status", p->status);
		dlt_obj_str(o, "status_name",
			    dlt_status_name(DLT_FAM_CUDNN, ver, p->status));
		alloc |= dlt_cudnn_alloc_failed(
			dlt_cudnn_status_major(ver, p->status), p->status);
	}
	dlt_obj_uint(ev, "engine_config_failures", e->other_failures);
	dlt_explain_api(c, 104, 0, true); /* cudnnBackendFinalize */
	dlt_finding_fix(c, f,
			alloc ? "cuDNN could not get GPU memory for any plan: "
				"lower the batch size or free GPU memory"
			      : "no engine of this cuDNN supports this graph: "
				"try another cuDNN version, or the legacy API "
				"(TORCH_CUDNN_V8_API_DISABLED=1)");
}

static void dlt_rule_algo_selection(struct dlt_rule_ctx *c)
{
	const struct dlt_conv_set *s = &c->g->conv;
	for (size_t i = 0; i < s->n; i++) {
		const struct dlt_conv_entry *e = &s->e[i];
		if (e->last.valid &&
		    (e->last.status != 0 || dlt_conv_best(&e->last) < 0))
			dlt_selection_legacy(c, e);
		bool any_ok = false;
		for (size_t k = 0; k < e->nplans && !any_ok; k++)
			any_ok = e->plans[k].status == 0;
		if (e->nplans > 0 && !any_ok)
			dlt_selection_backend(c, e);
	}
}

DLT_RULE(algo_selection, 80, "ALGO_SELECTION_FAILED", DLT_SEV_ERROR,
	 dlt_rule_algo_selection, NULL,
	 "a convolution algorithm selection returned no usable candidate");
