/* Forked children (docs/design.md, "Processes" and "The stall watchdog";
 * docs/hangs.md): a child forked from a watched process is watched from
 * its first tick, has a trace of its own even when it records nothing, and
 * a peek at a child (waitid with WNOWAIT) is not its end.
 *
 *   test_fork [SUITE...]   fork_reaps fork_hang fork_dataloader */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"
#include "record.h"

#define RUN_TIMEOUT_MS 120000

/* The trace of a process forked from parent (its last image), or NULL. */
static const struct tu_trace *forked_from(const struct tu_traceset *s,
					  const struct tu_trace *parent,
					  uint32_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].hdr.pid == pid &&
		    s->t[i].hdr.parent_kind == DLT_PARENT_FORK &&
		    s->t[i].hdr.parent_trace_id == parent->hdr.trace_id)
			return &s->t[i];
	return NULL;
}

/* The trace with the most FORK records: the process that forked. */
static const struct tu_trace *forker(const struct tu_traceset *s)
{
	const struct tu_trace *best = NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].nforks && (!best || s->t[i].nforks > best->nforks))
			best = &s->t[i];
	return best;
}

/* REAP records of pid in t. */
static size_t reaps_of(const struct tu_trace *t, uint32_t pid)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nreaps; i++)
		n += t->reaps[i].pid == pid;
	return n;
}

/* A STALL record of thread tid in t (read with its records kept). */
static const struct dlt_rec_stall *stall_of(const struct tu_trace *t,
					    uint32_t tid)
{
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dlt_rec_stall *st = (const void *)t->recs[i].h;
		if (t->recs[i].h->type == DLT_REC_STALL && st->tid == tid)
			return st;
	}
	return NULL;
}

/* Whether a line of text holds both a and b. */
static int line_with(const char *text, const char *a, const char *b)
{
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		char *line = strndup(l, n);
		int ok = line && strstr(line, a) && strstr(line, b);
		free(line);
		if (ok)
			return 1;
		l = end ? end + 1 : NULL;
	}
	return 0;
}

static double jnum(const struct tu_json *o, const char *key)
{
	const struct tu_json *v = tu_jget(o, key);
	return v && v->type == TU_JNUM ? v->num : -1;
}

/* hangs --json names pid: its row waits in wait, and a finding about pid
 * says the same wait, and where the build records Python stacks, the
 * Python frame py among the wait's. */
/* The system call time.sleep waits in: clock_nanosleep since CPython
 * 3.11, select before (Debian 11's 3.9). */
static const char *py_sleep_call(void)
{
	static const char *call;
	if (call)
		return call;
	const char *cmd[] = {tu_python(), "-c",
			     "import sys; print(sys.version_info >= (3, 11))",
			     NULL};
	struct tu_proc p;
	tu_run(&p, cmd, NULL, RUN_TIMEOUT_MS);
	call = p.out && tu_contains(p.out, "False") ? "select"
						    : "clock_nanosleep";
	tu_proc_free(&p);
	return call;
}

