/* "check": runs every rule on every trace and says what it found. */
#include <string.h>

#include "check.h"
#include "commands.h"
#include "report.h"

const char dlt_check_usage[] =
	"usage: dltrace-analyze check [--json] [--fail-on error|warning|never] "
	"[--run ID] PATH...\n"
	"\n"
	"Findings about each traced process: libraries that were not found,\n"
	"did not load, or came from the wrong place; duplicate and mismatched\n"
	"CUDA, cuDNN and NCCL libraries; a missing or too old NVIDIA driver;\n"
	"GPU library calls that failed; convolution algorithm selections that\n"
	"failed or fell back; and what the trace cannot see.  Each finding\n"
	"has a code, a severity (error, warning, info), the evidence from the\n"
	"trace and what to do.  docs/findings.md describes every code.\n"
	"\n"
	"  --json      one JSON object: {\"processes\":[...],\"findings\":"
	"[...]}\n"
	"  --fail-on   the severity at or above which the exit status is 1\n"
	"              (default error; never: only 0 or 2)\n"
	"  --list      the finding codes and what they mean\n"
	"  --run ID    only the traces of that run of the launcher (summary\n"
	"              shows each run's identity)\n"
	"\n"
	"exit status: 0 nothing at or above --fail-on was found, 1 something\n"
	"was, 2 bad arguments or no usable trace.\n";

static void dlt_list_rules(FILE *out)
{
	for (size_t i = 0; i < dlt_nrules; i++)
		fprintf(out, "%-25s %-7s %s\n", dlt_rules[i]->code,
			dlt_severity_name(dlt_rules[i]->severity),
			dlt_rules[i]->summary);
}

int dlt_cmd_check(int argc, char **argv)
{
	bool json = false, list = false;
	const char *fail_on = "error", *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL},
					    {"--fail-on", NULL, &fail_on},
					    {"--list", &list, NULL},
					    {"--run", NULL, &run}};
	/* --list needs no path. */
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--list") == 0) {
			dlt_list_rules(stdout);
			return DLT_EXIT_OK;
		}
	}
	int npaths;
	int rc = dlt_cmd_args("check", dlt_check_usage, argc, argv, opts, 4,
			      &npaths);
	if (rc >= 0)
		return rc;
	int threshold = dlt_cmd_fail_on("check", fail_on);
	if (threshold < 0)
		return DLT_EXIT_USAGE;
	struct dlt_job j;
	const struct dlt_job_opts how = {.order = DLT_JOB_BY_START};
	rc = dlt_cmd_job("check", run, &how, npaths, argv, &j);
	if (rc >= 0)
		return rc;
	struct dlt_check c;
	dlt_check_init(&c);
	dlt_check_read(&c, &j, stderr);
	dlt_job_close(&j);
	if (json) {
		if (dlt_check_json(stdout, &c) != 0 && !ferror(stdout)) {
			fputs("dltrace-analyze: internal error: malformed JSON "
			      "output\n",
			      stderr);
			dlt_check_free(&c);
			return DLT_EXIT_USAGE;
		}
	} else {
		dlt_check_text(stdout, &c);
	}
	int worst = dlt_check_worst(&c);
	dlt_check_free(&c);
	return worst >= threshold ? DLT_EXIT_FINDINGS : DLT_EXIT_OK;
}
