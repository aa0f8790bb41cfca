/* dltrace-analyze: reads dltrace traces and reports on them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "dltrace/version.h"

struct dlt_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *what;
};

/* New commands go here. */
static const struct dlt_command dlt_commands[] = {
	{"check", dlt_cmd_check, dlt_check_usage,
	 "findings: missing or wrong libraries, driver, errors, fallbacks"},
	{"algos", dlt_cmd_algos, dlt_algos_usage,
	 "cuDNN convolutions: candidates, choice, executions, times"},
	{"diff", dlt_cmd_diff, dlt_diff_usage,
	 "two runs or hosts: libraries, environment, driver, convolutions"},
	{"env", dlt_cmd_env, dlt_env_usage,
	 "versions, libraries and variables of a job; who differs"},
	{"export", dlt_cmd_export, dlt_export_usage,
	 "a Chrome trace-event / Perfetto JSON timeline"},
	{"summary", dlt_cmd_summary, dlt_summary_usage,
	 "one block per process: identity, command line, how it ended"},
	{"libs", dlt_cmd_libs, dlt_libs_usage,
	 "every library load and failed load, and why that file was chosen"},
	{"dump", dlt_cmd_dump, dlt_dump_usage,
	 "every record of a trace, decoded (for debugging dltrace)"},
	{"hangs", dlt_cmd_hangs, dlt_hangs_usage,
	 "a hung job: missing ranks, calls that never returned, long waits"},
	{"report", dlt_cmd_report, dlt_report_usage,
	 "one HTML file to hand over: findings, processes, hangs, timeline"},
	{"compact", dlt_cmd_compact, dlt_compact_usage,
	 "cut traces of ended processes to what they recorded"},
};

#define DLT_NCOMMANDS (sizeof(dlt_commands) / sizeof(dlt_commands[0]))

static void dlt_usage(FILE *out)
{
	fputs("usage: dltrace-analyze COMMAND [OPTIONS] PATH...\n"
	      "       dltrace-analyze --help | --version\n"
	      "\n"
	      "PATH is a trace file or a directory; a directory stands for\n"
	      "every *.dltrace file in it (not recursive).\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < DLT_NCOMMANDS; i++)
		fprintf(out, "  %-9s %s\n", dlt_commands[i].name,
			dlt_commands[i].what);
	fputs("\n"
	      "'dltrace-analyze COMMAND --help' describes a command.\n"
	      "\n"
	      "exit status:\n"
	      "  0  the command ran.  Inputs that cannot be read and damage\n"
	      "     found in traces are reported on stderr; what could be\n"
	      "     read is still analysed.\n"
	      "  1  check and hangs: a finding at or above --fail-on.\n"
	      "  2  bad arguments, or not one usable trace among the inputs.\n",
	      out);
}

/* Output that never reached its destination is a failure, not a success:
 * a full disk under "dltrace-analyze libs --json > out.json" must show. */
static int dlt_check_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "dltrace-analyze: error writing output: %s\n",
			strerror(errno ? errno : EIO));
		return DLT_EXIT_USAGE;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		dlt_usage(stderr);
		return DLT_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
	    strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			for (size_t i = 0; i < DLT_NCOMMANDS; i++) {
				if (strcmp(argv[2], dlt_commands[i].name) ==
				    0) {
					fputs(dlt_commands[i].usage, stdout);
					return dlt_check_stdout(DLT_EXIT_OK);
				}
			}
		}
		dlt_usage(stdout);
		return dlt_check_stdout(DLT_EXIT_OK);
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		puts("dltrace-analyze " DLT_VERSION);
		return dlt_check_stdout(DLT_EXIT_OK);
	}
	for (size_t i = 0; i < DLT_NCOMMANDS; i++)
		if (strcmp(cmd, dlt_commands[i].name) == 0)
			return dlt_check_stdout(
				dlt_commands[i].run(argc - 2, argv + 2));
	fprintf(stderr, "dltrace-analyze: unknown command '%s'\n\n", cmd);
	dlt_usage(stderr);
	return DLT_EXIT_USAGE;
}
