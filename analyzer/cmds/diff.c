/* "diff": two runs (or two hosts of one run) side by side, in order of
 * likely consequence: the GPU libraries (version, build, where each side
 * got it), NCCL plugins, other libraries whose file changed, libraries on
 * one side only, the environment, the system and driver; then the
 * convolution problems matched by problem id and direction: the algorithm
 * or engine each run ended up with and how long it took.  Problems whose
 * choice changed come first, largest slowdown first; then the unchanged
 * ones, then those found in one run only.  All traces of a side are
 * merged. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "sections.h"
#include "conv.h"
#include "envprof.h"
#include "job.h"
#include "gpu.h"
#include "json.h"
#include "status.h"
#include "text.h"
#include "units.h"

const char dlt_diff_usage[] =
	"usage: dltrace-analyze diff [--json] [--run-a ID] [--run-b ID]\n"
	"                            [--host-a HOST] [--host-b HOST] A B\n"
	"\n"
	"A and B are two runs, each a trace file or a directory of *.dltrace\n"
	"files (all processes of a run are merged).  First what differs in\n"
	"their environments, in order of likely consequence: GPU libraries\n"
	"(version, build, file and the loader rule that chose it), NCCL\n"
	"plugins, other libraries whose file changed, libraries loaded on one\n"
	"side only, the variables that shape loading and the GPU libraries,\n"
	"then the system (OS, glibc, NVIDIA driver, CUDA driver API, Python,\n"
	"torch); a side whose ranks disagree is shown rank by rank, and a\n"
	"section with nothing to say is left out.  Then the convolutions,\n"
	"where either run has some.  Convolution problems are\n"
	"matched by their id (a hash of the shape, types and parameters) and\n"
	"direction.  For each: the algorithm (legacy API) or engine and knobs\n"
	"(backend API) that ran most often in each run, its mean host-side\n"
	"call time and the time the selection measured for it.  Problems\n"
	"whose choice changed come first, the largest slowdown first; then\n"
	"unchanged problems; then problems found in one run only.\n"
	"\n"
	"  --run-a ID, --run-b ID\n"
	"           only the traces of that launcher run in A, in B (A and B\n"
	"           may then be one directory used twice)\n"
	"  --host-a HOST, --host-b HOST\n"
	"           only the traces written on that host in A, in B: two\n"
	"           nodes of one job are `diff --host-a n1 --host-b n2 D D`\n"
	"  --json   one JSON object with \"environment\" (a list of what\n"
	"           differs) and the convolutions' \"changes\",\n"
	"           \"unchanged\", \"only_a\" and \"only_b\" lists\n"
	"\n"
	"exit status: 0 the runs were compared (whatever changed), 2 bad\n"
	"arguments or a run without a usable trace.\n";

struct dlt_run {
	const char *arg;
	const char *host; /* --host-a/-b, or NULL */
	struct dlt_conv_set conv;
	size_t nprocs;
	/* Its processes' environments merged (envprof.h): those that
	 * loaded a GPU library or ran Python first, each in start order, so
	 * that the program rather than a wrapper shell speaks for the run. */
	struct dlt_arena_blk *arena;
	struct dlt_envprof *env;
	/* Its ranks (or processes: envprof.h's units), each with its own
	 * profile: a rank that loaded another file than the others is told
	 * even where the merged profile has the first rank's only. */
	struct dlt_envp_unit *units;
	size_t nu;
};

static int dlt_load_run(struct dlt_run *r, char *arg, const char *host,
			const struct dlt_job_opts *o)
{
	struct dlt_job j;
	char *args[] = {arg};
	struct dlt_job_opts how = *o;
	how.order = DLT_JOB_BY_START;
	dlt_conv_init(&r->conv);
	r->arg = arg;
	r->host = host;
	r->nprocs = 0;
	r->arena = NULL;
	r->env = NULL;
	r->units = NULL;
	r->nu = 0;
	dlt_job_open(&j, 1, args, &how);
	dlt_job_say_errors(&j, stderr);
	struct dlt_envprof **profs =
		dlt_xcalloc(j.ntraces ? j.ntraces : 1, sizeof(*profs));
	size_t np = 0;
	for (size_t i = 0; i < j.ntraces; i++) {
		struct dlt_gpu g;
		struct dlt_trace *t = dlt_job_take(&j, i);
		struct dlt_process *p = dlt_process_read_gpu(t, &g);
		dlt_trace_close(t);
		if (host == NULL || (p->host && strcmp(p->host, host) == 0)) {
			dlt_conv_merge(&r->conv, &g.conv);
			profs[np++] = dlt_envprof_build(&r->arena, p, &g, true);
			r->nprocs++;
		}
		dlt_process_free(p);
		dlt_gpu_free(&g);
	}
	dlt_job_close(&j);
	r->units = dlt_envp_units(&r->arena, profs, np, &r->nu);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < np; i++) {
			if (dlt_envp_busy(profs[i]) != (pass == 0))
				continue;
			/* A copy: a unit may be this very profile. */
			if (r->env == NULL)
				r->env = dlt_envprof_copy(&r->arena, profs[i]);
			else
				dlt_envprof_merge(&r->arena, r->env, profs[i]);
		}
	free(profs);
	return r->nprocs ? 0 : -1;
}

/* ---- environments ---------------------------------------------------- */

/* A difference between the two sides' values of one key. */
struct dlt_envdiff_change {
	const struct dlt_envp_item *a, *b; /* NULL: not on that side */
	int section; /* enum dlt_envp_kind; DLT_ENVP_KINDS: only one side */
	/* A side whose units (ranks) do not agree on the key: it is shown
	 * unit by unit. */
	bool split_a, split_b;
};

