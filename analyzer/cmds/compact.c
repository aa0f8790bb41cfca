/* "compact": traces of processes that have ended, cut to what they hold. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "compact.h"
#include "job.h"
#include "reader.h"

const char dlt_compact_usage[] =
	"usage: dltrace-analyze compact [--all-hosts] [--run ID] PATH...\n"
	"\n"
	"Makes the traces of processes that have ended hold what they\n"
	"recorded: each file is cut to the end of its data, and the blocks of\n"
	"chunks never filled are given back to the file system (what any\n"
	"command reads stays the same).  For traces that were not cut when\n"
	"their process ended: processes killed with SIGKILL, and runs without\n"
	"the dltrace launcher (srun, torchrun), which cuts its own traces\n"
	"when the command ends.\n"
	"\n"
	"Safe on a directory a job is still writing into: a trace whose\n"
	"process is alive holds a lock on it (docs/trace-format.md), and is\n"
	"left alone.  A trace written on another host is left alone too,\n"
	"unless --all-hosts says the file system passes locks between hosts\n"
	"(NFSv4, Lustre mounted with flock, GPFS do; NFS mounted with nolock\n"
	"does not: run compact there only once the job has ended).\n"
	"\n"
	"  --run ID   only the traces of that run of the launcher (summary\n"
	"             shows each run's identity)\n"
	"\n"
	"One line per trace on stdout, then a total.  Exit status 0, or 2\n"
	"when no input could be found.\n";

static const char *dlt_kept_why(const struct dlt_compact_result *r)
{
	switch (r->verdict) {
	case DLT_COMPACT_LIVE:
		return "its process is still running";
	case DLT_COMPACT_OTHER_HOST:
		return "written on another host (see --all-hosts)";
	case DLT_COMPACT_NO_LOCK:
		return "nothing tells whether its process still runs (its "
		       "writer could take no lock)";
	default:
		return r->why;
	}
}

int dlt_cmd_compact(int argc, char **argv)
{
	bool all_hosts = false;
	const char *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--all-hosts", &all_hosts, NULL},
					    {"--run", NULL, &run}};
	int n;
	int rc = dlt_cmd_args("compact", dlt_compact_usage, argc, argv, opts, 2,
			      &n);
	if (rc >= 0)
		return rc;
	/* A companion is a file of its own to compact, once its writer (the
	 * watcher) let go of it. */
	struct dlt_job_opts o = {.writable = true, .companions_apart = true};
	if ((rc = dlt_cmd_run_id("compact", run, &o)) >= 0)
		return rc;
	struct dlt_job j;
	dlt_job_open(&j, n, argv, &o);
	/* A file that is not a trace is one kept as it was, as before the
	 * job opened it. */
	size_t done = 0, kept = 0, args = 0;
	for (size_t i = 0; i < j.nerrors; i++) {
		if (j.errors[i].trace)
			continue;
		args++;
		fprintf(stderr, "dltrace-analyze: %s: %s\n", j.errors[i].path,
			j.errors[i].message);
	}
	if (j.ntraces + j.nerrors - args == 0) {
		if (run)
			fprintf(stderr,
				"dltrace-analyze compact: no trace of run %s "
				"among the inputs\n",
				run);
		else if (args == 0)
			fprintf(stderr, "dltrace-analyze: no trace found\n");
		dlt_job_close(&j);
		return DLT_EXIT_USAGE;
	}
	uint64_t before = 0, after = 0;
	for (size_t i = 0; i < j.nerrors; i++)
		if (j.errors[i].trace) {
			kept++;
			printf("kept %s: %s\n", j.errors[i].path,
			       j.errors[i].message);
		}
	for (size_t i = 0; i < j.ntraces; i++) {
		const char *path = j.traces[i].path;
		struct dlt_trace *t = dlt_job_take(&j, i);
		struct dlt_compact_result r;
		dlt_compact_trace(t, all_hosts ? DLT_COMPACT_ALL_HOSTS : 0, &r);
		dlt_trace_close(t);
		before += r.disk_before;
		after += r.disk_after;
		if (r.verdict == DLT_COMPACT_DONE) {
			done++;
			printf("compacted %s: %" PRIu64 " -> %" PRIu64
			       " KiB on disk\n",
			       path, r.disk_before >> 10, r.disk_after >> 10);
		} else {
			kept++;
			printf("kept %s: %s\n", path, dlt_kept_why(&r));
		}
	}
	printf("%zu trace%s compacted, %zu left as they were: %" PRIu64
	       " -> %" PRIu64 " KiB on disk\n",
	       done, done == 1 ? "" : "s", kept, before >> 10, after >> 10);
	dlt_job_close(&j);
	return DLT_EXIT_OK;
}

void dlt_compact_ended(const char *dir)
{
	char *argv[] = {(char *)dir};
	const struct dlt_job_opts o = {.writable = true,
				       .companions_apart = true};
	struct dlt_job j;
	dlt_job_open(&j, 1, argv, &o);
	for (size_t i = 0; i < j.ntraces; i++) {
		struct dlt_trace *t = dlt_job_take(&j, i);
		struct dlt_compact_result r;
		dlt_compact_trace(t, 0, &r);
		dlt_trace_close(t);
	}
	dlt_job_close(&j);
}
