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
#include "ranges.h"
#include "value.h"
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
		/* The unwound stack, Python frames in place (outermost
		 * first): its innermost frames, innermost first, as prose
		 * (the findings below show the stack a frame a line). */
		const char *sep = " \xe2\x86\x92 ", *m = s->merged;
		size_t sl = strlen(sep);
		const char *at[96];
		size_t n = 0;
		at[n++] = m;
		for (const char *q = strstr(m, sep); q && n < 96;
		     q = strstr(q + sl, sep))
			at[n++] = q + sl;
		printf("%-6s stack: ", "");
		size_t shown = 0, k = 0;
		char last[700] = "";
		for (; k < n && shown < 4; k++) {
			const char *f = at[n - 1 - k];
			size_t len = k == 0 ? strlen(f)
					    : (size_t)(at[n - k] - sl - f);
			char fr[700];
			dlt_frame_people(f, len, false, fr, sizeof(fr));
			/* The C library's frames under the one that waits
			 * say little, nor does a frame again (one library's
			 * unnamed code); a Python frame without its
			 * directory. */
			if ((k > 0 && strstr(fr, "(libc.so") &&
			     !strstr(fr, " in ")) ||
			    strcmp(fr, last) == 0)
				continue;
			snprintf(last, sizeof(last), "%s", fr);
			const char *in = strstr(fr, " in "), *b = fr;
			for (const char *q = fr; in && q < in; q++)
				if (*q == '/')
					b = q + 1;
			printf("%s%s", shown++ ? " < " : "", b);
		}
		puts(k < n ? " < ..." : "");
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

/* The state of the thread the job waits on (the one in the collective or
 * the rendezvous, else the main thread), not a helper's idle loop, and its
 * call in flight, else the process's latest one (NULL none). */
static const struct dlt_hang_call *
dlt_hang_row_call(const struct dlt_hang_proc *hp, struct dlt_wait_state *ws)
{
	dlt_wait_state_of(hp, ws);
	return ws->call	       ? ws->call
	       : hp->ninflight ? &hp->inflight[hp->ninflight - 1]
			       : NULL;
}

