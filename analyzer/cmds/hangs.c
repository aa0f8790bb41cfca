/* "hangs": the post-mortem of a job that froze, printed (the analysis is
 * analyzer/hangs.c). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "check.h"
#include "commands.h"
#include "sections.h"
#include "hangs.h"
#include "json.h"
#include "job.h"
#include "report.h"
#include "live.h"
#include "model.h"
#include "waits.h"

const char dlt_hangs_usage[] =
	"usage: dltrace-analyze hangs [--json] [--fail-on error|warning|never] "
	"[--run ID] PATH...\n"
	"\n"
	"For a job that hung (typically killed): per rank, the traced call\n"
	"that never returned, the wait each thread was in and for how long,\n"
	"and the ranks of each communicator or rendezvous that never arrived.\n"
	"Findings: INIT_HANG, MISSING_RANK, RANK_MISMATCH, JOB_HANG (the\n"
	"rank that holds the others up), STALL: the same findings with the\n"
	"same evidence as `check` (docs/findings.md).\n"
	"\n"
	"  --json      one JSON object: {\"ranks\":[...],\"findings\":[...],\n"
	"              \"summary\":{...}}, findings as check --json has them\n"
	"  --fail-on   the severity at or above which the exit status is 1\n"
	"              (default error; never: only 0 or 2)\n"
	"  --run ID    only the traces of that run of the launcher (summary\n"
	"              shows each run's identity)\n"
	"\n"
	"A directory can be read while its job runs: the table says which\n"
	"processes run now (this machine only) and the time inside each\n"
	"open call so far (from the heartbeat).\n"
	"\n"
	"exit status: 0 nothing at or above --fail-on was found (a job that\n"
	"completed gets no error), 1 something was, 2 bad arguments or no\n"
	"usable trace.\n";

static int dlt_cmp_rank(const void *a, const void *b)
{
	return dlt_hang_rank_order(a, b);
}

/* Under a row, the Python stack of the thread it shows: the innermost
 * frames, or why there is none. */
static void dlt_hang_py_line(const struct dlt_hang_stall *s)
{
	if (s && s->merged[0]) {
		/* The unwound stack, Python frames in place: its innermost
		 * part, which says where the thread is. */
		const char *sep = " \xe2\x86\x92 ", *m = s->merged;
		const char *at[64];
		size_t n = 0;
		for (const char *q = strstr(m, sep); q && n < 64;
		     q = strstr(q + 1, sep))
			at[n++] = q;
		if (n > 5)
			printf("%-6s stack: ...%s\n", "", at[n - 6]);
		else
			printf("%-6s stack: %s\n", "", m);
		return;
	}
	if (s == NULL || s->py == NULL)
		return;
	if (s->py->n == 0) {
		printf("%-6s python: %s\n", "", s->py->why);
		return;
	}
	printf("%-6s python: ", "");
	for (uint32_t i = 0; i < s->py->n && i < 4; i++)
		printf("%s%s", i ? " < " : "", s->py->frames[i]);
	puts(s->py->n > 4 ? " < ..." : "");
}

/* The table: one row per process in rank order. */
void dlt_hang_row(struct dlt_json *j, const struct dlt_hang_proc *hp)
{
	/* The thread the job waits on (the one in the collective or the
	 * rendezvous, else the main thread), not a helper's idle loop. */
	struct dlt_wait_state ws;
	dlt_wait_state_of(hp, &ws);
	const struct dlt_hang_call *c =
		ws.call ? ws.call
			: (hp->ninflight ? &hp->inflight[hp->ninflight - 1]
					 : NULL);
	const struct dlt_api_desc *a = dlt_api_by_id(c ? c->api : hp->last_api);
	/* The wait of the thread the job waits on; else the call in
	 * flight's; else the main thread's, which says most where the
	 * program is. */
	const struct dlt_hang_stall *s = ws.stall ? ws.stall
					 : c ? dlt_hang_stall_of(hp, c->tid)
					     : dlt_hang_stall_of(hp, hp->pid);
	char wait[768] = "";
	if (s) {
		dlt_hang_wait_text(s, wait, sizeof(wait));
		size_t n = strlen(wait);
		if (ws.what[0] && ws.call == NULL && ws.stall == s)
			snprintf(wait + n, sizeof(wait) - n, " in %s", ws.what);
	}
	const char *state = "no end";
	if (c)
		state = "IN CALL";
	else if (dlt_hang_exited(hp))
		state = "exited";
	else if (hp->dltrace_sig)
		state = "dltrace"; /* it ended the tree after --hang-timeout */
	else if (hp->ended)
		state = "killed";
	/* Whether the process runs now: the directory of a job can be read
	 * while it runs, or hangs. */
	const char *proc = hp->ended			  ? "ended"
			   : hp->live == DLT_LIVE_RUNNING ? "running"
			   : hp->live == DLT_LIVE_GONE	  ? "gone"
			   : hp->live == DLT_LIVE_ZOMBIE  ? "zombie"
							  : "?";
	if (j == NULL) {
		char who[16] = "-";
		if (hp->rank >= 0)
			snprintf(who, sizeof(who), "%" PRId32, hp->rank);
		printf("%-6s %-8" PRIu32 " %-10s %-8s %-28s %s\n", who, hp->pid,
		       state, proc, a ? a->name : "-", wait[0] ? wait : "-");
		dlt_hang_py_line(s);
		return;
	}
	dlt_json_object_begin(j);
	if (hp->rank >= 0)
		dlt_json_kv_int(j, "rank", hp->rank);
	else
		dlt_json_kv_null(j, "rank");
	dlt_json_kv_uint(j, "pid", hp->pid);
	dlt_json_kv_string(j, "host", hp->host);
	dlt_json_kv_string(j, "state", state);
	dlt_json_kv_string(j, "last_call", a ? a->name : NULL);
	dlt_json_kv_bool(j, "in_flight", c != NULL);
	dlt_json_kv_bool(j, "killed_by_dltrace",
			 hp->dltrace_sig != 0 && !dlt_hang_exited(hp));
	if (c)
		dlt_json_kv_uint(j, "in_call_ns", hp->last_ts - c->ts);
	dlt_json_kv_string(j, "process",
			   hp->ended ? "ended"
				     : dlt_live_name((enum dlt_live)hp->live));
	dlt_json_kv_uint(j, "last_seen_unix_ns",
			 dlt_hang_wall(hp, hp->last_ts));
	dlt_json_kv_string(j, "waiting_in", wait);
	dlt_json_kv_uint(j, "tid", s ? s->tid : (c ? c->tid : ws.tid));
	dlt_json_kv_string(j, "wait_kind", dlt_wait_kind_name(ws.kind));
	if (s && s->py) {
		dlt_json_key(j, "python_stack");
		dlt_json_array_begin(j);
		for (uint32_t i = 0; i < s->py->n; i++)
			dlt_json_string(j, s->py->frames[i]);
		dlt_json_array_end(j);
		dlt_json_kv_string(j, "python_stack_why",
				   s->py->why[0] ? s->py->why : NULL);
	}
	dlt_json_kv_string(j, "trace", hp->trace);
	dlt_json_object_end(j);
}

