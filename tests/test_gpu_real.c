/* The real CUDA runtime, cuDNN and NCCL (DLT_TEST_REAL_LIBDIR) under
 * dltrace without a GPU: version queries, what they answer without a
 * driver, and the versions the trace records.
 *
 *   test_gpu_real [SUITE...]   gpu_real */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apinames.h"
#include "gpuutil.h"
#include "testutil.h"

/* ---- suite gpu_real: the real libraries in /usr/local/cuda --------------- */

static const char *real_skip(void)
{
	static char why[512];
	if (DLT_TEST_REAL_FX[0] == '\0') {
		snprintf(why, sizeof(why),
			 "fx_real was not built: no real CUDA runtime, cuDNN "
			 "and NCCL (headers and libraries) in %s at configure "
			 "time",
			 DLT_TEST_REAL_LIBDIR);
		return why;
	}
	DIR *d = opendir(DLT_TEST_REAL_LIBDIR);
	int found = 0;
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		found |= strncmp(e->d_name, "libcudart.so", 12) == 0;
	if (d)
		closedir(d);
	if (!found || access(DLT_TEST_REAL_FX, X_OK) != 0) {
		snprintf(why, sizeof(why), "no %s/libcudart.so* here",
			 DLT_TEST_REAL_LIBDIR);
		return why;
	}
	return NULL;
}

/* The row of the libs table for the loaded file whose name starts with
 * prefix (libcudart.so. and not libcudart_static ...). */
static const struct tu_json *real_lib_row(const struct tu_json *root,
					  const char *prefix)
{
	const struct tu_json *procs = tu_jget(root, "processes");
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *libs =
			tu_jget(tu_jat(procs, i), "libraries");
		for (size_t k = 0; k < tu_jlen(libs); k++) {
			const char *path = tu_jstr(tu_jat(libs, k), "path");
			if (path && strncmp(tg_base_name(path), prefix,
					    strlen(prefix)) == 0)
				return tu_jat(libs, k);
		}
	}
	return NULL;
}

static long long printed(const char *out, const char *prefix)
{
	char buf[64];
	const char *v = tu_line_value(out, prefix, buf, sizeof(buf));
	return v ? atoll(v) : -999999;
}

