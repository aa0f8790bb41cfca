/* "report": one self-contained HTML file that holds the verdict, the
 * evidence and the timeline of a job, for someone who was not there.
 *
 * The page is the analyzer's own JSON outputs, written by the functions
 * that write them for check, hangs, libs, algos and export (sections.h),
 * embedded in one <script type="application/json"> element, and a small
 * script and style sheet (analyzer/cmds/report/) compiled into the
 * analyzer that draw it.  Nothing is fetched at view time: the page's
 * Content-Security-Policy forbids every request, so a page that tried
 * would show it in the browser's console rather than leak a path.
 *
 * Each trace is read in check's one pass (dlt_check_read_each): the
 * sections of a process are written while its trace is open, the timeline
 * events read through the same handle, so the report opens each file once
 * like every other command. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "commands.h"
#include "gpu.h"
#include "hangs.h"
#include "job.h"
#include "json.h"
#include "mem.h"
#include "model.h"
#include "names.h"
#include "report.h"
#include "sections.h"
#include "dltrace/version.h"

const char dlt_report_usage[] =
	"usage: dltrace-analyze report [-o FILE] [--run ID] PATH...\n"
	"       dltrace-analyze report [-o FILE] --diff A B\n"
	"\n"
	"Writes one HTML file that holds everything the other commands show\n"
	"of a job, to open offline in a browser and hand to someone else:\n"
	"the findings of check with their evidence and fixes, the process\n"
	"tree and how each process ended, the hang table, the library loads\n"
	"(with a filter), the cuDNN algorithm choices and a zoomable timeline\n"
	"(with a button that saves the same timeline as Perfetto JSON).\n"
	"The page needs no network: everything is inside the file.\n"
	"\n"
	"  -o FILE, --output FILE   where to write it (default\n"
	"                           dltrace-report.html; - for stdout)\n"
	"  --run ID                 only the traces of that run of the\n"
	"                           launcher (summary shows each run's ID)\n"
	"  --diff A B               the page of run B (the one that\n"
	"                           misbehaves) with what changed since A:\n"
	"                           libraries, environment, cuDNN choices\n"
	"                           (what diff A B says)\n"
	"\n"
	"The page holds what the traces hold, after the privacy rules of\n"
	"docs/privacy.md (an allow-list of environment variables, secrets\n"
	"as <redacted>); it says how many values were redacted.\n"
	"\n"
	"exit status: 0 the report was written (inputs that cannot be read\n"
	"are reported on stderr and in the page), 2 bad arguments, no usable\n"
	"trace, or the file could not be written.\n";

/* The page's parts, made at build time from analyzer/cmds/report/. */
extern const char dlt_report_html_head[], dlt_report_css[],
	dlt_report_timeline_js[], dlt_report_js[];

/* One JSON document being written into memory. */
struct dlt_rsec {
	char *buf;
	size_t len;
	FILE *f;
	struct dlt_json j;
};

static void dlt_rsec_open(struct dlt_rsec *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	if (s->f == NULL) {
		/* As dlt_x* do: without memory nothing useful is left. */
		fputs("dltrace-analyze: out of memory\n", stderr);
		exit(DLT_EXIT_USAGE);
	}
	dlt_json_init(&s->j, s->f, false);
}

/* Closes the stream; -1 when the JSON is not whole (a bug). */
static int dlt_rsec_close(struct dlt_rsec *s)
{
	int bad = s->j.out ? dlt_json_finish(&s->j) : 0;
	if (fclose(s->f) != 0)
		bad = -1;
	s->f = NULL;
	return bad;
}

struct dlt_rtrack {
	uint64_t trace_id;
	struct dlt_ex_track tr;
};

/* The distinct library objects of the job: a 1,000-process tree loads
 * the same few files 1,000 times, and the page shows one row per file,
 * rule and version anyway.  Each object is kept once, by its exact JSON
 * text, and processes name them by index: nothing is lost. */
struct dlt_rlibs {
	char *text; /* the objects, back to back */
	size_t len, cap;
	size_t *off, *olen; /* object i: text + off[i], olen[i] bytes */
	size_t n, capn;
	uint32_t *slot; /* open addressing: index + 1, 0 empty */
	size_t nslots;
};

