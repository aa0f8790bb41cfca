/* All traces named on a command line (traceset.c). */
#ifndef DLTRACE_TRACESET_H
#define DLTRACE_TRACESET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"
#include "model.h"
#include "reaps.h"

struct dlt_set_ref;

/* All traces named on a command line. */
struct dlt_set {
	struct dlt_process **procs; /* by start time (realtime) */
	size_t nprocs;
	struct dlt_input_error *unusable; /* inputs that gave no process */
	size_t nunusable;
	struct dlt_set_ref *by_id;  /* private: procs sorted by trace id */
	struct dlt_set_ref *by_pid; /* private: procs sorted by pid */
};

/* Reads every trace of the job (taking and closing each); the job's input
 * errors are copied to unusable.  With diag, prints each problem of a
 * loaded trace as "dltrace-analyze: FILE: message".  Returns 0 when at
 * least one trace loaded, -1 when none did (then also says so on diag).
 * The set must be freed either way. */
int dlt_set_read(struct dlt_set *s, struct dlt_job *j, FILE *diag);
/* What a command reads of each trace in the same pass as its model
 * (summary: the GPU calls): begin gives the hook the trace's records go
 * to, end gets the process read from it (which the set keeps). */
struct dlt_set_hooks {
	struct dlt_load_hook (*begin)(void *ctx);
	void (*end)(void *ctx, const struct dlt_process *p);
	void *ctx;
};
/* dlt_set_read with hooks (NULL: none). */
int dlt_set_read_hooked(struct dlt_set *s, struct dlt_job *j, FILE *diag,
			const struct dlt_set_hooks *h);
void dlt_set_free(struct dlt_set *s);
/* The process whose trace has this id, NULL if none (or id 0).  Copies of
 * one trace share its id: the one that sorts first by start wins. */
const struct dlt_process *dlt_set_find(const struct dlt_set *s,
				       uint64_t trace_id);
/* Index in s->procs of the trace p came from (fork parent or pre-exec
 * image), or -1 when that trace is not in the set. */
long dlt_set_parent(const struct dlt_set *s, const struct dlt_process *p);
/* Whether a process of the set is the one r reaped (dlt_reap_is_of). */
bool dlt_set_has_reaped(const struct dlt_set *s, const struct dlt_reap_seen *r);

#endif
