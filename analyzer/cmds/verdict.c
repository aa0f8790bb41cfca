/* The verdict the launcher prints when its command is done or
 * --hang-timeout ended it: a short view of `check`, whose job rules include
 * the hang findings. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "commands.h"
#include "job.h"
#include "report.h"
#include "model.h"

#define DLT_VERDICT_LINES 10

/* Lines are kept so that the count of the ones left out can be said. */
struct dlt_verdict {
	FILE *out;
	size_t shown;
	size_t more;
};

static FILE *dlt_verdict_line(struct dlt_verdict *v)
{
	if (v->shown >= DLT_VERDICT_LINES) {
		v->more++;
		return NULL;
	}
	v->shown++;
	fputs("dltrace: ", v->out);
	return v->out;
}

static const char *dlt_ev_string(const struct dlt_val *ev, const char *key)
{
	const struct dlt_val *v = dlt_val_get(ev, key);
	return v && v->type == DLT_V_STR ? v->as.s : NULL;
}

/* The verdict is the check's findings of severity warning and error, one
 * line each, next to how each process ended and what could not be read:
 * what a person running `dltrace python train.py` needs to see first. */
int dlt_verdict_print(FILE *out, const char *dir, uint64_t run)
{
	struct dlt_check c;
	char *args[] = {(char *)dir};
	int problems = 0;
	dlt_check_init(&c);
	struct dlt_job j;
	const struct dlt_job_opts how = {.order = DLT_JOB_BY_START};
	dlt_job_open(&j, 1, args, &how);
	dlt_check_read(&c, &j, NULL);
	dlt_job_close(&j);
	/* Only this run: the launchers that ran at the same time (the ranks
	 * of one job each under its own dltrace) and not those that had
	 * ended before (a directory used again).  Checked over the whole
	 * directory, which tells the two apart (runs.h). */
	bool *mine = dlt_xcalloc(c.nprocs ? c.nprocs : 1, sizeof(*mine));
	uint32_t group = UINT32_MAX;
	for (size_t i = 0; i < c.nprocs; i++)
		if (c.procs[i].run_id == run)
			group = c.procs[i].run_group;
	size_t kept = 0, others = 0, untraced = 0;
	for (size_t i = 0; i < c.nprocs; i++) {
		mine[i] = run == 0 || c.procs[i].run_group == group;
		/* A forked child that left no trace is counted apart. */
		if (c.procs[i].trace == NULL) {
			untraced += mine[i];
			continue;
		}
		kept += mine[i];
		others += !mine[i];
	}
	size_t nruns = c.nruns > 1 ? c.nruns - 1 : 0;
	if (c.nprocs > 0 && kept == 0) {
		fputs("dltrace: no trace of this run in ", out);
		dlt_fput_text(out, dir, "");
		fprintf(out, " (it holds %zu of %zu other run%s)\n", others,
			c.nruns, c.nruns == 1 ? "" : "s");
		free(mine);
		dlt_check_free(&c);
		return -1;
	}
	if (c.nprocs == 0 && c.nf == 1 && c.f[0].proc == DLT_NO_PROC) {
		const char *input = dlt_ev_string(c.f[0].evidence, "input");
		if (input && strcmp(input, dir) == 0) {
			fputs("dltrace: no trace in ", out);
			dlt_fput_text(out, dir, "");
			fputs(": ", out);
			dlt_fput_text(out,
				      dlt_ev_string(c.f[0].evidence, "reason"),
				      "");
			fputc('\n', out);
			free(mine);
			dlt_check_free(&c);
			return -1;
		}
	}
	fprintf(out, "dltrace: %zu process%s traced in ", kept,
		kept == 1 ? "" : "es");
	dlt_fput_text(out, dir, "");
	if (untraced)
		fprintf(out, " (and %zu forked child%s that left no trace)",
			untraced, untraced == 1 ? "" : "ren");
	fputc('\n', out);
	if (others)
		fprintf(out,
			"dltrace: (the directory also holds %zu trace%s of %zu "
			"other run%s, left out here)\n",
			others, others == 1 ? "" : "s", nruns,
			nruns == 1 ? "" : "s");

	struct dlt_verdict v = {out, 0, 0};
	FILE *o;
	for (size_t i = 0; i < c.nf; i++) {
		const struct dlt_finding *f = &c.f[i];
		if (f->proc != DLT_NO_PROC)
			continue;
		problems++;
		if ((o = dlt_verdict_line(&v)) == NULL)
			continue;
		dlt_fput_text(o, dlt_ev_string(f->evidence, "input"), "?");
		fputs(": unreadable: ", o);
		dlt_fput_text(o, dlt_ev_string(f->evidence, "reason"), "");
		fputc('\n', o);
	}
	/* What --hang-timeout ended, on one line: the hang findings say
	 * why, and each process's own line would only repeat it. */
	size_t by_dltrace = 0;
	FILE *kl = NULL;
	for (size_t i = 0; i < c.nprocs; i++) {
		const struct dlt_check_proc *p = &c.procs[i];
		if (!p->killed_by_dltrace || !mine[i])
			continue;
		if (by_dltrace++ == 0) {
			problems++;
			kl = dlt_verdict_line(&v);
			if (kl)
				fputs("ended by dltrace after --hang-timeout:",
				      kl);
		}
		if (kl == NULL || by_dltrace > 8)
			continue;
		fprintf(kl, "%s pid %" PRIu32 " (", by_dltrace > 1 ? "," : "",
			p->pid);
		dlt_fput_text(kl, p->exe ? dlt_basename(p->exe) : NULL, "?");
		fputc(')', kl);
	}
	if (kl && by_dltrace > 8)
		fprintf(kl, " and %zu more", by_dltrace - 8);
	if (kl)
		fputc('\n', kl);
	for (size_t i = 0; i < c.nprocs; i++) {
		const struct dlt_check_proc *p = &c.procs[i];
		/* A failure the parent handled is the program's business
		 * (pyenv's probes, `cmd || fallback`): check lists it. */
		if (!p->end_failure || p->end_handled || !mine[i] ||
		    p->killed_by_dltrace)
			continue;
		problems++;
		if ((o = dlt_verdict_line(&v)) == NULL)
			continue;
		fprintf(o, "pid %" PRIu32 " (", p->pid);
		dlt_fput_text(o, p->exe ? dlt_basename(p->exe) : NULL, "?");
		if (p->rank >= 0)
			fprintf(o, ", rank %" PRId32, p->rank);
		fputs("): ", o);
		dlt_fput_text(o, p->ended, "");
		fputc('\n', o);
	}
	for (int sev = DLT_SEV_ERROR; sev >= DLT_SEV_WARNING; sev--) {
		for (size_t i = 0; i < c.nf; i++) {
			const struct dlt_finding *f = &c.f[i];
			if ((int)f->severity != sev || f->proc == DLT_NO_PROC ||
			    !mine[f->proc])
				continue;
			problems++;
			if ((o = dlt_verdict_line(&v)) == NULL)
				continue;
			/* "dltrace: " before it. */
			dlt_finding_line(o, &c, f, DLT_HEADLINE_MAX - 9);
		}
	}
	/* Damage in a trace: what is missing from it cannot be judged. */
	for (size_t i = 0; i < c.nf; i++) {
		const struct dlt_finding *f = &c.f[i];
		const struct dlt_val *pr = dlt_val_get(f->evidence, "problems");
		if (f->proc == DLT_NO_PROC || pr == NULL || !mine[f->proc] ||
		    strcmp(f->code, "TRACE_INCOMPLETE") != 0)
			continue;
		for (const struct dlt_val *e = pr->first; e; e = e->next) {
			problems++;
			if ((o = dlt_verdict_line(&v)) == NULL)
				continue;
			dlt_fput_text(o, c.procs[f->proc].trace, "?");
			fputs(": ", o);
			dlt_fput_text(o, e->type == DLT_V_STR ? e->as.s : NULL,
				      "");
			fputc('\n', o);
		}
	}
	if (v.more)
		fprintf(out, "dltrace: … and %zu more\n", v.more);
	fputs("dltrace: details: dltrace-analyze check ", out);
	dlt_fput_shell_word(out, dir);
	fputc('\n', out);
	/* When something is wrong: one file to hand to whoever diagnoses
	 * it (docs/usage.md).  A healthy run's verdict stays two lines. */
	if (problems) {
		char page[4096];
		snprintf(page, sizeof(page), "%s/report.html", dir);
		fputs("dltrace: to share: dltrace-analyze report -o ", out);
		dlt_fput_shell_word(out, page);
		fputc(' ', out);
		dlt_fput_shell_word(out, dir);
		fputc('\n', out);
	}
	fflush(out);
	free(mine);
	dlt_check_free(&c);
	return problems;
}