static uint64_t dlt_rlib_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void dlt_rlibs_rehash(struct dlt_rlibs *l)
{
	free(l->slot);
	l->nslots = l->nslots ? l->nslots * 2 : 256;
	l->slot = dlt_xcalloc(l->nslots, sizeof(*l->slot));
	for (size_t i = 0; i < l->n; i++) {
		size_t k = dlt_rlib_hash(l->text + l->off[i], l->olen[i]) &
			   (l->nslots - 1);
		while (l->slot[k])
			k = (k + 1) & (l->nslots - 1);
		l->slot[k] = (uint32_t)i + 1;
	}
}

/* The index of the object json, added when new. */
static size_t dlt_rlibs_add(struct dlt_rlibs *l, const char *json, size_t n)
{
	if (2 * (l->n + 1) > l->nslots)
		dlt_rlibs_rehash(l);
	size_t k = dlt_rlib_hash(json, n) & (l->nslots - 1);
	for (; l->slot[k]; k = (k + 1) & (l->nslots - 1)) {
		size_t i = l->slot[k] - 1;
		if (l->olen[i] == n &&
		    memcmp(l->text + l->off[i], json, n) == 0)
			return i;
	}
	if (l->len + n > l->cap) {
		l->cap = (l->len + n) * 2;
		l->text = dlt_xrealloc(l->text, l->cap, 1);
	}
	memcpy(l->text + l->len, json, n);
	if (l->n == l->capn) {
		l->capn = l->capn ? l->capn * 2 : 64;
		l->off = dlt_xrealloc(l->off, l->capn, sizeof(*l->off));
		l->olen = dlt_xrealloc(l->olen, l->capn, sizeof(*l->olen));
	}
	l->off[l->n] = l->len;
	l->olen[l->n] = n;
	l->len += n;
	l->slot[k] = (uint32_t)l->n + 1;
	return l->n++;
}

struct dlt_report {
	struct dlt_rsec libs, algos, timeline, hangs;
	struct dlt_rlibs lib;
	struct dlt_env_job env;
	uint64_t origin;
	size_t index;
	struct dlt_rtrack *tracks;
	size_t ntracks;
	const struct dlt_check *c;
};

static void dlt_report_lib(void *ctx, const char *json, size_t len)
{
	struct dlt_report *r = ctx;
	dlt_json_uint(&r->libs.j, dlt_rlibs_add(&r->lib, json, len));
}

static void dlt_report_trace(void *ctx, struct dlt_trace *t,
			     const struct dlt_process *p,
			     const struct dlt_gpu *g,
			     const struct dlt_hang_proc *hp, size_t proc)
{
	(void)proc;
	struct dlt_report *r = ctx;
	struct dlt_json *j = &r->libs.j;
	dlt_json_object_begin(j);
	dlt_json_kv_uint(j, "pid", p->hdr.pid);
	dlt_json_kv_string(j, "host", p->host);
	dlt_json_key(j, "libraries");
	dlt_json_array_begin(j);
	dlt_libs_json_each(p, dlt_report_lib, r);
	dlt_json_array_end(j);
	dlt_json_object_end(j);
	dlt_env_job_add(&r->env, p, g);
	/* The page shows convolutions; a process without one adds nothing. */
	if (g->conv.n)
		dlt_algos_json_process(&r->algos.j, p, g);
	struct dlt_rtrack *k = &r->tracks[r->ntracks++];
	k->trace_id = p->hdr.trace_id;
	dlt_export_events(&r->timeline.j, t, p, g, hp, r->index++, r->origin,
			  &k->tr);
}

static int dlt_rank_cmp(const void *a, const void *b)
{
	return dlt_hang_rank_order(a, b);
}

static void dlt_report_job(void *ctx, const struct dlt_hang_proc *procs,
			   size_t n)
{
	struct dlt_report *r = ctx;
	/* The table is in rank order, as hangs shows it. */
	struct dlt_hang_proc *sorted = dlt_xcalloc(n ? n : 1, sizeof(*sorted));
	memcpy(sorted, procs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), dlt_rank_cmp);
	struct dlt_json *j = &r->hangs.j;
	dlt_json_array_begin(j);
	for (size_t i = 0; i < n; i++)
		dlt_hang_row(j, &sorted[i]);
	dlt_json_array_end(j);
	free(sorted);
}

