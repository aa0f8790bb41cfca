/* How a process died, part 2: the out-of-memory killer, SIGKILL without
 * evidence, dltrace's own kills after --hang-timeout, and damaged traces
 * (docs/findings.md: OOM_KILL, SIGKILL, TRACE_INCOMPLETE).
 *
 *   test_death [SUITE...]   death_unit death_e2e death_oom
 *
 * death_oom makes a memory cgroup with a small limit (root and a memory
 * controller needed; skipped with the reason otherwise), runs a traced
 * shell in it whose child allocates past the limit, and takes the
 * cgroup away again. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memcg.h"
#include "oomev.h"
#include "record.h"
#include "testutil.h"

#define RUN_MS 60000

/* ---- memory cgroup files ------------------------------------------------ */

static struct dlt_memcg read_fixture(const char *layout)
{
	char *cg = tu_strfmt("%s/tests/fixtures/memcg/%s/cgroup", DLT_TEST_SRC,
			     layout);
	char *sys = tu_strfmt("%s/tests/fixtures/memcg/%s/sys", DLT_TEST_SRC,
			      layout);
	char *vm = tu_strfmt("%s/tests/fixtures/memcg/%s/vmstat", DLT_TEST_SRC,
			     layout);
	struct dlt_memcg_files f = {cg, sys, vm};
	struct dlt_memcg m;
	dlt_memcg_read(&f, &m);
	free(cg);
	free(sys);
	free(vm);
	return m;
}

static void test_memcg_layouts(void)
{
	/* v2: 0:: line, memory.events, memory.max; a /proc/vmstat longer
	 * than the reader's window. */
	struct dlt_memcg m = read_fixture("v2");
	TU_CHECK(m.version == 2 && strcmp(m.path, "/job.slice/step-3") == 0,
		 "v2: version %u path '%s'", m.version, m.path);
	TU_CHECK(m.oom_kills == 2, "v2: oom_kill %llu, want 2 (not oom 3)",
		 (unsigned long long)m.oom_kills);
	TU_CHECK(m.limit == 8589934592ull, "v2: limit %llu",
		 (unsigned long long)m.limit);
	TU_CHECK(m.sys_oom_kills == 17, "v2: /proc/vmstat oom_kill %llu",
		 (unsigned long long)m.sys_oom_kills);
	/* v1: the memory controller's line among others (and a 0:: line
	 * that a hybrid system lists too), memory.oom_control, the page
	 * maximum that means no limit. */
	m = read_fixture("v1");
	TU_CHECK(m.version == 1 && strcmp(m.path, "/slurm/uid_0/job_7") == 0,
		 "v1: version %u path '%s'", m.version, m.path);
	TU_CHECK(m.oom_kills == 5, "v1: oom_kill %llu",
		 (unsigned long long)m.oom_kills);
	TU_CHECK(m.limit == DLT_MEMCG_NO_LIMIT, "v1: limit %llu, want none",
		 (unsigned long long)m.limit);
	TU_CHECK(m.sys_oom_kills == 4, "v1: vmstat %llu",
		 (unsigned long long)m.sys_oom_kills);
	/* A container that mounts its own cgroup as the root: the path is
	 * not below it, so the root is read; no vmstat: unknown. */
	m = read_fixture("ns");
	TU_CHECK(m.version == 2 && m.oom_kills == 1 &&
			 m.limit == DLT_MEMCG_NO_LIMIT &&
			 m.sys_oom_kills == DLT_MEMCG_UNKNOWN,
		 "ns: version %u oom %llu limit %llu vmstat %llu", m.version,
		 (unsigned long long)m.oom_kills, (unsigned long long)m.limit,
		 (unsigned long long)m.sys_oom_kills);
	/* No memory line at all (v1 without the controller mounted). */
	char path[64];
	TU_CHECK(dlt_memcg_parse_cgroup("3:cpu:/a\n2:pids:/a\n", path,
					sizeof(path)) == 0,
		 "no memory controller must read as none");
	TU_CHECK(dlt_memcg_parse_cgroup("5:cpu,memory:/x:y\n", path,
					sizeof(path)) == 1 &&
			 strcmp(path, "/x:y") == 0,
		 "a path with ':' read as '%s'", path);
	TU_CHECK(dlt_memcg_parse_limit("max\n") == DLT_MEMCG_NO_LIMIT &&
			 dlt_memcg_parse_limit("x") == DLT_MEMCG_UNKNOWN,
		 "limit words");
	/* This machine's own files read as some version, whichever. */
	dlt_memcg_read(&dlt_memcg_system, &m);
	printf("this machine: cgroup v%u %s oom_kill %lld vmstat %lld\n",
	       m.version, m.path, (long long)m.oom_kills,
	       (long long)m.sys_oom_kills);
}

