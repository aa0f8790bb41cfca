/* The CUDA runtime and driver interposed (issue 3): programs that drive the
 * fake runtime and driver (tests/fakes/) print every status they get; each
 * runs plainly and under dltrace, and the trace must hold, record for
 * record, what the program printed: the calls with their API ids,
 * statuses and values, the libraries and their versions.  And a pending
 * dlerror survives the first runtime call.
 *
 *   test_gpu_cuda [SUITE...]   gpu_cuda gpu_dlerror */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>

#include "apinames.h"
#include "fake_paths.h"
#include "gpuutil.h"
#include "testutil.h"

/* ---- suite gpu_cuda: runtime and driver ------------------------------------
 */

static void expect_static_runtimes(const char *what, const struct tu_trace *g,
				   const char *want_object)
{
	size_t n = 0, good = 0;
	for (size_t i = 0; i < g->nrecs; i++) {
		const struct dlt_rec_hdr *h = g->recs[i].h;
		if (h->type != DLT_REC_STATIC_RUNTIME)
			continue;
		const struct dlt_rec_static_rt *r = (const void *)h;
		const char *obj = tu_trace_str(g, r->object);
		n++;
		good += want_object && tu_same_file(obj, want_object);
		TU_CHECK(want_object != NULL,
			 "%s: STATIC_RUNTIME record names %s (symbol %s), "
			 "expected none",
			 what, obj, tu_trace_str(g, r->symbol));
	}
	if (want_object)
		TU_CHECK(n == 1 && good == 1,
			 "%s: %zu STATIC_RUNTIME records, %zu naming %s; "
			 "expected exactly one naming it",
			 what, n, good, want_object);
}

static void check_cuda_run(const char *what, const char *prog, int dlopen_path)
{
	const char *cmd[] = {prog, NULL};
	char *dir = tu_tmpdir("cuda");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc plain, traced;
	tg_run_pair(what, cmd, tg_cuda_env(), dir, 0, &plain, &traced);
	char want_line[64];
	snprintf(want_line, sizeof(want_line), "version=%d\n", TG_RT_VER);
	TU_CHECK(tu_contains(plain.out, want_line),
		 "%s: fixture did not report runtime %d:\n%s", what, TG_RT_VER,
		 plain.out);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	struct tu_trace *g = tu_traceset_only(&s, tg_base_name(prog));
	if (g) {
		size_t n = tg_expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 25, "%s: only %zu calls compared", what, n);
		static const char *const need[] = {
			"cudaEventSynchronize", "cudaStreamSynchronize",
			"cudaDeviceSynchronize", NULL};
		tg_expect_enter_pairs(what, g, need);
		char *rt = tg_fake_file(DLT_FAKE_CUDART_DIR,
					DLT_FAKE_CUDART_SONAME);
		/* The driver API version only when the driver was loaded
		 * by then (the shim never loads it to ask). */
		const struct tg_want v[] = {
			{DLT_FV_CUDART_runtime_version, TG_RT_VER},
			{DLT_FV_CUDART_runtime_status, 0},
			TG_WANT_END};
		tg_expect_family(what, g, DLT_FAM_CUDART, rt,
				 "cudaRuntimeGetVersion", v);
		free(rt);
		const struct tg_want malloc_v[] = {
			{DLT_V_cudaMalloc_size, 4096}, TG_WANT_END};
		tg_expect_values(what, g, "cudaMalloc", 0, malloc_v);
		/* cudaMemcpyHostToDevice, then DeviceToHost */
		const struct tg_want h2d[] = {{DLT_V_cudaMemcpy_bytes, 4096},
					      {DLT_V_cudaMemcpy_kind, 1},
					      TG_WANT_END},
				     d2h[] = {{DLT_V_cudaMemcpy_bytes, 4096},
					      {DLT_V_cudaMemcpy_kind, 2},
					      TG_WANT_END};
		tg_expect_values(what, g, "cudaMemcpy", 0, h2d);
		tg_expect_values(what, g, "cudaMemcpy", 1, d2h);
		/* The runtime opening the driver is not a static runtime. */
		expect_static_runtimes(what, g, NULL);
		if (dlopen_path) {
			/* The driver functions the program took through
			 * cudaGetDriverEntryPoint{,ByVersion}. */
			char *drv =
				tg_fake_file(DLT_FAKE_CUDA_DIR, "libcuda.so.1");
			const struct tg_want dv[] = {
				{DLT_FV_CUDA_driver_version, TG_DRV_VER},
				{DLT_FV_CUDA_driver_status, 0},
				TG_WANT_END};
			/* The runtime's own driver calls are recorded too
			 * (it reaches the driver first, via cuGetProcAddress).
			 */
			tg_expect_family(what, g, DLT_FAM_CUDA, drv, NULL, dv);
			free(drv);
			const struct dlt_rec_api_call *allocs[16];
			size_t na = tg_calls(g, tg_api_id("cuMemAlloc_v2"),
					     allocs, 16);
			int found256 = 0;
			for (size_t q = 0; q < na && q < 16; q++)
				found256 |=
					allocs[q]
						->v[DLT_V_cuMemAlloc_v2_size] ==
					256;
			TU_CHECK(
				found256,
				"%s: no API_CALL of cuMemAlloc_v2 of 256 bytes",
				what);
			TU_CHECK(tg_calls(g, tg_api_id("cuMemFree_v2"), NULL,
					  0) >= 2,
				 "%s: cuMemFree_v2 of the program and of the "
				 "runtime not both recorded",
				 what);
		}
	}
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
}

