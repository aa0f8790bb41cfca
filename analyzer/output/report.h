/* check's report (report.c): the JSON document of check --json and the
 * text report, written from the findings sink. */
#ifndef DLTRACE_REPORT_H
#define DLTRACE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "findings.h"

/* The JSON document of check --json, or the text report. */
int dlt_check_json(FILE *out, const struct dlt_check *c);
void dlt_check_text(FILE *out, const struct dlt_check *c);
/* One finding as check --json writes it; the "findings" array (most severe
 * first) and the "summary" object as members of an open object. */
struct dlt_json;
void dlt_finding_json(struct dlt_json *j, const struct dlt_check *c,
		      const struct dlt_finding *f);
void dlt_check_json_findings(struct dlt_json *j, const struct dlt_check *c);
/* The findings as the text report shows them, one block each, most severe
 * first; returns how many blocks. */
size_t dlt_check_text_findings(FILE *out, const struct dlt_check *c);
/* One line: "error LIB_NOT_FOUND pid 12 rank 0: message", cut to width
 * characters with "…" (0: whole). */
void dlt_finding_line(FILE *out, const struct dlt_check *c,
		      const struct dlt_finding *f, size_t width);

#endif