/* ---- judging a death against the readings ------------------------------ */

static struct dlt_oom_reading rd(const char *cg, uint64_t t, uint32_t flags,
				 uint32_t subject, uint64_t n, uint64_t sys)
{
	return (struct dlt_oom_reading){"h",	 cg, t * 1000000000ull,	 flags,
					subject, n,  DLT_MEMCG_NO_LIMIT, sys};
}

static struct dlt_oom_death dd(size_t proc, uint32_t pid, uint64_t alive,
			       uint64_t died, const char *own)
{
	return (struct dlt_oom_death){
		proc, "h", pid, alive * 1000000000ull, died * 1000000000ull,
		own,  0};
}

static void test_judge(void)
{
	struct dlt_oom_verdict v;
	/* Two children of one parent die of SIGKILL between the parent's
	 * reading at its first fork (0 kills) and its readings when it
	 * reaped each (1): both are OOM kills by the counter, and each
	 * names the other. */
	struct dlt_oom_reading r1[] = {
		rd("/job", 1, DLT_MEMCG_START | DLT_MEMCG_OWN, 10, 0, 7),
		rd("/job", 5, DLT_MEMCG_DEATH, 11, 1, 8),
		rd("/job", 6, DLT_MEMCG_DEATH, 12, 1, 8)};
	struct dlt_oom_death d1[] = {dd(0, 11, 4, 5, ""), dd(1, 12, 4, 6, "")};
	struct dlt_oom_set s = {NULL, r1, 3, 3, d1, 2, 2};
	dlt_oom_judge(&s, 0, &v);
	TU_CHECK(v.kind == DLT_OOM_CGROUP && !v.own && v.before == &r1[0] &&
			 v.after == &r1[1] && v.nothers == 1 &&
			 v.others[0] == 1,
		 "first death: kind %d others %zu", v.kind, v.nothers);
	dlt_oom_judge(&s, 1, &v);
	TU_CHECK(v.kind == DLT_OOM_CGROUP && v.after == &r1[2] &&
			 v.nothers == 1 && v.others[0] == 0,
		 "second death: kind %d others %zu", v.kind, v.nothers);
	/* Its own cgroup (its watchdog's reading) counted nothing while the
	 * machine did: another cgroup's kill, not this one. */
	struct dlt_oom_reading r2[] = {
		rd("/job/a", 1, DLT_MEMCG_START | DLT_MEMCG_OWN, 11, 0, 7),
		rd("/job/a", 5, DLT_MEMCG_DEATH, 11, 0, 8)};
	struct dlt_oom_death d2[] = {dd(0, 11, 4, 5, "/job/a")};
	s = (struct dlt_oom_set){NULL, r2, 2, 2, d2, 1, 1};
	dlt_oom_judge(&s, 0, &v);
	TU_CHECK(v.kind == DLT_OOM_NONE && v.own && v.sys_before,
		 "own cgroup quiet: kind %d", v.kind);
	/* Only the parent's cgroup, which did not count (v1 counts only the
	 * victim's cgroup, where a child may have moved), and the machine
	 * did: probably the OOM killer. */
	struct dlt_oom_reading r3[] = {
		rd("/job", 1, DLT_MEMCG_START | DLT_MEMCG_OWN, 10, 0, 7),
		rd("/job", 5, DLT_MEMCG_DEATH, 11, 0, 8)};
	struct dlt_oom_death d3[] = {dd(0, 11, 4, 5, "")};
	s = (struct dlt_oom_set){NULL, r3, 2, 2, d3, 1, 1};
	dlt_oom_judge(&s, 0, &v);
	TU_CHECK(v.kind == DLT_OOM_MACHINE && v.sys_before &&
			 v.sys_before->sys_oom_kills == 7,
		 "parent's cgroup quiet, machine counted: kind %d", v.kind);
	/* A reading after the death only: nothing to compare. */
	s = (struct dlt_oom_set){NULL, r3 + 1, 1, 1, d3, 1, 1};
	dlt_oom_judge(&s, 0, &v);
	TU_CHECK(v.kind == DLT_OOM_NO_EVIDENCE, "after only: kind %d", v.kind);
	/* A reading of another machine is no evidence about this one. */
	struct dlt_oom_reading r4[] = {r3[0], r3[1]};
	r4[0].host = "other";
	s = (struct dlt_oom_set){NULL, r4, 2, 2, d3, 1, 1};
	dlt_oom_judge(&s, 0, &v);
	TU_CHECK(v.kind == DLT_OOM_NO_EVIDENCE, "other host: kind %d", v.kind);
}