static void expect_hang_named(const char *dir, uint32_t pid, const char *wait,
			      const char *py)
{
	struct tu_proc h;
	tu_analyze_dir(&h, "hangs", "--json", dir);
	char err[256];
	struct tu_json *root =
		tu_json_parse(h.out ? h.out : "", err, sizeof(err));
	TU_CHECK_FATAL(root != NULL, "hangs --json: %s\n%s", err, h.err);
	const struct tu_json *ranks = tu_jget(root, "ranks");
	const char *row = NULL;
	for (size_t i = 0; i < tu_jlen(ranks); i++)
		if (jnum(tu_jat(ranks, i), "pid") == pid)
			row = tu_jstr(tu_jat(ranks, i), "waiting_in");
	TU_CHECK(row && tu_contains(row, wait),
		 "hangs: the row of pid %" PRIu32 " waits in \"%s\", "
		 "expected %s",
		 pid, row ? row : "(no row)", wait);
	const struct tu_json *fs = tu_jget(root, "findings");
	const struct tu_json *f = NULL;
	for (size_t i = 0; i < tu_jlen(fs) && !f; i++)
		if (jnum(tu_jat(fs, i), "pid") == pid &&
		    tu_contains(tu_jmsg(tu_jat(fs, i)), wait))
			f = tu_jat(fs, i);
	TU_CHECK(f != NULL,
		 "hangs: no finding about pid %" PRIu32 " and its %s:\n%s", pid,
		 wait, h.out);
	if (f)
		tu_expect_documented(f);
	/* STALL's, or JOB_HANG's straggler's. */
	const struct tu_json *ps =
		tu_jget(tu_jget(f, "evidence"), "python_stack");
	if (ps == NULL)
		ps = tu_jget(tu_jget(tu_jget(f, "evidence"), "straggler"),
			     "python_stack");
	int frame = 0;
	for (size_t i = 0; i < tu_jlen(ps); i++) {
		const struct tu_json *e = tu_jat(ps, i);
		frame |= e && e->type == TU_JSTR && tu_contains(e->str, py);
	}
	if (f && ps == NULL)
		tu_skip_part("Python frames: this build records no Python "
			     "stacks");
	else if (f)
		TU_CHECK(frame,
			 "hangs: the wait of pid %" PRIu32 " has no "
			 "Python frame %s:\n%s",
			 pid, py, h.out);
	tu_json_free(root);
	tu_proc_free(&h);
}

/* Runs cmd under dltrace --hang-timeout sec, traces into dir. */
static void run_hang_timeout(struct tu_proc *p, const char *dir,
			     const char *sec, const char *const cmd[])
{
	const char *opts[] = {"--hang-timeout", sec, NULL};
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	tu_run(p, argv, NULL, RUN_TIMEOUT_MS);
	free(argv);
}

/* Whether s ends in tail. */
static int ends_in(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);
	return s && a >= b && strcmp(s + a - b, tail) == 0;
}

/* A run without ranks that dltrace ended after --hang-timeout: hangs
 * --json exits 1 with one JOB_HANG error, about the straggler (pid, or
 * one of pids[0..npids) unless npids is 0, whose executable ends in exe unless
 * NULL), whose evidence chain runs from a process whose executable ends in
 * first (unless NULL; pid first_pid unless 0) to it, innermost last; where the
 * build records Python stacks, the message names the straggler's Python place
 * py.  No warning stands alone: the waits of pids are the error's
 * evidence.
 * Returns the straggler's pid. */
