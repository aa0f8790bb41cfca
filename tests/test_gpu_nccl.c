/* NCCL interposed (issue 3): one rank, three ranks and a split sharing one
 * id, ncclCommInitAll, and dlopen + dlsym of the pnccl names, each against
 * what the fake NCCL's program printed.
 *
 *   test_gpu_nccl [SUITE...]   gpu_nccl */
#define _GNU_SOURCE

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apinames.h"
#include "fake_paths.h"
#include "gpuutil.h"
#include "testutil.h"

/* ---- suite gpu_nccl -------------------------------------------------------
 */

static uint64_t first_value(const struct tu_trace *g, const char *api, size_t i)
{
	const struct dlt_rec_api_call *c[1];
	if (tg_calls(g, tg_api_id(api), c, 1) == 0 || tg_call_nv(&c[0]->h) <= i)
		return 0;
	return c[0]->v[i];
}

static void expect_nccl_family(const char *what, const struct tu_trace *g,
			       const char *first_api)
{
	char *lib = tg_fake_file(DLT_FAKE_NCCL_DIR, "libnccl.so.2");
	const struct tg_want v[] = {{DLT_FV_NCCL_version, 22810},
				    {DLT_FV_NCCL_status, 0},
				    TG_WANT_END};
	tg_expect_family(what, g, DLT_FAM_NCCL, lib, first_api, v);
	free(lib);
}

static void test_nccl_single(void)
{
	const char *what = "NCCL, one rank, linked";
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	const char *cmd[] = {DLT_FAKE_FX_NCCL, NULL};
	struct tu_proc plain, traced;
	tg_run_pair(what, cmd, tg_nccl_env(rdv, NULL), dir, 0, &plain, &traced);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	struct tu_trace *g = tu_traceset_only(&s, "fx_nccl");
	if (g) {
		size_t n = tg_expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 15, "%s: only %zu calls compared", what, n);
		static const char *const need[] = {
			"ncclCommInitRank", "ncclAllReduce",   "ncclSend",
			"ncclGroupEnd",	    "ncclCommDestroy", NULL};
		tg_expect_enter_pairs(what, g, need);
		expect_nccl_family(what, g, "ncclGetUniqueId");
		uint64_t h = first_value(g, "ncclGetUniqueId",
					 DLT_V_ncclGetUniqueId_id_hash);
		TU_CHECK(h != 0 && first_value(
					   g, "ncclCommInitRank",
					   DLT_V_ncclCommInitRank_id_hash) == h,
			 "%s: ncclCommInitRank id_hash %llx, ncclGetUniqueId "
			 "%llx",
			 what,
			 (unsigned long long)first_value(
				 g, "ncclCommInitRank",
				 DLT_V_ncclCommInitRank_id_hash),
			 (unsigned long long)h);
	}
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_expect_healthy(what, dir);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

