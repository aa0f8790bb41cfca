/* "algos": cuDNN convolutions, problem by problem: what the selection was
 * asked, every candidate it returned, what ran, how often and how long;
 * the legacy API (ALGO_RESULT) and the backend API (BK_FINALIZE and
 * cudnnBackendExecute) alike.  Traces are read one at a time. */
#include <inttypes.h>
#include <string.h>

#include "apinames.h"
#include "commands.h"
#include "sections.h"
#include "conv.h"
#include "job.h"
#include "gpu.h"
#include "json.h"
#include "status.h"

const char dlt_algos_usage[] =
	"usage: dltrace-analyze algos [--json] [--run ID] PATH...\n"
	"\n"
	"For each process and each cuDNN convolution problem (shape and\n"
	"direction): the latest algorithm selection (the API, how many\n"
	"candidates were asked for, how long it took) with every candidate\n"
	"(algorithm, status, measured time, workspace memory), the algorithms\n"
	"executed with their call counts and host-side call times, and for\n"
	"the backend API every execution plan finalized (engine, knobs,\n"
	"status) and executed.\n"
	"\n"
	"  --json   one JSON object: "
	"{\"processes\":[{...,\"problems\":[...]}]}\n"
	"  --run ID only the traces of that run of the launcher (summary\n"
	"           shows each run's identity)\n"
	"\n"
	"PATH is a trace file or a directory of *.dltrace files.  Damage in a\n"
	"trace and inputs that cannot be read are reported on stderr.\n"
	"\n"
	"exit status: 0, or 2 for bad arguments or when no input could be\n"
	"read at all.\n";

static const char *dlt_kind_name(enum dlt_conv_kind k)
{
	switch (k) {
	case DLT_CONV_PREF:
		return "preference";
	case DLT_CONV_HEUR:
		return "heuristics";
	case DLT_CONV_FIND:
		return "measured";
	default:
		return "?";
	}
}

/* ---- text ---------------------------------------------------------------- */

static void dlt_text_timing(FILE *out, const struct dlt_timing *t)
{
	fprintf(out, "%" PRIu64 " call%s", t->count, t->count == 1 ? "" : "s");
	if (t->timed)
		fprintf(out, ", mean %.1f us (min %.1f, max %.1f)",
			dlt_timing_mean_us(t), (double)t->min_ns / 1000.0,
			(double)t->max_ns / 1000.0);
	if (t->failed)
		fprintf(out, ", %" PRIu64 " failed", t->failed);
}

static void dlt_text_exec(FILE *out, const struct dlt_conv_entry *e,
			  const struct dlt_conv_exec *x, const char *indent)
{
	const char *n = dlt_conv_algo_name(e->dir, x->algo);
	fprintf(out, "%sexecuted algo %" PRId32 "%s%s%s: ", indent, x->algo,
		n ? " (" : "", n ? n : "", n ? ")" : "");
	dlt_text_timing(out, &x->t);
	fputc('\n', out);
}

static void dlt_text_selection(FILE *out, const struct dlt_conv_set *s,
			       const struct dlt_conv_entry *e,
			       const struct dlt_conv_sel *sel)
{
	char st[96];
	const struct dlt_api_desc *a = dlt_api_by_id(sel->api);
	fprintf(out, "    selection %" PRIu64 ": %s (%s)", sel->seq,
		a ? a->name : "?", dlt_kind_name(sel->kind));
	if (sel->requested >= 0)
		fprintf(out, ", asked for %" PRId64, sel->requested);
	if (sel->workspace >= 0)
		fprintf(out, " with %" PRId64 " B of workspace",
			sel->workspace);
	fprintf(out, ", returned %" PRIu32, sel->n);
	if (sel->have_call)
		fprintf(out, ", took %.3f ms", (double)sel->call_ns / 1e6);
	if (sel->status != 0)
		fprintf(out, ", FAILED %s",
			dlt_status_describe(DLT_FAM_CUDNN, s->cudnn_version,
					    sel->status, st, sizeof(st)));
	fputc('\n', out);
	int best = dlt_conv_best(sel);
	for (uint32_t i = 0; i < sel->n; i++) {
		const struct dlt_conv_cand *c = &sel->c[i];
		const char *n = dlt_conv_algo_name(e->dir, c->algo);
		char algo[64], time[32];
		snprintf(algo, sizeof(algo), "%" PRId32 " %s", c->algo,
			 n ? n : "");
		if (c->time_ms >= 0)
			snprintf(time, sizeof(time), "%.3f ms",
				 (double)c->time_ms);
		else
			snprintf(time, sizeof(time), "-");
		fprintf(out, "      %s %-26s %-52s %10s %12" PRIu64 " B\n",
			(int)i == best ? "*" : " ", algo,
			dlt_status_describe(DLT_FAM_CUDNN, s->cudnn_version,
					    c->status, st, sizeof(st)),
			time, c->memory);
	}
	for (size_t i = 0; i < e->nexec; i++)
		if (e->exec[i].sel_seq == sel->seq)
			dlt_text_exec(out, e, &e->exec[i], "      ");
}

