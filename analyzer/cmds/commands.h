/* The analyzer's commands.
 *
 * Each command gets the arguments that follow its name (argv[0] is the
 * first of them, not the command name) and returns the exit status:
 *   0  the command ran; inputs that could not be read, and damage found in
 *      traces, are reported on stderr as long as at least one trace was
 *      usable
 *   2  unusable arguments, or no usable trace among the inputs
 *   1  commands that judge (check, hangs): a finding at or above
 *      --fail-on */
#ifndef DLTRACE_COMMANDS_H
#define DLTRACE_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DLT_EXIT_OK 0
/* check, hangs: a finding at or above --fail-on */
#define DLT_EXIT_FINDINGS 1
#define DLT_EXIT_USAGE 2

/* Options of a command.  Options may come before, between or after the
 * paths, up to a "--".  Returns -1 when the command should go on, with the
 * paths moved to the front of argv and counted in *npaths; otherwise the
 * exit status to return at once (usage printed for --help, or a message and
 * the usage for a bad option or no path at all). */
struct dlt_flag_opt {
	const char *name; /* "--json" */
	bool *set;
	/* Non-NULL: the option takes a value ("--fail-on error" or
	 * "--fail-on=error"), stored here; set is then optional. */
	const char **value;
};
int dlt_cmd_args(const char *cmd, const char *usage, int argc, char **argv,
		 const struct dlt_flag_opt *opts, size_t nopts, int *npaths);
/* The severity of --fail-on (error, warning or never) of commands that
 * judge; -1, said on stderr, for anything else. */
int dlt_cmd_fail_on(const char *cmd, const char *value);

/* The job of a command (job.h): the traces its paths name, each opened
 * once, only those of launcher run run (--run ID, as summary shows it)
 * when run is not NULL.  Every input error is said on stderr.  Returns -1
 * to go on with *j open (close it with dlt_job_close), or the exit status
 * with *j closed: an ID that is not one, no trace of that run, or no
 * usable trace among the inputs (each said). */
struct dlt_job;
struct dlt_job_opts;
/* Sets o's run from --run's value (NULL: none); returns -1 to go on, or
 * the exit status with a message said for a value that is not an ID. */
int dlt_cmd_run_id(const char *cmd, const char *run, struct dlt_job_opts *o);
int dlt_cmd_job(const char *cmd, const char *run,
		const struct dlt_job_opts *how, int npaths, char **argv,
		struct dlt_job *j);

int dlt_cmd_summary(int argc, char **argv);
int dlt_cmd_libs(int argc, char **argv);
int dlt_cmd_env(int argc, char **argv);
int dlt_cmd_dump(int argc, char **argv);
int dlt_cmd_check(int argc, char **argv);
int dlt_cmd_algos(int argc, char **argv);
int dlt_cmd_diff(int argc, char **argv);
int dlt_cmd_export(int argc, char **argv);
int dlt_cmd_hangs(int argc, char **argv);
int dlt_cmd_report(int argc, char **argv);
int dlt_cmd_compact(int argc, char **argv);

/* For the launcher when its command is done: compacts the traces in dir
 * whose processes have ended (those still running are left alone), and
 * says nothing. */
void dlt_compact_ended(const char *dir);

/* For the launcher's --report: report's page of every trace in dir,
 * written to file, as "dltrace-analyze report -o FILE DIR" writes it.
 * Returns report's exit status; errors are said on stderr. */
int dlt_report_write(const char *file, const char *dir);

/* The short verdict the launcher prints when the traced program is done:
 * the number of traces of launcher run run (0: all) in dir, then one line
 * per process that did not exit with status 0, per check finding of
 * severity warning or error and per unreadable or damaged trace (at most
 * about ten lines in all), then where to look next.  Returns the number of
 * problems found, or -1 when dir holds no trace of the run. */
int dlt_verdict_print(FILE *out, const char *dir, uint64_t run);

/* JSON members of a convolution problem (problem, direction, shape), and a
 * choice as an object; shared by algos and diff. */
struct dlt_json;
struct dlt_conv_entry;
struct dlt_conv_choice;
void dlt_json_conv_problem(struct dlt_json *j, const struct dlt_conv_entry *e);
void dlt_json_conv_choice(struct dlt_json *j, const struct dlt_conv_entry *e,
			  const struct dlt_conv_choice *c);

/* Usage texts, printed by "dltrace-analyze COMMAND --help" and by the
 * general help. */
extern const char dlt_summary_usage[];
extern const char dlt_libs_usage[];
extern const char dlt_env_usage[];
extern const char dlt_dump_usage[];
extern const char dlt_check_usage[];
extern const char dlt_algos_usage[];
extern const char dlt_diff_usage[];
extern const char dlt_export_usage[];
extern const char dlt_hangs_usage[];
extern const char dlt_report_usage[];
extern const char dlt_compact_usage[];

#endif