static void test_nccl_ranks(void)
{
	enum { N = 3 };
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl-ranks");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	struct tu_proc plain[N], traced[N];
	for (int pass = 0; pass < 2; pass++) {
		char *idfile = tu_strfmt("%s/id-%d", rdv, pass);
		char rank[N][8];
		const char *cmd[N][9];
		for (int r = 0; r < N; r++) {
			snprintf(rank[r], sizeof(rank[r]), "%d", r);
			const char *c[] = {
				DLT_FAKE_FX_NCCL, "--nranks", "3",
				"--rank",	  rank[r],    "--id-file",
				idfile,		  "--split",  NULL};
			memcpy(cmd[r], c, sizeof(c));
			const char **argv =
				pass ? tu_launcher_argv(dir, NULL, cmd[r])
				     : NULL;
			struct tu_proc *p = pass ? &traced[r] : &plain[r];
			TU_CHECK_FATAL(tu_proc_start(p, pass ? argv : cmd[r],
						     tg_nccl_env(rdv, NULL)) ==
					       0,
				       "cannot start rank %d", r);
			free(argv);
		}
		for (int r = 0; r < N; r++)
			tu_proc_wait(pass ? &traced[r] : &plain[r], TG_RUN_MS);
		free(idfile);
	}
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	TU_CHECK(s.n == N, "%zu traces for %d ranks", s.n, N);
	uint64_t hash0 = 0, hash[N] = {0};
	for (int r = 0; r < N; r++) {
		char what[64];
		snprintf(what, sizeof(what), "NCCL rank %d of 3", r);
		TU_CHECK(tu_exit_code(plain[r].status) == 0,
			 "%s: fixture broken: %s\n%s", what,
			 tu_status_str(plain[r].status), plain[r].err);
		tu_expect_same_run(what, &plain[r], &traced[r], 1);
		struct tu_trace *g = NULL;
		for (size_t i = 0; i < s.n; i++)
			if (s.t[i].hdr.ppid == (uint32_t)traced[r].pid)
				g = &s.t[i];
		TU_CHECK(g != NULL, "%s: no trace", what);
		if (g == NULL)
			continue;
		tg_expect_calls(what, g, g->hdr.pid, traced[r].out);
		static const char *const need[] = {"ncclCommInitRank",
						   "ncclCommSplit", NULL};
		tg_expect_enter_pairs(what, g, need);
		expect_nccl_family(what, g,
				   r == 0 ? "ncclGetUniqueId"
					  : "ncclCommInitRank");
		hash[r] = first_value(g, "ncclCommInitRank",
				      DLT_V_ncclCommInitRank_id_hash);
		if (r == 0)
			hash0 = first_value(g, "ncclGetUniqueId",
					    DLT_V_ncclGetUniqueId_id_hash);
	}
	TU_CHECK(hash0 != 0 && hash[0] == hash0 && hash[1] == hash0 &&
			 hash[2] == hash0,
		 "id hashes: ncclGetUniqueId %llx, ncclCommInitRank of ranks "
		 "0-2: %llx %llx %llx",
		 (unsigned long long)hash0, (unsigned long long)hash[0],
		 (unsigned long long)hash[1], (unsigned long long)hash[2]);
	/* ncclCommSplit is a split, not an init of (comm, color, key). */
	tu_expect_healthy("3 ranks and a split", dir);
	int rc;
	struct tu_json *j = tg_analyze_json("check", dir, &rc, NULL);
	const struct tu_json *f[2] = {NULL, NULL};
	TU_CHECK(tg_findings(j, "MISSING_RANK", f, 2) == 0,
		 "MISSING_RANK for a job whose every rank is traced: %s",
		 tu_jmsg(f[0]));
	tu_json_free(j);
	tu_traceset_free(&s);
	for (int r = 0; r < N; r++) {
		tu_proc_free(&plain[r]);
		tu_proc_free(&traced[r]);
	}
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

static void test_nccl_all(void)
{
	const char *what = "NCCL, ncclCommInitAll";
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl-all");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	const char *cmd[] = {DLT_FAKE_FX_NCCL, "--all", NULL};
	struct tu_proc plain, traced;
	tg_run_pair(what, cmd, tg_nccl_env(rdv, NULL), dir, 0, &plain, &traced);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	struct tu_trace *g = tu_traceset_only(&s, "fx_nccl");
	if (g) {
		tg_expect_calls(what, g, g->hdr.pid, traced.out);
		static const char *const need[] = {"ncclCommInitAll", NULL};
		tg_expect_enter_pairs(what, g, need);
		const struct tg_want ndev[] = {{DLT_V_ncclCommInitAll_ndev, 2},
					       TG_WANT_END};
		tg_expect_values(what, g, "ncclCommInitAll", 0, ndev);
		expect_nccl_family(what, g, "ncclCommInitAll");
	}
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_expect_healthy(what, dir);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
}

static void test_nccl_dlopen(void)
{
	const char *what = "NCCL through dlopen(RTLD_LOCAL) + dlsym";
	char *fx = tu_strfmt("%s/fx_gpu", DLT_TEST_FX_GPU);
	char *rdv = tu_tmpdir("nccl-rdv");
	char *dir = tu_tmpdir("nccl-dl");
	TU_CHECK_FATAL(dir && rdv, "no scratch directory");
	const char *cmd[] = {fx, "nccl-dl", NULL};
	struct tu_proc plain, traced;
	tg_run_pair(what, cmd, tg_nccl_env(rdv, NULL), dir, 0, &plain, &traced);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	struct tu_trace *g = tu_traceset_only(&s, "fx_gpu");
	if (g) {
		size_t n = tg_expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n == 8, "%s: %zu calls compared, expected 8", what, n);
		static const char *const need[] = {"ncclCommInitRank",
						   "ncclAllReduce", NULL};
		tg_expect_enter_pairs(what, g, need);
		expect_nccl_family(what, g, "ncclGetUniqueId");
		tg_expect_no_note(what, g, "further copy");
	}
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_expect_healthy(what, dir);
	tu_rmtree(dir);
	tu_rmtree(rdv);
	free(dir);
	free(rdv);
	free(fx);
}

/* ---- suites ------------------------------------------------------------- */

static const struct tu_test nccl_tests[] = {
	{"one rank, linked", test_nccl_single},
	{"three ranks and a split, one id", test_nccl_ranks},
	{"ncclCommInitAll", test_nccl_all},
	{"dlopen + dlsym, pnccl names", test_nccl_dlopen},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"gpu_nccl", nccl_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
