/* "env": one screen per job of what shaped its environment: the system,
 * the NVIDIA driver, each GPU library (version, file, the loader rule that
 * chose it, how it was installed), NCCL's plugins, Python and torch, and
 * the variables that steer loading and the GPU libraries.  What every rank
 * agrees on is said once; where they differ, each value names who has
 * it. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "sections.h"
#include "envprof.h"
#include "gpu.h"
#include "job.h"
#include "json.h"
#include "text.h"

const char dlt_env_usage[] =
	"usage: dltrace-analyze env [--json] DIR...\n"
	"\n"
	"Each DIR (a directory of *.dltrace files, or one trace) is one job.\n"
	"For each: the hosts and ranks, then the system (OS, kernel, glibc,\n"
	"NVIDIA driver, CUDA driver API, Python, torch), the GPU libraries\n"
	"(version, file, the loader rule that chose it, how it was\n"
	"installed), NCCL plugins and the variables that shape loading and\n"
	"the GPU libraries (LD_*, CUDA_*, NCCL_*, CUDNN_*, TORCH_*, OMP_*,\n"
	"PYTHON* ...).  A value every rank has is printed once; where ranks\n"
	"differ, each value names the ranks (and hosts) that have it.  The\n"
	"processes of a rank are taken together; without ranks, each process\n"
	"that loaded a GPU library or ran Python is one.\n"
	"\n"
	"  --json   {\"jobs\": [{\"input\", \"units\", \"items\"}]}; each "
	"item\n"
	"           has kind, key, same and values (each with the units that\n"
	"           have it)\n"
	"\n"
	"exit status: 0 shown, 2 bad arguments or a job without a usable\n"
	"trace.\n";

void dlt_env_job_add(struct dlt_env_job *e, const struct dlt_process *p,
		     const struct dlt_gpu *g)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 16;
		e->profs = dlt_xrealloc(e->profs, e->cap, sizeof(*e->profs));
	}
	e->profs[e->n++] = dlt_envprof_build(&e->arena, p, g, false);
}

size_t dlt_env_job_finish(struct dlt_env_job *e)
{
	e->units = dlt_envp_units(&e->arena, e->profs, e->n, &e->nu);
	return e->nu;
}

static int dlt_env_load(struct dlt_env_job *e, char *arg)
{
	struct dlt_job j;
	char *args[] = {arg};
	struct dlt_job_opts o = {.order = DLT_JOB_BY_START};
	memset(e, 0, sizeof(*e));
	e->arg = arg;
	dlt_job_open(&j, 1, args, &o);
	dlt_job_say_errors(&j, stderr);
	for (size_t i = 0; i < j.ntraces; i++) {
		struct dlt_gpu g;
		struct dlt_trace *t = dlt_job_take(&j, i);
		struct dlt_process *p = dlt_process_read_gpu(t, &g);
		dlt_trace_close(t);
		if (p) {
			dlt_env_job_add(e, p, &g);
			dlt_process_free(p);
		}
		dlt_gpu_free(&g);
	}
	dlt_job_close(&j);
	return dlt_env_job_finish(e) ? 0 : -1;
}

void dlt_env_free(struct dlt_env_job *e)
{
	free(e->units);
	free(e->profs);
	dlt_arena_free(e->arena);
}

/* What a missing key means in its section. */
static const char *dlt_env_absent(enum dlt_envp_kind k)
{
	return k == DLT_ENVP_VAR   ? "(unset)"
	       : k == DLT_ENVP_SYS ? "(unknown)"
				   : "(not loaded)";
}

static void dlt_env_text_value(FILE *out, const struct dlt_envp_item *it,
			       enum dlt_envp_kind k)
{
	dlt_fput_text(out, it ? it->value : dlt_env_absent(k), "");
	if (it == NULL)
		return;
	if (it->path && (k == DLT_ENVP_GPU_LIB || k == DLT_ENVP_PLUGIN)) {
		fputs("  ", out);
		dlt_fput_text(out, it->path, "");
		fprintf(out, " (%s", it->via ? it->via : "?");
		if (it->installed)
			fprintf(out, ", installed by %s", it->installed);
		fputc(')', out);
	} else if (it->from && k == DLT_ENVP_SYS) {
		fprintf(out, "  (%s)", it->from);
	}
}

