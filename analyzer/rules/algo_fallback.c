/* ALGO_FALLBACK: a convolution ran with an algorithm other than the best
 * one its selection returned with success, or after candidates ranked
 * ahead of it failed (jax#10989: faster algorithms failed with
 * CUDNN_STATUS_ALLOC_FAILED and a slow one ran).
 *
 * Legacy API: cuDNN returns candidates best first (by measured time for
 * Find, by expected speed for the heuristics) with the failures after the
 * successes, so a failure ranked ahead of the algorithm that ran, or one
 * with a shorter measured time, is a candidate that would have been picked.
 * Backend API: cudnn-frontend finalizes engine configurations in the
 * heuristics' order and takes the first that works, so plans that failed to
 * finalize before the one that ran are the candidates ahead of it.
 *
 * A warning, except when every candidate ahead failed with NOT_SUPPORTED and
 * nothing else is wrong: the library says it does not apply them to this
 * problem, which is routine for the backend's heuristics, so that is an
 * info (still listed with its evidence). */
#include <stdio.h>
#include <string.h>

#include "rules.h"

#define DLT_MAX_AHEAD 16

static int dlt_cand_index(const struct dlt_conv_sel *sel, int32_t algo)
{
	int any = -1;
	for (uint32_t i = 0; i < sel->n; i++) {
		if (sel->c[i].algo != algo)
			continue;
		if (sel->c[i].status == 0)
			return (int)i;
		if (any < 0)
			any = (int)i;
	}
	return any;
}