/* ---- damaged traces -------------------------------------------------------
 */

static struct dlt_writer gw; /* large: off the stack */
static struct dlt_tls gtls, gtls2;

static void gen_mark(struct dlt_tls *t, uint32_t id)
{
	struct dlt_rec_mark *r = dlt_rec_reserve(&gw, t, sizeof(*r));
	TU_CHECK_FATAL(r != NULL, "no room for a mark");
	r->h.ts = dlt_now_ns();
	r->id = id;
	r->aux = 0;
	r->value = 0;
	dlt_rec_commit(r, DLT_REC_MARK, 0, sizeof(*r));
}

/* A trace of a process that exited 0: marks over several chunks, its
 * EXIT, and a second thread's chunk after it.  Returns the path and the
 * offset of the chunk that holds the EXIT record. */
static char *gen_ended(const char *dir, uint64_t *exit_chunk)
{
	struct dlt_open_params p = {.dir = dir,
				    .host = "gen-host",
				    .rank = -1,
				    .parent_kind = DLT_PARENT_NONE,
				    .features = DLT_FEAT_PRELOAD};
	memset(&gtls, 0, sizeof(gtls));
	memset(&gtls2, 0, sizeof(gtls2));
	TU_CHECK_FATAL(dlt_writer_create(&gw, &p) == 0, "cannot write");
	for (uint32_t i = 0; i < 300; i++)
		gen_mark(&gtls, i);
	struct dlt_rec_exit *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	TU_CHECK_FATAL(r != NULL, "no room for EXIT");
	*exit_chunk = (uint64_t)(gtls.chunk - (uint8_t *)gw.hdr);
	r->h.ts = dlt_now_ns();
	r->status = 0;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_EXIT, DLT_EXIT_NORMAL, sizeof(*r));
	gen_mark(&gtls2, 1000);
	char *path = strdup(gw.path);
	dlt_tls_release(&gw, &gtls);
	dlt_tls_release(&gw, &gtls2);
	dlt_writer_forget(&gw);
	return path;
}

/* check --json --fail-on never of one trace file, parsed. */
static struct tu_json *check_file(const char *path)
{
	const char *argv[] = {DLT_TEST_ANALYZE, "check", "--json", "--fail-on",
			      "never",		path,	 NULL};
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_MS);
	char err[256];
	struct tu_json *j = tu_json_parse(p.out, err, sizeof(err));
	TU_CHECK(j != NULL && tu_exit_code(p.status) == 0,
		 "check --json %s: %s (%s)\n%s", path, tu_status_str(p.status),
		 err, p.err);
	const struct tu_json *fs = tu_jget(j, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++)
		tu_expect_documented(tu_jat(fs, i));
	tu_proc_free(&p);
	return j;
}

/* check --json of one trace: its process's "ended" and its
 * TRACE_INCOMPLETE finding's damaged_at (-1 none). */