static void test_cuda_direct(void)
{
	check_cuda_run("runtime, linked", DLT_FAKE_FX_CUDA_DIRECT, 0);
}

static void test_cuda_dlopen(void)
{
	check_cuda_run("runtime, dlopen(RTLD_LOCAL) + dlsym",
		       DLT_FAKE_FX_CUDA_DLOPEN, 1);
}

/* The driver taken the way a static runtime takes it: dlopen of
 * libcuda.so.1 and a dlsym of cuGetProcAddress_v2 from the program, every
 * other function through cuGetProcAddress, which is asked for itself. */
static void test_cuda_getprocaddress(void)
{
	const char *what = "driver through cuGetProcAddress";
	char *fx = tu_strfmt("%s/fx_gpu", DLT_TEST_FX_GPU);
	const char *cmd[] = {fx, "driver", NULL};
	char *dir = tu_tmpdir("cuda-gpa");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *env[] = {tg_cuda_env()[2], NULL};
	struct tu_proc plain, traced;
	tg_run_pair(what, cmd, env, dir, 0, &plain, &traced);
	TU_CHECK(tu_contains(traced.out,
			     "cuGetProcAddress for itself twice: same\n"),
		 "%s: cuGetProcAddress asked for itself gave another "
		 "function:\n%s",
		 what, traced.out);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	struct tu_trace *g = tu_traceset_only(&s, "fx_gpu");
	if (g) {
		size_t n = tg_expect_calls(what, g, g->hdr.pid, traced.out);
		TU_CHECK(n >= 30, "%s: only %zu calls compared", what, n);
		static const char *const need[] = {"cuInit", "cuCtxCreate_v2",
						   "cuDevicePrimaryCtxRetain",
						   "cuCtxSynchronize", NULL};
		tg_expect_enter_pairs(what, g, need);
		static const char *const names[] = {"cuGetProcAddress_v2",
						    "cuGetProcAddress",
						    "cuInit",
						    "cuDriverGetVersion",
						    "cuMemAlloc_v2",
						    "cuLaunchKernel",
						    "cuModuleLoadData",
						    "cuMemFree_v2"};
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			TU_CHECK(tg_calls(g, tg_api_id(names[i]), NULL, 0) > 0,
				 "%s: no API_CALL of %s", what, names[i]);
		char *drv = tg_fake_file(DLT_FAKE_CUDA_DIR, "libcuda.so.1");
		const struct tg_want v[] = {
			{DLT_FV_CUDA_driver_version, TG_DRV_VER},
			{DLT_FV_CUDA_driver_status, 0},
			TG_WANT_END};
		tg_expect_family(what, g, DLT_FAM_CUDA, drv,
				 "cuGetProcAddress_v2", v);
		free(drv);
		/* The program fetched the driver itself: it would carry a
		 * static runtime. */
		expect_static_runtimes(what, g, fx);
		tg_expect_no_note(what, g, "further copy");
	}
	tu_traceset_free(&s);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* The runtime reaches every driver function through cuGetProcAddress
 * (docs/library-facts.md §1); what it calls there (cuInit, context creation,
 * allocations, launches) must be in the trace: a hang in cuInit inside the
 * runtime's lazy initialisation is one of the things to see. */
static void test_cuda_runtime_driver_calls(void)
{
	const char *what = "driver calls made by the runtime";
	const char *cmd[] = {DLT_FAKE_FX_CUDA_DIRECT, NULL};
	char *dir = tu_tmpdir("cuda-rt-drv");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc p;
	tg_run_traced(&p, dir, cmd, tg_cuda_env());
	TU_CHECK(tu_exit_code(p.status) == 0, "%s: %s\n%s", what,
		 tu_status_str(p.status), p.err);
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 0);
	struct tu_trace *g = tu_traceset_only(&s, "fx_cuda_direct");
	if (g) {
		static const char *const names[] = {
			"cuGetProcAddress_v2", "cuInit",
			"cuDriverGetVersion",  "cuDevicePrimaryCtxRetain",
			"cuModuleLoadData",    "cuMemAlloc_v2",
			"cuLaunchKernel",      "cuMemFree_v2"};
		size_t missing = 0;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			size_t n = tg_calls(g, tg_api_id(names[i]), NULL, 0);
			TU_CHECK(n > 0,
				 "%s: no API_CALL of %s, which the runtime "
				 "called through the pointer cuGetProcAddress "
				 "gave it",
				 what, names[i]);
			missing += n == 0;
		}
		if (missing == 0) {
			const struct tg_want alloc_v[] = {
				{DLT_V_cuMemAlloc_v2_size, 4096}, TG_WANT_END};
			tg_expect_values(what, g, "cuMemAlloc_v2", 0, alloc_v);
			static const char *const need[] = {"cuInit", NULL};
			tg_expect_enter_pairs(what, g, need);
		}
	}
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite gpu_dlerror -------------------------------------------------- */