static int dlt_track_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct dlt_rtrack *)a)->trace_id;
	uint64_t y = ((const struct dlt_rtrack *)b)->trace_id;
	return x < y ? -1 : x > y;
}

/* The findings as markers on their processes' tracks, once check has
 * numbered the processes for good. */
static void dlt_report_markers(struct dlt_report *r)
{
	qsort(r->tracks, r->ntracks, sizeof(*r->tracks), dlt_track_cmp);
	const struct dlt_check *c = r->c;
	for (size_t i = 0; i < c->nf; i++) {
		const struct dlt_finding *f = &c->f[i];
		if (f->proc == DLT_NO_PROC)
			continue;
		struct dlt_rtrack key = {.trace_id =
						 c->procs[f->proc].trace_id};
		const struct dlt_rtrack *k =
			bsearch(&key, r->tracks, r->ntracks, sizeof(*r->tracks),
				dlt_track_cmp);
		if (k)
			dlt_export_marker(&r->timeline.j, &k->tr, r->origin, f);
	}
}

/* Writes s, a JSON document, where it is safe inside a <script>
 * element: '<' becomes \u003c (it only occurs inside strings, where the
 * escape means the same), so no "</script" or "<!--" can end or bend the
 * element. */
static void dlt_put_json_in_html(FILE *out, const char *s, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '<')
			continue;
		fwrite(s + from, 1, i - from, out);
		fputs("\\u003c", out);
		from = i + 1;
	}
	fwrite(s + from, 1, n - from, out);
}

/* The same for text inside an HTML element (the title). */
static void dlt_put_html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

/* The command line that made the report, for the page to say; origin:
 * the job's start (the earliest trace's, the timeline's zero), from which
 * the page counts "+12.4 s after start". */
static void dlt_report_meta(struct dlt_rsec *m, int argc, char **argv,
			    const struct dlt_check *c, const char *title,
			    size_t redacted, uint64_t origin)
{
	struct dlt_json *j = &m->j;
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "producer", "dltrace-analyze report");
	dlt_json_kv_string(j, "version", DLT_VERSION);
	dlt_json_key(j, "command");
	dlt_json_array_begin(j);
	dlt_json_string(j, "dltrace-analyze");
	dlt_json_string(j, "report");
	for (int i = 0; i < argc; i++)
		dlt_json_string(j, argv[i]);
	dlt_json_array_end(j);
	char when[64];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	dlt_format_utc((uint64_t)now.tv_sec * 1000000000u +
			       (uint64_t)now.tv_nsec,
		       when, sizeof(when));
	dlt_json_kv_string(j, "written_utc", when);
	dlt_json_kv_string(j, "title", title);
	dlt_json_kv_uint(j, "processes", c->nprocs);
	dlt_json_kv_uint(j, "redacted", redacted);
	if (origin != UINT64_MAX)
		dlt_json_kv_uint(j, "start_unix_ns", origin);
	dlt_json_object_end(j);
}

/* How many values the privacy rules replaced (docs/privacy.md), for the
 * page to say. */
static size_t dlt_count_redacted(const char *s, size_t n)
{
	static const char mark[] = "<redacted>";
	const size_t m = sizeof(mark) - 1;
	size_t k = 0;
	for (size_t i = 0; s && i + m <= n; i++)
		if (s[i] == '<' && memcmp(s + i, mark, m) == 0) {
			k++;
			i += m - 1;
		}
	return k;
}

static void dlt_put_section(FILE *out, const char *name,
			    const struct dlt_rsec *s, bool first)
{
	fprintf(out, "%s\"%s\":", first ? "" : ",", name);
	dlt_put_json_in_html(out, s->buf, s->len);
}

static int dlt_report_main(int argc, char **argv, bool said);

int dlt_cmd_report(int argc, char **argv)
{
	return dlt_report_main(argc, argv, true);
}

