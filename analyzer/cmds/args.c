/* The options and paths of a command's command line. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "findings.h"
#include "job.h"

int dlt_cmd_args(const char *cmd, const char *usage, int argc, char **argv,
		 const struct dlt_flag_opt *opts, size_t nopts, int *npaths)
{
	int n = 0;
	bool only_paths = false;
	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		if (only_paths || a[0] != '-' || a[1] == '\0') {
			argv[n++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_paths = true;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		size_t k = 0, nl = 0;
		for (; k < nopts; k++) {
			nl = strlen(opts[k].name);
			if (strcmp(a, opts[k].name) == 0 ||
			    (opts[k].value &&
			     strncmp(a, opts[k].name, nl) == 0 && a[nl] == '='))
				break;
		}
		if (k == nopts) {
			fprintf(stderr,
				"dltrace-analyze %s: unknown option '%s'\n",
				cmd, a);
			fputs(usage, stderr);
			return 2;
		}
		if (opts[k].value) {
			if (a[nl] == '=') {
				*opts[k].value = a + nl + 1;
			} else if (i + 1 < argc) {
				*opts[k].value = argv[++i];
			} else {
				fprintf(stderr,
					"dltrace-analyze %s: option '%s' needs "
					"a value\n",
					cmd, a);
				fputs(usage, stderr);
				return 2;
			}
		}
		if (opts[k].set)
			*opts[k].set = true;
	}
	if (n == 0) {
		fprintf(stderr,
			"dltrace-analyze %s: no trace file or directory "
			"given\n",
			cmd);
		fputs(usage, stderr);
		return 2;
	}
	*npaths = n;
	return -1;
}

int dlt_cmd_run_id(const char *cmd, const char *run, struct dlt_job_opts *o)
{
	if (run == NULL)
		return -1;
	char *end;
	o->run = strtoull(run, &end, 16);
	o->has_run = true;
	if (*run != '\0' && *end == '\0')
		return -1;
	fprintf(stderr,
		"dltrace-analyze %s: --run takes a run's identity in hex "
		"(summary shows it), not '%s'\n",
		cmd, run);
	return DLT_EXIT_USAGE;
}

int dlt_cmd_job(const char *cmd, const char *run,
		const struct dlt_job_opts *how, int npaths, char **argv,
		struct dlt_job *j)
{
	struct dlt_job_opts o = {0};
	if (how)
		o = *how;
	memset(j, 0, sizeof(*j));
	int rc = dlt_cmd_run_id(cmd, run, &o);
	if (rc >= 0)
		return rc;
	rc = dlt_job_open(j, npaths, argv, &o);
	dlt_job_say_errors(j, stderr);
	if (rc == 0)
		return -1;
	if (run != NULL)
		fprintf(stderr,
			"dltrace-analyze %s: no trace of run %s among the "
			"inputs\n",
			cmd, run);
	else
		fputs("dltrace-analyze: no usable trace among the inputs\n",
		      stderr);
	dlt_job_close(j);
	return DLT_EXIT_USAGE;
}

int dlt_cmd_fail_on(const char *cmd, const char *value)
{
	int threshold = dlt_severity_parse(value);
	if (threshold < 0 || threshold == DLT_SEV_INFO) {
		fprintf(stderr,
			"dltrace-analyze %s: --fail-on takes error, warning or "
			"never, not '%s'\n",
			cmd, value);
		return -1;
	}
	return threshold;
}