/* A failed dlopen, then the first call into the runtime (the wrapper finds
 * its real function and notes the library), then dlerror(): the program
 * must read its own error, under dltrace as without it. */
static void dlerror_case(const char *what, const char *const env[], int healthy)
{
	char *fx = tu_strfmt("%s/fx_gpu_rt", DLT_TEST_FX_GPU);
	const char *cmd[] = {fx, "dlerror", NULL};
	char *dir = tu_tmpdir("dlerror");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct tu_proc plain, traced, pre;
	tg_run_pair(what, cmd, env, dir, 0, &plain, &traced);
	TU_CHECK(tu_contains(plain.out,
			     "dlerror: libdlt_gpu_nonexistent.so: cannot open "
			     "shared object file"),
		 "%s: fixture broken:\n%s", what, plain.out);
	const char **penv = tu_preload_env(dir, env, 0);
	tu_run(&pre, cmd, penv, TG_RUN_MS);
	free(penv);
	char *w2 = tu_strfmt("%s, LD_PRELOAD", what);
	tu_expect_same_run(w2, &plain, &pre, 1);
	free(w2);
	/* The failed dlopen is one the program carried on from. */
	if (healthy)
		tu_expect_healthy(what, dir);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_proc_free(&pre);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

static void test_dlerror_driver_found(void)
{
	const char *const env[] = {tg_cuda_env()[0], NULL};
	dlerror_case("dlerror around the first runtime call", env, 1);
}

static void test_dlerror_no_driver(void)
{
	const char *const env[] = {"FAKE_CUDART_DRIVER=libcuda-absent.so.1",
				   NULL};
	dlerror_case("dlerror around the first runtime call, no driver", env,
		     0);
}

/* ---- suites ------------------------------------------------------------- */

static const struct tu_test cuda_tests[] = {
	{"runtime linked: calls, values, versions", test_cuda_direct},
	{"runtime through dlopen + dlsym, driver entry points",
	 test_cuda_dlopen},
	{"driver through cuGetProcAddress, asked for itself, static runtime",
	 test_cuda_getprocaddress},
	{"driver calls the runtime makes through cuGetProcAddress",
	 test_cuda_runtime_driver_calls},
	{NULL, NULL}};

static const struct tu_test dlerror_tests[] = {
	{"first runtime call keeps a pending dlerror",
	 test_dlerror_driver_found},
	{"... when the runtime finds no driver", test_dlerror_no_driver},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"gpu_cuda", cuda_tests, NULL},
					 {"gpu_dlerror", dlerror_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