static void expect_damaged(const char *what, const char *path, uint64_t lo,
			   uint64_t hi)
{
	struct tu_json *j = check_file(path);
	const struct tu_json *procs = tu_jget(j, "processes");
	TU_CHECK_FATAL(tu_jlen(procs) == 1, "%s: %zu processes", what,
		       tu_jlen(procs));
	const char *ended = tu_jstr(tu_jat(procs, 0), "ended");
	TU_CHECK(ended && tu_contains(ended, "not known") &&
			 !tu_contains(ended, "SIGKILL") &&
			 !tu_contains(ended, "killed"),
		 "%s: ended '%s' must say not known, never killed", what,
		 ended ? ended : "(null)");
	const struct tu_json *fs = tu_jget(j, "findings");
	int seen = 0;
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		const char *code = tu_jstr(f, "code");
		TU_CHECK(strcmp(code, "SIGKILL") && strcmp(code, "OOM_KILL"),
			 "%s: a damaged trace gave %s", what, code);
		if (strcmp(code, "TRACE_INCOMPLETE") != 0)
			continue;
		const struct tu_json *d =
			tu_jget(tu_jget(f, "evidence"), "damaged_at");
		uint64_t off = d && d->type == TU_JNUM ? (uint64_t)d->num : 0;
		seen = off >= lo && off <= hi;
		/* The offset the evidence gives is the one the text names. */
		char want[64];
		snprintf(want, sizeof(want), "offset %llu",
			 (unsigned long long)off);
		TU_CHECK(ended && tu_contains(ended, want),
			 "%s: '%s' lacks '%s'", what, ended ? ended : "", want);
		TU_CHECK(tu_contains(tu_jmsg(f), "damaged"), "%s: message '%s'",
			 what, tu_jmsg(f));
		/* Lost evidence is a warning: a CI gate sees it. */
		TU_CHECK(strcmp(tu_jstr(f, "severity"), "warning") == 0,
			 "%s: TRACE_INCOMPLETE is %s, not a warning", what,
			 tu_jstr(f, "severity"));
	}
	TU_CHECK(seen,
		 "%s: TRACE_INCOMPLETE with damaged_at in [%llu, %llu] "
		 "missing",
		 what, (unsigned long long)lo, (unsigned long long)hi);
	tu_json_free(j);
}

static void patch(const char *path, uint64_t off, const void *bytes, size_t n)
{
	int fd = open(path, O_WRONLY);
	TU_CHECK_FATAL(fd >= 0 &&
			       pwrite(fd, bytes, n, (off_t)off) == (ssize_t)n,
		       "cannot patch %s", path);
	close(fd);
}