static void dlt_text_entry(FILE *out, const struct dlt_conv_set *s,
			   const struct dlt_conv_entry *e)
{
	char buf[512], st[96];
	fprintf(out, "  conv %s ", dlt_conv_dir_name(e->dir));
	if (e->has_shape)
		fputs(dlt_conv_problem_str(&e->shape, buf, sizeof(buf)), out);
	else
		fputs("(shape not recorded)", out);
	fprintf(out, "  [problem %016" PRIx64 "]\n", e->problem);
	fprintf(out, "    %" PRIu64 " selection%s", e->nsel,
		e->nsel == 1 ? "" : "s");
	if (e->nsel_failed)
		fprintf(out, ", %" PRIu64 " failed", e->nsel_failed);
	if (e->nsel > DLT_CONV_KEEP_SELS)
		fprintf(out, " (the last %d shown)", DLT_CONV_KEEP_SELS);
	fputc('\n', out);
	uint64_t from = e->nsel > DLT_CONV_KEEP_SELS
				? e->nsel - DLT_CONV_KEEP_SELS + 1
				: 1;
	for (uint64_t q = from; q <= e->nsel; q++) {
		const struct dlt_conv_sel *sel = dlt_conv_sel_by_seq(e, q);
		if (sel)
			dlt_text_selection(out, s, e, sel);
	}
	/* Executions with no selection kept (merged runs, old ones). */
	for (size_t i = 0; i < e->nexec; i++) {
		const struct dlt_conv_exec *x = &e->exec[i];
		if (dlt_conv_sel_by_seq(e, x->sel_seq) == NULL)
			dlt_text_exec(out, e, x, "    ");
	}
	if (e->nplans) {
		fprintf(out, "    backend plans finalized: %zu", e->nplans);
		if (e->plans_dropped)
			fprintf(out, " (+%" PRIu64 " not kept)",
				e->plans_dropped);
		if (e->other_failures)
			fprintf(out, ", %" PRIu64 " engine configs failed",
				e->other_failures);
		fputc('\n', out);
	}
	for (size_t i = 0; i < e->nplans; i++) {
		const struct dlt_bk_plan *p = &e->plans[i];
		fprintf(out, "      engine %-4" PRId32, p->engine);
		for (uint32_t k = 0; k < p->n_knobs; k++)
			fprintf(out, "%sk%" PRId64 "=%" PRId64,
				k ? "," : " knobs ", p->knobs[k].type,
				p->knobs[k].value);
		fprintf(out, "  %s",
			p->status == 0 ? "finalized"
				       : dlt_status_describe(DLT_FAM_CUDNN,
							     s->cudnn_version,
							     p->status, st,
							     sizeof(st)));
		if (p->t.count) {
			fputs("  executed ", out);
			dlt_text_timing(out, &p->t);
		}
		fputc('\n', out);
	}
	struct dlt_conv_choice ch;
	dlt_conv_choice(e, &ch);
	fprintf(out, "    choice: %s%s\n",
		dlt_conv_choice_str(e, &ch, buf, sizeof(buf)),
		ch.known && !ch.executed ? " (selected, never executed)" : "");
}

static void dlt_algos_text_process(FILE *out, const struct dlt_process *p,
				   const struct dlt_gpu *g)
{
	fprintf(out, "pid %" PRIu32, p->hdr.pid);
	if (p->rank >= 0)
		fprintf(out, " rank %" PRId32, p->rank);
	fputs(" (", out);
	dlt_fput_text(out, p->exe ? dlt_basename(p->exe) : NULL, "?");
	fputs(") [", out);
	dlt_fput_text(out, p->trace, "");
	fprintf(out, "]: %zu convolution problem%s", g->conv.n,
		g->conv.n == 1 ? "" : "s");
	if (g->conv.cudnn_version) {
		char v[32];
		fprintf(out, ", cuDNN %s",
			dlt_cudnn_version_str(g->conv.cudnn_version, v,
					      sizeof(v)));
	}
	fputc('\n', out);
	for (size_t i = 0; i < g->conv.n; i++)
		dlt_text_entry(out, &g->conv, &g->conv.e[i]);
}