static void test_real(void)
{
	const char *what = "real CUDA runtime, cuDNN and NCCL";
	const char *cmd[] = {DLT_TEST_REAL_FX, NULL};
	char *dir = tu_tmpdir("real");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc plain, traced;
	tu_run(&plain, cmd, NULL, TG_RUN_MS);
	tg_run_traced(&traced, dir, cmd, NULL);
	/* NCCL's own warnings carry the pid: stdout and status only. */
	tu_expect_same_run(what, &plain, &traced, 0);
	TU_CHECK_FATAL(tu_exit_code(plain.status) == 0, "fx_real: %s\n%s%s",
		       tu_status_str(plain.status), plain.out, plain.err);
	long long count_rc = printed(plain.out, "cudaGetDeviceCount rc=");
	long long drv = printed(plain.out, "cudaDriverGetVersion rc=0 "
					   "version=");
	char buf[64];
	const char *rv = tu_line_value(
		plain.out, "cudaRuntimeGetVersion rc=", buf, sizeof(buf));
	long long rt = rv && strstr(rv, "version=")
			       ? atoll(strstr(rv, "version=") + 8)
			       : -1;
	long long cudnn_v = printed(plain.out, "cudnnGetVersion=");
	long long cudnn_rt = printed(plain.out, "cudnnGetCudartVersion=");
	long long create = printed(plain.out, "cudnnCreate rc=");
	long long nccl_v = printed(plain.out, "ncclGetVersion rc=0 version=");
	long long init = printed(plain.out, "ncclCommInitRank rc=");
	printf("\n    real libraries: cudaGetDeviceCount %lld, driver %lld, "
	       "runtime %lld, cuDNN %lld (its runtime %lld), cudnnCreate "
	       "%lld, NCCL %lld, ncclCommInitRank(nranks=1) %lld\n",
	       count_rc, drv, rt, cudnn_v, cudnn_rt, create, nccl_v, init);

	/* What this project's machines say without a GPU (docs/library-facts.md
	 * §2), where there is no NVIDIA driver. */
	int no_driver = access("/proc/driver/nvidia/version", F_OK) != 0;
	if (no_driver) {
		TU_CHECK(count_rc == 35 && create == 1001,
			 "without a driver: cudaGetDeviceCount %lld (expected "
			 "35), cudnnCreate %lld (expected 1001)",
			 count_rc, create);
	} else {
		tu_skip_part("the statuses of a machine without a driver "
			     "(35, 1001): an NVIDIA driver is loaded here");
	}
	TU_CHECK(cudnn_v == 91900 && cudnn_rt == 13010 && nccl_v == 22809,
		 "this machine's libraries: cuDNN %lld, its runtime %lld, "
		 "NCCL %lld; the issue's are 91900, 13010, 22809",
		 cudnn_v, cudnn_rt, nccl_v);

	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	struct tu_trace *g = tu_traceset_only(&s, "fx_real");
	struct tu_json *j = tu_libs_json(dir);
	if (g) {
		size_t n = tg_expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 6, "%s: %zu calls compared, expected 6 or more",
			 what, n);
		const struct dlt_rec_api_call *c[2];
		TU_CHECK(tg_calls(g, tg_api_id("cudaGetDeviceCount"), c, 2) ==
					 1 &&
				 c[0]->ret == count_rc,
			 "%s: cudaGetDeviceCount not recorded with %lld", what,
			 count_rc);
		TU_CHECK(tg_calls(g, tg_api_id("cudnnCreate"), c, 2) == 1 &&
				 c[0]->ret == create,
			 "%s: cudnnCreate not recorded with %lld", what,
			 create);
		static const struct {
			int fam;
			const char *prefix;
		} fams[] = {{DLT_FAM_CUDART, "libcudart.so."},
			    {DLT_FAM_CUDNN, "libcudnn.so."},
			    {DLT_FAM_NCCL, "libnccl.so."}};
		for (size_t i = 0; i < 3; i++) {
			const struct tu_json *row =
				j ? real_lib_row(j, fams[i].prefix) : NULL;
			const char *path = tu_jstr(row, "path");
			TU_CHECK(path != NULL, "%s: no %s* in the libs table",
				 what, fams[i].prefix);
			char *inreal =
				tu_strfmt("%s/%s", DLT_TEST_REAL_LIBDIR,
					  tg_base_name(path ? path : "-"));
			TU_CHECK(path && tu_same_file(path, inreal),
				 "%s: %s resolved to %s, not in %s", what,
				 fams[i].prefix, path ? path : "-",
				 DLT_TEST_REAL_LIBDIR);
			struct tg_want want[3] = {TG_WANT_END, TG_WANT_END,
						  TG_WANT_END};
			if (fams[i].fam == DLT_FAM_CUDART) {
				want[0] = (struct tg_want){
					DLT_FV_CUDART_runtime_version, rt};
				(void)drv; /* only if the driver was loaded */
			} else if (fams[i].fam == DLT_FAM_CUDNN) {
				want[0] = (struct tg_want){DLT_FV_CUDNN_version,
							   cudnn_v};
				want[1] = (struct tg_want){
					DLT_FV_CUDNN_cudart_version, cudnn_rt};
			} else {
				want[0] = (struct tg_want){DLT_FV_NCCL_version,
							   nccl_v};
				want[1] =
					(struct tg_want){DLT_FV_NCCL_status, 0};
			}
			tg_expect_family(what, g, fams[i].fam,
					 path ? path : "-", NULL, want);
			size_t nf;
			const struct dlt_rec_family *f =
				tg_family(g, fams[i].fam, &nf);
			if (f)
				printf("    LIB_FAMILY %s: %s "
				       "v=[%lld,%lld,%lld,"
				       "%lld,%lld,%lld]\n",
				       dlt_family_name(fams[i].fam),
				       tu_trace_str(g, f->path),
				       (long long)f->v[0], (long long)f->v[1],
				       (long long)f->v[2], (long long)f->v[3],
				       (long long)f->v[4], (long long)f->v[5]);
			free(inreal);
		}
		for (size_t i = 0; i < g->nrecs; i++)
			if (g->recs[i].h->type == DLT_REC_STATIC_RUNTIME) {
				const struct dlt_rec_static_rt *r =
					(const void *)g->recs[i].h;
				printf("    STATIC_RUNTIME %s (%s)\n",
				       tu_trace_str(g, r->object),
				       tu_trace_str(g, r->symbol));
			}
	}
	tu_json_free(j);
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suites ------------------------------------------------------------- */

static const struct tu_test real_tests[] = {
	{"real libraries in " DLT_TEST_REAL_LIBDIR, test_real}, {NULL, NULL}};

static const struct tu_suite suites[] = {{"gpu_real", real_tests, real_skip},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