static void dlt_fallback_legacy(struct dlt_rule_ctx *c,
				const struct dlt_conv_entry *e)
{
	int64_t ver = dlt_gpu_cudnn_version(c->g);
	for (size_t k = 0; k < e->nexec; k++) {
		const struct dlt_conv_exec *x = &e->exec[k];
		/* Judged against the selection it followed; a run that
		 * failed is API_ERROR's. */
		const struct dlt_conv_sel *sel =
			dlt_conv_sel_by_seq(e, x->sel_seq);
		if (sel == NULL || x->t.count == x->t.failed || x->algo < 0)
			continue;
		int b = dlt_conv_best(sel);
		if (b < 0)
			continue; /* ALGO_SELECTION_FAILED's */
		const struct dlt_conv_cand *best = &sel->c[b];
		int ix = dlt_cand_index(sel, x->algo);
		float tx = ix >= 0 && sel->c[ix].status == 0
				   ? sel->c[ix].time_ms
				   : -1.0f;
		bool not_best =
			x->algo != best->algo &&
			!(tx >= 0 && best->time_ms >= 0 && tx <= best->time_ms);
		int ahead[DLT_MAX_AHEAD];
		size_t nahead = 0;
		bool alloc = false, serious = not_best;
		for (uint32_t j = 0; j < sel->n && nahead < DLT_MAX_AHEAD;
		     j++) {
			const struct dlt_conv_cand *cd = &sel->c[j];
			if (cd->status == 0 || cd->algo == x->algo)
				continue;
			bool ranked = ix < 0 || (int)j < ix;
			bool faster = cd->time_ms >= 0 &&
				      (tx < 0 || cd->time_ms < tx);
			if (!ranked && !faster)
				continue;
			ahead[nahead++] = (int)j;
			int m = dlt_cudnn_status_major(ver, cd->status);
			alloc |= dlt_cudnn_alloc_failed(m, cd->status);
			serious |= !dlt_cudnn_not_supported(m, cd->status);
		}
		if (!not_best && nahead == 0)
			continue;

		char label[768], xa[96], ba[96], st[96];
		const struct dlt_api_desc *a = dlt_api_by_id(sel->api);
		const char *sname = a ? a->name : "the selection";
		dlt_problem_label(e, label, sizeof(label));
		dlt_algo_label(e->dir, x->algo, xa, sizeof(xa));
		dlt_algo_label(e->dir, best->algo, ba, sizeof(ba));
		uint64_t ok = x->t.count - x->t.failed;
		enum dlt_severity sev =
			serious ? DLT_SEV_WARNING : DLT_SEV_INFO;
		struct dlt_finding *f;
		if (not_best && tx >= 0 && best->time_ms >= 0)
			f = dlt_rule_finding(
				c, sev,
				"%s: %s ran %" PRIu64 " time%s after %s, "
				"whose fastest successful candidate was %s "
				"(%.3f ms vs %.3f ms)",
				label, xa, ok, ok == 1 ? "" : "s", sname, ba,
				(double)best->time_ms, (double)tx);
		else if (not_best)
			f = dlt_rule_finding(
				c, sev,
				"%s: %s ran %" PRIu64 " time%s after %s, "
				"whose best successful candidate was %s",
				label, xa, ok, ok == 1 ? "" : "s", sname, ba);
		else {
			/* The failed one's measured time, when there is one. */
			const struct dlt_conv_cand *fa0 = &sel->c[ahead[0]];
			char times[96] = "";
			if (fa0->time_ms >= 0 && tx >= 0)
				snprintf(times, sizeof(times),
					 ", measured %.3f ms vs %.3f ms",
					 (double)fa0->time_ms, (double)tx);
			f = dlt_rule_finding(
				c, sev,
				"%s: %s ran %" PRIu64 " time%s after %s ranked "
				"%zu failed candidate%s ahead of it (%s: %s%s)",
				label, xa, ok, ok == 1 ? "" : "s", sname,
				nahead, nahead == 1 ? "" : "s",
				dlt_algo_label(e->dir, fa0->algo, ba,
					       sizeof(ba)),
				dlt_status_describe(DLT_FAM_CUDNN, ver,
						    fa0->status, st,
						    sizeof(st)),
				times);
		}
		f->ts = x->t.first_ts;
		struct dlt_val *ev = f->evidence;
		dlt_ev_problem(ev, e);
		dlt_obj_str(ev, "selection", a ? a->name : NULL);
		dlt_obj_uint(ev, "selection_seq", sel->seq);
		struct dlt_val *xo = dlt_obj_object(ev, "executed");
		dlt_obj_int(xo, "algo", x->algo);
		dlt_obj_str(xo, "name", dlt_conv_algo_name(e->dir, x->algo));
		dlt_obj_uint(xo, "count", x->t.count);
		double mean = dlt_timing_mean_us(&x->t);
		if (mean >= 0)
			dlt_obj_double(xo, "mean_call_us", mean);
		if (tx >= 0)
			dlt_obj_double(xo, "selection_time_ms", tx);
		else
			dlt_obj_null(xo, "selection_time_ms");
		struct dlt_val *bo = dlt_obj_object(ev, "best");
		dlt_obj_int(bo, "algo", best->algo);
		dlt_obj_str(bo, "name", dlt_conv_algo_name(e->dir, best->algo));
		if (best->time_ms >= 0)
			dlt_obj_double(bo, "time_ms", best->time_ms);
		else
			dlt_obj_null(bo, "time_ms");
		dlt_obj_uint(bo, "memory", best->memory);
		if (tx >= 0 && best->time_ms >= 0)
			dlt_obj_double(ev, "time_difference_ms",
				       (double)tx - (double)best->time_ms);
		else
			dlt_obj_null(ev, "time_difference_ms");
		/* What the fastest failed candidate would have saved. */
		float fastest_failed = -1.0f;
		for (size_t j = 0; j < nahead; j++) {
			float t = sel->c[ahead[j]].time_ms;
			if (t >= 0 &&
			    (fastest_failed < 0 || t < fastest_failed))
				fastest_failed = t;
		}
		if (tx >= 0 && fastest_failed >= 0)
			dlt_obj_double(ev, "failed_ahead_difference_ms",
				       (double)tx - (double)fastest_failed);
		else
			dlt_obj_null(ev, "failed_ahead_difference_ms");
		struct dlt_val *fa = dlt_obj_array(ev, "failed_ahead");
		for (size_t j = 0; j < nahead; j++) {
			const struct dlt_conv_cand *cd = &sel->c[ahead[j]];
			struct dlt_val *o = dlt_arr_object(fa);
			dlt_obj_int(o, "algo", cd->algo);
			dlt_obj_str(o, "name",
				    dlt_conv_algo_name(e->dir, cd->algo));
			dlt_obj_int(o, "status", cd->status);
			dlt_obj_str(o, "status_name",
				    dlt_status_name(DLT_FAM_CUDNN, ver,
						    cd->status));
			if (cd->time_ms >= 0)
				dlt_obj_double(o, "time_ms", cd->time_ms);
			else
				dlt_obj_null(o, "time_ms");
			dlt_obj_uint(o, "memory", cd->memory);
		}
		dlt_ev_candidates(dlt_obj_array(ev, "candidates"), e, sel, ver);
		if (alloc)
			dlt_finding_fix(
				c, f,
				"the faster algorithm could not get its "
				"workspace: free GPU memory or allow a "
				"larger workspace (PyTorch: "
				"torch.backends.cudnn.benchmark=True "
				"with more free memory; JAX/XLA: "
				"XLA_PYTHON_CLIENT_MEM_FRACTION)");
		else if (not_best)
			dlt_finding_fix(c, f,
					"the program (or framework) picked "
					"another algorithm than cuDNN ranked "
					"first: check its workspace limit and "
					"determinism settings (PyTorch: "
					"torch.backends.cudnn.deterministic, "
					"benchmark)");
		else
			dlt_finding_fix(c, f,
					"see why the candidates ranked ahead "
					"failed (evidence failed_ahead); a "
					"newer cuDNN may support them");
	}
}