/* How the units of one side hold one key: the groups of units with one
 * value each (those without a library left out: envprof.h). */
struct dlt_envdiff_split {
	struct dlt_envp_group *g;
	size_t *idx;
	size_t ng;
};

static void dlt_envdiff_split_of(const struct dlt_run *r,
				 const struct dlt_envp_item *key,
				 struct dlt_envdiff_split *s)
{
	struct dlt_envp_group absent;
	s->g = dlt_xcalloc(r->nu ? r->nu : 1, sizeof(*s->g));
	s->idx = dlt_xcalloc(r->nu ? r->nu : 1, sizeof(*s->idx));
	s->ng = dlt_envp_present(
		key, s->g, dlt_envp_groups(r->units, r->nu, key, s->g, s->idx),
		&absent);
}

static void dlt_envdiff_split_free(struct dlt_envdiff_split *s)
{
	free(s->g);
	free(s->idx);
}

/* Whether the units of a side may disagree on key worth saying: a
 * library's file, a variable that is not set per rank on purpose. */
static bool dlt_envdiff_splittable(const struct dlt_envp_item *key)
{
	bool per_rank = false;
	if (dlt_envp_is_lib(key->kind))
		return true;
	return key->kind == DLT_ENVP_VAR &&
	       dlt_envp_var_shapes(key->key, &per_rank) && !per_rank;
}

/* Whether two sides' units split alike: the same values held by the same
 * ranks (two runs of one job whose rank 1 loads its own copy in both are
 * no difference). */
static bool dlt_envdiff_split_same(const struct dlt_run *ra,
				   const struct dlt_envdiff_split *sa,
				   const struct dlt_run *rb,
				   const struct dlt_envdiff_split *sb)
{
	if (sa->ng != sb->ng)
		return false;
	for (size_t i = 0; i < sa->ng; i++) {
		const struct dlt_envp_group *x = &sa->g[i], *y = &sb->g[i];
		if ((x->item == NULL) != (y->item == NULL) ||
		    (x->item && !dlt_envp_same(x->item, y->item)) ||
		    x->n != y->n)
			return false;
		for (size_t k = 0; k < x->n; k++)
			if (ra->units[x->units[k]].prof->rank !=
			    rb->units[y->units[k]].prof->rank)
				return false;
	}
	return true;
}

/* What changed between two items of one key, in words. */
static const char *dlt_envdiff_what(const struct dlt_envdiff_change *c,
				    char *buf, size_t cap)
{
	const struct dlt_envp_item *a = c->a, *b = c->b;
	bool lib = dlt_envp_is_lib((a ? a : b)->kind);
	if (a == NULL || b == NULL)
		snprintf(buf, cap, "%s only in %s",
			 lib				     ? "loaded"
			 : (a ? a : b)->kind == DLT_ENVP_VAR ? "set"
							     : "known",
			 a ? "A" : "B");
	else if (lib && a->identity && b->identity &&
		 strcmp(a->identity, b->identity) == 0 &&
		 (strcmp(a->value, b->value) == 0 || !a->from || !b->from ||
		  strcmp(a->from, "library") != 0 ||
		  strcmp(b->from, "library") != 0))
		snprintf(buf, cap, "%s",
			 a->path && b->path && strcmp(a->path, b->path) != 0
				 ? "the same build, another place"
				 : "found by another rule");
	else if (dlt_envp_version_vague(a, b))
		/* "1.0.0" of libgomp.so.1.0.0 and "1" of a copy named by its
		 * soname: two spellings, not two versions. */
		snprintf(buf, cap,
			 "%sversion not known to differ: A %s (%s), B %s (%s)",
			 lib ? "another build; " : "", a->value,
			 dlt_envp_version_source(a), b->value,
			 dlt_envp_version_source(b));
	else if (strcmp(a->value, b->value) != 0)
		snprintf(buf, cap, "%s %s -> %s", lib ? "version" : "value",
			 a->value, b->value);
	else if (lib)
		snprintf(buf, cap, "another build of %s", a->value);
	else
		snprintf(buf, cap, "same value");
	return buf;
}

/* What changed where one side's units disagree and the sides' first
 * units do not: "in B, rank 1 (vm) loaded another file (the same
 * build)". */
static const char *dlt_envdiff_what_split(const struct dlt_envdiff_change *c,
					  const struct dlt_run *ra,
					  const struct dlt_run *rb, char *buf,
					  size_t cap)
{
	if (c->split_a && c->split_b) {
		bool lib = dlt_envp_is_lib((c->a ? c->a : c->b)->kind);
		snprintf(buf, cap, "%s",
			 lib ? "in both runs some ranks loaded another file, "
			       "not alike"
			     : "in both runs the ranks disagree, not alike");
		return buf;
	}
	const struct dlt_run *r = c->split_a ? ra : rb;
	const struct dlt_envp_item *key = c->a ? c->a : c->b;
	struct dlt_envdiff_split s;
	dlt_envdiff_split_of(r, key, &s);
	const struct dlt_envp_item *odd = s.g[1].item, *maj = s.g[0].item;
	char who[120];
	dlt_envp_who(r->units, &s.g[1], who, sizeof(who));
	const char *side = c->split_a ? "A" : "B";
	if (!dlt_envp_is_lib(key->kind))
		snprintf(buf, cap, "in %s, %s %s%s", side,
			 odd == NULL   ? "unset on"
			 : maj == NULL ? "set on"
				       : "another value on",
			 who, odd && maj == NULL ? " only" : "");
	else if (odd == NULL)
		snprintf(buf, cap, "in %s, %s did not load it", side, who);
	else
		snprintf(buf, cap, "in %s, %s loaded another file%s", side, who,
			 maj == NULL || !odd->identity || !maj->identity ? ""
			 : strcmp(odd->identity, maj->identity) == 0
				 ? " (the same build)"
				 : " (another build)");
	dlt_envdiff_split_free(&s);
	return buf;
}

