/* Trace files named by command-line arguments (inputs.c). */
#ifndef DLTRACE_INPUTS_H
#define DLTRACE_INPUTS_H

#include <stddef.h>

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

/* Returns 0 when at least one path was found, -1 when none was. */
int dlt_inputs_collect(struct dlt_inputs *in, int argc, char *const argv[]);
void dlt_inputs_free(struct dlt_inputs *in);

#endif