int dlt_report_write(const char *file, const char *dir)
{
	char *args[] = {"-o", (char *)file, (char *)dir};
	return dlt_report_main(3, args, false);
}

/* said: say where the report went. */
static int dlt_report_main(int argc, char **argv, bool said)
{
	const char *output = "dltrace-report.html", *run = NULL;
	bool diff = false;
	const struct dlt_flag_opt opts[] = {{"-o", NULL, &output},
					    {"--output", NULL, &output},
					    {"--run", NULL, &run},
					    {"--diff", &diff, NULL}};
	int nargs = argc;
	/* The command line as given, before dlt_cmd_args reorders it. */
	char **given = dlt_xcalloc((size_t)argc + 1, sizeof(*given));
	memcpy(given, argv, (size_t)argc * sizeof(*given));
	struct dlt_report r = {0};
	int npaths;
	int rc = dlt_cmd_args("report", dlt_report_usage, argc, argv, opts, 4,
			      &npaths);
	if (rc >= 0) {
		free(given);
		return rc;
	}
	if (diff && (npaths != 2 || run)) {
		fprintf(stderr,
			"dltrace-analyze report: --diff takes two runs, "
			"A B (and no --run)\n");
		free(given);
		return DLT_EXIT_USAGE;
	}
	/* A diff report is the page of B, the run that misbehaves, with what
	 * changed since A: diff --json A B. */
	char *diffdoc = NULL;
	size_t difflen = 0;
	if (diff) {
		FILE *f = open_memstream(&diffdoc, &difflen);
		if (f == NULL) {
			fputs("dltrace-analyze: out of memory\n", stderr);
			exit(DLT_EXIT_USAGE);
		}
		char *pair[] = {argv[0], argv[1]};
		rc = dlt_diff_json(f, 2, pair);
		fclose(f);
		if (rc != DLT_EXIT_OK) {
			free(diffdoc);
			free(given);
			return rc;
		}
		argv++;
		npaths = 1;
	}
	struct dlt_job jb;
	const struct dlt_job_opts how = {.order = DLT_JOB_BY_START};
	rc = dlt_cmd_job("report", run, &how, npaths, argv, &jb);
	if (rc >= 0) {
		free(diffdoc);
		free(given);
		return rc;
	}
	r.env.arg = argv[0];
	r.origin = dlt_export_origin(&jb);
	r.tracks = dlt_xcalloc(jb.ntraces ? jb.ntraces : 1, sizeof(*r.tracks));
	dlt_rsec_open(&r.libs);
	dlt_json_array_begin(&r.libs.j);
	dlt_rsec_open(&r.algos);
	dlt_json_object_begin(&r.algos.j);
	dlt_json_key(&r.algos.j, "processes");
	dlt_json_array_begin(&r.algos.j);
	dlt_rsec_open(&r.timeline);
	dlt_export_begin(&r.timeline.j, r.origin);
	dlt_rsec_open(&r.hangs);

	struct dlt_check c;
	dlt_check_init(&c);
	r.c = &c;
	const struct dlt_check_each each = {dlt_report_trace, dlt_report_job,
					    &r};
	dlt_check_read_each(&c, &jb, stderr, &each);
	dlt_job_close(&jb);
	dlt_report_markers(&r);

	dlt_json_array_end(&r.libs.j);
	dlt_json_array_end(&r.algos.j);
	dlt_json_object_end(&r.algos.j);
	dlt_json_array_end(&r.timeline.j);
	dlt_json_object_end(&r.timeline.j);
	struct dlt_rsec check, meta, env;
	dlt_rsec_open(&env);
	dlt_env_job_finish(&r.env);
	dlt_env_json(&env.j, &r.env);
	dlt_env_free(&r.env);
	dlt_rsec_open(&check);
	check.j.out = NULL; /* dlt_check_json has its own writer */
	int bad = dlt_check_json(check.f, &c) != 0;
	char title[256];
	snprintf(title, sizeof(title),
		 "dltrace report: %zu process%s, %zu "
		 "error%s, %zu warning%s",
		 c.nprocs, c.nprocs == 1 ? "" : "es", c.counts[DLT_SEV_ERROR],
		 c.counts[DLT_SEV_ERROR] == 1 ? "" : "s",
		 c.counts[DLT_SEV_WARNING],
		 c.counts[DLT_SEV_WARNING] == 1 ? "" : "s");
	bad |= dlt_rsec_close(&r.libs) | dlt_rsec_close(&r.algos) |
	       dlt_rsec_close(&r.timeline) | dlt_rsec_close(&r.hangs) |
	       dlt_rsec_close(&check) | dlt_rsec_close(&env);
	size_t redacted = dlt_count_redacted(check.buf, check.len) +
			  dlt_count_redacted(r.hangs.buf, r.hangs.len) +
			  dlt_count_redacted(r.lib.text, r.lib.len) +
			  dlt_count_redacted(r.algos.buf, r.algos.len) +
			  dlt_count_redacted(r.timeline.buf, r.timeline.len);
	dlt_rsec_open(&meta);
	dlt_report_meta(&meta, nargs, given, &c, title, redacted, r.origin);
	bad |= dlt_rsec_close(&meta);
	free(given);
	free(r.tracks);
	dlt_check_free(&c);
	if (bad) {
		fputs("dltrace-analyze: internal error: malformed JSON "
		      "output\n",
		      stderr);
		rc = DLT_EXIT_USAGE;
		goto out;
	}

	bool to_stdout = strcmp(output, "-") == 0;
	FILE *out = to_stdout ? stdout : fopen(output, "w");
	if (out == NULL) {
		fprintf(stderr, "dltrace-analyze report: %s: %s\n", output,
			strerror(errno));
		rc = DLT_EXIT_USAGE;
		goto out;
	}
	fputs(dlt_report_html_head, out);
	fputs("<title>", out);
	dlt_put_html_text(out, title);
	fputs("</title>\n<style>\n", out);
	fputs(dlt_report_css, out);
	fputs("</style>\n</head>\n<body>\n<noscript>This report is drawn by "
	      "the script inside the file; allow scripts for this file to "
	      "see it. The data is in the element dlt-data.</noscript>\n"
	      "<script type=\"application/json\" id=\"dlt-data\">{",
	      out);
	dlt_put_section(out, "meta", &meta, true);
	dlt_put_section(out, "check", &check, false);
	dlt_put_section(out, "hangs", &r.hangs, false);
	/* libs: {"libraries": [the distinct objects], "processes": [{pid,
	 * host, libraries: [indexes]}]} */
	fputs(",\"libs\":{\"libraries\":[", out);
	for (size_t i = 0; i < r.lib.n; i++) {
		if (i)
			fputc(',', out);
		dlt_put_json_in_html(out, r.lib.text + r.lib.off[i],
				     r.lib.olen[i]);
	}
	fputs("],\"processes\":", out);
	dlt_put_json_in_html(out, r.libs.buf, r.libs.len);
	fputc('}', out);
	dlt_put_section(out, "algos", &r.algos, false);
	dlt_put_section(out, "env", &env, false);
	if (diffdoc) {
		fputs(",\"diff\":", out);
		dlt_put_json_in_html(out, diffdoc, difflen);
	}
	dlt_put_section(out, "timeline", &r.timeline, false);
	fputs("}</script>\n<script>\n", out);
	fputs(dlt_report_timeline_js, out);
	fputs(dlt_report_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	int werr = ferror(out);
	if (!to_stdout && fclose(out) != 0)
		werr = 1;
	else if (to_stdout && fflush(out) != 0)
		werr = 1;
	if (werr) {
		fprintf(stderr, "dltrace-analyze report: %s: %s\n", output,
			errno ? strerror(errno) : "write error");
		rc = DLT_EXIT_USAGE;
		goto out;
	}
	if (!to_stdout && said)
		fprintf(stderr, "dltrace-analyze: report written to %s\n",
			output);
	rc = DLT_EXIT_OK;
out:
	free(r.libs.buf);
	free(r.algos.buf);
	free(r.timeline.buf);
	free(r.hangs.buf);
	free(r.lib.text);
	free(r.lib.off);
	free(r.lib.olen);
	free(r.lib.slot);
	free(check.buf);
	free(meta.buf);
	free(env.buf);
	free(diffdoc);
	return rc;
}