static const char *dlt_envdiff_what_any(const struct dlt_envdiff_change *c,
					const struct dlt_run *ra,
					const struct dlt_run *rb, char *buf,
					size_t cap)
{
	/* A side whose ranks disagree has no one value to compare: its
	 * merged profile holds the first rank's to have one. */
	return c->split_a || c->split_b
		       ? dlt_envdiff_what_split(c, ra, rb, buf, cap)
		       : dlt_envdiff_what(c, buf, cap);
}

static bool dlt_envdiff_differ(const struct dlt_envp_item *a,
			       const struct dlt_envp_item *b)
{
	if (a == NULL || b == NULL)
		return a != b;
	return !dlt_envp_same(a, b) ||
	       (a->via && b->via && strcmp(a->via, b->via) != 0);
}

/* The sections in order of likely consequence: GPU libraries, NCCL
 * plugins, other libraries whose file changed, libraries on one side
 * only, variables, the system. */
static const int dlt_envdiff_order[] = {DLT_ENVP_GPU_LIB, DLT_ENVP_PLUGIN,
					DLT_ENVP_LIB,	  DLT_ENVP_KINDS,
					DLT_ENVP_VAR,	  DLT_ENVP_SYS};
#define DLT_ENVDIFF_NSECT \
	(sizeof(dlt_envdiff_order) / sizeof(dlt_envdiff_order[0]))

/* Every key that differs, in the order of the sections. */
static size_t dlt_envdiff_changes(const struct dlt_run *ra,
				  const struct dlt_run *rb,
				  struct dlt_envdiff_change **out)
{
	const struct dlt_envprof *ea = ra->env, *eb = rb->env;
	struct dlt_envp_unit u[2] = {{.prof = (struct dlt_envprof *)ea},
				     {.prof = (struct dlt_envprof *)eb}};
	size_t nk;
	const struct dlt_envp_item **keys = dlt_envp_keys(u, 2, &nk);
	struct dlt_envdiff_change *all = dlt_xcalloc(nk ? nk : 1, sizeof(*all));
	size_t n = 0;
	for (size_t i = 0; i < nk; i++) {
		const struct dlt_envp_item *a =
			dlt_envprof_get(ea, keys[i]->kind, keys[i]->key);
		const struct dlt_envp_item *b =
			dlt_envprof_get(eb, keys[i]->kind, keys[i]->key);
		struct dlt_envdiff_change c = {a, b, keys[i]->kind, false,
					       false};
		if (c.section == DLT_ENVP_LIB && (a == NULL || b == NULL))
			c.section = DLT_ENVP_KINDS;
		bool differ = dlt_envdiff_differ(a, b);
		if (dlt_envdiff_splittable(keys[i])) {
			struct dlt_envdiff_split sa, sb;
			dlt_envdiff_split_of(ra, keys[i], &sa);
			dlt_envdiff_split_of(rb, keys[i], &sb);
			c.split_a = sa.ng > 1;
			c.split_b = sb.ng > 1;
			/* Sides whose units all agree were compared above. */
			differ |= (c.split_a || c.split_b) &&
				  !dlt_envdiff_split_same(ra, &sa, rb, &sb);
			dlt_envdiff_split_free(&sa);
			dlt_envdiff_split_free(&sb);
		}
		if (differ)
			all[n++] = c;
	}
	free(keys);
	struct dlt_envdiff_change *c = dlt_xcalloc(n ? n : 1, sizeof(*c));
	size_t m = 0;
	for (size_t o = 0; o < DLT_ENVDIFF_NSECT; o++)
		for (size_t i = 0; i < n; i++)
			if (all[i].section == dlt_envdiff_order[o])
				c[m++] = all[i];
	free(all);
	*out = c;
	return m;
}

static const char *dlt_envdiff_section_name(int section)
{
	return section == DLT_ENVP_LIB ? "other libraries whose file changed"
	       : section == DLT_ENVP_KINDS ? "libraries loaded on one side only"
	       : section == DLT_ENVP_VAR   ? "environment"
	       : section == DLT_ENVP_SYS
		       ? "system and driver"
		       : dlt_envp_kind_name((enum dlt_envp_kind)section);
}

/* One side's value of a key, on its line: "1.0.0  /tmp/x/libgomp.so.1
 * (LD_LIBRARY_PATH=/tmp/x) build-id 3856...".  env: the profile whose
 * variables explain the file; src: say where the version came from. */
