/* "env": one screen per job of what shaped its environment: the system,
 * the NVIDIA driver, each GPU library (version, file, the loader rule that
 * chose it, how it was installed), NCCL's plugins, Python and torch, and
 * the variables that steer loading and the GPU libraries.  What every rank
 * agrees on is said once; where they differ, each value names who has
 * it. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "sections.h"
#include "envprof.h"
#include "gpu.h"
#include "job.h"
#include "json.h"
#include "ranges.h"
#include "text.h"

const char dlt_env_usage[] =
	"usage: dltrace-analyze env [--json] DIR...\n"
	"\n"
	"Each DIR (a directory of *.dltrace files, or one trace) is one job.\n"
	"For each: the hosts and ranks; first the libraries that ranks loaded\n"
	"from different files (any library: who loaded which file, found by\n"
	"which rule, the same build or another, and the variable that found\n"
	"it); then the system (OS, kernel, glibc, NVIDIA driver, CUDA driver\n"
	"API, Python, torch), the GPU libraries (version, file, the loader\n"
	"rule that chose it, how it was installed), NCCL plugins and the\n"
	"variables that shape loading and the GPU libraries (LD_*, CUDA_*,\n"
	"NCCL_*, CUDNN_*, TORCH_*, OMP_*, PYTHON* ...).  A value every rank\n"
	"has is printed once; where ranks differ, each value names the ranks\n"
	"(and hosts) that have it.  One build of a library is one version,\n"
	"however each file's name spells it.  The processes of a rank are\n"
	"taken together; without ranks, each process that loaded a GPU\n"
	"library or ran Python is one.  A DIR without traces whose folders\n"
	"hold them (one per node: DIR/node0042/...) is one job.  Over more\n"
	"than 32 ranks, ranks are given as ranges.\n"
	"\n"
	"  --json   {\"jobs\": [{\"input\", \"units\", \"items\"}]}; each "
	"item\n"
	"           has kind, key, same and values (each with the units that\n"
	"           have it); other libraries only where ranks differ\n"
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
	/* Every library: a rank that loaded another libgomp than the others
	 * is a difference worth saying, not only a GPU library. */
	e->profs[e->n++] = dlt_envprof_build(&e->arena, p, g, true);
}

size_t dlt_env_job_finish(struct dlt_env_job *e)
{
	e->units = dlt_envp_units(&e->arena, e->profs, e->n, &e->nu);
	return e->nu;
}

static int dlt_env_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dlt_env_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The folders of dir that hold traces, sorted (a job written one folder
 * per node, as a shared file system gets it); NULL when dir holds traces
 * itself or is no directory.  *n gets how many. */
