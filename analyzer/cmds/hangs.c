/* "hangs": the post-mortem of a job that froze, printed (the analysis is
 * analyzer/hangs.c). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "commands.h"
#include "hangs.h"
#include "json.h"
#include "inputs.h"
#include "live.h"
#include "model.h"

const char dlt_hangs_usage[] =
	"usage: dltrace-analyze hangs [--json] [--run ID] PATH...\n"
	"\n"
	"For a job that hung (typically killed): per rank, the traced call\n"
	"that never returned, the wait each thread was in and for how long,\n"
	"and the ranks of each communicator or rendezvous that never arrived.\n"
	"Findings: INIT_HANG, MISSING_RANK, RANK_MISMATCH, STALL.\n"
	"\n"
	"  --json   one JSON object: {\"ranks\":[...],\"findings\":[...]}\n"
	"  --run ID only the traces of that run of the launcher\n"
	"\n"
	"A directory can be read while its job runs: the table says which\n"
	"processes run now (this machine only) and the time inside each\n"
	"open call so far.\n"
	"\n"
	"Exit status: 0 when no hang finding, 1 when there is one, 2 when no\n"
	"input could be read.\n";

/* ---- the command -------------------------------------------------------- */

struct dlt_hang_out {
	bool json;
	struct dlt_json *j;
	struct dlt_json jbuf;
	FILE *out;
	int nfind;
};

static void dlt_hang_print(void *ctx, const struct dlt_hang_finding *f)
{
	struct dlt_hang_out *o = ctx;
	o->nfind++;
	if (!o->json) {
		fprintf(o->out, "%-13s %-7s %s\n", f->code, f->severity,
			f->msg);
		if (f->stall && f->stall->stack[0] &&
		    strcmp(f->code, "STALL") == 0)
			fprintf(o->out, "              stack: %s\n",
				f->stall->stack);
		return;
	}
	struct dlt_json *j = o->j;
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "code", f->code);
	dlt_json_kv_string(j, "severity", f->severity);
	dlt_json_kv_uint(j, "pid", f->proc->pid);
	if (f->proc->rank >= 0)
		dlt_json_kv_int(j, "rank", f->proc->rank);
	else
		dlt_json_kv_null(j, "rank");
	dlt_json_kv_string(j, "message", f->msg);
	dlt_json_key(j, "evidence");
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "trace", f->proc->trace);
	if (f->call) {
		const struct dlt_api_desc *a = dlt_api_by_id(f->call->api);
		dlt_json_kv_string(j, "call", a ? a->name : "?");
		dlt_json_kv_uint(j, "call_tid", f->call->tid);
		dlt_json_kv_uint(j, "call_since_unix_ns",
				 dlt_hang_wall(f->proc, f->call->ts));
		dlt_json_kv_uint(j, "in_call_ns",
				 f->proc->last_ts - f->call->ts);
	}
	if (f->stall) {
		const char *sc = dlt_syscall_name(f->stall->syscall);
		dlt_json_kv_uint(j, "tid", f->stall->tid);
		if (sc)
			dlt_json_kv_string(j, "syscall", sc);
		else
			dlt_json_kv_int(j, "syscall", f->stall->syscall);
		dlt_json_kv_uint(j, "blocked_ns", f->stall->dur_ns);
		dlt_json_kv_uint(j, "blocked_since_unix_ns",
				 dlt_hang_wall(f->proc, f->stall->since));
		dlt_json_kv_string(j, "wchan", f->stall->wchan);
		dlt_json_kv_string(j, "wait", f->stall->detail);
		dlt_json_kv_string(j, "stack", f->stall->stack);
		dlt_json_kv_bool(j, "ended", f->stall->ended);
	}
	if (f->proc->comm_id) {
		char hex[24];
		snprintf(hex, sizeof(hex), "%016" PRIx64, f->proc->comm_id);
		dlt_json_kv_string(j, "comm_id_hash", hex);
		dlt_json_kv_int(j, "nranks", f->proc->comm_nranks);
	}
	if (f->missing) {
		dlt_json_key(j, "missing_ranks");
		dlt_json_array_begin(j);
		for (const char *p = f->missing; *p;) {
			char *end;
			long r = strtol(p, &end, 10);
			if (end == p)
				break;
			dlt_json_int(j, r);
			p = end;
		}
		dlt_json_array_end(j);
	}
	dlt_json_object_end(j);
	dlt_json_object_end(j);
}