static void dlt_envdiff_text_value(FILE *out, const struct dlt_envp_item *it,
				   const struct dlt_envp_item *key,
				   const struct dlt_envprof *env, bool src)
{
	if (it == NULL) {
		fputs(key->kind == DLT_ENVP_VAR	  ? "(unset)\n"
		      : key->kind == DLT_ENVP_SYS ? "(unknown)\n"
						  : "(not loaded)\n",
		      out);
		return;
	}
	dlt_fput_text(out, it->value, "");
	if (it->path && it->kind != DLT_ENVP_SYS) {
		fputs("  ", out);
		dlt_fput_text(out, it->path, "");
		fprintf(out, " (%s", it->via ? it->via : "?");
		const char *var = dlt_envp_via_var(it);
		const struct dlt_envp_item *v =
			var && env ? dlt_envprof_get(env, DLT_ENVP_VAR, var)
				   : NULL;
		if (v) {
			/* The variable that chose the file, beside it. */
			fputc('=', out);
			dlt_fput_text(out, v->value, "");
		}
		fputc(')', out);
		if (it->installed)
			fprintf(out, " installed by %s", it->installed);
		if (it->identity) {
			char id[128];
			fprintf(out, " %s",
				dlt_envp_identity_text(it->identity, id,
						       sizeof(id)));
		}
		if (src && dlt_envp_version_source(it))
			fprintf(out, "; version from %s",
				dlt_envp_version_source(it));
	} else if (it->kind == DLT_ENVP_SYS && it->from) {
		fprintf(out, "  (%s)", it->from);
	}
	fputc('\n', out);
}

static void dlt_envdiff_text_side(FILE *out, const char *side,
				  const struct dlt_run *r, bool split,
				  const struct dlt_envp_item *it,
				  const struct dlt_envp_item *key, bool src)
{
	if (!split) {
		fprintf(out, "    %s: ", side);
		dlt_envdiff_text_value(out, it, key, r->env, src);
		return;
	}
	struct dlt_envdiff_split s;
	dlt_envdiff_split_of(r, key, &s);
	for (size_t g = 0; g < s.ng; g++) {
		char who[512];
		fprintf(out, "    %s %s: ", side,
			dlt_envp_who(r->units, &s.g[g], who, sizeof(who)));
		dlt_envdiff_text_value(out, s.g[g].item, key,
				       r->units[s.g[g].units[0]].prof, src);
	}
	dlt_envdiff_split_free(&s);
}

/* Whether the versions shown for a change are two spellings of what
 * may be one version ("1.0.0", "1"): then each says where it came from. */