static uint32_t expect_tree_hang(const char *dir, const uint32_t *pids,
				 size_t npids, const char *exe,
				 const char *first, uint32_t first_pid,
				 const char *py)
{
	struct tu_proc h;
	tu_analyze_dir(&h, "hangs", "--json", dir);
	int rc = tu_exit_code(h.status);
	char err[256];
	struct tu_json *root =
		tu_json_parse(h.out ? h.out : "", err, sizeof(err));
	TU_CHECK_FATAL(root != NULL, "hangs --json: %s\n%s", err, h.err);
	TU_CHECK(rc == 1, "hangs exited %d, expected 1 (an error)", rc);
	const struct tu_json *fs = tu_jget(root, "findings");
	const struct tu_json *f = NULL;
	size_t njh = 0, nwarn = 0;
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *x = tu_jat(fs, i);
		const char *code = tu_jstr(x, "code");
		if (code && strcmp(code, "JOB_HANG") == 0) {
			njh++;
			f = x;
		}
		const char *sev = tu_jstr(x, "severity");
		nwarn += sev && strcmp(sev, "warning") == 0;
	}
	TU_CHECK_FATAL(njh == 1 && f,
		       "hangs: %zu JOB_HANG findings, expected one:\n%s", njh,
		       h.out);
	TU_CHECK(nwarn == 0, "hangs: %zu warnings beside JOB_HANG:\n%s", nwarn,
		 h.out);
	tu_expect_documented(f);
	/* Each process of pids has its wait in the evidence. */
	const struct tu_json *st = tu_jget(tu_jget(f, "evidence"), "stalls");
	for (size_t k = 0; k < npids; k++) {
		int in = 0;
		for (size_t i = 0; i < tu_jlen(st); i++)
			in |= jnum(tu_jat(st, i), "pid") == pids[k];
		TU_CHECK(in, "JOB_HANG's evidence has no wait of pid %" PRIu32,
			 pids[k]);
	}
	const char *msg = tu_jmsg(f);
	TU_CHECK(tu_contains(tu_jstr(f, "severity"), "error") &&
			 tu_contains(msg, "holds the run up") &&
			 tu_contains(msg, "--hang-timeout"),
		 "JOB_HANG is no error naming the straggler: %s", msg);
	uint32_t got = (uint32_t)jnum(f, "pid");
	int known = npids == 0;
	for (size_t k = 0; k < npids; k++)
		known |= pids[k] == got;
	TU_CHECK(known,
		 "JOB_HANG names pid %" PRIu32 ", not the straggler:\n%s", got,
		 msg);
	const struct tu_json *ev = tu_jget(f, "evidence");
	const struct tu_json *ch = tu_jget(ev, "chain");
	size_t n = tu_jlen(ch);
	const struct tu_json *c0 = tu_jat(ch, 0),
			     *cl = n ? tu_jat(ch, n - 1) : NULL;
	TU_CHECK(n >= 2 && (!first || ends_in(tu_jstr(c0, "exe"), first)) &&
			 (first_pid == 0 || jnum(c0, "pid") == first_pid) &&
			 jnum(cl, "pid") == got &&
			 (!exe || ends_in(tu_jstr(cl, "exe"), exe)) &&
			 tu_jstr(c0, "waits_for_next") &&
			 !tu_jstr(cl, "waits_for_next"),
		 "JOB_HANG's chain does not run from %s to %s:\n%s",
		 first ? first : "the parent", exe ? exe : "the straggler",
		 h.out);
	if (py && tu_jstr(tu_jget(ev, "straggler"), "python_at") == NULL)
		tu_skip_part("Python place: this build records no Python "
			     "stacks");
	else if (py)
		TU_CHECK(tu_contains(msg, py) &&
				 tu_contains(tu_jstr(cl, "python_at"), py),
			 "JOB_HANG does not name the Python place %s:\n%s", py,
			 msg);
	tu_json_free(root);
	tu_proc_free(&h);
	return got;
}

/* ---- suite fork_reaps: traces written with the real writer --------------
 */

static struct dlt_writer gw; /* large: off the stack */
static struct dlt_tls gtls;

static void gen_pid_rec(uint16_t type, uint16_t flags, uint32_t pid,
			int32_t status)
{
	if (type == DLT_REC_FORK) {
		struct dlt_rec_fork *r =
			dlt_rec_reserve(&gw, &gtls, sizeof(*r));
		TU_CHECK_FATAL(r != NULL, "no room for FORK");
		r->h.ts = dlt_now_ns();
		r->child_pid = pid;
		r->pad = 0;
		dlt_rec_commit(r, type, flags, sizeof(*r));
		return;
	}
	struct dlt_rec_reap *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	TU_CHECK_FATAL(r != NULL, "no room for REAP");
	r->h.ts = dlt_now_ns();
	r->pid = pid;
	r->status = status;
	dlt_rec_commit(r, type, flags, sizeof(*r));
}

/* A parent written by a shim that recorded peeks as reaps (torch's
 * DataLoader peeks at a dead worker with waitid WNOWAIT, then joins it):
 * the worker's death is one process, said once.  A pid forked again
 * after its reap is another child. */