static int dlt_cmp_rank(const void *a, const void *b)
{
	const struct dlt_hang_proc *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int dlt_cmd_hangs(int argc, char **argv)
{
	bool json = false;
	const char *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL},
					    {"--run", NULL, &run}};
	int npaths;
	int rc = dlt_cmd_args("hangs", dlt_hangs_usage, argc, argv, opts, 2,
			      &npaths);
	if (rc >= 0)
		return rc;
	struct dlt_run_paths rp;
	rc = dlt_cmd_run_filter("hangs", run, npaths, argv, &rp);
	if (rc >= 0)
		return rc;
	struct dlt_inputs in;
	rc = dlt_inputs_collect(&in, rp.npaths, rp.paths);
	dlt_cmd_run_free(&rp);
	if (rc != 0)
		return DLT_EXIT_USAGE;
	for (size_t i = 0; i < in.nerrors; i++)
		fprintf(stderr, "dltrace-analyze: %s: %s\n", in.errors[i].path,
			in.errors[i].message);
	struct dlt_hang_proc *procs;
	size_t n = dlt_hang_load_inputs(&in, &procs, stderr);
	dlt_inputs_free(&in);
	if (n == 0) {
		free(procs);
		return DLT_EXIT_USAGE;
	}
	qsort(procs, n, sizeof(*procs), dlt_cmp_rank);
	size_t runs = 0;
	for (size_t i = 0; i < n; i++) {
		bool earlier = false;
		for (size_t k = 0; k < i && !earlier; k++)
			earlier = procs[k].run_id == procs[i].run_id;
		runs += !earlier;
	}
	struct dlt_hang_out o;
	memset(&o, 0, sizeof(o));
	o.json = json;
	o.out = stdout;
	if (json) {
		o.j = &o.jbuf;
		dlt_json_init(o.j, stdout, true);
		dlt_json_object_begin(o.j);
		dlt_json_kv_uint(o.j, "runs", runs);
		dlt_json_key(o.j, "ranks");
		dlt_json_array_begin(o.j);
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
	for (size_t i = 0; i < n; i++) {
		struct dlt_hang_proc *hp = &procs[i];
		const struct dlt_hang_call *c =
			hp->ninflight ? &hp->inflight[hp->ninflight - 1] : NULL;
		const struct dlt_api_desc *a =
			dlt_api_by_id(c ? c->api : hp->last_api);
		const struct dlt_hang_stall *s =
			c ? dlt_hang_stall_of(hp, c->tid)
			  : (hp->nstalls ? &hp->stalls[0] : NULL);
		char wait[512] = "";
		if (s)
			dlt_hang_wait_text(s, wait, sizeof(wait));
		const char *state = "no end";
		if (c)
			state = "IN CALL";
		else if (dlt_hang_exited(hp))
			state = "exited";
		else if (hp->ended)
			state = "killed";
		/* Whether the process runs now: the directory of a job can
		 * be read while it runs, or hangs. */
		const char *proc = hp->ended			  ? "ended"
				   : hp->live == DLT_LIVE_RUNNING ? "running"
				   : hp->live == DLT_LIVE_GONE	  ? "gone"
				   : hp->live == DLT_LIVE_ZOMBIE  ? "zombie"
								  : "?";
		if (json) {
			dlt_json_object_begin(o.j);
			dlt_json_kv_int(o.j, "rank", hp->rank);
			dlt_json_kv_uint(o.j, "pid", hp->pid);
			dlt_json_kv_string(o.j, "host", hp->host);
			dlt_json_kv_string(o.j, "state", state);
			if (a)
				dlt_json_kv_string(o.j, "last_call", a->name);
			else
				dlt_json_kv_null(o.j, "last_call");
			dlt_json_kv_bool(o.j, "in_flight", c != NULL);
			if (c)
				dlt_json_kv_uint(o.j, "in_call_ns",
						 hp->last_ts - c->ts);
			if (hp->ended)
				dlt_json_kv_string(o.j, "process", "ended");
			else
				dlt_json_kv_string(
					o.j, "process",
					dlt_live_name((enum dlt_live)hp->live));
			dlt_json_kv_uint(o.j, "last_seen_unix_ns",
					 dlt_hang_wall(hp, hp->last_ts));
			dlt_json_kv_string(o.j, "waiting_in", wait);
			dlt_json_kv_string(o.j, "trace", hp->trace);
			dlt_json_object_end(o.j);
		} else {
			char who[16];
			snprintf(who, sizeof(who), "%d", hp->rank);
			printf("%-6s %-8u %-10s %-8s %-28s %s\n",
			       hp->rank >= 0 ? who : "?", hp->pid, state, proc,
			       a ? a->name : "-", wait[0] ? wait : "-");
		}
	}
	if (json) {
		dlt_json_array_end(o.j);
		dlt_json_key(o.j, "findings");
		dlt_json_array_begin(o.j);
	} else {
		putchar('\n');
	}
	dlt_hang_analyze(procs, n, dlt_hang_print, &o);
	if (json) {
		dlt_json_array_end(o.j);
		dlt_json_object_end(o.j);
	} else if (o.nfind == 0) {
		puts("no hang found: every traced call returned and no thread "
		     "waited past the stall threshold");
	}
	free(procs);
	if (json && dlt_json_finish(o.j) != 0)
		return DLT_EXIT_USAGE;
	return o.nfind ? 1 : 0;
}