static bool dlt_envdiff_vague(const struct dlt_envdiff_change *c,
			      const struct dlt_run *ra,
			      const struct dlt_run *rb)
{
	const struct dlt_envp_item *v[8];
	size_t n = 0;
	const struct dlt_envp_item *key = c->a ? c->a : c->b;
	if (key->kind == DLT_ENVP_SYS)
		return false; /* said by what_changed, each with its from */
	for (int side = 0; side < 2; side++) {
		const struct dlt_run *r = side ? rb : ra;
		bool split = side ? c->split_b : c->split_a;
		const struct dlt_envp_item *it = side ? c->b : c->a;
		if (!split) {
			if (it && n < 8)
				v[n++] = it;
			continue;
		}
		struct dlt_envdiff_split s;
		dlt_envdiff_split_of(r, key, &s);
		for (size_t g = 0; g < s.ng && n < 8; g++)
			if (s.g[g].item)
				v[n++] = s.g[g].item;
		dlt_envdiff_split_free(&s);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			if (dlt_envp_version_vague(v[i], v[k]))
				return true;
	return false;
}

/* Libraries loaded on one side only, each on one line; past this many a
 * side, counted (the list of a torch job's Python extensions is long, and
 * diff --json has it all). */
#define DLT_ENVDIFF_ONE_SIDE_MAX 20

static void dlt_envdiff_text_one_side(FILE *out,
				      const struct dlt_envdiff_change *c,
				      size_t n)
{
	for (int side = 0; side < 2; side++) {
		size_t shown = 0, total = 0;
		for (size_t i = 0; i < n; i++) {
			const struct dlt_envp_item *it = side ? c[i].b : c[i].a;
			if (c[i].section != DLT_ENVP_KINDS || it == NULL)
				continue;
			if (total++ >= DLT_ENVDIFF_ONE_SIDE_MAX)
				continue;
			shown++;
			fprintf(out, "  %s only: %s", side ? "B" : "A",
				it->key);
			if (strcmp(it->value, "(no version)") != 0) {
				fputc(' ', out);
				dlt_fput_text(out, it->value, "");
			}
			fputs("  ", out);
			dlt_fput_text(out, it->path, "?");
			fprintf(out, " (%s)\n", it->via ? it->via : "?");
		}
		if (total > shown)
			fprintf(out,
				"  ... and %zu more only in %s (diff --json "
				"lists them)\n",
				total - shown, side ? "B" : "A");
	}
}

static void dlt_envdiff_text(FILE *out, const struct dlt_envdiff_change *c,
			     size_t n, const struct dlt_run *ra,
			     const struct dlt_run *rb)
{
	if (n == 0) {
		fputs("\nlibraries, variables, system and driver: the same in "
		      "both runs\n",
		      out);
		return;
	}
	for (size_t s = 0; s < DLT_ENVDIFF_NSECT; s++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			k += c[i].section == dlt_envdiff_order[s];
		/* A section with nothing to say is left out. */
		if (k == 0)
			continue;
		fprintf(out, "\n%s (%zu differ%s):\n",
			dlt_envdiff_section_name(dlt_envdiff_order[s]), k,
			k == 1 ? "s" : "");
		if (dlt_envdiff_order[s] == DLT_ENVP_KINDS) {
			dlt_envdiff_text_one_side(out, c, n);
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (c[i].section != dlt_envdiff_order[s])
				continue;
			char what[512];
			const struct dlt_envp_item *it =
				c[i].a ? c[i].a : c[i].b;
			fprintf(out, "  %s: ", it->key);
			dlt_fput_text(out,
				      dlt_envdiff_what_any(&c[i], ra, rb, what,
							   sizeof(what)),
				      "");
			fputc('\n', out);
			bool src = dlt_envdiff_vague(&c[i], ra, rb);
			dlt_envdiff_text_side(out, "A", ra, c[i].split_a,
					      c[i].a, it, src);
			dlt_envdiff_text_side(out, "B", rb, c[i].split_b,
					      c[i].b, it, src);
		}
	}
}

/* One side's item (or a group's) as JSON members; env: the profile
 * whose variables say what found the file. */
static void dlt_envdiff_json_item(struct dlt_json *j,
				  const struct dlt_envp_item *it,
				  const struct dlt_envprof *env)
{
	dlt_json_kv_string(j, "value", it->value);
	dlt_json_kv_string(j, "from", it->from);
	dlt_json_kv_string(j, "path", it->path);
	if (it->kind != DLT_ENVP_VAR && it->kind != DLT_ENVP_SYS) {
		dlt_json_kv_string(j, "found_via", it->via);
		dlt_json_kv_string(j, "installed_by", it->installed);
		dlt_json_kv_string(j, "identity", it->identity);
		const char *var = dlt_envp_via_var(it);
		const struct dlt_envp_item *v =
			var && env ? dlt_envprof_get(env, DLT_ENVP_VAR, var)
				   : NULL;
		if (var)
			dlt_json_kv_string(j, "found_via_value",
					   v ? v->value : NULL);
	}
}

static void dlt_envdiff_json_side(struct dlt_json *j, const char *key,
				  const struct dlt_envp_item *it,
				  const struct dlt_envprof *env)
{
	dlt_json_key(j, key);
	if (it == NULL) {
		dlt_json_null(j);
		return;
	}
	dlt_json_object_begin(j);
	dlt_envdiff_json_item(j, it, env);
	dlt_json_object_end(j);
}

/* A side whose units disagree: each value with the units that have it
 * (value null: a variable those units leave unset). */
static void dlt_envdiff_json_units(struct dlt_json *j, const char *name,
				   const struct dlt_run *r,
				   const struct dlt_envp_item *key)
{
	struct dlt_envdiff_split s;
	dlt_envdiff_split_of(r, key, &s);
	dlt_json_key(j, name);
	dlt_json_array_begin(j);
	for (size_t g = 0; g < s.ng; g++) {
		dlt_json_object_begin(j);
		if (s.g[g].item)
			dlt_envdiff_json_item(j, s.g[g].item,
					      r->units[s.g[g].units[0]].prof);
		else
			dlt_json_kv_null(j, "value");
		dlt_json_key(j, "units");
		dlt_json_array_begin(j);
		for (size_t k = 0; k < s.g[g].n; k++)
			dlt_json_string(j, r->units[s.g[g].units[k]].label);
		dlt_json_array_end(j);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
	dlt_envdiff_split_free(&s);
}

static void dlt_envdiff_json(struct dlt_json *j,
			     const struct dlt_envdiff_change *c, size_t n,
			     const struct dlt_run *ra, const struct dlt_run *rb)
{
	static const char *const names[] = {"gpu_library", "nccl_plugin",
					    "library",	   "variable",
					    "system",	   "one_side"};
	dlt_json_key(j, "environment");
	dlt_json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		char what[512];
		const struct dlt_envp_item *it = c[i].a ? c[i].a : c[i].b;
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "section", names[c[i].section]);
		dlt_json_kv_string(j, "key", it->key);
		dlt_json_kv_string(j, "what_changed",
				   dlt_envdiff_what_any(&c[i], ra, rb, what,
							sizeof(what)));
		dlt_envdiff_json_side(j, "a", c[i].a, ra->env);
		dlt_envdiff_json_side(j, "b", c[i].b, rb->env);
		if (c[i].split_a)
			dlt_envdiff_json_units(j, "a_units", ra, it);
		if (c[i].split_b)
			dlt_envdiff_json_units(j, "b_units", rb, it);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
}

struct dlt_pair {
	const struct dlt_conv_entry *a, *b;
	struct dlt_conv_choice ca, cb;
	bool changed;
	const char *metric; /* "mean_call_us", "selection_time_ms", NULL */
	double ta, tb;	    /* in the metric's unit */
};

/* Host call times when both runs executed, else the times the selections
 * measured: never one of each. */
static void dlt_pair_times(struct dlt_pair *p)
{
	p->metric = NULL;
	if (p->ca.mean_us >= 0 && p->cb.mean_us >= 0) {
		p->metric = "mean_call_us";
		p->ta = p->ca.mean_us;
		p->tb = p->cb.mean_us;
	} else if (p->ca.select_ms >= 0 && p->cb.select_ms >= 0) {
		p->metric = "selection_time_ms";
		p->ta = p->ca.select_ms;
		p->tb = p->cb.select_ms;
	}
}

static double dlt_slowdown(const struct dlt_pair *p)
{
	if (p->metric == NULL)
		return -1e300;
	/* Relative, so that microseconds and milliseconds compare. */
	return p->ta > 0 ? p->tb / p->ta : (p->tb > 0 ? 1e300 : 1.0);
}

static int dlt_pair_cmp(const void *x, const void *y)
{
	const struct dlt_pair *a = x, *b = y;
	if (a->changed != b->changed)
		return a->changed ? -1 : 1;
	double sa = dlt_slowdown(a), sb = dlt_slowdown(b);
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->a->problem != b->a->problem)
		return a->a->problem < b->a->problem ? -1 : 1;
	return a->a->dir - b->a->dir;
}

/* A time in ns as dlt_units_dur takes it, rounded.  A damaged trace can
 * make a mean of any size, or none (the fuzzer found one of 2.7e26 ns). */