/* The table: one row per process in rank order. */
void dlt_hang_row(struct dlt_json *j, const struct dlt_hang_proc *hp)
{
	/* The thread the job waits on (the one in the collective or the
	 * rendezvous, else the main thread), not a helper's idle loop. */
	struct dlt_wait_state ws;
	const struct dlt_hang_call *c = dlt_hang_row_call(hp, &ws);
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
		/* The text names an unnamed frame "sh (no symbol)", not
		 * "sh+0xbcf0" (waiting_in keeps it). */
		if (s && ws.what[0] && ws.call == NULL && ws.stall == s &&
		    dlt_frame_is_raw(ws.what, strlen(ws.what))) {
			char fr[300];
			dlt_hang_wait_text(s, wait, sizeof(wait));
			size_t n = strlen(wait);
			snprintf(wait + n, sizeof(wait) - n, " in %s",
				 dlt_frame_prose(ws.what, fr, sizeof(fr)));
		}
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

/* Above this many processes the text folds the table: one line per group
 * of processes in the same state, a thousand ranks in a line.  Below it,
 * the table says more (pids, the time of each wait) and still fits a
 * screen. */
#define DLT_HANG_FOLD_MIN 32

/* The innermost Python frame of the program's own code, without its
 * directory ("train.py:120 in step"): in a job of thousands of ranks,
 * torch's all_reduce is where every rank waits, and the script's line is
 * what tells the groups apart.  Frames of CPython's library and of
 * installed packages are passed over; none left: the innermost. */
static void dlt_hang_fold_own(const struct dlt_hang_stall *s, char *buf,
			      size_t cap)
{
	buf[0] = '\0';
	if (s == NULL || s->py == NULL || s->py->n == 0)
		return;
	const char *f = NULL;
	for (uint32_t i = 0; i < s->py->n && f == NULL; i++)
		if (strstr(s->py->frames[i], "/lib/python3.") == NULL &&
		    strstr(s->py->frames[i], "-packages/") == NULL)
			f = s->py->frames[i];
	if (f == NULL)
		f = s->py->frames[0];
	/* The directory ends at the last '/' before the ":line". */
	const char *colon = strrchr(f, ':'), *base = f;
	for (const char *p = f; *p && (colon == NULL || p < colon); p++)
		if (*p == '/')
			base = p + 1;
	snprintf(buf, cap, "%s", base);
}

/* What a process is doing, in words that are the same for every process
 * in the same state (no pid, no duration): "waiting in ncclAllReduce
 * #1001 (futex) at train.py:120 in step", "in clock_nanosleep at
 * train.py:88 in load_batch, 1,000 collectives". */
static void dlt_hang_fold_text(const struct dlt_hang_proc *hp, char *buf,
			       size_t cap)
{
	struct dlt_wait_state ws;
	const struct dlt_hang_call *c = dlt_hang_row_call(hp, &ws);
	const struct dlt_hang_stall *s = ws.stall ? ws.stall
					 : c ? dlt_hang_stall_of(hp, c->tid)
					     : dlt_hang_stall_of(hp, hp->pid);
	char sysb[32], num[32], own[256];
	const char *sys =
		s ? dlt_syscall_label(s->syscall, sysb, sizeof(sysb)) : "";
	dlt_hang_fold_own(s, own, sizeof(own));
	struct dlt_wait_coll wc;
	bool coll = dlt_wait_coll_of(hp, hp->comm_id, &wc);
	size_t o = 0;
#define DLT_FOLD_ADD(...)                                                     \
	do {                                                                  \
		if (o < cap)                                                  \
			o += (size_t)snprintf(buf + o, cap - o, __VA_ARGS__); \
	} while (0)
	buf[0] = '\0';
	if (c) {
		const struct dlt_api_desc *a = dlt_api_by_id(c->api);
		DLT_FOLD_ADD("waiting in %s", a ? a->name : "?");
		/* Its number among the communicator's collectives: where
		 * the ranks stand against each other. */
		if (coll && wc.call == c)
			DLT_FOLD_ADD(" #%" PRIu32, wc.comm->done + 1);
		if (sys[0])
			DLT_FOLD_ADD(" (%s)", sys);
	} else if (s) {
		DLT_FOLD_ADD("in %s", sys);
	} else {
		DLT_FOLD_ADD("%s", dlt_hang_exited(hp) ? "exited"
				   : hp->ended ? "ended, waiting in nothing"
					       : "no wait seen");
	}
	if (own[0])
		DLT_FOLD_ADD(" at %s", own);
	else if (ws.py[0])
		DLT_FOLD_ADD(" at %s", ws.py);
	else if (ws.where[0]) {
		char fr[300];
		DLT_FOLD_ADD(" in %s",
			     dlt_frame_prose(ws.where, fr, sizeof(fr)));
	}
	if (!c && coll)
		DLT_FOLD_ADD(", %s collective%s",
			     dlt_ranges_num(wc.comm->done, num, sizeof(num)),
			     wc.comm->done == 1 ? "" : "s");
#undef DLT_FOLD_ADD
}

struct dlt_hang_fold {
	char text[640];
	int64_t who; /* rank, or pid for a process without one */
	bool ranked;
};

static int dlt_hang_fold_cmp(const void *a, const void *b)
{
	const struct dlt_hang_fold *x = *(const struct dlt_hang_fold *const *)a,
				   *y = *(const struct dlt_hang_fold *const *)b;
	if (x->ranked != y->ranked)
		return x->ranked ? -1 : 1;
	int c = strcmp(x->text, y->text);
	if (c)
		return c;
	return (x->who > y->who) - (x->who < y->who);
}

/* One group: a run of equal texts in the sorted array. */
struct dlt_hang_fgroup {
	size_t at, n;
};

static int dlt_hang_fgroup_cmp(const void *a, const void *b)
{
	const struct dlt_hang_fgroup *x = a, *y = b;
	/* The largest first: the job's state, then the odd ones out. */
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* The folded table: one line per group of processes in the same state,
 * largest first, the ranks as ranges; a rank alone in its state (the
 * culprit, most often) gets a line of its own. */
static void dlt_hang_fold(const struct dlt_hang_proc *procs, size_t n)
{
	struct dlt_hang_fold *f = dlt_xcalloc(n, sizeof(*f));
	struct dlt_hang_fold **by = dlt_xcalloc(n, sizeof(*by));
	for (size_t i = 0; i < n; i++) {
		dlt_hang_fold_text(&procs[i], f[i].text, sizeof(f[i].text));
		f[i].ranked = procs[i].rank >= 0;
		f[i].who = f[i].ranked ? (int64_t)procs[i].rank
				       : (int64_t)procs[i].pid;
		by[i] = &f[i];
	}
	qsort(by, n, sizeof(*by), dlt_hang_fold_cmp);
	struct dlt_hang_fgroup *g = dlt_xcalloc(n, sizeof(*g));
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		if (ng && by[i]->ranked == by[g[ng - 1].at]->ranked &&
		    strcmp(by[i]->text, by[g[ng - 1].at]->text) == 0) {
			g[ng - 1].n++;
			continue;
		}
		g[ng++] = (struct dlt_hang_fgroup){i, 1};
	}
	qsort(g, ng, sizeof(*g), dlt_hang_fgroup_cmp);
	int64_t *who = dlt_xcalloc(n, sizeof(*who));
	char list[1024];
	printf("%zu process%s in %zu state%s:\n", n, n == 1 ? "" : "es", ng,
	       ng == 1 ? "" : "s");
	for (size_t k = 0; k < ng; k++) {
		for (size_t i = 0; i < g[k].n; i++)
			who[i] = by[g[k].at + i]->who;
		bool ranked = by[g[k].at]->ranked;
		dlt_ranges_text(who, g[k].n, list, sizeof(list));
		printf("%s%s %s: %s\n", ranked ? "rank" : "pid",
		       g[k].n > 1 ? "s" : "", list, by[g[k].at]->text);
	}
	free(who);
	free(g);
	free(by);
	free(f);
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
		if (n > DLT_HANG_FOLD_MIN)
			dlt_hang_fold(procs, n);
		else
			printf("%-6s %-8s %-10s %-8s %-28s %s\n", "rank", "pid",
			       "state", "process", "last traced call",
			       "waiting in");
	}
	for (size_t i = 0; i < n && (j || n <= DLT_HANG_FOLD_MIN); i++)
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
