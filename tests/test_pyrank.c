/* The rank from what the job did (format 2.5's RANK, shim/net.c and
 * shim/pystack.c): a CPython runs tests/py/pyrank_main.py under dltrace
 * with a stand-in for torch.distributed on PYTHONPATH (tests/py/pyrank/),
 * whose init_process_group hands the rank to _create_c10d_store, which
 * connects.  The trace must hold the rank the program passed
 * (init_process_group's) or, where it passed -1, the store's; a function
 * of the same name in another file is no rank; `check --json` gives the
 * process its identity and where it came from, and the process asked to
 * be watched.  With python3-torch, two ranks of torch.multiprocessing.spawn
 * get ranks 0 and 1 of 2 from init_process_group, and stay healthy.
 *
 *   test_pyrank [SUITE...]   pyrank (the interpreter in
 *                            DLT_TEST_PYSTACK_PYTHON) pyrank_torch
 *                            pyrank_vars (a launcher's variables) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define MAIN_PY DLT_TEST_SRC "/tests/py/pyrank_main.py"
#define SPAWN_PY DLT_TEST_SRC "/tests/py/pyrank_spawn.py"
#define LIMIT_MS 120000

static const char *pyrank_python(void)
{
	const char *p = getenv("DLT_TEST_PYSTACK_PYTHON");
	return p && *p ? p : NULL;
}

static const char *pyrank_skip(void)
{
	const char *p = pyrank_python();
	if (p == NULL)
		return "no interpreter given (DLT_TEST_PYSTACK_PYTHON)";
	if (access(p, X_OK) != 0)
		return "the interpreter given is not executable here";
	return NULL;
}

/* The interpreter's minor version (3.x), -1 unknown. */
static int pyrank_minor(const char *py)
{
	const char *cmd[] = {py, "-c", "import sys; print(sys.version_info[1])",
			     NULL};
	struct tu_proc p;
	int minor = -1;
	if (tu_run(&p, cmd, NULL, 30000) == 0 && tu_exit_code(p.status) == 0)
		minor = atoi(p.out);
	tu_proc_free(&p);
	return minor;
}

struct pyrank_seen {
	size_t n;	     /* RANK records */
	int32_t rank, world; /* of the last one */
	uint32_t source;     /* of the last one */
	int other;	     /* one with other values than the last */
	int asked; /* its trace's header says it asked to be watched */
};

/* The RANK records of the traces in dir. */
static void pyrank_read(const char *dir, struct pyrank_seen *o)
{
	struct tu_traceset s;
	memset(o, 0, sizeof(*o));
	o->rank = o->world = -1;
	tu_traceset_read(dir, &s, 0);
	for (size_t i = 0; i < s.n; i++)
		for (size_t k = 0; k < s.t[i].nrecs; k++) {
			const struct dlt_rec_hdr *h = s.t[i].recs[k].h;
			if (h->type != DLT_REC_RANK)
				continue;
			const struct dlt_rec_rank *r = (const void *)h;
			if (o->n &&
			    (r->rank != o->rank || r->world_size != o->world))
				o->other = 1;
			o->n++;
			o->rank = r->rank;
			o->world = r->world_size;
			o->source = r->source;
			o->asked = (s.t[i].hdr.features & DLT_FEAT_WATCH) != 0;
		}
	tu_traceset_free(&s);
}

/* The process of check --json whose identity has a source, and how many
 * have one. */
static const struct tu_json *pyrank_identified(const struct tu_json *j,
					       size_t *n)
{
	const struct tu_json *procs = tu_jget(j, "processes"), *found = NULL;
	*n = 0;
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *id =
			tu_jget(tu_jat(procs, i), "identity");
		if (tu_jstr(id, "source")) {
			found = id;
			(*n)++;
		}
	}
	return found;
}

static double pyrank_num(const struct tu_json *o, const char *key)
{
	const struct tu_json *v = tu_jget(o, key);
	return v && v->type == TU_JNUM ? v->num : -100;
}