static uint64_t dlt_diff_ns(double ns)
{
	return ns > 0 ? dlt_units_u64(ns + 0.5) : 0;
}

static void dlt_text_choice(FILE *out, const char *side,
			    const struct dlt_conv_entry *e,
			    const struct dlt_conv_choice *c)
{
	char buf[256];
	fprintf(out, "    %s: %-40s", side,
		dlt_conv_choice_str(e, c, buf, sizeof(buf)));
	if (c->executed)
		fprintf(out, " %" PRIu64 " call%s", c->count,
			c->count == 1 ? "" : "s");
	if (c->executed && strchr(c->executed_set, ',') != NULL)
		fprintf(out, " (all run: %s)", c->executed_set);
	else if (c->known && !c->executed)
		fputs(" (selected, not executed)", out);
	char d[32];
	if (c->mean_us >= 0)
		fprintf(out, ", mean %s",
			dlt_units_dur(dlt_diff_ns(c->mean_us * 1e3), d,
				      sizeof(d)));
	if (c->select_ms >= 0)
		fprintf(out, ", selection measured %s",
			dlt_units_dur(dlt_diff_ns(c->select_ms * 1e6), d,
				      sizeof(d)));
	fputc('\n', out);
}

static void dlt_text_problem(FILE *out, const struct dlt_conv_entry *e)
{
	char buf[512];
	fprintf(out, "  conv %s %s  [problem %016" PRIx64 "]\n",
		dlt_conv_dir_name(e->dir),
		e->has_shape ? dlt_conv_problem_str(&e->shape, buf, sizeof(buf))
			     : "(shape not recorded)",
		e->problem);
}

/* What differs between two choices that are not the same: whether there
 * is one, whether it ran, the one that ran most (or was picked), or only
 * the set of what ran. */
static const char *dlt_what_changed(const struct dlt_pair *p, char *buf,
				    size_t cap)
{
	const struct dlt_conv_choice *a = &p->ca, *b = &p->cb;
	const char *what =
		a->backend || b->backend ? "engines (and knobs)" : "algorithms";
	if (a->known != b->known)
		snprintf(buf, cap, "only %s has a choice",
			 a->known ? "A" : "B");
	else if (a->executed != b->executed)
		snprintf(buf, cap, "%s ran it, %s only selected it",
			 a->executed ? "A" : "B", a->executed ? "B" : "A");
	else if (!a->executed && (a->backend != b->backend || a->id != b->id ||
				  strcmp(a->knobs, b->knobs) != 0))
		snprintf(buf, cap, "the selection's pick");
	else if (a->backend != b->backend || a->id != b->id ||
		 strcmp(a->knobs, b->knobs) != 0)
		snprintf(buf, cap, "the one run most; all run: A %s, B %s",
			 a->executed_set, b->executed_set);
	else
		snprintf(buf, cap, "the set of %s run: A %s, B %s", what,
			 a->executed_set, b->executed_set);
	return buf;
}

static void dlt_text_pair(FILE *out, const struct dlt_pair *p)
{
	dlt_text_problem(out, p->a->has_shape ? p->a : p->b);
	dlt_text_choice(out, "A", p->a, &p->ca);
	dlt_text_choice(out, "B", p->b, &p->cb);
	if (p->changed) {
		char what[640];
		fprintf(out, "    changed: %s\n",
			dlt_what_changed(p, what, sizeof(what)));
	}
	if (p->metric) {
		bool us = strcmp(p->metric, "mean_call_us") == 0;
		double diff = (p->tb - p->ta) * (us ? 1e3 : 1e6); /* ns */
		char d[32];
		dlt_units_dur(dlt_diff_ns(diff < 0 ? -diff : diff), d,
			      sizeof(d));
		/* No sign before "< 0.01 µs" or "0 µs": too small to have
		 * one. */
		fprintf(out, "    B-A: %s%s %s",
			d[0] == '<' || strncmp(d, "0 ", 2) == 0 ? ""
			: diff < 0				? "-"
								: "+",
			d, us ? "per call" : "(selection)");
		if (p->ta > 0)
			fprintf(out, " (%.2fx)", p->tb / p->ta);
		fputc('\n', out);
	}
}

static void dlt_json_side(struct dlt_json *j, const char *key,
			  const struct dlt_conv_entry *e,
			  const struct dlt_conv_choice *c)
{
	dlt_json_key(j, key);
	dlt_json_conv_choice(j, e, c);
}

static void dlt_json_pair(struct dlt_json *j, const struct dlt_pair *p)
{
	dlt_json_object_begin(j);
	dlt_json_conv_problem(j, p->a->has_shape ? p->a : p->b);
	dlt_json_side(j, "a", p->a, &p->ca);
	dlt_json_side(j, "b", p->b, &p->cb);
	if (p->changed) {
		char what[640];
		dlt_json_kv_string(j, "what_changed",
				   dlt_what_changed(p, what, sizeof(what)));
	}
	dlt_json_kv_string(j, "time_metric", p->metric);
	if (p->metric) {
		dlt_json_kv_double(j, "time_a", p->ta);
		dlt_json_kv_double(j, "time_b", p->tb);
		dlt_json_kv_double(j, "difference", p->tb - p->ta);
		if (p->ta > 0)
			dlt_json_kv_double(j, "ratio", p->tb / p->ta);
		else
			dlt_json_kv_null(j, "ratio");
	}
	dlt_json_object_end(j);
}

