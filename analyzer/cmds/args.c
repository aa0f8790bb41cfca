/* The options and paths of a command's command line. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "commands.h"
#include "inputs.h"
#include "mem.h"

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

int dlt_cmd_run_filter(const char *cmd, const char *run, int npaths,
		       char **argv, struct dlt_run_paths *out)
{
	out->paths = argv;
	out->npaths = npaths;
	out->held = NULL;
	if (run == NULL)
		return -1;
	char *end;
	unsigned long long id = strtoull(run, &end, 16);
	if (*run == '\0' || *end != '\0') {
		fprintf(stderr,
			"dltrace-analyze %s: --run takes a run's identity in "
			"hex (summary shows it), not '%s'\n",
			cmd, run);
		return DLT_EXIT_USAGE;
	}
	struct dlt_inputs *in = dlt_xcalloc(1, sizeof(*in));
	size_t others, nruns;
	dlt_inputs_collect(in, npaths, argv);
	dlt_inputs_keep_run(in, id, &others, &nruns);
	if (in->npaths == 0) {
		fprintf(stderr,
			"dltrace-analyze %s: no trace of run %s among "
			"the inputs\n",
			cmd, run);
		dlt_inputs_free(in);
		free(in);
		return DLT_EXIT_USAGE;
	}
	out->paths = in->paths;
	out->npaths = (int)in->npaths;
	out->held = in;
	return -1;
}

void dlt_cmd_run_free(struct dlt_run_paths *rp)
{
	if (rp->held) {
		dlt_inputs_free(rp->held);
		free(rp->held);
	}
	rp->held = NULL;
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