static void test_old_peeks(void)
{
	char *dir = tu_tmpdir("fork-peeks");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct dlt_open_params p = {.dir = dir,
				    .host = "gen-host",
				    .rank = -1,
				    .parent_kind = DLT_PARENT_NONE,
				    .features = DLT_FEAT_PRELOAD};
	memset(&gtls, 0, sizeof(gtls));
	TU_CHECK_FATAL(dlt_writer_create(&gw, &p) == 0, "cannot write");
	gen_pid_rec(DLT_REC_FORK, 0, 4242, 0);
	gen_pid_rec(DLT_REC_FORK, 0, 4243, 0);
	gen_pid_rec(DLT_REC_REAP, DLT_REAP_WAITID, 4242, SIGSEGV);
	gen_pid_rec(DLT_REC_REAP, DLT_REAP_WAITID, 4242, SIGSEGV);
	gen_pid_rec(DLT_REC_REAP, DLT_REAP_WAITPID, 4242, SIGSEGV);
	gen_pid_rec(DLT_REC_REAP, DLT_REAP_WAITPID, 4243, 0);
	gen_pid_rec(DLT_REC_FORK, 0, 4242, 0);
	gen_pid_rec(DLT_REC_REAP, DLT_REAP_WAITPID, 4242, 3 << 8);
	struct dlt_rec_exit *e = dlt_rec_reserve(&gw, &gtls, sizeof(*e));
	TU_CHECK_FATAL(e != NULL, "no room for EXIT");
	e->h.ts = dlt_now_ns();
	e->status = 0;
	e->pad = 0;
	dlt_rec_commit(e, DLT_REC_EXIT, DLT_EXIT_NORMAL, sizeof(*e));
	dlt_tls_release(&gw, &gtls);
	dlt_writer_forget(&gw);

	struct tu_json *root = tu_check_json(dir);
	TU_CHECK_FATAL(root != NULL, "no check --json");
	const struct tu_json *procs = tu_jget(root, "processes");
	size_t segv = 0, p4242 = 0, exit3 = 0;
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *q = tu_jat(procs, i);
		segv += jnum(q, "signal") == SIGSEGV;
		p4242 += jnum(q, "pid") == 4242;
		exit3 += jnum(q, "exit_code") == 3;
	}
	TU_CHECK(tu_jlen(procs) == 4 && segv == 1 && p4242 == 2 && exit3 == 1,
		 "the parent and three children (4242 killed by SIGSEGV once, "
		 "4243, 4242 again with status 3): %zu processes, %zu SIGSEGV, "
		 "%zu of pid 4242, %zu with status 3",
		 tu_jlen(procs), segv, p4242, exit3);
	TU_CHECK(jnum(tu_jget(root, "summary"), "processes") == 4,
		 "check counts %g processes, expected 4",
		 jnum(tu_jget(root, "summary"), "processes"));
	tu_json_free(root);
	struct tu_proc sm;
	tu_analyze_dir(&sm, "summary", NULL, dir);
	TU_CHECK(sm.out &&
			 tu_count_lines(sm.out, "  forked    pid 4242 (killed "
						"by SIGSEGV") == 1 &&
			 tu_contains(sm.out, ", 4243 (exited with status 0") &&
			 tu_contains(sm.out, ", 4242 (exited with status 3"),
		 "summary: each fork once, with its own end:\n%s", sm.out);
	tu_proc_free(&sm);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite fork_hang: forked children of a watched Python ---------------
 */

static const char *python_skip(void)
{
	return tu_python_skip("os");
}

/* The case of the issue: a child that only sleeps, its parent in
 * waitpid, under --hang-timeout.  Neither records anything; the parent is
 * watched (--hang-timeout starts every watchdog), so the child is too,
 * from a tick after the fork: it gets a trace, and the snapshot records
 * its wait. */