static void dlt_json_run(struct dlt_json *j, const char *key,
			 const struct dlt_run *r)
{
	char v[32];
	dlt_json_key(j, key);
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "input", r->arg);
	dlt_json_kv_string(j, "host", r->host);
	dlt_json_kv_uint(j, "processes", r->nprocs);
	dlt_json_kv_string(
		j, "cudnn",
		r->conv.cudnn_version
			? dlt_cudnn_version_str(r->conv.cudnn_version, v,
						sizeof(v))
			: NULL);
	dlt_json_kv_uint(j, "problems", r->conv.n);
	dlt_json_object_end(j);
}

static void dlt_json_only(struct dlt_json *j, const char *key,
			  const struct dlt_run *r, const struct dlt_run *other)
{
	dlt_json_key(j, key);
	dlt_json_array_begin(j);
	for (size_t i = 0; i < r->conv.n; i++) {
		const struct dlt_conv_entry *e = &r->conv.e[i];
		if (dlt_conv_find(&other->conv, e->problem, e->dir))
			continue;
		struct dlt_conv_choice c;
		dlt_conv_choice(e, &c);
		dlt_json_object_begin(j);
		dlt_json_conv_problem(j, e);
		dlt_json_key(j, "choice");
		dlt_json_conv_choice(j, e, &c);
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
}

static size_t dlt_text_only(FILE *out, const char *title,
			    const struct dlt_run *r,
			    const struct dlt_run *other)
{
	size_t n = 0;
	for (size_t i = 0; i < r->conv.n; i++)
		n += dlt_conv_find(&other->conv, r->conv.e[i].problem,
				   r->conv.e[i].dir) == NULL;
	if (n == 0)
		return 0; /* no heading over nothing */
	fprintf(out, "\n%s (%zu):\n", title, n);
	for (size_t i = 0; i < r->conv.n; i++) {
		const struct dlt_conv_entry *e = &r->conv.e[i];
		if (dlt_conv_find(&other->conv, e->problem, e->dir))
			continue;
		struct dlt_conv_choice c;
		dlt_conv_choice(e, &c);
		dlt_text_problem(out, e);
		dlt_text_choice(out, "choice", e, &c);
	}
	return n;
}

/* The run's cuDNN: what its convolutions ran with, else the version its
 * library said (a run that only loaded it); NULL when it has none. */
static const char *dlt_envdiff_cudnn(const struct dlt_run *r, char *buf,
				     size_t cap)
{
	const struct dlt_envp_item *it =
		r->env ? dlt_envprof_get(r->env, DLT_ENVP_GPU_LIB, "libcudnn")
		       : NULL;
	if (r->conv.cudnn_version)
		return dlt_cudnn_version_str(r->conv.cudnn_version, buf, cap);
	if (it == NULL)
		return NULL;
	snprintf(buf, cap, "%s", it->value);
	return buf;
}

/* "A: DIR (2 processes, cuDNN 9.19.0, 9 convolution problems)": the
 * cuDNN and the problems said only where there are some. */
static void dlt_diff_text_run(FILE *out, const char *side,
			      const struct dlt_run *r, bool cudnn)
{
	char v[32];
	fprintf(out, "%s: ", side);
	dlt_fput_text(out, r->arg, "");
	fprintf(out, " (%zu process%s", r->nprocs, r->nprocs == 1 ? "" : "es");
	if (cudnn && dlt_envdiff_cudnn(r, v, sizeof(v)))
		fprintf(out, ", cuDNN %s", v);
	else if (cudnn)
		fputs(", no cuDNN", out);
	if (r->conv.n)
		fprintf(out, ", %zu convolution problem%s", r->conv.n,
			r->conv.n == 1 ? "" : "s");
	fputs(")\n", out);
}

static void dlt_diff_text(FILE *out, const struct dlt_run *a,
			  const struct dlt_run *b,
			  const struct dlt_envdiff_change *envc, size_t nenv,
			  const struct dlt_pair *pairs, size_t np,
			  size_t nchanged)
{
	char v[32];
	bool ca = dlt_envdiff_cudnn(a, v, sizeof(v)) != NULL,
	     cb = dlt_envdiff_cudnn(b, v, sizeof(v)) != NULL;
	dlt_diff_text_run(out, "A", a, ca || cb);
	dlt_diff_text_run(out, "B", b, ca || cb);
	if (a->host || b->host)
		fprintf(out, "hosts: A %s, B %s\n", a->host ? a->host : "all",
			b->host ? b->host : "all");
	/* Said once, instead of a heading per empty list below. */
	if (!ca && !cb && a->conv.n == 0 && b->conv.n == 0)
		fputs("no cuDNN in either run\n", out);
	dlt_envdiff_text(out, envc, nenv, a, b);
	if (a->conv.n == 0 && b->conv.n == 0) {
		if (ca || cb)
			fputs("\nconvolutions: none traced in either run\n",
			      out);
		return;
	}
	if (nchanged) {
		fprintf(out, "\nconvolutions: choice changed (%zu):\n",
			nchanged);
		for (size_t i = 0; i < np; i++)
			if (pairs[i].changed)
				dlt_text_pair(out, &pairs[i]);
	} else if (np) {
		fprintf(out,
			"\nconvolutions: no choice changed (%zu problem%s in "
			"both runs)\n",
			np, np == 1 ? "" : "s");
	} else {
		fputs("\nconvolutions: no problem in both runs\n", out);
	}
	if (np > nchanged) {
		fprintf(out, "\nsame choice (%zu):\n", np - nchanged);
		for (size_t i = 0; i < np; i++)
			if (!pairs[i].changed)
				dlt_text_pair(out, &pairs[i]);
	}
	dlt_text_only(out, "only in A", a, b);
	dlt_text_only(out, "only in B", b, a);
}

static int dlt_diff_main(int argc, char **argv, FILE *json_out);

int dlt_cmd_diff(int argc, char **argv)
{
	return dlt_diff_main(argc, argv, NULL);
}

int dlt_diff_json(FILE *out, int argc, char **argv)
{
	return dlt_diff_main(argc, argv, out);
}

/* json_out: the JSON document goes there, whatever the options say. */
static int dlt_diff_main(int argc, char **argv, FILE *json_out)
{
	bool json = json_out != NULL;
	const char *run_a = NULL, *run_b = NULL, *host_a = NULL, *host_b = NULL;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL},
					    {"--run-a", NULL, &run_a},
					    {"--run-b", NULL, &run_b},
					    {"--host-a", NULL, &host_a},
					    {"--host-b", NULL, &host_b}};
	int npaths;
	int rc = dlt_cmd_args("diff", dlt_diff_usage, argc, argv, opts, 5,
			      &npaths);
	if (rc >= 0)
		return rc;
	if (npaths != 2) {
		fprintf(stderr,
			"dltrace-analyze diff: two runs needed (A and B), "
			"%d given\n",
			npaths);
		fputs(dlt_diff_usage, stderr);
		return DLT_EXIT_USAGE;
	}
	struct dlt_job_opts oa = {0}, ob = {0};
	if ((rc = dlt_cmd_run_id("diff", run_a, &oa)) >= 0 ||
	    (rc = dlt_cmd_run_id("diff", run_b, &ob)) >= 0)
		return rc;
	struct dlt_run a, b;
	int la = dlt_load_run(&a, argv[0], host_a, &oa);
	int lb = dlt_load_run(&b, argv[1], host_b, &ob);
	if (la != 0 || lb != 0) {
		const char *h = la != 0 ? host_a : host_b;
		fprintf(stderr,
			"dltrace-analyze diff: no usable trace in %s%s%s\n",
			la != 0 ? argv[0] : argv[1], h ? " of host " : "",
			h ? h : "");
		dlt_conv_free(&a.conv);
		dlt_conv_free(&b.conv);
		free(a.units);
		free(b.units);
		dlt_arena_free(a.arena);
		dlt_arena_free(b.arena);
		return DLT_EXIT_USAGE;
	}
	/* One build is one version on both sides too (envprof.h). */
	struct dlt_envprof **all = dlt_xcalloc(a.nu + b.nu + 2, sizeof(*all));
	size_t nall = 0;
	for (size_t i = 0; i < a.nu; i++)
		all[nall++] = a.units[i].prof;
	for (size_t i = 0; i < b.nu; i++)
		all[nall++] = b.units[i].prof;
	all[nall++] = a.env;
	all[nall++] = b.env;
	dlt_envp_unify(&a.arena, all, nall);
	free(all);
	struct dlt_envdiff_change *envc;
	size_t nenv = dlt_envdiff_changes(&a, &b, &envc);
	struct dlt_pair *pairs =
		dlt_xcalloc(a.conv.n ? a.conv.n : 1, sizeof(*pairs));
	size_t np = 0, nchanged = 0;
	for (size_t i = 0; i < a.conv.n; i++) {
		const struct dlt_conv_entry *ea = &a.conv.e[i];
		const struct dlt_conv_entry *eb =
			dlt_conv_find(&b.conv, ea->problem, ea->dir);
		if (eb == NULL)
			continue;
		struct dlt_pair *p = &pairs[np++];
		p->a = ea;
		p->b = eb;
		dlt_conv_choice(ea, &p->ca);
		dlt_conv_choice(eb, &p->cb);
		p->changed = !dlt_conv_choice_same(&p->ca, &p->cb);
		nchanged += p->changed;
		dlt_pair_times(p);
	}
	qsort(pairs, np, sizeof(*pairs), dlt_pair_cmp);
	FILE *out = json_out ? json_out : stdout;
	if (json) {
		struct dlt_json j;
		dlt_json_init(&j, out, json_out == NULL);
		dlt_json_object_begin(&j);
		dlt_json_run(&j, "a", &a);
		dlt_json_run(&j, "b", &b);
		dlt_envdiff_json(&j, envc, nenv, &a, &b);
		dlt_json_key(&j, "changes");
		dlt_json_array_begin(&j);
		for (size_t i = 0; i < np; i++)
			if (pairs[i].changed)
				dlt_json_pair(&j, &pairs[i]);
		dlt_json_array_end(&j);
		dlt_json_key(&j, "unchanged");
		dlt_json_array_begin(&j);
		for (size_t i = 0; i < np; i++)
			if (!pairs[i].changed)
				dlt_json_pair(&j, &pairs[i]);
		dlt_json_array_end(&j);
		dlt_json_only(&j, "only_a", &a, &b);
		dlt_json_only(&j, "only_b", &b, &a);
		dlt_json_object_end(&j);
		if (dlt_json_finish(&j) != 0 && !ferror(out))
			fputs("dltrace-analyze: internal error: malformed JSON "
			      "output\n",
			      stderr);
	} else {
		dlt_diff_text(stdout, &a, &b, envc, nenv, pairs, np, nchanged);
	}
	free(pairs);
	free(envc);
	free(a.units);
	free(b.units);
	dlt_conv_free(&a.conv);
	dlt_conv_free(&b.conv);
	dlt_arena_free(a.arena);
	dlt_arena_free(b.arena);
	return DLT_EXIT_OK;
}