int dlt_cmd_hangs(int argc, char **argv)
{
	bool json = false;
	const char *fail_on = "error", *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL},
					    {"--fail-on", NULL, &fail_on},
					    {"--run", NULL, &run}};
	int npaths;
	int rc = dlt_cmd_args("hangs", dlt_hangs_usage, argc, argv, opts, 3,
			      &npaths);
	if (rc >= 0)
		return rc;
	int threshold = dlt_cmd_fail_on("hangs", fail_on);
	if (threshold < 0)
		return DLT_EXIT_USAGE;
	struct dlt_job jb;
	rc = dlt_cmd_job("hangs", run, NULL, npaths, argv, &jb);
	if (rc >= 0)
		return rc;
	struct dlt_hang_proc *procs;
	size_t n = dlt_hang_read_job(&jb, &procs);
	dlt_job_close(&jb);
	qsort(procs, n, sizeof(*procs), dlt_cmp_rank);
	/* The job rules of check, over processes known only from the hang
	 * analysis's view of them. */
	struct dlt_check c;
	dlt_check_init(&c);
	c.nruns = dlt_hang_group_runs(procs, n);
	size_t *proc = dlt_xcalloc(n, sizeof(*proc));
	for (size_t i = 0; i < n; i++)
		proc[i] = dlt_check_hang_proc(&c, &procs[i]);
	dlt_check_job(&c, procs, n, proc);
	dlt_check_sort(&c);
	free(proc);

	size_t runs = dlt_check_runs(&c);
	struct dlt_json jbuf, *j = json ? &jbuf : NULL;
	if (j) {
		dlt_json_init(j, stdout, true);
		dlt_json_object_begin(j);
		dlt_json_kv_uint(j, "runs", runs);
		dlt_json_key(j, "ranks");
		dlt_json_array_begin(j);
	} else {
		/* Two runs of one job in one directory look like one job
		 * with every rank twice. */
		if (runs > 1)
			printf("These traces come from %zu runs (a directory "
			       "used more than once); jobs are told apart by "
			       "run,\nand dltrace-analyze hangs --run ID PATH "
			       "shows one (summary shows each run's ID).\n\n",
			       runs);
		printf("%-6s %-8s %-10s %-8s %-28s %s\n", "rank", "pid",
		       "state", "process", "last traced call", "waiting in");
	}
	for (size_t i = 0; i < n; i++)
		dlt_hang_row(j, &procs[i]);
	if (j) {
		dlt_json_array_end(j);
		dlt_check_json_findings(j, &c);
		dlt_json_object_end(j);
	} else {
		putchar('\n');
		if (c.nf == 0)
			puts("no hang found: every traced call returned and no "
			     "thread waited past the stall threshold\n");
		dlt_check_text(stdout, &c);
	}
	dlt_hang_procs_free(procs, n);
	int worst = dlt_check_worst(&c);
	dlt_check_free(&c);
	if (j && dlt_json_finish(j) != 0)
		return DLT_EXIT_USAGE;
	return worst >= threshold ? DLT_EXIT_FINDINGS : DLT_EXIT_OK;
}