/* One executed plan and the plans that failed to finalize right before
 * it (since the previous plan that finalized). */
static void dlt_backend_one(struct dlt_rule_ctx *c,
			    const struct dlt_conv_entry *e,
			    const struct dlt_bk_plan *ran,
			    const struct dlt_bk_plan *const *failed, size_t nf)
{
	int64_t ver = dlt_gpu_cudnn_version(c->g);
	bool serious = false;
	for (size_t i = 0; i < nf; i++)
		serious |= !dlt_cudnn_not_supported(
			dlt_cudnn_status_major(ver, failed[i]->status),
			failed[i]->status);
	char label[768], st[96];
	dlt_problem_label(e, label, sizeof(label));
	struct dlt_finding *f = dlt_rule_finding(
		c, serious ? DLT_SEV_WARNING : DLT_SEV_INFO,
		"%s: engine %" PRId32 " ran %" PRIu64 " time%s after %zu "
		"plan%s failed to finalize (engine %" PRId32 ": %s)",
		label, ran->engine, ran->t.count, ran->t.count == 1 ? "" : "s",
		nf, nf == 1 ? "" : "s", failed[0]->engine,
		dlt_status_describe(DLT_FAM_CUDNN, ver, failed[0]->status, st,
				    sizeof(st)));
	f->ts = ran->t.first_ts;
	struct dlt_val *ev = f->evidence;
	dlt_ev_problem(ev, e);
	dlt_obj_str(ev, "selection", "cudnnBackendFinalize");
	struct dlt_val *xo = dlt_obj_object(ev, "executed");
	dlt_obj_int(xo, "engine", ran->engine);
	struct dlt_val *kn = dlt_obj_object(xo, "knobs");
	for (uint32_t k = 0; k < ran->n_knobs; k++) {
		char key[32];
		snprintf(key, sizeof(key), "%" PRId64, ran->knobs[k].type);
		dlt_obj_int(kn, key, ran->knobs[k].value);
	}
	dlt_obj_uint(xo, "count", ran->t.count);
	double mean = dlt_timing_mean_us(&ran->t);
	if (mean >= 0)
		dlt_obj_double(xo, "mean_call_us", mean);
	struct dlt_val *fa = dlt_obj_array(ev, "failed_ahead");
	bool alloc = false;
	for (size_t i = 0; i < nf; i++) {
		struct dlt_val *o = dlt_arr_object(fa);
		dlt_obj_int(o, "engine", failed[i]->engine);
		dlt_obj_int(o, "status", failed[i]->status);
		dlt_obj_str(
			o, "status_name",
			dlt_status_name(DLT_FAM_CUDNN, ver, failed[i]->status));
		alloc |= dlt_cudnn_alloc_failed(
			dlt_cudnn_status_major(ver, failed[i]->status),
			failed[i]->status);
	}
	dlt_obj_null(ev, "time_difference_ms");
	dlt_finding_fix(c, f, "%s",
			alloc ? "the preferred engine could not get GPU "
				"memory: free GPU memory or lower the batch "
				"size"
			: serious
				? "see why the preferred engine failed "
				  "(evidence failed_ahead); a newer cuDNN may "
				  "fix it"
				: "nothing to do unless this problem is slow: "
				  "the heuristics' first engines do not apply "
				  "to it in this cuDNN; compare with `diff` "
				  "against another version");
}

static void dlt_fallback_backend(struct dlt_rule_ctx *c,
				 const struct dlt_conv_entry *e)
{
	/* Plans are kept in the order they were finalized. */
	const struct dlt_bk_plan *failed[DLT_MAX_AHEAD];
	size_t nf = 0;
	for (size_t i = 0; i < e->nplans; i++) {
		const struct dlt_bk_plan *p = &e->plans[i];
		if (p->status != 0) {
			if (nf < DLT_MAX_AHEAD)
				failed[nf++] = p;
			continue;
		}
		if (p->t.count > 0 && nf > 0)
			dlt_backend_one(c, e, p, failed, nf);
		nf = 0;
	}
}

static void dlt_rule_algo_fallback(struct dlt_rule_ctx *c)
{
	const struct dlt_conv_set *s = &c->g->conv;
	for (size_t i = 0; i < s->n; i++) {
		const struct dlt_conv_entry *e = &s->e[i];
		if (e->nexec > 0)
			dlt_fallback_legacy(c, e);
		if (e->nplans > 0)
			dlt_fallback_backend(c, e);
	}
}

DLT_RULE(algo_fallback, 90, "ALGO_FALLBACK", DLT_SEV_WARNING,
	 dlt_rule_algo_fallback, NULL,
	 "a convolution ran with another algorithm than the best candidate");