static char **dlt_env_node_dirs(const char *dir, size_t *n)
{
	*n = 0;
	DIR *d = opendir(dir);
	if (d == NULL)
		return NULL;
	char **v = NULL;
	size_t cap = 0;
	bool own = false;
	struct dirent *de;
	while ((de = readdir(d)) != NULL && !own) {
		size_t l = strlen(de->d_name);
		if (l > 8 && strcmp(de->d_name + l - 8, ".dltrace") == 0) {
			own = true;
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		size_t pl = strlen(dir) + l + 2;
		char *path = dlt_xmalloc(pl);
		snprintf(path, pl, "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = dlt_xrealloc(v, cap, sizeof(*v));
		}
		v[(*n)++] = path;
	}
	closedir(d);
	if (own || *n == 0) {
		for (size_t i = 0; i < *n; i++)
			free(v[i]);
		free(v);
		*n = 0;
		return NULL;
	}
	qsort(v, *n, sizeof(*v), dlt_env_cmp_str);
	return v;
}

static int dlt_env_load(struct dlt_env_job *e, char *arg)
{
	struct dlt_job j;
	char *one[] = {arg};
	size_t nd;
	char **nodes = dlt_env_node_dirs(arg, &nd);
	struct dlt_job_opts o = {.order = DLT_JOB_BY_START};
	memset(e, 0, sizeof(*e));
	e->arg = arg;
	dlt_job_open(&j, nodes ? (int)nd : 1, nodes ? nodes : one, &o);
	for (size_t i = 0; i < nd; i++)
		free(nodes[i]);
	free(nodes);
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
	if (it->path && dlt_envp_is_lib(k)) {
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

/* Above this many units, who has a value is said as ranges of ranks. */
#define DLT_ENV_FOLD_MIN 32

/* Who has a value: the units of g as envprof words them ("ranks 0 1
 * (node-a)"), or, over many ranked units, their ranks as ranges ("ranks
 * 0–811, 813–9,999"): a list of thousands of ranks per host said
 * nothing. */
static const char *dlt_env_who(const struct dlt_env_job *e,
			       const struct dlt_envp_group *g, char *buf,
			       size_t cap)
{
	bool ranked = g->n > 0;
	for (size_t i = 0; i < g->n && ranked; i++)
		ranked = e->units[g->units[i]].prof->rank >= 0;
	if (e->nu <= DLT_ENV_FOLD_MIN || !ranked)
		return dlt_envp_who(e->units, g, buf, cap);
	int64_t *r = dlt_xcalloc(g->n, sizeof(*r));
	for (size_t i = 0; i < g->n; i++)
		r[i] = e->units[g->units[i]].prof->rank;
	/* Units are in rank order already; sorted anyway. */
	qsort(r, g->n, sizeof(*r), dlt_env_cmp_i64);
	size_t o = (size_t)snprintf(buf, cap, "rank%s ", g->n > 1 ? "s" : "");
	if (o < cap)
		dlt_ranges_text(r, g->n, buf + o, cap - o);
	free(r);
	return buf;
}

/* The units that lack a key whose absence is no difference. */
static void dlt_env_text_absent(FILE *out, const struct dlt_env_job *e,
				const struct dlt_envp_group *absent,
				enum dlt_envp_kind k)
{
	char who[512];
	if (absent->n)
		fprintf(out, "    %s: %s\n",
			dlt_env_who(e, absent, who, sizeof(who)),
			dlt_env_absent(k));
}

/* Each unit and its program; over many ranks, one line per program with
 * the ranks that run it. */
static void dlt_env_text_units(FILE *out, const struct dlt_env_job *e)
{
	bool ranked = true;
	for (size_t i = 0; i < e->nu && ranked; i++)
		ranked = e->units[i].prof->rank >= 0;
	if (e->nu <= DLT_ENV_FOLD_MIN || !ranked) {
		for (size_t i = 0; i < e->nu; i++)
			fprintf(out, "  %s: %s\n", e->units[i].label,
				e->units[i].prof->exe ? e->units[i].prof->exe
						      : "?");
		return;
	}
	/* Units grouped by program, in order of their first rank. */
	size_t *at = dlt_xcalloc(e->nu, sizeof(*at));
	const char **exe = dlt_xcalloc(e->nu, sizeof(*exe));
	size_t ng = 0;
	for (size_t i = 0; i < e->nu; i++) {
		const char *x =
			e->units[i].prof->exe ? e->units[i].prof->exe : "?";
		size_t g = 0;
		/* Few programs in a job: the search is short. */
		while (g < ng && strcmp(exe[g], x) != 0)
			g++;
		if (g == ng)
			exe[ng++] = x;
		at[i] = g;
	}
	struct dlt_envp_group grp;
	grp.units = dlt_xcalloc(e->nu, sizeof(*grp.units));
	char who[1024];
	for (size_t g = 0; g < ng; g++) {
		grp.n = 0;
		for (size_t i = 0; i < e->nu; i++)
			if (at[i] == g)
				grp.units[grp.n++] = i;
		grp.item = NULL;
		fprintf(out, "  %s: %s\n",
			dlt_env_who(e, &grp, who, sizeof(who)), exe[g]);
	}
	free(grp.units);
	free(exe);
	free(at);
}

/* The value of variable name in the unit that stands for group g. */
static const struct dlt_envp_item *
dlt_env_var_of(const struct dlt_env_job *e, const struct dlt_envp_group *g,
	       const char *name)
{
	return g->n ? dlt_envprof_get(e->units[g->units[0]].prof, DLT_ENVP_VAR,
				      name)
		    : NULL;
}

/* Whether the groups' versions differ and came from sources of
 * different worth (one from the library, another from a file name): then
 * each says its source, since two spellings ("9.19.0", "9") are not
 * comparable as they stand. */
static bool dlt_env_sources_differ(const struct dlt_envp_group *g, size_t ng)
{
	const struct dlt_envp_item *first = NULL;
	bool values = false, sources = false;
	for (size_t i = 0; i < ng; i++) {
		const struct dlt_envp_item *it = g[i].item;
		if (it == NULL)
			continue;
		if (first) {
			values |= strcmp(first->value, it->value) != 0;
			sources |= strcmp(dlt_envp_version_source(first),
					  dlt_envp_version_source(it)) != 0;
		}
		first = first ? first : it;
	}
	return values && sources;
}

/* The longest headline one library's difference is said in: 160
 * characters on its line, indented by two. */
#define DLT_ENV_LINE_MAX 158

/* s cut to at most n bytes, not inside a UTF-8 character, with "…". */
static void dlt_env_cut(char *s, size_t n)
{
	if (strlen(s) <= n)
		return;
	n -= 3; /* the ellipsis */
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	memcpy(s + n, "\xe2\x80\xa6", 4);
}

/* One library's line for people: who loaded which file, the odd group
 * first (it is what to look at) with the rule that found its file beside
 * it, then whether the others' file is the same build: "libgomp: rank 1
 * (vm) loaded /tmp/x/libgomp.so.1 (found via LD_LIBRARY_PATH), rank 0
 * (vm) loaded the same build at /usr/lib/x86_64-linux-gnu/libgomp.so.1".
 * At most DLT_ENV_LINE_MAX bytes: when longer, the others' path goes
 * first, then the odd one's (the lines below give them), then the lists
 * of ranks are cut. */
/* s without " (host)" wherever it says it. */
static void dlt_env_drop_host(char *s, const char *host)
{
	char pat[300];
	snprintf(pat, sizeof(pat), " (%s)", host);
	size_t n = strlen(pat);
	for (char *p = strstr(s, pat); p; p = strstr(p, pat))
		memmove(p, p + n, strlen(p + n) + 1);
}

static const char *dlt_env_lib_headline(const struct dlt_env_job *e,
					const struct dlt_envp_item *key,
					const struct dlt_envp_group *g,
					size_t ng, char *buf, size_t cap)
{
	char w1[DLT_ENV_LINE_MAX + 1], w0[DLT_ENV_LINE_MAX + 1];
	dlt_env_who(e, &g[1], w1, sizeof(w1));
	dlt_env_who(e, &g[0], w0, sizeof(w0));
	if (e->nu) {
		/* On one host, its name after each rank says nothing. */
		const char *h0 = e->units[0].prof->host;
		bool one_host = true;
		for (size_t i = 1; i < e->nu && one_host; i++)
			one_host = strcmp(e->units[i].prof->host, h0) == 0;
		if (one_host) {
			dlt_env_drop_host(w1, h0);
			dlt_env_drop_host(w0, h0);
		}
	}
	const struct dlt_envp_item *a = g[1].item, *b = g[0].item;
	char more[48] = "";
	if (ng > 2)
		snprintf(more, sizeof(more), "; %zu different in all", ng);
	/* Whether the other file is the same build (whether the program
	 * can behave differently), said before the other side's path. */
	bool known = a && b && a->identity && b->identity;
	bool one = known && strcmp(a->identity, b->identity) == 0;
	for (int form = 0; form < 4; form++) {
		bool paths = form == 0;
		if (form == 3) {
			/* Long lists of ranks: cut, the lines below list
			 * them all. */
			dlt_env_cut(w1, 40);
			dlt_env_cut(w0, 40);
		}
		if (a && b && a->path && b->path &&
		    strcmp(a->path, b->path) != 0 && paths)
			snprintf(buf, cap,
				 "%s: %s loaded %s (found via %s), %s loaded "
				 "%s%s%s",
				 key->key, w1, a->path, a->via ? a->via : "?",
				 w0,
				 !known ? ""
				 : one	? "the same build at "
					: "another build at ",
				 b->path, more);
		else if (a && b && a->path && b->path &&
			 strcmp(a->path, b->path) != 0 && form == 1)
			/* The odd file's path is the one to look at. */
			snprintf(buf, cap,
				 "%s: %s loaded %s (found via %s), not %s's "
				 "file%s%s",
				 key->key, w1, a->path, a->via ? a->via : "?",
				 w0,
				 !known ? ""
				 : one	? " (the same build)"
					: " (another build)",
				 more);
		else if (a && b && a->path && b->path &&
			 strcmp(a->path, b->path) != 0)
			snprintf(buf, cap,
				 "%s: %s loaded another file (found via %s) "
				 "than %s%s%s",
				 key->key, w1, a->via ? a->via : "?", w0,
				 !known ? ""
				 : one	? " (the same build)"
					: " (another build)",
				 more);
		else if (a && b && !dlt_envp_same(a, b) && a->identity &&
			 b->identity && strcmp(a->identity, b->identity) != 0)
			snprintf(buf, cap,
				 "%s: %s loaded another build at %s (%s), %s "
				 "%s%s",
				 key->key, w1,
				 paths ? a->path : "the same path", a->value,
				 w0, b->value, more);
		else if (a && b)
			snprintf(buf, cap,
				 "%s: %s has %s, %s %s (one file%s%s)%s",
				 key->key, w1, a->value, w0, b->value,
				 paths && a->path ? ": " : "",
				 paths && a->path ? a->path : "", more);
		else if (a)
			snprintf(
				buf, cap,
				"%s: %s loaded %s (found via %s), %s did not%s",
				key->key, w1, paths ? a->path : "it",
				a->via ? a->via : "?", w0, more);
		else
			snprintf(buf, cap,
				 "%s: %s did not load it, %s loaded %s%s",
				 key->key, w1, w0,
				 paths && b && b->path ? b->path : "it", more);
		if (strlen(buf) <= DLT_ENV_LINE_MAX)
			break;
	}
	dlt_env_cut(buf, DLT_ENV_LINE_MAX); /* a long library name */
	return buf;
}

/* Each library whose file differs between units, its line first, then
 * each group's file and what it is, then the variable that found a file
 * where one did.  Returns how many libraries. */
static size_t dlt_env_text_libs(FILE *out, const struct dlt_env_job *e,
				const struct dlt_envp_item **keys, size_t nk,
				struct dlt_envp_group *groups, size_t *idx,
				bool ranks)
{
	size_t n = 0;
	for (size_t i = 0; i < nk; i++) {
		if (!dlt_envp_is_lib(keys[i]->kind))
			continue;
		struct dlt_envp_group absent;
		size_t ng = dlt_envp_present(
			keys[i], groups,
			dlt_envp_groups(e->units, e->nu, keys[i], groups, idx),
			&absent);
		if (ng < 2)
			continue;
		if (n++ == 0)
			fprintf(out, "\nlibraries that differ between %s:\n",
				ranks ? "ranks" : "the processes shown");
		char line[1024];
		fputs("  ", out);
		dlt_fput_text(out,
			      dlt_env_lib_headline(e, keys[i], groups, ng, line,
						   sizeof(line)),
			      "");
		fputc('\n', out);
		bool src = dlt_env_sources_differ(groups, ng);
		const char *vars[2] = {NULL, NULL};
		size_t nv = 0;
		for (size_t g = 0; g < ng; g++) {
			char who[512], id[128];
			const struct dlt_envp_item *it = groups[g].item;
			fprintf(out, "    %s: ",
				dlt_env_who(e, &groups[g], who, sizeof(who)));
			dlt_env_text_value(out, it, keys[i]->kind);
			if (it && it->identity)
				fprintf(out, " %s",
					dlt_envp_identity_text(it->identity, id,
							       sizeof(id)));
			if (it && src)
				fprintf(out, "; version from %s",
					dlt_envp_version_source(it));
			fputc('\n', out);
			const char *v = dlt_envp_via_var(it);
			if (v && nv < 2 && (nv == 0 || strcmp(vars[0], v) != 0))
				vars[nv++] = v;
		}
		dlt_env_text_absent(out, e, &absent, keys[i]->kind);
		/* The variable that chose a file, as each group has it. */
		for (size_t k = 0; k < nv; k++) {
			fprintf(out, "    %s:", vars[k]);
			for (size_t g = 0; g < ng; g++) {
				char who[512];
				const struct dlt_envp_item *v =
					dlt_env_var_of(e, &groups[g], vars[k]);
				fprintf(out, "%s %s ", g ? ";" : "",
					dlt_env_who(e, &groups[g], who,
						    sizeof(who)));
				dlt_fput_text(out, v ? v->value : "(unset)",
					      "");
			}
			fputc('\n', out);
		}
	}
	return n;
}

static void dlt_env_text(FILE *out, const struct dlt_env_job *e)
{
	fputs("job ", out);
	dlt_fput_text(out, e->arg, "");
	bool ranks = e->nu && e->units[0].prof->rank >= 0;
	/* Hosts counted from a sorted copy: a pass over the units before
	 * each unit was 50 million comparisons at 10,000 ranks. */
	const char **hv = dlt_xcalloc(e->nu ? e->nu : 1, sizeof(*hv));
	for (size_t i = 0; i < e->nu; i++)
		hv[i] = e->units[i].prof->host;
	qsort(hv, e->nu, sizeof(*hv), dlt_env_cmp_str);
	size_t hosts = 0;
	for (size_t i = 0; i < e->nu; i++)
		hosts += i == 0 || strcmp(hv[i - 1], hv[i]) != 0;
	free(hv);
	fprintf(out, ": %zu process%s, %zu %s on %zu host%s\n", e->n,
		e->n == 1 ? "" : "es", e->nu,
		ranks ? (e->nu == 1 ? "rank" : "ranks")
		      : (e->nu == 1 ? "process shown" : "processes shown"),
		hosts, hosts == 1 ? "" : "s");
	dlt_env_text_units(out, e);
	size_t nk;
	const struct dlt_envp_item **keys = dlt_envp_keys(e->units, e->nu, &nk);
	struct dlt_envp_group *groups =
		dlt_xcalloc(e->nu ? e->nu : 1, sizeof(*groups));
	size_t *idx = dlt_xcalloc(e->nu ? e->nu : 1, sizeof(*idx));
	/* What the units loaded from different files first: the
	 * consequence, where the variables below are what may explain it. */
	size_t ndiff = dlt_env_text_libs(out, e, keys, nk, groups, idx, ranks);
	static const enum dlt_envp_kind order[] = {
		DLT_ENVP_SYS, DLT_ENVP_GPU_LIB, DLT_ENVP_PLUGIN, DLT_ENVP_VAR};
	const char *empty[4];
	size_t nempty = 0;
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
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
			if (shown++ == 0)
				fprintf(out, "\n%s:\n",
					dlt_envp_kind_name(order[o]));
			fprintf(out, "  %-22s ", keys[i]->key);
			if (ng == 1) {
				dlt_env_text_value(out, groups[0].item,
						   order[o]);
				fputc('\n', out);
				dlt_env_text_absent(out, e, &absent, order[o]);
				continue;
			}
			if (dlt_envp_is_lib(order[o])) {
				/* Said in full above. */
				fputs("DIFFERS (see \"libraries that "
				      "differ\" above)\n",
				      out);
				continue;
			}
			ndiff++;
			fputs("DIFFERS\n", out);
			for (size_t g = 0; g < ng; g++) {
				char who[512];
				fprintf(out, "    %s: ",
					dlt_env_who(e, &groups[g], who,
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
			empty[nempty++] =
				order[o] == DLT_ENVP_VAR
					? "variables that shape loading"
				: order[o] == DLT_ENVP_SYS
					? "system versions"
					: dlt_envp_kind_name(order[o]);
	}
	/* Sections with nothing to list: one line, not a heading each. */
	for (size_t i = 0; i < nempty; i++)
		fprintf(out, "%s%s%s",
			i ? ", " : "\nnone in this job: ", empty[i],
			i + 1 == nempty ? "\n" : "");
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

static void dlt_env_json_item(struct dlt_json *j, const struct dlt_env_job *e,
			      const struct dlt_envp_group *g,
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
	/* The variable that found the file, as these units have it. */
	const char *v = dlt_envp_via_var(it);
	if (v) {
		const struct dlt_envp_item *val = dlt_env_var_of(e, g, v);
		dlt_json_kv_string(j, "found_via_value",
				   val ? val->value : NULL);
	}
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
		/* Hundreds of libraries: those that differ only. */
		if (keys[i]->kind == DLT_ENVP_LIB && ng < 2)
			continue;
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "kind", kinds[keys[i]->kind]);
		dlt_json_kv_string(j, "key", keys[i]->key);
		dlt_json_kv_bool(j, "same", ng == 1);
		if (dlt_envp_is_lib(keys[i]->kind) && ng > 1) {
			char line[1024];
			dlt_json_kv_string(
				j, "headline",
				dlt_env_lib_headline(e, keys[i], groups, ng,
						     line, sizeof(line)));
		}
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
				dlt_env_json_item(j, e, &groups[g],
						  groups[g].item);
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
