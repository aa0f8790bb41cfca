/* check's report: the JSON document of check --json and the text report,
 * written from the findings sink alone. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "names.h"
#include "text.h"

/* A run's identity as summary and --run write it. */
static const char *dlt_run_hex(uint64_t run, char buf[64])
{
	snprintf(buf, 64, "%016" PRIx64, run);
	return buf;
}

/* "rank" and "world_size", null where unknown. */
static void dlt_json_rank_size(struct dlt_json *j,
			       const struct dlt_check_proc *p)
{
	if (p->rank >= 0)
		dlt_json_kv_int(j, "rank", p->rank);
	else
		dlt_json_kv_null(j, "rank");
	if (p->world_size > 0)
		dlt_json_kv_int(j, "world_size", p->world_size);
	else
		dlt_json_kv_null(j, "world_size");
}

static void dlt_json_proc(struct dlt_json *j, const struct dlt_check_proc *p)
{
	char when[64];
	dlt_json_object_begin(j);
	dlt_json_kv_uint(j, "pid", p->pid);
	dlt_json_kv_uint(j, "ppid", p->ppid);
	dlt_json_rank_size(j, p);
	/* The same, with where they came from: what the job's code passed,
	 * a launcher's variable, the communicator it joined. */
	dlt_json_key(j, "identity");
	dlt_json_object_begin(j);
	dlt_json_rank_size(j, p);
	if (p->rank >= 0 && p->rank_source)
		dlt_json_kv_string(j, "source", p->rank_source);
	else
		dlt_json_kv_null(j, "source");
	dlt_json_object_end(j);
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
	if (p->rss_peak_kb)
		dlt_json_kv_uint(j, "peak_rss_kb", p->rss_peak_kb);
	else
		dlt_json_kv_null(j, "peak_rss_kb");
	dlt_json_kv_bool(j, "killed_by_dltrace", p->killed_by_dltrace);
	dlt_json_key(j, "versions");
	dlt_val_json(j, p->versions);
	dlt_json_key(j, "gpu_calls");
	if (p->gpu_calls) {
		dlt_val_json(j, p->gpu_calls);
	} else {
		dlt_json_array_begin(j);
		dlt_json_array_end(j);
	}
	/* Monotonic as the trace has it, and since the trace's start (as
	 * summary says it: "+12.4 s"). */
	if (p->individual_from_ns) {
		dlt_json_kv_uint(j, "individual_from_ns",
				 p->individual_from_ns);
		dlt_json_kv_int(j, "individual_from_offset_ns",
				(int64_t)(p->individual_from_ns -
					  p->start_monotonic_ns));
	} else {
		dlt_json_kv_null(j, "individual_from_ns");
		dlt_json_kv_null(j, "individual_from_offset_ns");
	}
	dlt_json_kv_uint(j, "lost_calls", p->lost_calls);
	dlt_json_kv_uint(j, "lost_records", p->lost_records);
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
	dlt_json_kv_string(j, "detail", f->detail);
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
		      const struct dlt_finding *f, size_t width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m == NULL)
		return;
	fprintf(m, "%s %s ", dlt_severity_name(f->severity), f->code);
	if (f->proc != DLT_NO_PROC)
		dlt_put_proc_ref(m, &c->procs[f->proc]);
	else
		fputs("(no process)", m);
	fputs(": ", m);
	dlt_fput_text(m, f->message, "");
	fclose(m);
	/* One terminal line: the headline is cut where the process's name
	 * before it left no room (check shows it whole). */
	size_t at = len;
	if (width && dlt_text_chars(buf) > width) {
		at = 0;
		for (size_t chars = 0; chars + 1 < width; chars++) {
			at++;
			while (((unsigned char)buf[at] & 0xc0) == 0x80)
				at++;
		}
	}
	fprintf(out, "%.*s%s\n", (int)at, buf, at < len ? "…" : "");
	free(buf);
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