static void test_hung_fork_child(void)
{
	char *dir = tu_tmpdir("fork-hang");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script = "import os, time\n"
			     "p = os.fork()\n"
			     "if p == 0:\n"
			     "    time.sleep(3600)\n"
			     "os.write(1, b'child %d\\n' % p)\n"
			     "os.waitpid(p, 0)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	run_hang_timeout(&p, dir, "6", cmd);
	unsigned child = 0;
	const char *line = strstr(p.out ? p.out : "", "child ");
	TU_CHECK_FATAL(tu_exit_code(p.status) == 124 && line &&
			       sscanf(line, "child %u", &child) == 1,
		       "dltrace --hang-timeout 6: %s, expected 124 and the "
		       "child's pid\n%s%s",
		       tu_status_str(p.status), p.out, p.err);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	const struct tu_trace *parent = forker(&s);
	TU_CHECK_FATAL(parent != NULL, "no trace with a FORK record");
	const struct tu_trace *c = forked_from(&s, parent, child);
	TU_CHECK(c != NULL,
		 "the sleeping child (pid %u) has no trace forked from its "
		 "parent's",
		 child);
	const struct dlt_rec_stall *st = c ? stall_of(c, child) : NULL;
	TU_CHECK(st != NULL,
		 "the child's trace has no STALL of its thread %u (the "
		 "snapshot did not reach it)",
		 child);
	TU_CHECK(stall_of(parent, parent->hdr.pid) != NULL,
		 "the parent's wait for its child is not recorded");
	uint32_t ppid = parent->hdr.pid, cp = child;
	if (CU_get_number_of_failures())
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	expect_hang_named(dir, child, py_sleep_call(),
			  "<string>:4 in <module>");
	/* The parent waits in waitpid for this child: the chain. */
	expect_tree_hang(dir, &cp, 1, NULL, NULL, ppid,
			 "<string>:4 in <module>");
	char *verdict = tu_strfmt("pid %u (", child);
	TU_CHECK(line_with(p.err, verdict, py_sleep_call()),
		 "the verdict does not name the child's wait:\n%s", p.err);
	free(verdict);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* A shell whose child sleeps, under --hang-timeout: the shell waits in
 * wait4 for any child, the sleep holds it up.  The command after the
 * sleep keeps every shell from replacing itself with it. */
static void test_shell_child_hangs(void)
{
	char *dir = tu_tmpdir("fork-sh-hang");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *cmd[] = {"/bin/sh", "-c", "sleep 600; true", NULL};
	struct tu_proc p;
	run_hang_timeout(&p, dir, "3", cmd);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 124,
		       "dltrace --hang-timeout 3 sh -c 'sleep 600; true': %s, "
		       "expected 124\n%s%s",
		       tu_status_str(p.status), p.out, p.err);
	TU_CHECK(line_with(p.err, "error JOB_HANG", "(sleep) holds the run up"),
		 "the verdict does not name the sleep:\n%s", p.err);
	expect_tree_hang(dir, NULL, 0, "/sleep", "sh", 0, NULL);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* The same tree that ends on its own within --hang-timeout: silent. */
static void test_fork_child_healthy(void)
{
	char *dir = tu_tmpdir("fork-ok");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script = "import os, time\n"
			     "p = os.fork()\n"
			     "if p == 0:\n"
			     "    time.sleep(0.5)\n"
			     "    os._exit(0)\n"
			     "os.waitpid(p, 0)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	run_hang_timeout(&p, dir, "120", cmd);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 0,
		       "a fork child that ends: %s\n%s%s",
		       tu_status_str(p.status), p.out, p.err);
	TU_CHECK(!tu_contains(p.err, "JOB_HANG") &&
			 !tu_contains(p.err, "error") &&
			 !tu_contains(p.err, "warning"),
		 "the verdict of a run that ended on its own:\n%s", p.err);
	tu_expect_healthy("a fork child that ends", dir);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* A peek (waitid with WNOWAIT) leaves the child waitable: one REAP, by
 * the waitpid that follows, and the program sees what it sees untraced. */
static void test_peek_is_no_reap(void)
{
	char *dir = tu_tmpdir("fork-peek");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script =
		"import os\n"
		"p = os.fork()\n"
		"if p == 0:\n"
		"    os.kill(os.getpid(), 9)\n"
		"r = os.waitid(os.P_PID, p, os.WEXITED | os.WNOWAIT)\n"
		"_, st = os.waitpid(p, 0)\n"
		"print('child', p, 'peeked', r.si_status, 'reaped', st)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc plain, p;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	unsigned child = 0, peeked = 0, reaped = 0;
	const char *line = strstr(p.out ? p.out : "", "child ");
	TU_CHECK_FATAL(line && sscanf(line, "child %u peeked %u reaped %u",
				      &child, &peeked, &reaped) == 3,
		       "the program: %s\n%s%s", tu_status_str(p.status), p.out,
		       p.err);
	TU_CHECK(peeked == 9 && reaped == 9 &&
			 tu_contains(plain.out, "peeked 9 reaped 9"),
		 "the peek and the reap saw %u and %u traced (untraced: %s)",
		 peeked, reaped, plain.out);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *parent = forker(&s);
	TU_CHECK_FATAL(parent != NULL, "no trace with a FORK record");
	TU_CHECK(reaps_of(parent, child) == 1 && parent->nreaps == 1 &&
			 parent->reaps[0].call == DLT_REAP_WAITPID,
		 "%zu REAP records of the child (pid %u), expected one, by "
		 "waitpid",
		 reaps_of(parent, child), child);
	tu_traceset_free(&s);
	struct tu_json *root = tu_check_json(dir);
	TU_CHECK(root && jnum(tu_jget(root, "summary"), "processes") == 2,
		 "check counts %g processes, expected the parent and its "
		 "child",
		 jnum(tu_jget(root, "summary"), "processes"));
	tu_json_free(root);
	TU_CHECK(tu_count_lines(p.err, "dltrace: pid ") == 1,
		 "the verdict names the killed child once:\n%s", p.err);
	tu_proc_free(&plain);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite fork_dataloader: torch's DataLoader with forked workers -----
 */

static const char *torch_skip(void)
{
	return tu_python_skip("torch.utils.data");
}

/* Workers stuck in __getitem__ while the main process waits for a batch,
 * under --hang-timeout: each worker has a trace forked from the main
 * process's, and its wait (time.sleep) is recorded and named. */
static void test_worker_stuck(void)
{
	char *dir = tu_tmpdir("fork-dl-stuck");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script =
		"import os, time, torch\n"
		"from torch.utils.data import DataLoader, Dataset\n"
		"class Stuck(Dataset):\n"
		"    def __len__(self):\n"
		"        return 8\n"
		"    def __getitem__(self, i):\n"
		"        time.sleep(3600)\n"
		"it = iter(DataLoader(Stuck(), batch_size=2, num_workers=2))\n"
		"os.write(1, ('workers %d %d\\n' % tuple(w.pid for w in "
		"it._workers)).encode())\n"
		"next(it)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	/* Importing torch takes seconds on a loaded machine: the workers
	 * must exist before the snapshot, which the program says. */
	run_hang_timeout(&p, dir, "20", cmd);
	unsigned w[2] = {0, 0};
	const char *line = strstr(p.out ? p.out : "", "workers ");
	TU_CHECK_FATAL(tu_exit_code(p.status) == 124 && line &&
			       sscanf(line, "workers %u %u", &w[0], &w[1]) == 2,
		       "a DataLoader stuck under --hang-timeout 20: %s\n%s%s",
		       tu_status_str(p.status), p.out, p.err);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	const struct tu_trace *main = forker(&s);
	TU_CHECK_FATAL(main != NULL, "no trace with FORK records");
	for (int k = 0; k < 2; k++) {
		const struct tu_trace *t = forked_from(&s, main, w[k]);
		TU_CHECK(t && stall_of(t, w[k]), "worker %u: %s", w[k],
			 t ? "no STALL of its main thread"
			   : "no trace forked from the main process's");
	}
	if (CU_get_number_of_failures())
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	/* The main process polls its workers' queue in waits shorter than
	 * the threshold: the chain leads to a worker through the sleep. */
	const uint32_t wp[2] = {w[0], w[1]};
	uint32_t got = expect_tree_hang(dir, wp, 2, NULL, NULL, 0,
					"<string>:7 in __getitem__");
	expect_hang_named(dir, got, py_sleep_call(),
			  "<string>:7 in __getitem__");
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* A worker that dies of SIGSEGV while the main process peeks at it, by
 * os.waitid with WNOWAIT and by torch's own check (waitid with WNOWAIT in
 * C++), before the loader joins it: one death, said once; three processes. */
static void test_worker_segv(void)
{
	char *dir = tu_tmpdir("fork-dl-segv");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script =
		"import os, signal, torch\n"
		"from torch.utils.data import DataLoader, Dataset, "
		"get_worker_info\n"
		"from torch.utils.data._utils.signal_handling import "
		"_error_if_any_worker_fails\n"
		"class Crash(Dataset):\n"
		"    def __len__(self):\n"
		"        return 8\n"
		"    def __getitem__(self, i):\n"
		"        if get_worker_info().id == 0:\n"
		"            os.kill(os.getpid(), signal.SIGSEGV)\n"
		"        return torch.zeros(2)\n"
		"it = iter(DataLoader(Crash(), batch_size=2, num_workers=2))\n"
		"pid = it._workers[0].pid\n"
		"try:\n"
		"    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)\n"
		"    _error_if_any_worker_fails()\n"
		"except RuntimeError as e:\n"
		"    print('peeked:', e)\n"
		"try:\n"
		"    for b in it:\n"
		"        pass\n"
		"except RuntimeError as e:\n"
		"    print('caught:', e)\n"
		"print('crashed', pid)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	/* torch's SIGSEGV handler writes its message with the NUL that
	 * ends it: the verdict follows. */
	for (size_t i = 0; p.err && i < p.err_len; i++)
		if (p.err[i] == '\0')
			p.err[i] = '\n';
	unsigned crashed = 0;
	const char *line = strstr(p.out ? p.out : "", "crashed ");
	TU_CHECK_FATAL(
		tu_exit_code(p.status) == 0 && line &&
			sscanf(line, "crashed %u", &crashed) == 1 &&
			tu_contains(p.out, "peeked: DataLoader worker") &&
			tu_contains(p.out, "Segmentation fault"),
		"the program: %s\n%s%s", tu_status_str(p.status), p.out, p.err);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *main = forker(&s);
	TU_CHECK_FATAL(main != NULL && main->nforks == 2,
		       "no trace with the two FORK records");
	for (size_t k = 0; k < main->nforks; k++)
		TU_CHECK(reaps_of(main, main->forks[k]) == 1,
			 "%zu REAP records of worker %u, expected one",
			 reaps_of(main, main->forks[k]), main->forks[k]);
	tu_traceset_free(&s);
	struct tu_json *root = tu_check_json(dir);
	const struct tu_json *procs = tu_jget(root, "processes");
	size_t segv = 0;
	for (size_t i = 0; i < tu_jlen(procs); i++)
		segv += jnum(tu_jat(procs, i), "signal") == SIGSEGV &&
			jnum(tu_jat(procs, i), "pid") == crashed;
	TU_CHECK(root && jnum(tu_jget(root, "summary"), "processes") == 3 &&
			 segv == 1,
		 "check: %g processes (expected 3), the crashed worker %zu "
		 "times (expected once)",
		 jnum(tu_jget(root, "summary"), "processes"), segv);
	tu_json_free(root);
	char *verdict = tu_strfmt("dltrace: pid %u (", crashed);
	/* The crashed worker may have recorded before it died, or not. */
	int counted = tu_contains(p.err, "dltrace: 3 processes traced") ||
		      (tu_contains(p.err, "dltrace: 2 processes traced") &&
		       tu_contains(p.err, "(and 1 forked child that left no "
					  "trace)"));
	TU_CHECK(tu_count_lines(p.err, verdict) == 1 && counted,
		 "the verdict says the death once and counts 3 processes:"
		 "\n%s",
		 p.err);
	free(verdict);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* Two epochs of two workers, forked again each epoch: nothing to say, and
 * what the workers' traces cost. */
static void test_epochs_healthy(void)
{
	char *dir = tu_tmpdir("fork-dl-epochs");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *script =
		"import torch\n"
		"from torch.utils.data import DataLoader, Dataset\n"
		"class Items(Dataset):\n"
		"    def __len__(self):\n"
		"        return 64\n"
		"    def __getitem__(self, i):\n"
		"        return torch.full((8,), float(i))\n"
		"loader = DataLoader(Items(), batch_size=8, num_workers=2)\n"
		"total = 0.0\n"
		"for epoch in range(2):\n"
		"    for b in loader:\n"
		"        total += float(b.sum())\n"
		"print('total', total)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_TIMEOUT_MS);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 0 &&
			       tu_contains(p.out, "total 32256.0"),
		       "two epochs: %s\n%s%s", tu_status_str(p.status), p.out,
		       p.err);
	TU_CHECK(tu_count_lines(p.err, "dltrace: ") == 2 &&
			 tu_contains(p.err, "dltrace: 5 processes traced"),
		 "the verdict of a healthy run says more than the count:\n%s",
		 p.err);
	tu_expect_healthy("a DataLoader, 2 workers x 2 epochs", dir);
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *main = forker(&s);
	TU_CHECK_FATAL(main && main->nforks == 4, "no trace with 4 FORKs");
	uint64_t bytes = 0;
	size_t n = 0;
	for (size_t k = 0; k < main->nforks; k++) {
		const struct tu_trace *t =
			forked_from(&s, main, main->forks[k]);
		TU_CHECK(t && t->nexits == 1 &&
				 t->exits[0].how == DLT_EXIT_UNDERSCORE &&
				 t->exits[0].status == 0 &&
				 reaps_of(main, main->forks[k]) == 1,
			 "worker %u: no trace of its own, ended by _exit(0) "
			 "and reaped once",
			 main->forks[k]);
		if (t) {
			bytes += tu_file_size(t->path);
			n++;
		}
	}
	printf("\n    per worker: 1 trace file, %.1f KiB on average (%zu "
	       "workers, %.1f KiB in all)\n",
	       n ? (double)bytes / n / 1024 : 0.0, n, (double)bytes / 1024);
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suites -------------------------------------------------------------- */

static const struct tu_test reaps_tests[] = {
	{"an old trace's peeks: each child once", test_old_peeks},
	{NULL, NULL}};

static const struct tu_test hang_tests[] = {
	{"a hung os.fork child: traced, its wait named", test_hung_fork_child},
	{"sh -c 'sleep 600; true' hung: the sleep holds it up",
	 test_shell_child_hangs},
	{"a fork child that ends within --hang-timeout: silent",
	 test_fork_child_healthy},
	{"waitid WNOWAIT: a peek, not a reap", test_peek_is_no_reap},
	{NULL, NULL}};

static const struct tu_test dataloader_tests[] = {
	{"workers stuck in __getitem__ under --hang-timeout",
	 test_worker_stuck},
	{"a worker's SIGSEGV, peeked at: one death", test_worker_segv},
	{"two epochs of two workers: healthy", test_epochs_healthy},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"fork_reaps", reaps_tests, NULL},
	{"fork_hang", hang_tests, python_skip},
	{"fork_dataloader", dataloader_tests, torch_skip},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
