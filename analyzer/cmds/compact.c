/* "compact": traces of processes that have ended, cut to what they hold. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "compact.h"
#include "inputs.h"

const char dlt_compact_usage[] =
	"usage: dltrace-analyze compact [--all-hosts] PATH...\n"
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
	const struct dlt_flag_opt opts[] = {{"--all-hosts", &all_hosts, NULL}};
	int n;
	int rc = dlt_cmd_args("compact", dlt_compact_usage, argc, argv, opts, 1,
			      &n);
	if (rc >= 0)
		return rc;
	struct dlt_inputs in;
	if (dlt_inputs_collect(&in, n, argv) != 0) {
		for (size_t i = 0; i < in.nerrors; i++)
			fprintf(stderr, "dltrace-analyze: %s: %s\n",
				in.errors[i].path, in.errors[i].message);
		if (in.nerrors == 0)
			fprintf(stderr, "dltrace-analyze: no trace found\n");
		dlt_inputs_free(&in);
		return DLT_EXIT_USAGE;
	}
	for (size_t i = 0; i < in.nerrors; i++)
		fprintf(stderr, "dltrace-analyze: %s: %s\n", in.errors[i].path,
			in.errors[i].message);
	uint64_t before = 0, after = 0;
	size_t done = 0, kept = 0;
	for (size_t i = 0; i < in.npaths; i++) {
		struct dlt_compact_result r;
		dlt_compact_file(in.paths[i],
				 all_hosts ? DLT_COMPACT_ALL_HOSTS : 0, &r);
		before += r.disk_before;
		after += r.disk_after;
		if (r.verdict == DLT_COMPACT_DONE) {
			done++;
			printf("compacted %s: %" PRIu64 " -> %" PRIu64
			       " KiB on disk\n",
			       in.paths[i], r.disk_before >> 10,
			       r.disk_after >> 10);
		} else {
			kept++;
			printf("kept %s: %s\n", in.paths[i], dlt_kept_why(&r));
		}
	}
	printf("%zu trace%s compacted, %zu left as they were: %" PRIu64
	       " -> %" PRIu64 " KiB on disk\n",
	       done, done == 1 ? "" : "s", kept, before >> 10, after >> 10);
	dlt_inputs_free(&in);
	return DLT_EXIT_OK;
}

void dlt_compact_ended(const char *dir)
{
	char *argv[] = {(char *)dir};
	struct dlt_inputs in;
	if (dlt_inputs_collect(&in, 1, argv) == 0)
		for (size_t i = 0; i < in.npaths; i++) {
			struct dlt_compact_result r;
			dlt_compact_file(in.paths[i], 0, &r);
		}
	dlt_inputs_free(&in);
}