/* Characters (not bytes) of s[0..n). */
static size_t dlt_chars_n(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/* Text in lines of at most width characters: the first after what the
 * caller wrote, the others indented by cont.  A clause is broken after
 * "; " or ", ", else before " (", else at a blank, so that each piece
 * still reads as one; prose (clauses false) at the last blank that
 * fits. */
static void dlt_put_wrapped(FILE *out, const char *s, size_t width, int cont,
			    bool clauses)
{
	while (s && *s) {
		size_t len = strlen(s);
		if (dlt_chars_n(s, len) <= width) {
			dlt_fput_text(out, s, "");
			break;
		}
		/* The byte where the width runs out. */
		size_t lim = 0;
		for (size_t chars = 0; lim < len && chars < width; chars++) {
			lim++;
			while (((unsigned char)s[lim] & 0xc0) == 0x80)
				lim++;
		}
		/* "; " and ", " end their line (the blank after them is
		 * dropped); " (" and " " begin the next one. */
		static const char *const seps[] = {"; ", ", ", " (", " "};
		size_t cut = 0, skip = 0;
		for (size_t k = clauses ? 0 : 3; k < 4 && cut == 0; k++) {
			for (const char *q = strstr(s, seps[k]); q;
			     q = strstr(q + 1, seps[k])) {
				size_t end = (size_t)(q - s) + (k < 2);
				if (end > lim)
					break;
				if (end >= lim / 3) {
					cut = end;
					skip = 1;
				}
			}
		}
		if (cut == 0) {
			cut = lim;
			skip = 0;
		}
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)cut, s);
		dlt_fput_text(out, line, "");
		fprintf(out, "\n%*s", cont, "");
		s += cut + skip;
	}
}

/* The next "; " of d outside parentheses ("(limit 64 MiB; peak RSS 66
 * MiB)" is one clause), or NULL. */
static const char *dlt_clause_end(const char *d)
{
	int depth = 0;
	for (const char *p = d; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (*p == ';' && p[1] == ' ' && depth == 0)
			return p;
	}
	return NULL;
}

/* A finding's detail below its headline: a clause ("; ") a line, a clause
 * longer than a headline continued on the next. */
static void dlt_detail_text(FILE *out, const char *d)
{
	while (d && *d) {
		const char *e = dlt_clause_end(d);
		size_t n = e ? (size_t)(e - d) : strlen(d);
		char line[4096];
		snprintf(line, sizeof(line), "%.*s", (int)n, d);
		fputs("    ", out);
		dlt_put_wrapped(out, line, DLT_HEADLINE_MAX, 6, true);
		fputc('\n', out);
		d = e ? e + 2 : NULL;
	}
}

/* The start of the process a pid of the evidence names, for "+12.4 s
 * after start": the finding's own when the pid is its, else the first
 * process read with that pid. */
struct dlt_text_starts {
	const struct dlt_check *c;
	const struct dlt_check_proc *own;
};

static uint64_t dlt_text_start_of(void *arg, uint64_t pid)
{
	const struct dlt_text_starts *s = arg;
	if (s->own && s->own->pid == pid)
		return s->own->start_realtime_ns;
	for (size_t i = 0; i < s->c->nprocs; i++)
		if (s->c->procs[i].pid == pid &&
		    (s->own == NULL ||
		     s->c->procs[i].run_group == s->own->run_group))
			return s->c->procs[i].start_realtime_ns;
	return 0;
}

/* Width of the fix's lines: a terminal's, less its indent. */
#define DLT_TEXT_FIX_WIDTH 100

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
			dlt_detail_text(out, f->detail);
			if (f->evidence && f->evidence->n) {
				/* Values for people; moments after the start
				 * of the process they are about. */
				struct dlt_text_starts st = {
					c, f->proc == DLT_NO_PROC
						   ? NULL
						   : &c->procs[f->proc]};
				struct dlt_val_view view = {
					st.own ? st.own->pid : 0,
					st.own ? st.own->start_realtime_ns : 0,
					dlt_text_start_of, &st};
				fputs("  evidence:\n", out);
				dlt_val_text_view(out, f->evidence, 4, &view);
			}
			if (f->fix) {
				fputs("  fix: ", out);
				dlt_put_wrapped(out, f->fix, DLT_TEXT_FIX_WIDTH,
						7, false);
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
