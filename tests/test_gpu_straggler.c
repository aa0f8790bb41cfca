/* Who holds a hung job up (issue 19): ranks that wait for one that does
 * not come (the fake NCCL with 4 ranks; Debian's python3-torch with gloo),
 * read while the job hangs and again after SIGKILL of every rank.
 * `dltrace-analyze hangs` must name the straggler in one JOB_HANG error,
 * with where it is, the ranks waiting for it, the chain of waits and
 * since when, and no STALL flood.
 *
 *   test_gpu_straggler [SUITE...]   straggler_unit straggler_nccl
 *                                   straggler_torch */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_paths.h"
#include "gpuutil.h"
#include "testutil.h"
#include "waits.h"

/* ---- helpers ------------------------------------------------------------- */

static uint64_t st_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* What a test expects of the verdict. */
struct want {
	int rank;		/* the straggler */
	const char *why;	/* evidence "why" */
	const char *syscall;	/* the straggler's wait */
	size_t nwaiting;	/* ranks waiting for it */
	const char *waiting_in; /* in each waiting rank's "in" */
	int chain_from;		/* a link from this rank to the straggler, -1 */
	/* In the straggler's Python place (file:line in function), or
	 * NULL for a program without Python. */
	const char *py;
	const char *says; /* in the message too, or NULL */
};

/* JOB_HANG's chain links rank want->chain_from's waits to the rank it
 * waits for (and, without a straggler, that rank's back). */
static void chain_links(const struct tu_json *ev, const struct want *w,
			int *linked, int *back)
{
	int to = w->rank >= 0 ? w->rank : 1 - w->chain_from;
	*back = w->rank >= 0;
	*linked = 0;
	const struct tu_json *ch = tu_jget(ev, "chain");
	for (size_t i = 0; i < tu_jlen(ch); i++) {
		double from = tg_jnum(tu_jat(ch, i), "from_rank", -1);
		double dest = tg_jnum(tu_jat(ch, i), "to_rank", -1);
		*linked |= from == w->chain_from && dest == to;
		*back |= w->rank < 0 && from == to && dest == w->chain_from;
	}
}

/* The JOB_HANG finding of `hangs --json` when it names want's straggler in
 * the way want says, else NULL. */
static const struct tu_json *verdict_of(const struct tu_json *j,
					const struct want *w)
{
	const struct tu_json *f[4];
	if (tg_findings(j, "JOB_HANG", f, 4) != 1)
		return NULL;
	const struct tu_json *ev = tu_jget(f[0], "evidence");
	const struct tu_json *s = tu_jget(ev, "straggler");
	if (!tg_same_str(tu_jstr(ev, "why"), w->why) ||
	    tg_jnum(s, "rank", -1) != w->rank ||
	    (w->rank >= 0 && !tg_same_str(tu_jstr(s, "syscall"), w->syscall)) ||
	    tu_jlen(tu_jget(ev, "waiting")) != w->nwaiting)
		return NULL;
	/* What the message must say (each rank's Python place) needs every
	 * rank's main thread seen waiting: a helper thread's wait can be
	 * recorded a tick before it, on a loaded machine. */
	const char *msg = tu_jmsg(f[0]);
	if (w->says && !(msg && tu_contains(msg, w->says)))
		return NULL;
	/* Each waiting rank seen where the test put it (its main thread's
	 * wait, recorded at the look it passed the threshold: its helper
	 * threads' waits may pass it a look earlier). */
	const struct tu_json *wa = tu_jget(ev, "waiting");
	for (size_t i = 0; i < tu_jlen(wa); i++) {
		const char *in = tu_jstr(tu_jat(wa, i), "in");
		if (w->waiting_in && !(in && tu_contains(in, w->waiting_in)))
			return NULL;
	}
	/* The links come from the helper threads' socket waits, which the
	 * watcher may record a look after the main threads' (within one
	 * look it goes thread by thread). */
	int linked, back;
	chain_links(ev, w, &linked, &back);
	if (w->chain_from >= 0 && !(linked && back))
		return NULL;
	return f[0];
}

/* Polls `hangs --json` on the live directory (every 200 ms, up to three
 * minutes as a guard: three ranks importing torch on a loaded
 * 2-core machine take over a minute) until the verdict is there: the job has
 * reached the state the test set up, and the watchdog has seen every wait. */