static void test_damaged_not_killed(void)
{
	char *dir = tu_tmpdir("damage");
	uint64_t chunk;
	char *path = gen_ended(dir, &chunk);
	/* Whole, it exited 0. */
	struct tu_json *j = check_file(path);
	const char *ended =
		tu_jstr(tu_jat(tu_jget(j, "processes"), 0), "ended");
	TU_CHECK(ended && strcmp(ended, "exited with status 0") == 0,
		 "whole trace: ended '%s'", ended ? ended : "");
	tu_json_free(j);

	/* The chunk holding EXIT corrupted: reading goes on at the next
	 * chunk (the other thread's), the end is lost there. */
	char *mid = tu_strfmt("%s/mid.dltrace", dir);
	TU_CHECK_FATAL(tu_copy_file(path, mid) == 0, "copy");
	uint16_t bad = 0x7777;
	patch(mid, chunk + offsetof(struct dlt_rec_hdr, type), &bad,
	      sizeof(bad));
	expect_damaged("corrupt chunk in the middle", mid, chunk, chunk);

	/* Cut inside that chunk, as a copy cut short would be. */
	char *cut = tu_strfmt("%s/cut.dltrace", dir);
	TU_CHECK_FATAL(tu_copy_file(path, cut) == 0, "copy");
	TU_CHECK_FATAL(truncate(cut, (off_t)chunk + 64) == 0, "truncate");
	/* The first damage: the record the cut goes through, or the cut. */
	expect_damaged("file cut short", cut, chunk + 8, chunk + 64);
	free(mid);
	free(cut);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* A crashed process's trace cut in half (a full disk, a copy cut short):
 * `check --fail-on warning` fails on it, with a warning that names the
 * process and what may be missing. */
static void test_crash_cut(void)
{
	char *dir = tu_tmpdir("crash-cut");
	char *fx = tu_fx("fx_crash");
	const char *cmd[] = {fx, "segv", NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_MS);
	free(argv);
	tu_proc_free(&p);
	char **paths = NULL;
	TU_CHECK_FATAL(tu_list_traces(dir, &paths) == 1, "not one trace in %s",
		       dir);
	struct stat st;
	TU_CHECK_FATAL(stat(paths[0], &st) == 0, "stat %s", paths[0]);
	TU_CHECK_FATAL(truncate(paths[0], st.st_size / 2) == 0, "truncate");
	const char *cargv[] = {
		DLT_TEST_ANALYZE, "check",  "--json", "--fail-on",
		"warning",	  paths[0], NULL};
	tu_run(&p, cargv, NULL, RUN_MS);
	char err[256];
	struct tu_json *j = tu_json_parse(p.out, err, sizeof(err));
	TU_CHECK(j != NULL && tu_exit_code(p.status) == 1,
		 "check --fail-on warning of a cut trace: %s\n%s",
		 tu_status_str(p.status), p.err);
	const struct tu_json *fs = tu_jget(j, "findings");
	const struct tu_json *w = NULL;
	for (size_t i = 0; i < tu_jlen(fs) && !w; i++) {
		const struct tu_json *f = tu_jat(fs, i);
		if (strcmp(tu_jstr(f, "code"), "TRACE_INCOMPLETE") == 0 &&
		    strcmp(tu_jstr(f, "severity"), "warning") == 0)
			w = f;
	}
	TU_CHECK(w && tu_contains(tu_jmsg(w), "damaged at offset") &&
			 tu_contains(tu_jmsg(w), "crash"),
		 "no TRACE_INCOMPLETE warning naming the damage and what may "
		 "be lost:\n%s",
		 p.out);
	const struct tu_json *pid = w ? tu_jget(w, "pid") : NULL;
	TU_CHECK(pid && pid->type == TU_JNUM && pid->num > 0,
		 "the warning names no process");
	tu_json_free(j);
	tu_proc_free(&p);
	tu_free_list(paths);
	tu_rmtree(dir);
	free(fx);
	free(dir);
}

/* ---- end to end ------------------------------------------------------------
 */

static int run_launcher(struct tu_proc *p, const char *dir,
			const char *const opts[], const char *const cmd[])
{
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	int r = tu_run(p, argv, NULL, RUN_MS);
	free(argv);
	return r;
}

/* The finding of this code about a process running base name exe. */
static const struct tu_json *finding_of(const struct tu_json *j,
					const char *code, uint32_t pid)
{
	const struct tu_json *fs = tu_jget(j, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		const struct tu_json *fp = tu_jget(f, "pid");
		if (strcmp(tu_jstr(f, "code"), code) == 0 && fp &&
		    fp->type == TU_JNUM && (uint32_t)fp->num == pid)
			return f;
	}
	return NULL;
}

static const struct tu_json *proc_with(const struct tu_json *j,
				       const char *exe_base, int nth)
{
	const struct tu_json *ps = tu_jget(j, "processes");
	for (size_t i = 0; i < tu_jlen(ps); i++) {
		const char *exe = tu_jstr(tu_jat(ps, i), "exe");
		const char *b = exe ? strrchr(exe, '/') : NULL;
		if (b && strcmp(b + 1, exe_base) == 0 && nth-- == 0)
			return tu_jat(ps, i);
	}
	return NULL;
}

static uint32_t jpid(const struct tu_json *p)
{
	const struct tu_json *v = tu_jget(p, "pid");
	return v && v->type == TU_JNUM ? (uint32_t)v->num : 0;
}

static void test_kill9_no_oom(void)
{
	char *dir = tu_tmpdir("kill9");
	/* A traced shell whose traced child kills itself with SIGKILL: its
	 * parent reaps it and reads the cgroup, which counted nothing. */
	const char *cmd[] = {"/bin/sh", "-c", "/bin/sh -c 'kill -9 $$'; exit 0",
			     NULL};
	struct tu_proc p;
	run_launcher(&p, dir, NULL, cmd);
	TU_CHECK(tu_exit_code(p.status) == 0, "launcher: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(tu_contains(p.err, "not by the out-of-memory killer"),
		 "verdict does not say no OOM kill:\n%s", p.err);
	struct tu_json *j = tu_check_json(dir);
	const struct tu_json *victim = proc_with(j, "dash", 1);
	if (victim == NULL)
		victim = proc_with(j, "sh", 1);
	TU_CHECK_FATAL(victim != NULL, "no inner shell in:\n%s", p.err);
	const struct tu_json *f = finding_of(j, "SIGKILL", jpid(victim));
	TU_CHECK(f != NULL, "no SIGKILL finding for pid %u", jpid(victim));
	TU_CHECK(!finding_of(j, "OOM_KILL", jpid(victim)),
		 "a kill -9 called an OOM kill");
	if (f) {
		const char *msg = tu_jmsg(f);
		TU_CHECK(tu_contains(msg, "who sent SIGKILL cannot be known"),
			 "message: %s", msg);
		const char *kind =
			tu_jstr(tu_jget(f, "evidence"), "oom_evidence");
		TU_CHECK(kind && strcmp(kind, "not counted") == 0,
			 "oom_evidence '%s'", kind ? kind : "");
		const char *sev = tu_jstr(f, "severity");
		TU_CHECK(strcmp(sev, "error") == 0, "severity %s", sev);
	}
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

static void test_hang_timeout_kills_labelled(void)
{
	char *dir = tu_tmpdir("hangkill");
	/* The shell waits for a sleep that outlasts the timeout; the tree
	 * is ended by the launcher (TERM, then KILL). */
	const char *opts[] = {"--hang-timeout", "1", NULL};
	const char *cmd[] = {"/bin/sh", "-c", "sleep 60 & wait", NULL};
	struct tu_proc p;
	run_launcher(&p, dir, opts, cmd);
	TU_CHECK(tu_exit_code(p.status) == 124, "launcher: %s\n%s",
		 tu_status_str(p.status), p.err);
	/* Children are signalled first: a shell may see its child die and
	 * exit on its own before its own signal comes, and says so. */
	struct tu_json *j = tu_check_json(dir);
	const struct tu_json *ps = tu_jget(j, "processes");
	size_t labelled = 0;
	for (size_t i = 0; i < tu_jlen(ps); i++) {
		const struct tu_json *q = tu_jat(ps, i);
		const struct tu_json *k = tu_jget(q, "killed_by_dltrace");
		const char *ended = tu_jstr(q, "ended");
		bool own = ended && strncmp(ended, "exited", 6) == 0 &&
			   !tu_contains(ended, "dltrace");
		TU_CHECK(k && k->type == TU_JBOOL && k->b == !own,
			 "pid %u (%s): killed_by_dltrace wrong for '%s'",
			 jpid(q), tu_jstr(q, "exe"), ended ? ended : "");
		TU_CHECK(own || (ended && tu_contains(ended, "dltrace") &&
				 !tu_contains(ended, "how is not known")),
			 "pid %u: ended '%s'", jpid(q), ended ? ended : "");
		TU_CHECK(!finding_of(j, "SIGKILL", jpid(q)) &&
				 !finding_of(j, "OOM_KILL", jpid(q)),
			 "dltrace's own kill of %u reported as a SIGKILL",
			 jpid(q));
		labelled += !own;
		/* The verdict names it on its line of dltrace's kills. */
		char *who = tu_strfmt(" pid %u (", jpid(q));
		if (!own)
			TU_CHECK(tu_contains(p.err, "ended by dltrace after "
						    "--hang-timeout:") &&
					 tu_contains(p.err, who),
				 "verdict lacks%s):\n%s", who, p.err);
		free(who);
	}
	const struct tu_json *sleeper = proc_with(j, "sleep", 0);
	TU_CHECK(sleeper && labelled >= 1,
		 "the sleep was not ended by dltrace:\n%s", p.err);
	tu_json_free(j);
	/* hangs: the state column says who ended them. */
	struct tu_proc h;
	tu_analyze_dir(&h, "hangs", "--json", dir);
	char err[256];
	struct tu_json *hj = tu_json_parse(h.out, err, sizeof(err));
	TU_CHECK_FATAL(hj != NULL, "hangs --json: %s\n%s", err, h.err);
	const struct tu_json *rows = tu_jget(hj, "processes");
	if (rows == NULL)
		rows = tu_jget(hj, "ranks");
	TU_CHECK(tu_jlen(rows) >= 1, "hangs: no rows:\n%s", h.out);
	size_t rows_by_dltrace = 0;
	for (size_t i = 0; i < tu_jlen(rows); i++) {
		const char *st = tu_jstr(tu_jat(rows, i), "state");
		const struct tu_json *k =
			tu_jget(tu_jat(rows, i), "killed_by_dltrace");
		bool by = st && strcmp(st, "dltrace") == 0;
		TU_CHECK(by || (st && strcmp(st, "exited") == 0),
			 "hangs row %zu: state '%s'", i, st ? st : "");
		TU_CHECK(k && k->type == TU_JBOOL && k->b == by,
			 "hangs row %zu: killed_by_dltrace", i);
		rows_by_dltrace += by;
	}
	TU_CHECK(rows_by_dltrace == labelled,
		 "hangs labels %zu processes, check %zu", rows_by_dltrace,
		 labelled);
	tu_json_free(hj);
	tu_proc_free(&h);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- a real out-of-memory kill --------------------------------------------
 */

static char dlt_cg_dir[1024];

static int put(const char *dir, const char *file, const char *value)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/* A child of this process's memory cgroup with a 32 MiB limit, no swap;
 * NULL with the reason in why where it cannot be made. */
static const char *make_cgroup(char *why, size_t cap)
{
	if (geteuid() != 0) {
		snprintf(why, cap, "not root: cannot make a memory cgroup");
		return NULL;
	}
	struct dlt_memcg m;
	dlt_memcg_read(&dlt_memcg_system, &m);
	if (m.version == 0) {
		snprintf(why, cap, "no memory cgroup controller here");
		return NULL;
	}
	snprintf(dlt_cg_dir, sizeof(dlt_cg_dir), "/sys/fs/cgroup%s%s",
		 m.version == 1 ? "/memory" : "",
		 strcmp(m.path, "/") == 0 ? "" : m.path);
	struct stat st;
	if (stat(dlt_cg_dir, &st) != 0)
		snprintf(dlt_cg_dir, sizeof(dlt_cg_dir), "/sys/fs/cgroup%s",
			 m.version == 1 ? "/memory" : "");
	size_t l = strlen(dlt_cg_dir);
	snprintf(dlt_cg_dir + l, sizeof(dlt_cg_dir) - l, "/dltrace-test-%d",
		 (int)getpid());
	if (mkdir(dlt_cg_dir, 0755) != 0) {
		snprintf(why, cap, "cannot make %s: %s", dlt_cg_dir,
			 strerror(errno));
		return NULL;
	}
	const char *limit =
		m.version == 1 ? "memory.limit_in_bytes" : "memory.max";
	if (put(dlt_cg_dir, limit, "33554432") != 0) {
		snprintf(why, cap, "cannot set %s in %s (v%u): %s", limit,
			 dlt_cg_dir, m.version, strerror(errno));
		rmdir(dlt_cg_dir);
		return NULL;
	}
	/* Swap would page out instead of killing: none (the files exist
	 * only where swap accounting does). */
	if (m.version == 1)
		put(dlt_cg_dir, "memory.memsw.limit_in_bytes", "33554432");
	else
		put(dlt_cg_dir, "memory.swap.max", "0");
	return dlt_cg_dir;
}

static void test_oom_kill(void)
{
	char why[512];
	const char *cg = make_cgroup(why, sizeof(why));
	if (cg == NULL) {
		tu_skip("%s", why);
		return;
	}
	char *dir = tu_tmpdir("oom");
	/* The traced shell moves itself into the cgroup, then starts the
	 * allocating child there and reaps it. */
	/* In the background: dash starts a foreground command with vfork,
	 * which the shim does not see, and takes its "before" reading at a
	 * fork (docs/limitations.md). */
	char *script = tu_strfmt("echo $$ > %s/cgroup.procs || exit 99; "
				 "%s/fx_alloc 512 & wait $!; exit 0",
				 cg, DLT_TEST_FX);
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};
	struct tu_proc p;
	run_launcher(&p, dir, NULL, cmd);
	TU_CHECK(tu_exit_code(p.status) == 0, "launcher: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(!tu_contains(p.out, "allocated"),
		 "the child was not killed in a 32 MiB cgroup:\n%s", p.out);
	struct tu_json *j = tu_check_json(dir);
	const struct tu_json *victim = proc_with(j, "fx_alloc", 0);
	TU_CHECK_FATAL(victim != NULL, "no fx_alloc process:\n%s", p.err);
	const struct tu_json *f = finding_of(j, "OOM_KILL", jpid(victim));
	TU_CHECK(f != NULL, "no OOM_KILL for pid %u; verdict:\n%s",
		 jpid(victim), p.err);
	if (f) {
		const struct tu_json *e = tu_jget(f, "evidence");
		const struct tu_json *b = tu_jget(e, "oom_kills_before");
		const struct tu_json *a = tu_jget(e, "oom_kills_after");
		const struct tu_json *lim = tu_jget(e, "limit_bytes");
		const struct tu_json *rss = tu_jget(e, "peak_rss_kb");
		const char *cgp = tu_jstr(e, "cgroup");
		TU_CHECK(b && a && b->type == TU_JNUM && a->type == TU_JNUM &&
				 a->num > b->num,
			 "counter before/after not increasing");
		TU_CHECK(cgp && tu_contains(cg, cgp) &&
				 tu_contains(cgp, "dltrace-test-"),
			 "cgroup '%s' is not %s", cgp ? cgp : "", cg);
		TU_CHECK(lim && lim->type == TU_JNUM && lim->num == 33554432,
			 "limit_bytes not 32 MiB");
		TU_CHECK(rss && rss->type == TU_JNUM && rss->num > 16 * 1024,
			 "peak_rss_kb not known or small");
		TU_CHECK(strcmp(tu_jstr(f, "severity"), "error") == 0,
			 "severity");
		TU_CHECK(tu_contains(tu_jmsg(f), "out-of-memory killer"),
			 "message: %s", tu_jmsg(f));
	}
	TU_CHECK(!finding_of(j, "SIGKILL", jpid(victim)),
		 "an OOM kill also reported as a plain SIGKILL");
	TU_CHECK(tu_contains(p.err, "OOM_KILL"), "verdict:\n%s", p.err);
	tu_json_free(j);
	tu_proc_free(&p);
	free(script);
	if (rmdir(cg) != 0)
		TU_CHECK(0, "cannot remove %s: %s", cg, strerror(errno));
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test unit_tests[] = {
	{"memory cgroup files: v1, v2, a container's root", test_memcg_layouts},
	{"a damaged or cut trace is not a kill", test_damaged_not_killed},
	{"a crashed process's trace cut in half is a warning", test_crash_cut},
	{"a SIGKILL judged against the readings around it", test_judge},
	{NULL, NULL}};

static const struct tu_test e2e_tests[] = {
	{"kill -9: SIGKILL without an OOM kill", test_kill9_no_oom},
	{"--hang-timeout: dltrace's own kills labelled",
	 test_hang_timeout_kills_labelled},
	{NULL, NULL}};

static const struct tu_test oom_tests[] = {
	{"an OOM kill in a 32 MiB cgroup", test_oom_kill}, {NULL, NULL}};

static const struct tu_suite suites[] = {{"death_unit", unit_tests, NULL},
					 {"death_e2e", e2e_tests, NULL},
					 {"death_oom", oom_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