/* Runs pyrank_main.py MODE; the traces are left in *dir. */
static int pyrank_run(const char *mode, const char *const extra[], char **dir)
{
	const char *py = pyrank_python();
	*dir = tu_tmpdir(mode);
	TU_CHECK_FATAL(*dir != NULL, "no scratch directory");
	char *path = tu_strfmt("PYTHONPATH=%s/tests/py/pyrank", DLT_TEST_SRC);
	const char *env[4] = {path, NULL, NULL, NULL};
	for (int i = 0; extra && extra[i] && i < 2; i++)
		env[1 + i] = extra[i];
	const char *cmd[] = {py, MAIN_PY, mode, NULL};
	struct tu_proc p;
	tu_run_traced(&p, *dir, cmd, env, LIMIT_MS);
	int ok = !p.timed_out && tu_exit_code(p.status) == 0 &&
		 tu_contains(p.out, "ok");
	TU_CHECK(ok, "%s pyrank_main.py %s: %s\n%s%s", py, mode,
		 tu_status_str(p.status), p.out, p.err);
	tu_proc_free(&p);
	free(path);
	return ok ? 0 : -1;
}

/* init_process_group(rank=1, world_size=2): taken from its frame; the
 * program's own init_process_group(rank=5, world_size=9) before it is
 * not. */
static void test_pyrank_passed(void)
{
	char *dir;
	int minor = pyrank_minor(pyrank_python());
	if (pyrank_run("passed", NULL, &dir) == 0) {
		struct pyrank_seen o;
		pyrank_read(dir, &o);
		if (minor >= 0 && minor < 8) {
			/* No layout for it: nothing, and no harm. */
			TU_CHECK(o.n == 0, "3.%d: %zu RANK records", minor,
				 o.n);
		} else {
			TU_CHECK(o.n == 1 && !o.other && o.rank == 1 &&
					 o.world == 2 &&
					 o.source == DLT_RANK_FROM_INIT,
				 "%zu RANK records, the last rank %d of %d "
				 "source %u (want one: 1 of 2 from "
				 "init_process_group)",
				 o.n, o.rank, o.world, o.source);
			TU_CHECK(o.asked, "a process with a rank from its "
					  "code did not ask to be watched");
			struct tu_json *j = tu_check_json(dir);
			size_t n;
			const struct tu_json *id = pyrank_identified(j, &n);
			const char *src = tu_jstr(id, "source");
			TU_CHECK(n == 1 && src &&
					 strcmp(src, "init_process_group") ==
						 0 &&
					 pyrank_num(id, "rank") == 1 &&
					 pyrank_num(id, "world_size") == 2,
				 "check --json: %zu processes with an "
				 "identity, source %s",
				 n, src ? src : "(none)");
			tu_json_free(j);
		}
	}
	tu_rmtree(dir);
	free(dir);
}

/* init_process_group() reading its rank from the environment: the
 * store's arguments say it. */
static void test_pyrank_store(void)
{
	char *dir;
	int minor = pyrank_minor(pyrank_python());
	if (minor >= 0 && minor < 8) {
		tu_skip("3.%d: no layout, see pyrank_passed", minor);
		return;
	}
	const char *extra[] = {"DLT_FAKE_RANK=0", "DLT_FAKE_WORLD_SIZE=3",
			       NULL};
	if (pyrank_run("env", extra, &dir) == 0) {
		struct pyrank_seen o;
		pyrank_read(dir, &o);
		TU_CHECK(o.n == 1 && o.rank == 0 && o.world == 3 &&
				 o.source == DLT_RANK_FROM_STORE,
			 "%zu RANK records, the last rank %d of %d source %u "
			 "(want one: 0 of 3 from _create_c10d_store)",
			 o.n, o.rank, o.world, o.source);
		struct tu_json *j = tu_check_json(dir);
		size_t n;
		const struct tu_json *id = pyrank_identified(j, &n);
		const char *src = tu_jstr(id, "source");
		TU_CHECK(n == 1 && src &&
				 strcmp(src, "_create_c10d_store") == 0 &&
				 pyrank_num(id, "rank") == 0 &&
				 pyrank_num(id, "world_size") == 3,
			 "check --json: %zu processes with an identity, "
			 "source %s",
			 n, src ? src : "(none)");
		tu_json_free(j);
	}
	tu_rmtree(dir);
	free(dir);
}

static const char *pyrank_torch_skip(void)
{
	return tu_python_skip("torch.distributed");
}

/* torch.multiprocessing.spawn, two ranks, tcp:// with the rank passed:
 * each rank's process says rank r of 2 from init_process_group, and the
 * healthy run finds nothing. */