/* ---- JSON ---------------------------------------------------------------- */

static void dlt_json_timing(struct dlt_json *j, const struct dlt_timing *t)
{
	dlt_json_kv_uint(j, "count", t->count);
	dlt_json_kv_uint(j, "failed", t->failed);
	double mean = dlt_timing_mean_us(t);
	if (mean >= 0) {
		dlt_json_kv_double(j, "mean_us", mean);
		dlt_json_kv_double(j, "min_us", (double)t->min_ns / 1000.0);
		dlt_json_kv_double(j, "max_us", (double)t->max_ns / 1000.0);
		dlt_json_kv_double(j, "total_ms", (double)t->total_ns / 1e6);
	} else {
		dlt_json_kv_null(j, "mean_us");
	}
}

static void dlt_json_selection(struct dlt_json *j, const struct dlt_conv_set *s,
			       const struct dlt_conv_entry *e,
			       const struct dlt_conv_sel *sel)
{
	const struct dlt_api_desc *a = dlt_api_by_id(sel->api);
	dlt_json_object_begin(j);
	dlt_json_kv_uint(j, "seq", sel->seq);
	dlt_json_kv_string(j, "api", a ? a->name : NULL);
	dlt_json_kv_string(j, "kind", dlt_kind_name(sel->kind));
	dlt_json_kv_int(j, "status", sel->status);
	dlt_json_kv_string(
		j, "status_name",
		dlt_status_name(DLT_FAM_CUDNN, s->cudnn_version, sel->status));
	if (sel->requested >= 0)
		dlt_json_kv_int(j, "requested", sel->requested);
	else
		dlt_json_kv_null(j, "requested");
	if (sel->workspace >= 0)
		dlt_json_kv_int(j, "workspace", sel->workspace);
	if (sel->have_call)
		dlt_json_kv_double(j, "call_ms", (double)sel->call_ns / 1e6);
	else
		dlt_json_kv_null(j, "call_ms");
	dlt_json_kv_int(j, "best", dlt_conv_best(sel));
	dlt_json_key(j, "candidates");
	dlt_json_array_begin(j);
	for (uint32_t i = 0; i < sel->n; i++) {
		const struct dlt_conv_cand *c = &sel->c[i];
		dlt_json_object_begin(j);
		dlt_json_kv_int(j, "algo", c->algo);
		dlt_json_kv_string(j, "name",
				   dlt_conv_algo_name(e->dir, c->algo));
		dlt_json_kv_int(j, "status", c->status);
		dlt_json_kv_string(j, "status_name",
				   dlt_status_name(DLT_FAM_CUDNN,
						   s->cudnn_version,
						   c->status));
		if (c->time_ms >= 0)
			dlt_json_kv_double(j, "time_ms", c->time_ms);
		else
			dlt_json_kv_null(j, "time_ms");
		dlt_json_kv_uint(j, "memory", c->memory);
		dlt_json_kv_int(j, "determinism", c->determinism);
		dlt_json_kv_int(j, "math_type", c->math_type);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
	dlt_json_object_end(j);
}

static void dlt_json_entry(struct dlt_json *j, const struct dlt_conv_set *s,
			   const struct dlt_conv_entry *e)
{
	dlt_json_object_begin(j);
	dlt_json_conv_problem(j, e);
	dlt_json_kv_uint(j, "selections", e->nsel);
	dlt_json_kv_uint(j, "failed_selections", e->nsel_failed);
	dlt_json_key(j, "selections_kept");
	dlt_json_array_begin(j);
	uint64_t from = e->nsel > DLT_CONV_KEEP_SELS
				? e->nsel - DLT_CONV_KEEP_SELS + 1
				: 1;
	for (uint64_t q = from; q <= e->nsel; q++) {
		const struct dlt_conv_sel *sel = dlt_conv_sel_by_seq(e, q);
		if (sel)
			dlt_json_selection(j, s, e, sel);
	}
	dlt_json_array_end(j);
	dlt_json_key(j, "executions");
	dlt_json_array_begin(j);
	for (size_t i = 0; i < e->nexec; i++) {
		dlt_json_object_begin(j);
		dlt_json_kv_int(j, "algo", e->exec[i].algo);
		dlt_json_kv_string(j, "name",
				   dlt_conv_algo_name(e->dir, e->exec[i].algo));
		if (e->exec[i].sel_seq)
			dlt_json_kv_uint(j, "after_selection",
					 e->exec[i].sel_seq);
		else
			dlt_json_kv_null(j, "after_selection");
		dlt_json_timing(j, &e->exec[i].t);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
	dlt_json_key(j, "plans");
	dlt_json_array_begin(j);
	for (size_t i = 0; i < e->nplans; i++) {
		const struct dlt_bk_plan *p = &e->plans[i];
		dlt_json_object_begin(j);
		dlt_json_kv_int(j, "engine", p->engine);
		dlt_json_key(j, "knobs");
		dlt_json_object_begin(j);
		for (uint32_t k = 0; k < p->n_knobs; k++) {
			char key[32];
			snprintf(key, sizeof(key), "%" PRId64,
				 p->knobs[k].type);
			dlt_json_kv_int(j, key, p->knobs[k].value);
		}
		dlt_json_object_end(j);
		dlt_json_kv_int(j, "status", p->status);
		dlt_json_kv_string(j, "status_name",
				   dlt_status_name(DLT_FAM_CUDNN,
						   s->cudnn_version,
						   p->status));
		dlt_json_key(j, "executions");
		dlt_json_object_begin(j);
		dlt_json_timing(j, &p->t);
		dlt_json_object_end(j);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
	dlt_json_kv_uint(j, "plans_not_kept", e->plans_dropped);
	dlt_json_kv_uint(j, "engine_config_failures", e->other_failures);
	struct dlt_conv_choice ch;
	dlt_conv_choice(e, &ch);
	dlt_json_key(j, "choice");
	dlt_json_conv_choice(j, e, &ch);
	dlt_json_object_end(j);
}

void dlt_algos_json_process(struct dlt_json *j, const struct dlt_process *p,
			    const struct dlt_gpu *g)
{
	char v[32];
	dlt_json_object_begin(j);
	dlt_json_kv_uint(j, "pid", p->hdr.pid);
	if (p->rank >= 0)
		dlt_json_kv_int(j, "rank", p->rank);
	else
		dlt_json_kv_null(j, "rank");
	dlt_json_kv_string(j, "host", p->host);
	dlt_json_kv_string(j, "exe", p->exe);
	dlt_json_kv_string(j, "trace", p->trace);
	dlt_json_kv_string(
		j, "cudnn",
		g->conv.cudnn_version
			? dlt_cudnn_version_str(g->conv.cudnn_version, v,
						sizeof(v))
			: NULL);
	dlt_json_key(j, "problems");
	dlt_json_array_begin(j);
	for (size_t i = 0; i < g->conv.n; i++)
		dlt_json_entry(j, &g->conv, &g->conv.e[i]);
	dlt_json_array_end(j);
	dlt_json_object_end(j);
}

int dlt_cmd_algos(int argc, char **argv)
{
	bool json = false;
	const char *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL},
					    {"--run", NULL, &run}};
	int npaths;
	int rc = dlt_cmd_args("algos", dlt_algos_usage, argc, argv, opts, 2,
			      &npaths);
	if (rc >= 0)
		return rc;
	struct dlt_job jb;
	rc = dlt_cmd_job("algos", run, NULL, npaths, argv, &jb);
	if (rc >= 0)
		return rc;
	struct dlt_json j;
	if (json) {
		dlt_json_init(&j, stdout, true);
		dlt_json_object_begin(&j);
		dlt_json_key(&j, "processes");
		dlt_json_array_begin(&j);
	}
	for (size_t i = 0; i < jb.ntraces; i++) {
		struct dlt_gpu g;
		struct dlt_trace *t = dlt_job_take(&jb, i);
		struct dlt_process *p = dlt_process_read_gpu(t, &g);
		dlt_trace_close(t);
		for (size_t k = 0; k < p->nproblems; k++)
			fprintf(stderr, "dltrace-analyze: %s: %s\n", p->trace,
				p->problems[k]);
		if (json) {
			dlt_algos_json_process(&j, p, &g);
		} else {
			if (i)
				fputc('\n', stdout);
			dlt_algos_text_process(stdout, p, &g);
		}
		dlt_process_free(p);
		dlt_gpu_free(&g);
	}
	dlt_job_close(&jb);
	if (json) {
		dlt_json_array_end(&j);
		dlt_json_object_end(&j);
		if (dlt_json_finish(&j) != 0 && !ferror(stdout))
			fputs("dltrace-analyze: internal error: malformed JSON "
			      "output\n",
			      stderr);
	}
	return DLT_EXIT_OK;
}