static struct tu_json *wait_for_verdict(const char *dir, const struct want *w,
					int *rc, char **text)
{
	uint64_t until = st_mono_ms() + 180000;
	for (;;) {
		/* Before the first trace is written hangs has nothing to
		 * read (exit 2): not a failure yet. */
		struct tu_proc p;
		int r = tu_analyze_dir(&p, "hangs", "--json", dir);
		int code = tu_exit_code(p.status);
		char err[128];
		struct tu_json *j =
			r == 0 && (code == 0 || code == 1)
				? tu_json_parse(p.out, err, sizeof(err))
				: NULL;
		int done = verdict_of(j, w) != NULL;
		tu_json_free(j);
		tu_proc_free(&p);
		if (done || st_mono_ms() > until)
			return tg_analyze_json("hangs", dir, rc, text);
		tg_sleep_ms(200);
	}
}

/* A fix may name only findings that were emitted. */
static void expect_fix_refs(const struct tu_json *j)
{
	static const char *const codes[] = {"INIT_HANG", "MISSING_RANK",
					    "RANK_MISMATCH", "JOB_HANG",
					    "STALL"};
	const struct tu_json *fs = tu_jget(j, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const char *fix = tu_jstr(tu_jat(fs, i), "fix");
		for (size_t k = 0; fix && k < sizeof(codes) / sizeof(codes[0]);
		     k++) {
			const struct tu_json *o[1];
			TU_CHECK(!tu_contains(fix, codes[k]) ||
					 tg_findings(j, codes[k], o, 1) > 0,
				 "%s's fix refers to %s, which was not "
				 "emitted: %s",
				 tu_jstr(tu_jat(fs, i), "code"), codes[k], fix);
		}
	}
}

/* The verdict as the test wants it, on the live directory or after the
 * kill; the rows show each rank's own thread. */
static void expect_verdict(const char *when, const struct tu_json *j, int rc,
			   const struct want *w, uint64_t started_ns,
			   uint64_t by_ns)
{
	const struct tu_json *f = verdict_of(j, w);
	const struct tu_json *o[8];
	TU_CHECK(rc == 1 && f != NULL,
		 "%s: hangs exit %d; expected one JOB_HANG naming rank %d "
		 "(%s, in %s) with %zu ranks waiting",
		 when, rc, w->rank, w->why, w->syscall, w->nwaiting);
	TU_CHECK(tg_findings(j, "STALL", o, 8) == 0,
		 "%s: STALL findings next to the verdict", when);
	expect_fix_refs(j);
	if (f == NULL)
		return;
	const struct tu_json *ev = tu_jget(f, "evidence");
	const char *msg = tu_jmsg(f);
	char who[32];
	snprintf(who, sizeof(who), "rank %d ", w->rank);
	TU_CHECK(tg_same_str(tu_jstr(f, "severity"), "error") &&
			 (w->rank < 0 ||
			  (tu_contains(msg, who) && tu_contains(msg, "holds"))),
		 "%s: %s", when, msg ? msg : "no message");
	/* Since when: the straggler's wait began after the job started and
	 * before the analysis. */
	double since = tg_jnum(w->rank >= 0 ? tu_jget(ev, "straggler")
					    : tu_jat(tu_jget(ev, "waiting"), 0),
			       "since_unix_ns", 0);
	TU_CHECK(since >= (double)started_ns && since <= (double)by_ns,
		 "%s: the straggler's wait began %.3f s after the start", when,
		 (since - (double)started_ns) / 1e9);
	const struct tu_json *wa = tu_jget(ev, "waiting");
	for (size_t i = 0; i < tu_jlen(wa); i++) {
		const char *in = tu_jstr(tu_jat(wa, i), "in");
		TU_CHECK(in && tu_contains(in, w->waiting_in),
			 "%s: waiting rank %g is in %s, expected %s", when,
			 tg_jnum(tu_jat(wa, i), "rank", -1), in ? in : "?",
			 w->waiting_in);
	}
	if (w->chain_from >= 0) {
		/* Without a straggler, the waits form a cycle: each rank's
		 * lead to the other's. */
		int to = w->rank >= 0 ? w->rank : 1 - w->chain_from;
		int back, linked;
		chain_links(ev, w, &linked, &back);
		TU_CHECK(linked && back,
			 "%s: the chain lacks a link from rank %d's waits to "
			 "rank %d%s",
			 when, w->chain_from, to,
			 w->rank >= 0 ? "" : ", or the link back");
	}
	TU_CHECK(w->says == NULL || tu_contains(msg, w->says),
		 "%s: the message does not say \"%s\"", when,
		 w->says ? w->says : "");
	/* Where the straggler is, in its Python code: the script's line
	 * in the function named. */
	if (w->py) {
		const struct tu_json *st = tu_jget(ev, "straggler");
		const char *at = tu_jstr(st, "python_at");
		TU_CHECK(at && tu_contains(at, w->py) && tu_contains(msg, at),
			 "%s: the straggler is at %s in Python, expected %s "
			 "(and named in the message)",
			 when, at ? at : "nothing", w->py);
	}
	/* Each rank's row shows the thread the job waits on: the
	 * straggler's is the one in the wait the verdict names. */
	const struct tu_json *ranks = tu_jget(j, "ranks");
	for (size_t i = 0; i < tu_jlen(ranks); i++) {
		const struct tu_json *r = tu_jat(ranks, i);
		if (tg_jnum(r, "rank", -1) != w->rank)
			continue;
		const char *in = tu_jstr(r, "waiting_in");
		TU_CHECK(in && tu_contains(in, w->syscall),
			 "%s: rank %d's row shows \"%s\", not its %s", when,
			 w->rank, in ? in : "", w->syscall);
	}
	printf("\n    %s: %s", when, msg);
}

