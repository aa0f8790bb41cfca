/* Trace files named by command-line arguments (inputs.c). */
#ifndef DLTRACE_INPUTS_H
#define DLTRACE_INPUTS_H

#include <stddef.h>
#include <stdint.h>

/* An argument of the command line that named nothing readable. */
struct dlt_input_error {
	char *path;
	char *message; /* without the path */
};

/* Trace files named by command-line arguments.  A file argument is taken
 * as is (whether it opens is found out later); a directory stands for every
 * regular file in it whose name ends in ".dltrace", sorted by name, not
 * recursing. */
struct dlt_inputs {
	char **paths;
	size_t npaths;
	struct dlt_input_error *errors;
	size_t nerrors;
};

/* Returns 0 when at least one path was found, -1 when none was.  A file
 * named twice (directly, through its directory, or under another name) is
 * taken once. */
int dlt_inputs_collect(struct dlt_inputs *in, int argc, char *const argv[]);

/* Keeps the paths whose trace belongs to launcher run run (the header's
 * run_id, format 2.1); the others go.  *others gets how many went and
 * *nruns from how many other runs (traces made without the launcher count
 * as one).  A path whose header cannot be read is kept: the reader says
 * why later. */
void dlt_inputs_keep_run(struct dlt_inputs *in, uint64_t run, size_t *others,
			 size_t *nruns);

/* Orders the paths by the start of their traces (the header's wall clock),
 * those whose header cannot be read last: a parent's trace then comes
 * before its children's. */
void dlt_inputs_sort_by_start(struct dlt_inputs *in);
void dlt_inputs_free(struct dlt_inputs *in);

#endif