/* The units that lack a key whose absence is no difference. */
static void dlt_env_text_absent(FILE *out, const struct dlt_env_job *e,
				const struct dlt_envp_group *absent,
				enum dlt_envp_kind k)
{
	char who[512];
	if (absent->n)
		fprintf(out, "    %s: %s\n",
			dlt_envp_who(e->units, absent, who, sizeof(who)),
			dlt_env_absent(k));
}

static void dlt_env_text(FILE *out, const struct dlt_env_job *e)
{
	fputs("job ", out);
	dlt_fput_text(out, e->arg, "");
	bool ranks = e->nu && e->units[0].prof->rank >= 0;
	size_t hosts = 0;
	for (size_t i = 0; i < e->nu; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(e->units[k].prof->host,
				      e->units[i].prof->host) == 0;
		hosts += !seen;
	}
	fprintf(out, ": %zu process%s, %zu %s on %zu host%s\n", e->n,
		e->n == 1 ? "" : "es", e->nu,
		ranks ? (e->nu == 1 ? "rank" : "ranks")
		      : (e->nu == 1 ? "process shown" : "processes shown"),
		hosts, hosts == 1 ? "" : "s");
	for (size_t i = 0; i < e->nu; i++) {
		fprintf(out, "  %s: %s\n", e->units[i].label,
			e->units[i].prof->exe ? e->units[i].prof->exe : "?");
	}
	size_t nk;
	const struct dlt_envp_item **keys = dlt_envp_keys(e->units, e->nu, &nk);
	struct dlt_envp_group *groups =
		dlt_xcalloc(e->nu ? e->nu : 1, sizeof(*groups));
	size_t *idx = dlt_xcalloc(e->nu ? e->nu : 1, sizeof(*idx));
	size_t ndiff = 0;
	static const enum dlt_envp_kind order[] = {
		DLT_ENVP_SYS, DLT_ENVP_GPU_LIB, DLT_ENVP_PLUGIN, DLT_ENVP_VAR};
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		fprintf(out, "\n%s:\n", dlt_envp_kind_name(order[o]));
		size_t shown = 0;
		for (size_t i = 0; i < nk; i++) {
			if (keys[i]->kind != order[o])
				continue;
			struct dlt_envp_group absent;
			size_t ng = dlt_envp_present(
				keys[i], groups,
				dlt_envp_groups(e->units, e->nu, keys[i],
						groups, idx),
				&absent);
			shown++;
			fprintf(out, "  %-22s ", keys[i]->key);
			if (ng == 1) {
				dlt_env_text_value(out, groups[0].item,
						   order[o]);
				fputc('\n', out);
				dlt_env_text_absent(out, e, &absent, order[o]);
				continue;
			}
			ndiff++;
			fputs("DIFFERS\n", out);
			for (size_t g = 0; g < ng; g++) {
				char who[512];
				fprintf(out, "    %s: ",
					dlt_envp_who(e->units, &groups[g], who,
						     sizeof(who)));
				dlt_env_text_value(out, groups[g].item,
						   order[o]);
				if (groups[g].item &&
				    order[o] != DLT_ENVP_VAR &&
				    order[o] != DLT_ENVP_SYS &&
				    groups[g].item->identity)
					fprintf(out, " %s",
						groups[g].item->identity);
				fputc('\n', out);
			}
			dlt_env_text_absent(out, e, &absent, order[o]);
		}
		if (shown == 0)
			fputs("  (none)\n", out);
	}
	if (e->nu > 1)
		fprintf(out, "\n%s\n",
			ndiff ? "(values without a list of ranks are the same "
				"on every one)"
			      : (ranks ? "every rank has the same values"
				       : "every process shown has the same "
					 "values"));
	free(idx);
	free(groups);
	free(keys);
}

static void dlt_env_json_item(struct dlt_json *j,
			      const struct dlt_envp_item *it)
{
	dlt_json_kv_string(j, "value", it->value);
	dlt_json_kv_string(j, "from", it->from);
	if (it->kind == DLT_ENVP_SYS || it->kind == DLT_ENVP_VAR) {
		if (it->path)
			dlt_json_kv_string(j, "path", it->path);
		return;
	}
	dlt_json_kv_string(j, "path", it->path);
	dlt_json_kv_string(j, "found_via", it->via);
	dlt_json_kv_string(j, "installed_by", it->installed);
	dlt_json_kv_string(j, "identity", it->identity);
}

