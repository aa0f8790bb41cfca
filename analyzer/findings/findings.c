/* The findings sink (findings.h): findings and the processes they are
 * about, kept in one arena, and their order. */
#include "findings.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *dlt_check_str(struct dlt_check *c, const char *s)
{
	return dlt_arena_strdup(&c->arena, s);
}

/* ---- findings ---------------------------------------------------------- */

size_t dlt_text_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Where a message longer than a headline is cut: the byte offset of the
 * last "; " (else ", ", else " (") that leaves at most DLT_HEADLINE_MAX
 * characters before it and is not too early to say something; *rest is
 * where the detail starts, after the separator.  Without such a boundary
 * the cut is at the last space (else the last whole character) and the
 * detail is the whole message, so that no phrase is split between the
 * two (*rest 0). */
static size_t dlt_headline_cut(const char *m, size_t *rest)
{
	static const char *const seps[] = {"; ", ", ", " ("};
	size_t lim = 0, chars = 0;
	while (m[lim] && chars < DLT_HEADLINE_MAX - 1) {
		lim++;
		while (((unsigned char)m[lim] & 0xc0) == 0x80)
			lim++;
		chars++;
	}
	for (size_t k = 0; k < sizeof(seps) / sizeof(seps[0]); k++) {
		size_t best = 0;
		/* ", " before a digit is inside a list of numbers ("ranks
		 * 0–4,502, 4,504–9,999"), not between clauses. */
		for (const char *p = strstr(m, seps[k]);
		     p && (size_t)(p - m) <= lim; p = strstr(p + 1, seps[k]))
			if (k != 1 || !isdigit((unsigned char)p[2]))
				best = (size_t)(p - m);
		if (best >= lim / 3) {
			/* " (": the parenthesis goes with the detail. */
			*rest = best + (seps[k][0] == ' ' ? 1 : 2);
			return best;
		}
	}
	*rest = 0;
	for (size_t i = lim; i > lim / 3; i--)
		if (m[i] == ' ')
			return i;
	return lim;
}

void dlt_finding_detail(struct dlt_check *c, struct dlt_finding *f,
			const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	f->detail = buf[0] ? dlt_check_str(c, buf) : NULL;
}

void dlt_finding_detail_add(struct dlt_check *c, struct dlt_finding *f,
			    const char *clause)
{
	if (clause == NULL || clause[0] == '\0')
		return;
	if (f->detail)
		dlt_finding_detail(c, f, "%s; %s", f->detail, clause);
	else
		dlt_finding_detail(c, f, "%s", clause);
}

struct dlt_finding *dlt_check_finding(struct dlt_check *c, const char *code,
				      size_t rule, enum dlt_severity sev,
				      size_t proc, const char *message)
{
	if (c->nf == c->capf) {
		c->capf = c->capf ? c->capf * 2 : 32;
		c->f = dlt_xrealloc(c->f, c->capf, sizeof(*c->f));
	}
	struct dlt_finding *f = &c->f[c->nf++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->rule = rule;
	f->seq = c->nf - 1;
	f->severity = sev;
	f->proc = proc;
	if (dlt_text_chars(message) > DLT_HEADLINE_MAX) {
		size_t rest, cut = dlt_headline_cut(message, &rest);
		char *h = dlt_arena_alloc(&c->arena, cut + 4);
		memcpy(h, message, cut);
		/* A cut inside a clause says so. */
		strcpy(h + cut, rest == 0 ? "…" : "");
		f->message = h;
		f->detail = dlt_check_str(c, message + rest);
	} else {
		f->message = dlt_check_str(c, message);
	}
	f->evidence = dlt_val_object(&c->arena);
	c->counts[sev]++;
	if (proc != DLT_NO_PROC)
		c->procs[proc].counts[sev]++;
	return f;
}

static struct dlt_finding *dlt_vfinding(struct dlt_check *c, const char *code,
					size_t rule, enum dlt_severity sev,
					size_t proc, const char *fmt,
					va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	return dlt_check_finding(c, code, rule, sev, proc, buf);
}

static void dlt_vfix(struct dlt_check *c, struct dlt_finding *f,
		     const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	f->fix = dlt_check_str(c, buf);
}

struct dlt_finding *dlt_rule_finding(struct dlt_rule_ctx *c,
				     enum dlt_severity sev, const char *fmt,
				     ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct dlt_finding *f =
		dlt_vfinding(c->chk, c->code, c->rule, sev, c->proc, fmt, ap);
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
	struct dlt_finding *f = dlt_vfinding(c->chk, c->code, c->rule, sev,
					     c->proc[i], fmt, ap);
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
		c->explained[err_index] = c->code;
}

struct dlt_check_proc *dlt_check_new_proc(struct dlt_check *c)
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