static void test_pyrank_spawn(void)
{
	char *dir = tu_tmpdir("pyrank-spawn");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	int port = tu_free_port();
	TU_CHECK_FATAL(port > 0, "no free port");
	char *ports = tu_strfmt("%d", port);
	const char *cmd[] = {tu_python(), SPAWN_PY, ports, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, LIMIT_MS);
	TU_CHECK(!p.timed_out && tu_exit_code(p.status) == 0 &&
			 tu_contains(p.out, "ok"),
		 "mp.spawn of two ranks: %s\n%s%s", tu_status_str(p.status),
		 p.out, p.err);
	tu_proc_free(&p);
	struct tu_json *j = tu_check_json(dir);
	const struct tu_json *procs = tu_jget(j, "processes");
	int seen[2] = {0, 0}, others = 0;
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *id =
			tu_jget(tu_jat(procs, i), "identity");
		const char *src = tu_jstr(id, "source");
		if (src == NULL)
			continue;
		double r = pyrank_num(id, "rank");
		if (strcmp(src, "init_process_group") == 0 &&
		    pyrank_num(id, "world_size") == 2 && (r == 0 || r == 1))
			seen[(int)r]++;
		else
			others++;
	}
	TU_CHECK(seen[0] == 1 && seen[1] == 1 && others == 0,
		 "check --json: rank 0 seen %d times, rank 1 %d, %d other "
		 "identities (want each rank once, of 2, from "
		 "init_process_group)",
		 seen[0], seen[1], others);
	tu_json_free(j);
	tu_expect_healthy("two ranks of torch.multiprocessing.spawn", dir);
	tu_rmtree(dir);
	free(dir);
	free(ports);
}

/* A launcher's variable, recorded and named as the identity's source:
 * each of a few launchers alone, and RANK before SLURM_PROCID when both
 * are set (common/rankvars.h's order). */
static void test_pyrank_launcher_vars(void)
{
	static const struct {
		const char *env[3];
		int rank, world;
		const char *source;
	} cases[] = {
		{{"JSM_NAMESPACE_RANK=1", "JSM_NAMESPACE_SIZE=4", NULL},
		 1,
		 4,
		 "JSM_NAMESPACE_RANK"},
		{{"MV2_COMM_WORLD_RANK=2", "MV2_COMM_WORLD_SIZE=3", NULL},
		 2,
		 3,
		 "MV2_COMM_WORLD_RANK"},
		{{"PMIX_RANK=3", NULL, NULL}, 3, -1, "PMIX_RANK"},
		{{"SLURM_PROCID=5", "RANK=2", NULL}, 2, -1, "RANK"},
	};
	char *fx = tu_fx("fx_hello");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = tu_tmpdir("pyrank-vars");
		TU_CHECK_FATAL(dir != NULL, "no scratch directory");
		const char *cmd[] = {fx, NULL};
		struct tu_proc p;
		tu_run_traced(&p, dir, cmd, cases[i].env, LIMIT_MS);
		TU_CHECK(tu_exit_code(p.status) == 3,
			 "fx_hello (exits 3) with %s: %s", cases[i].env[0],
			 tu_status_str(p.status));
		tu_proc_free(&p);
		struct tu_json *j = tu_check_json(dir);
		size_t n;
		const struct tu_json *id = pyrank_identified(j, &n);
		const char *src = tu_jstr(id, "source");
		TU_CHECK(n == 1 && src && strcmp(src, cases[i].source) == 0 &&
				 pyrank_num(id, "rank") == cases[i].rank &&
				 (cases[i].world < 0
					  ? tu_jget(id, "world_size") &&
						    tu_jget(id, "world_size")
								    ->type ==
							    TU_JNULL
					  : pyrank_num(id, "world_size") ==
						    cases[i].world),
			 "%s: %zu processes with an identity, source %s "
			 "(want rank %d from %s)",
			 cases[i].env[0], n, src ? src : "(none)",
			 cases[i].rank, cases[i].source);
		tu_json_free(j);
		tu_rmtree(dir);
		free(dir);
	}
	free(fx);
}

static const struct tu_test vars_tests[] = {
	{"launchers' variables named", test_pyrank_launcher_vars},
	{NULL, NULL}};

static const struct tu_test pyrank_tests[] = {
	{"rank passed to init_process_group", test_pyrank_passed},
	{"rank given to the store", test_pyrank_store},
	{NULL, NULL}};

static const struct tu_test torch_tests[] = {
	{"two ranks of torch.multiprocessing.spawn", test_pyrank_spawn},
	{NULL, NULL}};

int main(int argc, char **argv)
{
	static const struct tu_suite suites[] = {
		{"pyrank", pyrank_tests, pyrank_skip},
		{"pyrank_torch", torch_tests, pyrank_torch_skip},
		{"pyrank_vars", vars_tests, NULL},
		{NULL, NULL, NULL}};
	return tu_main(argc, argv, suites);
}