/* ---- suite straggler_nccl: the fake NCCL, 4 ranks ------------------------ */

/* Rank r of an fx_nccl job of 4 under the launcher, into dir, with the
 * launcher's RANK, collectives that wait for every rank, and the stall
 * threshold at 1 s; args are fx_nccl's own after the common ones. */
static void start_rank(struct tu_proc *p, const char *dir, const char *rdv,
		       int r, const char *const *args)
{
	char rank[16], rank_env[32], rdv_env[512];
	snprintf(rank, sizeof(rank), "%d", r);
	snprintf(rank_env, sizeof(rank_env), "RANK=%d", r);
	snprintf(rdv_env, sizeof(rdv_env), "FAKE_NCCL_DIR=%s", rdv);
	char *idfile = tu_strfmt("%s/id", rdv);
	const char *cmd[16] = {
		DLT_FAKE_FX_NCCL, "--nranks", "4", "--rank", rank,
		"--id-file",	  idfile};
	size_t n = 7;
	for (size_t i = 0; args[i] && n < 15; i++)
		cmd[n++] = args[i];
	cmd[n] = NULL;
	const char *env[] = {rdv_env,
			     "FAKE_NCCL_VERSION=22810",
			     "FAKE_NCCL_COLL_SYNC=1",
			     "DLTRACE_STALL_MS=1000",
			     rank_env,
			     NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	TU_CHECK_FATAL(tu_proc_start(p, argv, env) == 0, "cannot start rank %d",
		       r);
	free(argv);
	free(idfile);
}

/* Ranks 0-2 run args_most, rank 3 args_last; the verdict is read while
 * the job hangs, then after every rank was killed. */
static void nccl_job(const char *tag, const char *const *args_most,
		     const char *const *args_last, const struct want *w)
{
	char *dir = tu_tmpdir(tag);
	char *rdv = tu_tmpdir("straggler-rdv");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	struct tu_proc p[4];
	uint64_t started = tg_realtime_ns();
	for (int r = 0; r < 4; r++)
		start_rank(&p[r], dir, rdv, r, r == 3 ? args_last : args_most);
	int rc;
	char *text = NULL;
	struct tu_json *j = wait_for_verdict(dir, w, &rc, &text);
	expect_verdict("live", j, rc, w, started, tg_realtime_ns());
	const struct tu_json *ranks = tu_jget(j, "ranks");
	for (size_t i = 0; i < tu_jlen(ranks); i++)
		TU_CHECK(tg_same_str(tu_jstr(tu_jat(ranks, i), "process"),
				     "running"),
			 "live: rank %g is not shown running",
			 tg_jnum(tu_jat(ranks, i), "rank", -1));
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json (live):\n%s\n", text ? text : "");
	free(text);
	tu_json_free(j);

	uint64_t killed = tg_realtime_ns();
	for (int r = 0; r < 4; r++)
		tu_kill_group(&p[r]);
	text = NULL;
	j = tg_analyze_json("hangs", dir, &rc, &text);
	expect_verdict("killed", j, rc, w, started, killed);
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json (killed):\n%s\n",
			text ? text : "");
	free(text);
	tu_json_free(j);
	printf("\n");
	for (int r = 0; r < 4; r++)
		tu_proc_free(&p[r]);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

/* Ranks 0-2 make 10 collectives of their communicator, rank 3 skips one
 * ncclAllReduce and then waits in read(2): it made 9 and is in none, the
 * others wait in #10. */
static void test_nccl_skipped_allreduce(void)
{
	const char *const most[] = {"--allreduces", "3", NULL};
	const char *const last[] = {"--allreduces", "2", "--hold-before-end",
				    NULL};
	const struct want w = {.rank = 3,
			       .why = "behind",
			       .syscall = "read",
			       .nwaiting = 3,
			       .waiting_in = "ncclAllReduce",
			       .chain_from = -1};
	nccl_job("straggler-skip", most, last, &w);
}

/* Rank 3 is held up before ncclCommInitRank; the others wait in it. */
static void test_nccl_never_init(void)
{
	const char *const most[] = {NULL};
	const char *const last[] = {"--hold-before-init", NULL};
	const struct want w = {.rank = 3,
			       .why = "not waiting",
			       .syscall = "read",
			       .nwaiting = 3,
			       .waiting_in = "ncclCommInitRank",
			       .chain_from = -1};
	nccl_job("straggler-init", most, last, &w);
}

/* ---- suite straggler_torch: python3-torch, gloo ---------------------------
 */

/* A job of world ranks, each `python3 -c script` with its RANK, started by
 * one shell under the launcher (as a user's script would), its verdict
 * read live and after the kill. */
static void torch_job(const char *tag, int world, const char *script,
		      const struct want *w)
{
	char *dir = tu_tmpdir(tag);
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	int port = tu_free_port();
	TU_CHECK_FATAL(port > 0, "no free port");
	char port_env[64], world_env[32];
	snprintf(port_env, sizeof(port_env), "MASTER_PORT=%d", port);
	snprintf(world_env, sizeof(world_env), "WORLD_SIZE=%d", world);
	const char *env[] = {"MASTER_ADDR=127.0.0.1", port_env, world_env,
			     "DLTRACE_STALL_MS=1000", NULL};
	const char *cmd[] = {
		"/bin/sh",
		"-c",
		"r=0; while [ $r -lt $WORLD_SIZE ]; do "
		"RANK=$r \"$0\" -c \"$1\" & r=$((r + 1)); done; wait",
		tu_python(),
		script,
		NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	uint64_t started = tg_realtime_ns();
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start");
	free(argv);
	int rc;
	char *text = NULL;
	struct tu_json *j = wait_for_verdict(dir, w, &rc, &text);
	expect_verdict("live", j, rc, w, started, tg_realtime_ns());
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json (live):\n%s\nstderr:\n%s\n",
			text ? text : "", p.err ? p.err : "");
	free(text);
	tu_json_free(j);

	uint64_t killed = tg_realtime_ns();
	tu_kill_group(&p);
	text = NULL;
	j = tg_analyze_json("hangs", dir, &rc, &text);
	expect_verdict("killed", j, rc, w, started, killed);
	const struct tu_json *o[4];
	TU_CHECK(tg_findings(j, "MISSING_RANK", o, 4) == 0,
		 "MISSING_RANK in a job whose ranks all have a trace");
	if (CU_get_number_of_failures())
		fprintf(stderr, "hangs --json (killed):\n%s\n",
			text ? text : "");
	free(text);
	tu_json_free(j);
	printf("\n");
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* The case: both ranks all_reduce once, then rank 1 sleeps in
 * load_batch while rank 0 waits in its second all_reduce. */
static void test_torch_sleeping_rank(void)
{
	const char *script = "import datetime, os, time\n"
			     "import torch, torch.distributed as dist\n"
			     "def load_batch(rank):\n"
			     "    if rank == 1:\n"
			     "        time.sleep(3600)\n"
			     "dist.init_process_group('gloo', "
			     "timeout=datetime.timedelta(seconds=600))\n"
			     "t = torch.ones(4)\n"
			     "dist.all_reduce(t)\n"
			     "load_batch(dist.get_rank())\n"
			     "dist.all_reduce(t)\n";
	const struct want w = {.rank = 1,
			       .why = "not waiting",
			       .syscall = "clock_nanosleep",
			       .nwaiting = 1,
			       .waiting_in = "c10d",
			       .chain_from = 0,
			       .py = "<string>:5 in load_batch"};
	torch_job("straggler-torch2", 2, script, &w);
}

/* Three ranks; rank 2 never calls init_process_group (it sleeps in
 * prepare first): ranks 0 and 1 wait in the store's rendezvous. */
static void test_torch_never_init(void)
{
	const char *script = "import datetime, os, time\n"
			     "import torch.distributed as dist\n"
			     "def prepare():\n"
			     "    if os.environ['RANK'] == '2':\n"
			     "        time.sleep(3600)\n"
			     "prepare()\n"
			     "dist.init_process_group('gloo', "
			     "timeout=datetime.timedelta(seconds=600))\n";
	const struct want w = {.rank = 2,
			       .why = "not waiting",
			       .syscall = "clock_nanosleep",
			       .nwaiting = 2,
			       .waiting_in = "c10d",
			       .chain_from = -1,
			       .py = "<string>:5 in prepare"};
	torch_job("straggler-torch3", 3, script, &w);
}

/* Two ranks call different collectives at the same point (all_reduce and
 * broadcast): gloo waits in both for ever.  No rank is elsewhere: the
 * verdict says every rank waits, with the waits that lead from each to
 * the other. */
static void test_torch_mismatch(void)
{
	const char *script = "import datetime\n"
			     "import torch, torch.distributed as dist\n"
			     "dist.init_process_group('gloo', "
			     "timeout=datetime.timedelta(seconds=600))\n"
			     "t = torch.ones(4)\n"
			     "if dist.get_rank() == 0:\n"
			     "    dist.all_reduce(t)\n"
			     "else:\n"
			     "    dist.broadcast(t, src=1)\n";
	/* The places differ: each rank's Python line is named. */
	const struct want w = {.rank = -1,
			       .why = "none",
			       .syscall = "",
			       .nwaiting = 2,
			       .waiting_in = "c10d",
			       .chain_from = 0,
			       .says = "in broadcast"};
	torch_job("straggler-torch-mm", 2, script, &w);
}

/* ---- suite straggler_unit: the verdict of large jobs ----------------------
 */

/* A job of n ranks, every rank's main thread waiting in collective code
 * but rank odd's, which sleeps in its own code.  Ranks 0..n-1 from the
 * end of the array backwards, as traces come in any order. */
static struct dlt_hang_proc *big_job(size_t n, size_t odd)
{
	struct dlt_hang_proc *p = calloc(n, sizeof(*p));
	for (size_t i = 0; p && i < n; i++) {
		struct dlt_hang_proc *hp = &p[n - 1 - i];
		dlt_hang_begin(hp, "synthetic");
		hp->rank = (int32_t)i;
		hp->world_size = (int32_t)n;
		hp->pid = (uint32_t)(1000 + i);
		snprintf(hp->host, sizeof(hp->host), "node%zu", i / 8);
		snprintf(hp->master_addr, sizeof(hp->master_addr), "10.0.0.1");
		snprintf(hp->master_port, sizeof(hp->master_port), "29500");
		hp->stalls = calloc(1, sizeof(*hp->stalls));
		hp->nstalls = hp->capstalls = 1;
		struct dlt_hang_stall *st = &hp->stalls[0];
		st->tid = hp->pid;
		st->syscall = i == odd ? 230 : 202;
		st->since = 1000;
		st->dur_ns = 5000000000ull;
		snprintf(st->stack, sizeof(st->stack), "%s",
			 i == odd ? "libc.so.6!clock_nanosleep+0x65 < "
				    "train!load_batch+0x10"
				  : "libc.so.6!pthread_cond_wait+0x1e8 < "
				    "libtorch_cpu.so!c10d::Work::wait+0x63");
	}
	return p;
}

/* Every rank of a job is one group, however many (a job of 1000 ranks is
 * one verdict, not one per slice of it), and the sleeping rank is the
 * straggler. */
static void test_big_job(void)
{
	const size_t sizes[] = {2, 300, 1000};
	for (size_t k = 0; k < 3; k++) {
		size_t n = sizes[k], odd = n / 2;
		struct dlt_hang_proc *p = big_job(n, odd);
		TU_CHECK_FATAL(p != NULL, "no memory");
		const struct dlt_hang_proc **procs = calloc(n, sizeof(*procs));
		for (size_t i = 0; i < n; i++)
			procs[i] = &p[n - 1 - i]; /* rank order */
		struct dlt_wait_group *g;
		size_t ng = dlt_wait_groups(procs, n, false, &g);
		TU_CHECK(ng == 1 && g[0].n == n && g[0].nwaiting == n - 1 &&
				 g[0].why == DLT_WHY_NOT_WAITING &&
				 g[0].straggler == odd,
			 "%zu ranks: %zu groups, the first of %zu ranks, %zu "
			 "waiting, straggler %zu (why %d); expected one of "
			 "all, rank %zu",
			 n, ng, ng ? g[0].n : 0, ng ? g[0].nwaiting : 0,
			 ng ? g[0].straggler : 0, ng ? (int)g[0].why : -1, odd);
		/* A completed job has no verdict. */
		struct dlt_wait_group *none;
		TU_CHECK(dlt_wait_groups(procs, n, true, &none) == 0,
			 "a verdict on a completed job");
		dlt_wait_groups_free(none, 0);
		dlt_wait_groups_free(g, ng);
		free(procs);
		dlt_hang_procs_free(p, n);
	}
}

/* A socket wait of thread tid of hp on addr (its peer), as the watcher
 * words it. */
static void add_stall(struct dlt_hang_proc *hp, uint32_t tid, int32_t nr,
		      const char *detail, const char *stack)
{
	hp->stalls =
		realloc(hp->stalls, (hp->nstalls + 1) * sizeof(*hp->stalls));
	struct dlt_hang_stall *st = &hp->stalls[hp->nstalls++];
	memset(st, 0, sizeof(*st));
	hp->capstalls = hp->nstalls;
	st->tid = tid;
	st->syscall = nr;
	st->since = 1000;
	st->dur_ns = 5000000000ull;
	snprintf(st->detail, sizeof(st->detail), "%s", detail);
	snprintf(st->stack, sizeof(st->stack), "%s", stack);
}

static void add_sock(struct dlt_hang_proc *hp, const char *local)
{
	hp->socks = realloc(hp->socks, (hp->nsocks + 1) * sizeof(*hp->socks));
	snprintf(hp->socks[hp->nsocks].local, sizeof(hp->socks[0].local), "%s",
		 local);
	hp->socks[hp->nsocks++].peer[0] = '\0';
	hp->capsocks = hp->nsocks;
}

/* The mp.spawn job: ranks from init_process_group (no
 * MASTER_PORT), rank 1's main thread sleeps while its gloo thread polls
 * its connection to rank 0, rank 0 waits in all_reduce with its gloo
 * thread polling the connection to rank 1.  Rank 1 holds the job up; no
 * wait leads from it (its helper thread's poll is no wait for a peer),
 * and the spawning parent is a launcher. */
static void test_helper_threads(void)
{
	struct dlt_hang_proc p[5];
	memset(p, 0, sizeof(p));
	for (int i = 0; i < 5; i++) {
		dlt_hang_begin(&p[i], "synthetic");
		snprintf(p[i].host, sizeof(p[i].host), "vm");
		p[i].rank = p[i].world_size = -1;
	}
	p[0].pid = 100; /* mp.spawn's parent */
	p[3].pid = 300; /* rank 1's DataLoader worker */
	p[3].ppid = 102;
	p[4].pid = 400; /* the parent's resource tracker */
	p[4].ppid = 100;
	for (int r = 0; r < 2; r++) {
		struct dlt_hang_proc *hp = &p[1 + r];
		hp->pid = (uint32_t)(101 + r);
		hp->ppid = 100;
		hp->rank = r;
		hp->world_size = 2;
	}
	add_sock(&p[1], "tcp 127.0.0.1:40000");
	add_sock(&p[2], "tcp 127.0.0.1:40001");
	add_stall(&p[1], 101, 202, "futex op=9",
		  "libc.so.6!pthread_cond_wait+0x1e8 < "
		  "libtorch_cpu.so!c10d::Work::wait+0x63");
	add_stall(&p[1], 111, 7, "poll nfds=1 fd 9 tcp 127.0.0.1:40001",
		  "libc.so.6!__poll+0x4f < libgloo.so!gloo::transport::tcp::"
		  "Loop::run+0x10");
	add_stall(&p[2], 102, 230, "",
		  "libc.so.6!clock_nanosleep+0x65 < python3.11!time_sleep");
	add_stall(&p[2], 112, 7, "poll nfds=1 fd 9 tcp 127.0.0.1:40000",
		  "libc.so.6!__poll+0x4f < libgloo.so!gloo::transport::tcp::"
		  "Loop::run+0x10");
	const struct dlt_hang_proc *procs[5] = {&p[1], &p[2], &p[0], &p[3],
						&p[4]};
	struct dlt_wait_group *g;
	size_t ng = dlt_wait_groups(procs, 5, false, &g);
	TU_CHECK(ng == 1 && g[0].n == 2 && g[0].why == DLT_WHY_NOT_WAITING &&
			 g[0].straggler == 1,
		 "%zu groups, the first of %zu, why %d, straggler %zu; "
		 "expected rank 1 not waiting",
		 ng, ng ? g[0].n : 0, ng ? (int)g[0].why : -1,
		 ng ? g[0].straggler : 0);
	struct dlt_wait_ends e;
	dlt_wait_ends_build(procs, 5, &e);
	struct dlt_wait_link l[4];
	size_t from0 = dlt_wait_links(procs, &e, 0, l, 4);
	TU_CHECK(from0 == 1 && l[0].to == 1 && l[0].tid == 111,
		 "rank 0: %zu links; expected its gloo thread's to rank 1",
		 from0);
	TU_CHECK(dlt_wait_links(procs, &e, 1, l, 4) == 0,
		 "a link from the sleeping rank's helper thread");
	dlt_wait_ends_free(&e);
	bool *launcher = dlt_wait_launchers(procs, 5);
	TU_CHECK(launcher && !launcher[0] && !launcher[1] && launcher[2] &&
			 !launcher[3] && launcher[4],
		 "launchers: ranks %d %d, parent %d, worker %d, tracker %d; "
		 "expected the parent and its tracker",
		 launcher && launcher[0], launcher && launcher[1],
		 launcher && launcher[2], launcher && launcher[3],
		 launcher && launcher[4]);
	free(launcher);
	dlt_wait_groups_free(g, ng);
	for (int i = 0; i < 5; i++)
		dlt_hang_proc_free(&p[i]);
}

/* A synthetic rank of a job without MASTER_PORT (ranks from
 * init_process_group): pid 101 + rank, child of pid 100. */
static void synth_rank(struct dlt_hang_proc *hp, int rank, int world)
{
	dlt_hang_begin(hp, "synthetic");
	snprintf(hp->host, sizeof(hp->host), "vm");
	hp->pid = (uint32_t)(101 + rank);
	hp->ppid = 100;
	hp->rank = rank;
	hp->world_size = world;
	snprintf(hp->rank_source, sizeof(hp->rank_source),
		 "init_process_group");
}

/* The Python stack of hp's latest stall: one frame. */
static void set_py(struct dlt_hang_proc *hp, const char *frame)
{
	struct dlt_hang_stall *st = &hp->stalls[hp->nstalls - 1];
	free(st->py); /* set again by a later check */
	st->py = calloc(1, sizeof(*st->py));
	st->py->tid = st->tid;
	st->py->n = st->py->depth = 1;
	snprintf(st->py->frames[0], sizeof(st->py->frames[0]), "%s", frame);
}

static const char *const c10d_wait = "libc.so.6!pthread_cond_wait+0x1e8 < "
				     "libtorch_cpu.so!c10d::Work::wait+0x63";

/* Three ranks in collectives, one at a place of its own (broadcast while
 * the others all_reduce): that one; a stopped rank holds up ranks in
 * collectives even from inside one; the process its launcher started for
 * a missing rank, waiting in the program's code, stands in for it. */
static void test_odd_ones(void)
{
	struct dlt_hang_proc p[4];
	memset(p, 0, sizeof(p));
	for (int r = 0; r < 3; r++) {
		synth_rank(&p[r], r, 3);
		add_stall(&p[r], p[r].pid, 202, "futex op=9", c10d_wait);
		set_py(&p[r], r == 1 ? "/t/c10d.py:1408 in broadcast"
				     : "/t/c10d.py:1541 in all_reduce");
	}
	const struct dlt_hang_proc *procs[4] = {&p[0], &p[1], &p[2], &p[3]};
	struct dlt_wait_group *g;
	size_t ng = dlt_wait_groups(procs, 3, false, &g);
	TU_CHECK(ng == 1 && g[0].why == DLT_WHY_OTHER_OP && g[0].straggler == 1,
		 "other place: %zu groups, why %d, straggler %zu; expected "
		 "rank 1 in another collective",
		 ng, ng ? (int)g[0].why : -1, ng ? g[0].straggler : 0);
	dlt_wait_groups_free(g, ng);

	/* Rank 2 stopped inside its all_reduce. */
	set_py(&p[1], "/t/c10d.py:1541 in all_reduce");
	p[2].stalls[0].state = 'T';
	ng = dlt_wait_groups(procs, 3, false, &g);
	TU_CHECK(ng == 1 && g[0].why == DLT_WHY_NOT_WAITING &&
			 g[0].straggler == 2,
		 "stopped: why %d, straggler %zu; expected rank 2",
		 ng ? (int)g[0].why : -1, ng ? g[0].straggler : 0);
	dlt_wait_groups_free(g, ng);

	/* Rank 2 never called init_process_group (no rank): its process,
	 * a sibling of the ranks in the same program, sleeping. */
	p[2].stalls[0].state = 'S';
	p[2].rank = p[2].world_size = -1;
	p[2].rank_source[0] = '\0';
	p[2].stalls[0].syscall = 230;
	free(p[2].stalls[0].py);
	p[2].stalls[0].py = NULL;
	set_py(&p[2], "/t/train.py:14 in prepare");
	for (int r = 0; r < 2; r++) {
		free(p[r].stalls[0].py);
		p[r].stalls[0].py = NULL;
		set_py(&p[r], "/t/train.py:19 in body");
	}
	/* The resource tracker: the launcher's child too, not the program. */
	dlt_hang_begin(&p[3], "synthetic");
	snprintf(p[3].host, sizeof(p[3].host), "vm");
	p[3].pid = 400;
	p[3].ppid = 100;
	p[3].rank = p[3].world_size = -1;
	add_stall(&p[3], 400, 0, "fd 5", "libc.so.6!read+0xd");
	set_py(&p[3], "/usr/lib/python3.11/multiprocessing/"
		      "resource_tracker.py:197 in main");
	ng = dlt_wait_groups(procs, 4, false, &g);
	TU_CHECK(ng == 1 && g[0].why == DLT_WHY_MISSING &&
			 g[0].missing_rank == 2 && g[0].stand_in == 2,
		 "stand-in: why %d, missing %d, stand-in %zu; expected rank "
		 "2's process",
		 ng ? (int)g[0].why : -1, ng ? g[0].missing_rank : -9,
		 ng ? g[0].stand_in : 0);
	dlt_wait_groups_free(g, ng);
	for (int i = 0; i < 4; i++)
		dlt_hang_proc_free(&p[i]);
}

/* A run without ranks under a pyenv shim: env execs bash, which execs
 * python, one pid; the chain starts at the last image, the one that
 * sleeps, not at env's (which "ended" by its exec). */
static void test_exec_chain(void)
{
	struct dlt_hang_proc p[3];
	memset(p, 0, sizeof(p));
	for (int i = 0; i < 3; i++) {
		dlt_hang_begin(&p[i], "synthetic");
		snprintf(p[i].host, sizeof(p[i].host), "vm");
		p[i].rank = p[i].world_size = -1;
		p[i].pid = 500;
		p[i].ppid = 499;
		p[i].start_mono = (uint64_t)(i + 1) * 1000;
		p[i].dltrace_sig = 15;
		if (i < 2) {
			p[i].ended = true;
			p[i].exit_how = DLT_EXIT_EXEC;
		}
	}
	add_stall(&p[2], 500, 230, "", "libc.so.6!clock_nanosleep+0x65");
	const struct dlt_hang_proc *procs[3] = {&p[0], &p[1], &p[2]};
	struct dlt_wait_tree *t;
	size_t nt = dlt_wait_trees(procs, 3, false, &t);
	TU_CHECK(nt == 1 && t[0].n >= 1 && t[0].chain[t[0].n - 1].proc == 2,
		 "exec chain: %zu trees, the chain ends at %zu; expected the "
		 "last image (2)",
		 nt, nt && t[0].n ? t[0].chain[t[0].n - 1].proc : 99);
	dlt_wait_trees_free(t, nt);
	for (int i = 0; i < 3; i++)
		dlt_hang_proc_free(&p[i]);
}

/* ---- suites ------------------------------------------------------------- */

static const struct tu_test unit_tests[] = {
	{"jobs of 2, 300 and 1000 ranks: one verdict each", test_big_job},
	{"mp.spawn ranks: a sleeping rank's helper threads lead nowhere, the "
	 "parent is a launcher",
	 test_helper_threads},
	{"another collective, a stopped rank, the process started for a "
	 "missing rank",
	 test_odd_ones},
	{"a run under a pyenv shim: the chain starts at the last image",
	 test_exec_chain},
	{NULL, NULL}};

static const struct tu_test nccl_tests[] = {
	{"4 ranks, rank 3 skips an ncclAllReduce: live, then SIGKILL",
	 test_nccl_skipped_allreduce},
	{"4 ranks, rank 3 never reaches ncclCommInitRank",
	 test_nccl_never_init},
	{NULL, NULL}};

static const struct tu_test torch_tests[] = {
	{"gloo, 2 ranks, rank 1 sleeps before its second all_reduce",
	 test_torch_sleeping_rank},
	{"gloo, 3 ranks, rank 2 never calls init_process_group",
	 test_torch_never_init},
	{"gloo, 2 ranks in different collectives: every rank waits",
	 test_torch_mismatch},
	{NULL, NULL}};

static const char *torch_skip(void)
{
	const char *r = tg_watchdog_skip();
	return r ? r : tu_python_skip("torch.distributed");
}

static const struct tu_suite suites[] = {
	{"straggler_unit", unit_tests, NULL},
	{"straggler_nccl", nccl_tests, tg_watchdog_skip},
	{"straggler_torch", torch_tests, torch_skip},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