void dlt_env_json(struct dlt_json *j, const struct dlt_env_job *e)
{
	static const char *const kinds[] = {"gpu_library", "nccl_plugin",
					    "library", "variable", "system"};
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "input", e->arg);
	dlt_json_kv_uint(j, "processes", e->n);
	dlt_json_key(j, "units");
	dlt_json_array_begin(j);
	for (size_t i = 0; i < e->nu; i++) {
		const struct dlt_envprof *p = e->units[i].prof;
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "label", e->units[i].label);
		dlt_json_kv_int(j, "rank", p->rank);
		dlt_json_kv_string(j, "host", p->host);
		dlt_json_kv_uint(j, "pid", p->pid);
		dlt_json_kv_string(j, "exe", p->exe);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
	size_t nk;
	const struct dlt_envp_item **keys = dlt_envp_keys(e->units, e->nu, &nk);
	struct dlt_envp_group *groups =
		dlt_xcalloc(e->nu ? e->nu : 1, sizeof(*groups));
	size_t *idx = dlt_xcalloc(e->nu ? e->nu : 1, sizeof(*idx));
	dlt_json_key(j, "items");
	dlt_json_array_begin(j);
	for (size_t i = 0; i < nk; i++) {
		struct dlt_envp_group absent;
		size_t ng = dlt_envp_present(
			keys[i], groups,
			dlt_envp_groups(e->units, e->nu, keys[i], groups, idx),
			&absent);
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "kind", kinds[keys[i]->kind]);
		dlt_json_kv_string(j, "key", keys[i]->key);
		dlt_json_kv_bool(j, "same", ng == 1);
		/* Units without a library or a version: no difference. */
		dlt_json_key(j, "absent");
		dlt_json_array_begin(j);
		for (size_t k = 0; k < absent.n; k++)
			dlt_json_string(j, e->units[absent.units[k]].label);
		dlt_json_array_end(j);
		dlt_json_key(j, "values");
		dlt_json_array_begin(j);
		for (size_t g = 0; g < ng; g++) {
			dlt_json_object_begin(j);
			if (groups[g].item)
				dlt_env_json_item(j, groups[g].item);
			else
				dlt_json_kv_null(j, "value");
			dlt_json_key(j, "units");
			dlt_json_array_begin(j);
			for (size_t k = 0; k < groups[g].n; k++)
				dlt_json_string(
					j, e->units[groups[g].units[k]].label);
			dlt_json_array_end(j);
			dlt_json_object_end(j);
		}
		dlt_json_array_end(j);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
	dlt_json_object_end(j);
	free(idx);
	free(groups);
	free(keys);
}

int dlt_cmd_env(int argc, char **argv)
{
	bool json = false;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL}};
	int npaths;
	int rc = dlt_cmd_args("env", dlt_env_usage, argc, argv, opts, 1,
			      &npaths);
	if (rc >= 0)
		return rc;
	struct dlt_env_job *jobs = dlt_xcalloc((size_t)npaths, sizeof(*jobs));
	rc = DLT_EXIT_OK;
	for (int i = 0; i < npaths; i++)
		if (dlt_env_load(&jobs[i], argv[i]) != 0) {
			fprintf(stderr,
				"dltrace-analyze env: no usable trace in %s\n",
				argv[i]);
			rc = DLT_EXIT_USAGE;
		}
	if (rc == DLT_EXIT_OK && json) {
		struct dlt_json j;
		dlt_json_init(&j, stdout, true);
		dlt_json_object_begin(&j);
		dlt_json_key(&j, "jobs");
		dlt_json_array_begin(&j);
		for (int i = 0; i < npaths; i++)
			dlt_env_json(&j, &jobs[i]);
		dlt_json_array_end(&j);
		dlt_json_object_end(&j);
		if (dlt_json_finish(&j) != 0 && !ferror(stdout))
			fputs("dltrace-analyze: internal error: malformed JSON "
			      "output\n",
			      stderr);
	} else if (rc == DLT_EXIT_OK) {
		for (int i = 0; i < npaths; i++) {
			if (i)
				fputc('\n', stdout);
			dlt_env_text(stdout, &jobs[i]);
		}
	}
	for (int i = 0; i < npaths; i++)
		dlt_env_free(&jobs[i]);
	free(jobs);
	return rc;
}
