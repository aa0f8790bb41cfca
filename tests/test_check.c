/* Tests of `dltrace-analyze check`, `algos`, `diff` and `export`.
 *
 * Each finding code is shown on a situation built for real and run under
 * dltrace: libraries missing, shadowed, duplicated or broken (tests/check/
 * fixtures), the fake CUDA/cuDNN/NCCL libraries misbehaving on request
 * (tests/fakes), the real CUDA libraries on this machine, and Debian's
 * python3-torch.  Traces made with the real writer cover what the fakes
 * cannot produce (a backend plan failing for memory, an old kernel driver)
 * and the 256-trace streaming run.
 *
 *   test_check [SUITE...]   check_unit check_loader check_fakes check_real
 *                           check_scale check_torch */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apinames.h"
#include "digest.h"
#include "fake_paths.h"
#include "install.h"
#include "testutil.h"
#include "record.h"

#define RUN_MS 60000

/* ---- running and checking ------------------------------------------------ */

/* cmd under `dltrace -q -o dir --`. */
static int run_traced(struct tu_proc *p, const char *dir,
		      const char *const cmd[], const char *const env[])
{
	const char *argv[64];
	size_t k = 0;
	argv[k++] = DLT_TEST_LAUNCHER;
	argv[k++] = "-q";
	argv[k++] = "-o";
	argv[k++] = dir;
	argv[k++] = "--";
	for (size_t i = 0; cmd[i] && k < 63; i++)
		argv[k++] = cmd[i];
	argv[k] = NULL;
	return tu_run(p, argv, env, RUN_MS);
}

/* dltrace-analyze with these arguments (NULL-terminated). */
static int analyze(struct tu_proc *p, const char *const args[])
{
	const char *argv[64];
	size_t k = 0;
	argv[k++] = DLT_TEST_ANALYZE;
	for (size_t i = 0; args[i] && k < 63; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	return tu_run(p, argv, NULL, RUN_MS);
}

static struct tu_json *parse_out(const struct tu_proc *p, const char *what)
{
	char err[256];
	struct tu_json *j = tu_json_parse(p->out, err, sizeof(err));
	TU_CHECK(j != NULL, "%s: output is not JSON (%s); stderr:\n%s\n%.2000s",
		 what, err, p->err, p->out);
	return j;
}

/* `check --json --fail-on never PATH`, parsed; NULL (and a failed check)
 * when it did not work.  Every finding in it must be documented, with its
 * evidence keys and a fix. */
static struct tu_json *check_json(const char *path)
{
	struct tu_proc p;
	const char *args[] = {"check", "--json", "--fail-on",
			      "never", path,	 NULL};
	analyze(&p, args);
	struct tu_json *j = NULL;
	if (tu_exit_code(p.status) == 0)
		j = parse_out(&p, "check --json");
	else
		TU_CHECK(0, "check --json %s: %s; stderr:\n%s", path,
			 tu_status_str(p.status), p.err);
	const struct tu_json *fs = tu_jget(j, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++)
		tu_expect_documented(tu_jat(fs, i));
	tu_proc_free(&p);
	return j;
}

static const struct tu_json *ev(const struct tu_json *f, const char *key)
{
	return tu_jget(tu_jget(f, "evidence"), key);
}

static const char *ev_str(const struct tu_json *f, const char *key)
{
	return tu_jstr(tu_jget(f, "evidence"), key);
}

static double jnum(const struct tu_json *j, const char *key, double dflt)
{
	const struct tu_json *v = tu_jget(j, key);
	return v && v->type == TU_JNUM ? v->num : dflt;
}

static void print_findings(const struct tu_json *root)
{
	const struct tu_json *fs = tu_jget(root, "findings");
	fprintf(stderr, "    %zu findings:\n", tu_jlen(fs));
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		fprintf(stderr, "      %s %s: %s\n", tu_jstr(f, "severity"),
			tu_jstr(f, "code"), tu_jmsg(f));
	}
}

/* The first finding with this code (and severity, and a message holding
 * msg, when not NULL). */
static const struct tu_json *finding(const struct tu_json *root,
				     const char *code, const char *sev,
				     const char *msg)
{
	const struct tu_json *fs = tu_jget(root, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		const char *c = tu_jstr(f, "code"), *s = tu_jstr(f, "severity");
		const char *m = tu_jmsg(f);
		if (c && strcmp(c, code) == 0 &&
		    (!sev || (s && !strcmp(s, sev))) &&
		    (!msg || (m && strstr(m, msg))))
			return f;
	}
	return NULL;
}

static const struct tu_json *expect_finding(const struct tu_json *root,
					    const char *code, const char *sev,
					    const char *msg)
{
	const struct tu_json *f = finding(root, code, sev, msg);
	TU_CHECK(f != NULL, "no %s finding %s%s%s", sev ? sev : "", code,
		 msg ? " about " : "", msg ? msg : "");
	if (f == NULL)
		print_findings(root);
	if (f) {
		/* The shape every finding has (check --json contract). */
		TU_CHECK(tu_jmsg(f) && tu_jget(f, "pid") &&
				 tu_jget(f, "rank") && tu_jget(f, "evidence") &&
				 tu_jget(f, "evidence")->type == TU_JOBJ,
			 "%s: finding lacks message/pid/rank/evidence", code);
	}
	return f;
}

static int same_str(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int str_ends(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);
	return s && a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Whether an array of strings (or of objects with key) has an element
 * ending in suffix. */
static int has_elem(const struct tu_json *arr, const char *key,
		    const char *suffix)
{
	for (size_t i = 0; i < tu_jlen(arr); i++) {
		const struct tu_json *e = tu_jat(arr, i);
		const char *s = key ? tu_jstr(e, key)
				    : (e->type == TU_JSTR ? e->str : NULL);
		if (str_ends(s, suffix))
			return 1;
	}
	return 0;
}

/* The environment the fake smoke tests use: the fake driver found first. */
#define FAKE_ENV_BASE "LD_LIBRARY_PATH=" DLT_FAKE_CUDA_DIR

/* Runs cmd traced into a new scratch directory and returns its check
 * JSON; *dir_out (if given) keeps the directory for more commands. */
static struct tu_json *traced_check(const char *tag, const char *const cmd[],
				    const char *const env[], char **dir_out,
				    struct tu_proc *run_out)
{
	char *dir = tu_tmpdir(tag);
	struct tu_proc p;
	run_traced(&p, dir, cmd, env);
	TU_CHECK(!p.timed_out, "%s: timed out", tag);
	struct tu_json *j = check_json(dir);
	if (run_out)
		*run_out = p;
	else
		tu_proc_free(&p);
	if (dir_out) {
		*dir_out = dir;
	} else {
		tu_rmtree(dir);
		free(dir);
	}
	return j;
}

/* ---- traces written with the real writer ----------------------------------
 */

static struct dlt_writer gw; /* large: off the stack */
static struct dlt_tls gtls;

static int gen_open(const char *dir, int rank)
{
	struct dlt_open_params p = {.dir = dir,
				    .host = "gen-host",
				    .rank = rank,
				    .parent_kind = DLT_PARENT_NONE,
				    .features = DLT_FEAT_PRELOAD};
	memset(&gtls, 0, sizeof(gtls));
	if (dlt_writer_create(&gw, &p) != 0)
		return -1;
	struct dlt_rec_proc *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	if (r == NULL)
		return -1;
	uint32_t host = dlt_str(&gw, &gtls, "gen-host");
	uint32_t exe = dlt_str(&gw, &gtls, "/opt/gen/bin/trainer");
	r->h.ts = dlt_now_ns();
	r->host = host;
	r->exe = exe;
	r->cwd = DLT_STR_NONE;
	r->rank = rank;
	r->world_size = rank >= 0 ? 256 : -1;
	r->argc = 0;
	dlt_rec_commit(r, DLT_REC_PROC, 0, sizeof(*r));
	return 0;
}

/* LIB_FAMILY slots as the shim starts them: every one absent, then the
 * named ones set. */
static void gen_slots_absent(int64_t v[8])
{
	for (int i = 0; i < 8; i++)
		v[i] = DLT_VERSION_ABSENT;
}

static void gen_family(int fam, const char *path, const char *kdrv,
		       const int64_t v[8])
{
	uint32_t ps = dlt_str(&gw, &gtls, path);
	uint32_t ks = kdrv ? dlt_str(&gw, &gtls, kdrv) : DLT_STR_NONE;
	struct dlt_rec_family *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	r->h.ts = dlt_now_ns();
	r->path = ps;
	r->api = DLT_ID_cudaGetDeviceCount;
	r->kdrv = ks;
	r->source = DLT_FAMSRC_CALL;
	memcpy(r->v, v, sizeof(r->v));
	dlt_rec_commit(r, DLT_REC_LIB_FAMILY, (uint16_t)fam, sizeof(*r));
}

static void gen_call(uint16_t api, int32_t ret, uint32_t dur_ns,
		     const uint64_t *v, uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_call) + 8 * n);
	struct dlt_rec_api_call *r = dlt_rec_reserve(&gw, &gtls, len);
	r->h.ts = dlt_now_ns();
	r->ret = ret;
	r->dur = dur_ns;
	for (uint32_t i = 0; i < n; i++)
		r->v[i] = v[i];
	dlt_rec_commit(r, DLT_REC_API_CALL, api, len);
}

/* A cudaFree(NULL) at a given time: back-to-back calls less than a
 * microsecond apart. */
static void gen_free_at(uint64_t ts, uint32_t dur_ns)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_call) +
				  8 * DLT_NV_cudaFree);
	struct dlt_rec_api_call *r = dlt_rec_reserve(&gw, &gtls, len);
	r->h.ts = ts;
	r->ret = 0;
	r->dur = dur_ns;
	r->v[DLT_V_cudaFree_ptr] = 0;
	dlt_rec_commit(r, DLT_REC_API_CALL, dlt_api_by_name("cudaFree")->id,
		       len);
}

/* A wait of the main thread in system call nr, seen for dur_ns. */
static void gen_stall(int32_t nr, uint64_t dur_ns)
{
	struct dlt_rec_stall *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	memset((char *)r + 8, 0, sizeof(*r) - 8);
	r->h.ts = dlt_now_ns();
	r->tid = (uint32_t)getpid();
	r->syscall = nr;
	r->since = r->h.ts - dur_ns;
	r->dur_ns = dur_ns;
	r->wchan = DLT_STR_NONE;
	r->detail = DLT_STR_NONE;
	r->fd = -1;
	r->state = 'S';
	dlt_rec_commit(r, DLT_REC_STALL, 0, sizeof(*r));
}

static void gen_enter(uint16_t api, const uint64_t *v, uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_enter) + 8 * n);
	struct dlt_rec_api_enter *r = dlt_rec_reserve(&gw, &gtls, len);
	r->h.ts = dlt_now_ns();
	for (uint32_t i = 0; i < n; i++)
		r->v[i] = v[i];
	dlt_rec_commit(r, DLT_REC_API_ENTER, api, len);
}

#define GEN_PROBLEM 0x1234abcd5678ef00ull

static void gen_problem(uint64_t id, int c, int k)
{
	struct dlt_rec_conv_problem *r =
		dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	memset((char *)r + 8, 0, sizeof(*r) - 8);
	r->h.ts = dlt_now_ns();
	r->id = id;
	r->nb_dims = 4;
	r->conv_dims = 2;
	r->groups = 1;
	int32_t x[4] = {32, c, 56, 56}, w[4] = {k, c, 3, 3},
		y[4] = {32, k, 56, 56};
	memcpy(r->x, x, sizeof(x));
	memcpy(r->w, w, sizeof(w));
	memcpy(r->y, y, sizeof(y));
	r->pad[0] = r->pad[1] = 1;
	r->stride[0] = r->stride[1] = 1;
	r->dilation[0] = r->dilation[1] = 1;
	dlt_rec_commit(r, DLT_REC_CONV_PROBLEM, 0, sizeof(*r));
}

struct gen_cand {
	int32_t algo, status;
	float ms;
};

static void gen_algo(uint16_t api, uint64_t problem, int32_t status,
		     const struct gen_cand *c, uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_algo_result) +
				  n * sizeof(struct dlt_algo_cand));
	struct dlt_rec_algo_result *r = dlt_rec_reserve(&gw, &gtls, len);
	r->h.ts = dlt_now_ns();
	r->problem = problem;
	r->status = status;
	r->n = n;
	for (uint32_t i = 0; i < n; i++) {
		memset(&r->c[i], 0, sizeof(r->c[i]));
		r->c[i].algo = c[i].algo;
		r->c[i].status = c[i].status;
		r->c[i].time_ms = c[i].ms;
		r->c[i].memory = 1024u * (i + 1);
	}
	dlt_rec_commit(r, DLT_REC_ALGO_RESULT, api, len);
}

static void gen_finalize(uint64_t desc, uint64_t problem, int32_t status,
			 int32_t engine)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_bk_finalize) +
				  sizeof(struct dlt_knob));
	struct dlt_rec_bk_finalize *r = dlt_rec_reserve(&gw, &gtls, len);
	r->h.ts = dlt_now_ns();
	r->desc = desc;
	r->problem = problem;
	r->status = status;
	r->engine = engine;
	r->op = DLT_BK_OP_CONV_FWD;
	r->n_knobs = 1;
	r->knobs[0].type = 2;
	r->knobs[0].value = engine % 3;
	dlt_rec_commit(r, DLT_REC_BK_FINALIZE, 5, len);
}

static void gen_exit(int32_t status)
{
	struct dlt_rec_exit *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	r->h.ts = dlt_now_ns();
	r->status = status;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_EXIT, DLT_EXIT_NORMAL, sizeof(*r));
}

static void gen_close(void)
{
	dlt_tls_release(&gw, &gtls);
	dlt_writer_forget(&gw);
}

/* cuDNN 9.19 on CUDA 13.1, its four sub-libraries agreeing; 9.x has no
 * fifth and sixth. */
static const int64_t cudnn9_fam[8] = {
	[DLT_FV_CUDNN_version] = 91900,
	[DLT_FV_CUDNN_cudart_version] = 13010,
	[DLT_FV_CUDNN_sublib1_check] = 0,
	[DLT_FV_CUDNN_sublib2_check] = 0,
	[DLT_FV_CUDNN_sublib3_check] = 0,
	[DLT_FV_CUDNN_sublib4_check] = 0,
	[DLT_FV_CUDNN_sublib5_check] = DLT_VERSION_ABSENT,
	[DLT_FV_CUDNN_sublib6_check] = DLT_VERSION_ABSENT};

/* ---- install trees ---------------------------------------------------------
 * A pip wheel's and a conda package's layout, as nvidia-cudnn-cu13 and
 * conda-forge's cudnn lay them out, with the lists each manager keeps. */

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	TU_CHECK_FATAL(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* mkdir -p of the directory part of path. */
static void mkdirs_for(const char *path)
{
	char *d = tu_strfmt("%s", path);
	for (char *c = d + 1; (c = strchr(c, '/')) != NULL; c++) {
		*c = '\0';
		mkdir(d, 0755);
		*c = '/';
	}
	free(d);
}

/* root/venv/lib/python3.11/site-packages: the pip tree, whose
 * nvidia/cudnn/lib holds what names[] (copied from the fake cuDNN 9 when
 * copy, else empty) and whose RECORD lists them.  Returns the lib
 * directory. */
static char *pip_tree(const char *root, const char *const *names, bool copy)
{
	char *site = tu_strfmt("%s/venv/lib/python3.11/site-packages", root);
	char *lib = tu_strfmt("%s/nvidia/cudnn/lib", site);
	char *info =
		tu_strfmt("%s/nvidia_cudnn_cu13-9.19.0.70.dist-info", site);
	char *rec = tu_strfmt("%s/RECORD", info);
	char *meta = tu_strfmt("%s/METADATA", info);
	mkdirs_for(rec);
	FILE *f = fopen(rec, "w");
	TU_CHECK_FATAL(f != NULL, "cannot write %s", rec);
	for (size_t i = 0; names[i]; i++) {
		char *dst = tu_strfmt("%s/%s", lib, names[i]);
		char *src = tu_strfmt("%s/%s", DLT_FAKE_CUDNN9_DIR, names[i]);
		mkdirs_for(dst);
		if (copy)
			TU_CHECK(tu_copy_file(src, dst) == 0, "cannot copy %s",
				 src);
		else
			put_file(dst, "");
		fprintf(f, "nvidia/cudnn/lib/%s,sha256=x,1\n", names[i]);
		free(dst);
		free(src);
	}
	fclose(f);
	put_file(meta, "Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\n");
	free(meta);
	free(rec);
	free(info);
	free(site);
	return lib;
}

/* root/conda: a conda prefix whose package "cudnn" lists lib/<name>.
 * Returns the lib directory. */
static char *conda_tree(const char *root, const char *name)
{
	char *lib = tu_strfmt("%s/conda/lib", root);
	char *json =
		tu_strfmt("%s/conda/conda-meta/cudnn-9.18.0-h0_0.json", root);
	char *text = tu_strfmt("{\n  \"name\": \"cudnn\",\n  \"version\": "
			       "\"9.18.0\",\n  \"files\": [\n    "
			       "\"lib/%s\"\n  ]\n}\n",
			       name);
	char *in_lib = tu_strfmt("%s/%s", lib, name);
	mkdirs_for(json);
	mkdirs_for(in_lib);
	put_file(json, text);
	free(in_lib);
	free(text);
	free(json);
	return lib;
}

static void expect_install(const char *path, const char *dpkg,
			   enum dlt_installer by, const char *package)
{
	struct dlt_install in;
	dlt_install_find(path, dpkg, &in);
	TU_CHECK(in.by == by && strcmp(in.package, package) == 0,
		 "%s: installed by %s (%s), want %s (%s)", path,
		 dlt_installer_name(in.by), in.package, dlt_installer_name(by),
		 package);
}

/* ---- suite check_unit ------------------------------------------------------
 */

static void test_unit_backend_fallback(void)
{
	char *dir = tu_tmpdir("gen-backend");
	TU_CHECK_FATAL(gen_open(dir, -1) == 0, "cannot write a trace");
	gen_family(DLT_FAM_CUDNN, "/opt/cudnn/libcudnn.so.9", NULL, cudnn9_fam);
	gen_problem(GEN_PROBLEM, 64, 64);
	/* The heuristics' first plan cannot get memory, the second runs. */
	gen_finalize(0x1000, GEN_PROBLEM, 4004, 3);
	gen_finalize(0x2000, GEN_PROBLEM, 0, 7);
	uint64_t plan = 0x2000;
	for (int i = 0; i < 5; i++) {
		gen_enter(DLT_ID_cudnnBackendExecute, &plan, 1);
		gen_call(DLT_ID_cudnnBackendExecute, 0, 20000, &plan, 1);
	}
	/* A second problem: no plan finalizes at all. */
	gen_problem(GEN_PROBLEM + 1, 3, 16);
	gen_finalize(0x3000, GEN_PROBLEM + 1, 3000, 1);
	gen_finalize(0x3100, GEN_PROBLEM + 1, 4000, 2);
	gen_exit(0);
	gen_close();

	struct tu_json *j = check_json(dir);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "ALGO_FALLBACK", "warning", "engine 7");
	if (f) {
		TU_CHECK(jnum(ev(f, "executed"), "engine", -1) == 7 &&
				 jnum(ev(f, "executed"), "count", -1) == 5,
			 "executed engine/count wrong");
		const struct tu_json *fa = tu_jat(ev(f, "failed_ahead"), 0);
		const char *sn = tu_jstr(fa, "status_name");
		TU_CHECK(jnum(fa, "engine", -1) == 3 && sn &&
				 strstr(sn, "DEVICE_ALLOCATION_FAILED"),
			 "failed_ahead: engine %g %s", jnum(fa, "engine", -1),
			 sn ? sn : "null");
	}
	f = expect_finding(j, "ALGO_SELECTION_FAILED", "error",
			   "no execution plan");
	TU_CHECK(f == NULL || tu_jlen(ev(f, "plans")) == 2,
		 "ALGO_SELECTION_FAILED lists %zu plans",
		 tu_jlen(ev(f, "plans")));
	tu_json_free(j);

	/* algos: the plans, their statuses and executions. */
	struct tu_proc p;
	const char *args[] = {"algos", "--json", dir, NULL};
	analyze(&p, args);
	j = parse_out(&p, "algos --json");
	const struct tu_json *probs =
		tu_jget(tu_jat(tu_jget(j, "processes"), 0), "problems");
	TU_CHECK(tu_jlen(probs) == 2, "algos: %zu problems", tu_jlen(probs));
	const struct tu_json *plans = tu_jget(tu_jat(probs, 0), "plans");
	TU_CHECK(tu_jlen(plans) == 2 &&
			 jnum(tu_jget(tu_jat(plans, 1), "executions"), "count",
			      -1) == 5 &&
			 jnum(tu_jget(tu_jat(plans, 1), "executions"),
			      "mean_us", -1) == 20,
		 "algos: plans and executions wrong:\n%s", p.out);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

static void test_unit_legacy_not_fastest(void)
{
	char *dir = tu_tmpdir("gen-legacy");
	TU_CHECK_FATAL(gen_open(dir, 3) == 0, "cannot write a trace");
	gen_family(DLT_FAM_CUDNN, "/opt/cudnn/libcudnn.so.9", NULL, cudnn9_fam);
	gen_problem(GEN_PROBLEM, 64, 64);
	uint64_t req[DLT_NV_cudnnFindConvolutionForwardAlgorithm] = {
		[DLT_V_cudnnFindConvolutionForwardAlgorithm_requested] = 8,
		[DLT_V_cudnnFindConvolutionForwardAlgorithm_returned] = 3};
	gen_call(DLT_ID_cudnnFindConvolutionForwardAlgorithm, 0, 3000000, req,
		 DLT_NV_cudnnFindConvolutionForwardAlgorithm);
	struct gen_cand c[] = {{1, 0, 0.5f}, {0, 0, 1.2f}, {3, 3000, -1.f}};
	gen_algo(DLT_ID_cudnnFindConvolutionForwardAlgorithm, GEN_PROBLEM, 0, c,
		 3);
	/* The program runs algo 0 anyway. */
	uint64_t v[DLT_NV_cudnnConvolutionForward] = {
		[DLT_V_cudnnConvolutionForward_algo] = 0,
		[DLT_V_cudnnConvolutionForward_workspace] = 0};
	struct gen_cand run = {0, 0, -1.f};
	for (int i = 0; i < 4; i++) {
		gen_call(DLT_ID_cudnnConvolutionForward, 0, 5000, v,
			 DLT_NV_cudnnConvolutionForward);
		gen_algo(DLT_ID_cudnnConvolutionForward, GEN_PROBLEM, 0, &run,
			 1);
	}
	gen_exit(0);
	gen_close();
	struct tu_json *j = check_json(dir);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "ALGO_FALLBACK", "warning", "IMPLICIT_GEMM");
	if (f) {
		double d =
			jnum(tu_jget(f, "evidence"), "time_difference_ms", -1);
		TU_CHECK(d > 0.69 && d < 0.71, "time_difference_ms %g", d);
		TU_CHECK(jnum(ev(f, "best"), "algo", -1) == 1 &&
				 jnum(ev(f, "executed"), "algo", -1) == 0 &&
				 jnum(ev(f, "executed"), "count", -1) == 4,
			 "best/executed wrong");
		TU_CHECK(jnum(f, "rank", -1) == 3, "rank of the finding");
	}
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

/* Statuses decode per cuDNN major: 2 is ALLOC_FAILED in 8.x, 3000 is
 * NOT_SUPPORTED in 9.x. */
/* Into the trace gen_open opened: cuDNN 9 found, one
 * cudnnConvolutionForward that returned status, the end. */
static void gen_cudnn9_conv(int32_t status)
{
	gen_family(DLT_FAM_CUDNN, "/opt/cudnn/libcudnn.so.9", NULL, cudnn9_fam);
	uint64_t v[DLT_NV_cudnnConvolutionForward] = {
		[DLT_V_cudnnConvolutionForward_algo] = 1,
		[DLT_V_cudnnConvolutionForward_workspace] = 0};
	gen_call(DLT_ID_cudnnConvolutionForward, status, 1000, v,
		 DLT_NV_cudnnConvolutionForward);
	gen_exit(0);
	gen_close();
}

static void test_unit_status_per_major(void)
{
	char *dir = tu_tmpdir("gen-status");
	TU_CHECK_FATAL(gen_open(dir, 0) == 0, "cannot write a trace");
	int64_t v8[8] = {[DLT_FV_CUDNN_version] = 8902,
			 [DLT_FV_CUDNN_cudart_version] = 11080,
			 [DLT_FV_CUDNN_sublib1_check] = 0,
			 [DLT_FV_CUDNN_sublib2_check] = 0,
			 [DLT_FV_CUDNN_sublib3_check] = 0,
			 [DLT_FV_CUDNN_sublib4_check] = 0,
			 [DLT_FV_CUDNN_sublib5_check] = 0,
			 [DLT_FV_CUDNN_sublib6_check] = 0};
	gen_family(DLT_FAM_CUDNN, "/opt/cudnn8/libcudnn.so.8", NULL, v8);
	uint64_t h[DLT_NV_cudnnCreate] = {[DLT_V_cudnnCreate_handle] = 0};
	gen_call(DLT_ID_cudnnCreate, 2, 1000, h, DLT_NV_cudnnCreate);
	gen_exit(0);
	gen_close();
	TU_CHECK_FATAL(gen_open(dir, 1) == 0, "cannot write a trace");
	gen_cudnn9_conv(3000);
	struct tu_json *j = check_json(dir);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "API_ERROR", "warning", "cudnnCreate");
	TU_CHECK(f && ev_str(f, "status_name") &&
			 strcmp(ev_str(f, "status_name"),
				"CUDNN_STATUS_ALLOC_FAILED") == 0,
		 "8.x status 2 decoded as %s",
		 f ? ev_str(f, "status_name") : "-");
	f = expect_finding(j, "API_ERROR", "warning",
			   "cudnnConvolutionForward");
	TU_CHECK(f && ev_str(f, "status_name") &&
			 strcmp(ev_str(f, "status_name"),
				"CUDNN_STATUS_NOT_SUPPORTED") == 0,
		 "9.x status 3000 decoded as %s",
		 f ? ev_str(f, "status_name") : "-");
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

/* CUDNN_SUBLIB_SKEW told only by a call that failed with
 * SUBLIBRARY_VERSION_MISMATCH, no cuDNN file in the trace: no directory to
 * name, and no package manager either. */
static void test_unit_skew_calls_only(void)
{
	char *dir = tu_tmpdir("gen-skew-calls");
	TU_CHECK_FATAL(gen_open(dir, 0) == 0, "cannot write a trace");
	gen_cudnn9_conv(1002);
	struct tu_json *j = check_json(dir);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "CUDNN_SUBLIB_SKEW", "error", "do not match");
	const char *fix = f ? tu_jstr(f, "fix") : NULL;
	TU_CHECK(f && ev_str(f, "main_directory") == NULL &&
			 tu_jlen(ev(f, "failed_calls")) == 1 &&
			 tu_contains(fix, "unknown") &&
			 !tu_contains(fix, "apt") && !tu_contains(fix, "pip"),
		 "skew from calls alone: main_directory %s, fix %s",
		 f ? ev_str(f, "main_directory") : "-", fix ? fix : "-");
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

/* The minimum-driver table and the driver API version. */
static void test_unit_driver(void)
{
	static const struct {
		int64_t runtime, driver;
		const char *kdrv;
		int nccl_fails;
		const char *sev; /* NULL: no finding */
		const char *msg;
	} cases[] = {
		/* kernel module older than CUDA 12.x's minimum */
		{12040, 12040, "515.43.04", 0, "error", "525.60.13"},
		{12040, 12040, "550.54.14", 0, NULL, NULL},
		/* lmdeploy#1267: 11070 < 11080, NCCL init fails */
		{11080, 11070, NULL, 1, "error", "ncclCommInitRank"},
		/* the same without a failure: minor-version compatibility */
		{11080, 11070, NULL, 0, "warning", "minor-version"},
		/* a driver of an older major */
		{12040, 11080, NULL, 0, "error", "CUDA 11.8"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = tu_tmpdir("gen-driver");
		TU_CHECK_FATAL(gen_open(dir, -1) == 0, "cannot write a trace");
		int64_t v[8];
		gen_slots_absent(v);
		v[DLT_FV_CUDART_runtime_version] = cases[i].runtime;
		v[DLT_FV_CUDART_driver_version] = cases[i].driver;
		v[DLT_FV_CUDART_runtime_status] = 0;
		v[DLT_FV_CUDART_driver_status] = 0;
		gen_family(DLT_FAM_CUDART, "/opt/cuda/lib64/libcudart.so.12",
			   cases[i].kdrv, v);
		if (cases[i].nccl_fails) {
			/* The enter record holds the first three: no comm
			 * before the call returns. */
			uint64_t vals[DLT_NV_ncclCommInitRank] = {
				[DLT_V_ncclCommInitRank_nranks] = 8,
				[DLT_V_ncclCommInitRank_rank] = 0,
				[DLT_V_ncclCommInitRank_id_hash] = 0x1234,
				[DLT_V_ncclCommInitRank_comm] = 0};
			gen_enter(DLT_ID_ncclCommInitRank, vals,
				  DLT_V_ncclCommInitRank_comm);
			gen_call(DLT_ID_ncclCommInitRank, 1, 900000, vals,
				 DLT_NV_ncclCommInitRank);
		}
		gen_exit(0);
		gen_close();
		struct tu_json *j = check_json(dir);
		if (j == NULL) {
			free(dir);
			continue;
		}
		const struct tu_json *f =
			finding(j, "CUDA_DRIVER_INSUFFICIENT", NULL, NULL);
		if (cases[i].sev == NULL) {
			TU_CHECK(f == NULL, "case %zu: unexpected %s", i,
				 f ? tu_jmsg(f) : "");
		} else {
			f = expect_finding(j, "CUDA_DRIVER_INSUFFICIENT",
					   cases[i].sev, NULL);
			const char *m = f ? tu_jmsg(f) : NULL;
			const char *fix = f ? tu_jstr(f, "fix") : NULL;
			TU_CHECK(m && (strstr(m, cases[i].msg) ||
				       (fix && strstr(fix, cases[i].msg))),
				 "case %zu: message %s, fix %s lack %s", i,
				 m ? m : "-", fix ? fix : "-", cases[i].msg);
			TU_CHECK(f == NULL || ev_str(f, "table_source"),
				 "case %zu: no table_source", i);
		}
		/* An explained NCCL failure is not an API_ERROR of its own. */
		if (cases[i].nccl_fails)
			TU_CHECK(finding(j, "API_ERROR", NULL, NULL) == NULL,
				 "case %zu: explained failure repeated", i);
		tu_json_free(j);
		tu_rmtree(dir);
		free(dir);
	}
}

/* No end record, a call still in progress: TRACE_INCOMPLETE, and export
 * draws the call up to the end of the trace. */
static void test_unit_incomplete_and_export(void)
{
	char *dir = tu_tmpdir("gen-incomplete");
	TU_CHECK_FATAL(gen_open(dir, 0) == 0, "cannot write a trace");
	uint64_t vals[DLT_V_ncclCommInitRank_comm] = {
		[DLT_V_ncclCommInitRank_nranks] = 2,
		[DLT_V_ncclCommInitRank_rank] = 0,
		[DLT_V_ncclCommInitRank_id_hash] = 0xabcdef};
	/* ncclCommInitRank, never returns */
	gen_enter(DLT_ID_ncclCommInitRank, vals, DLT_V_ncclCommInitRank_comm);
	gen_close();
	struct tu_json *j = check_json(dir);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "TRACE_INCOMPLETE", "info", NULL);
	const struct tu_json *c = tu_jat(ev(f, "calls_in_progress"), 0);
	TU_CHECK(c && tu_jstr(c, "function") &&
			 strcmp(tu_jstr(c, "function"), "ncclCommInitRank") ==
				 0 &&
			 jnum(c, "nranks", -1) == 2,
		 "calls_in_progress does not show ncclCommInitRank");
	tu_json_free(j);

	struct tu_proc p;
	const char *args[] = {"export", "--format", "chrome", dir, NULL};
	analyze(&p, args);
	TU_CHECK(tu_exit_code(p.status) == 0, "export: %s\n%s",
		 tu_status_str(p.status), p.err);
	j = parse_out(&p, "export");
	const struct tu_json *evs = tu_jget(j, "traceEvents");
	int slice = 0, marker = 0;
	for (size_t i = 0; i < tu_jlen(evs); i++) {
		const struct tu_json *e = tu_jat(evs, i);
		const char *n = tu_jstr(e, "name"), *ph = tu_jstr(e, "ph");
		if (n && ph && strcmp(ph, "X") == 0 &&
		    strstr(n, "ncclCommInitRank (never returned)"))
			slice = 1;
		if (tu_jstr(e, "cat") && !strcmp(tu_jstr(e, "cat"), "finding"))
			marker = 1;
	}
	TU_CHECK(slice && marker, "export: unfinished slice %d, marker %d",
		 slice, marker);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* Export: two calls 100 ns apart stay 0.1 us apart (not rounded to the
 * 0.256 us steps of Unix nanoseconds held in a double), a job's hang
 * findings are markers too, and a wait is named by its system call. */
static void test_unit_export_times_and_hangs(void)
{
	char *dir = tu_tmpdir("gen-export");
	TU_CHECK_FATAL(gen_open(dir, 0) == 0, "cannot write a trace");
	uint64_t t0 = dlt_now_ns();
	gen_free_at(t0, 40);
	gen_free_at(t0 + 100, 40);   /* and again, 100 ns later */
	gen_stall(7, 6000000000ull); /* poll, 6 s */
	uint64_t vals[DLT_V_ncclCommInitRank_comm] = {
		[DLT_V_ncclCommInitRank_nranks] = 2,
		[DLT_V_ncclCommInitRank_rank] = 0,
		[DLT_V_ncclCommInitRank_id_hash] = 0xabcdef};
	/* ncclCommInitRank of 2, never returns */
	gen_enter(DLT_ID_ncclCommInitRank, vals, DLT_V_ncclCommInitRank_comm);
	gen_close();
	struct tu_proc p;
	const char *args[] = {"export", "--format", "chrome", dir, NULL};
	analyze(&p, args);
	TU_CHECK(tu_exit_code(p.status) == 0, "export: %s\n%s",
		 tu_status_str(p.status), p.err);
	struct tu_json *j = parse_out(&p, "export");
	const struct tu_json *evs = tu_jget(j, "traceEvents");
	double ts[2] = {-1, -1};
	size_t ncalls = 0;
	int init_hang = 0, missing = 0, poll = 0, job_hang = 0;
	for (size_t i = 0; i < tu_jlen(evs); i++) {
		const struct tu_json *e = tu_jat(evs, i);
		const char *n = tu_jstr(e, "name");
		if (same_str(n, "cudaFree") && ncalls < 2)
			ts[ncalls++] = jnum(e, "ts", -1);
		/* One hang, one error: JOB_HANG's; the others say where
		 * each rank is. */
		init_hang |= same_str(n, "info INIT_HANG");
		missing |= same_str(n, "info MISSING_RANK");
		job_hang |= same_str(n, "error JOB_HANG");
		poll |= same_str(n, "blocked in poll");
	}
	TU_CHECK(ncalls == 2 && ts[1] - ts[0] > 0.099 && ts[1] - ts[0] < 0.101,
		 "export: calls 100 ns apart at %.4f and %.4f us", ts[0],
		 ts[1]);
	TU_CHECK(init_hang && missing && job_hang,
		 "export: hang findings missing from the markers (INIT_HANG "
		 "%d, MISSING_RANK %d, JOB_HANG %d)",
		 init_hang, missing, job_hang);
	TU_CHECK(poll, "export: the stall slice is not named by its system "
		       "call");
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* diff's text: an algorithm that ran is not "selected, not executed",
 * and a change of only the set of algorithms run says so. */
static void test_unit_diff_text(void)
{
	char *da = tu_tmpdir("gen-diff-a"), *db = tu_tmpdir("gen-diff-b");
	uint64_t v[DLT_NV_cudnnConvolutionForward] = {
		[DLT_V_cudnnConvolutionForward_algo] = 0,
		[DLT_V_cudnnConvolutionForward_workspace] = 0};
	struct gen_cand two = {2, 0, -1.f}, five = {5, 0, -1.f};
	/* A runs algo 2; B runs algo 2 three times and algo 5 once. */
	TU_CHECK_FATAL(gen_open(da, -1) == 0, "cannot write a trace");
	gen_family(DLT_FAM_CUDNN, "/opt/cudnn/libcudnn.so.9", NULL, cudnn9_fam);
	gen_problem(GEN_PROBLEM, 64, 64);
	gen_call(DLT_ID_cudnnConvolutionForward, 0, 5000, v,
		 DLT_NV_cudnnConvolutionForward);
	gen_algo(DLT_ID_cudnnConvolutionForward, GEN_PROBLEM, 0, &two, 1);
	gen_exit(0);
	gen_close();
	TU_CHECK_FATAL(gen_open(db, -1) == 0, "cannot write a trace");
	gen_family(DLT_FAM_CUDNN, "/opt/cudnn/libcudnn.so.9", NULL, cudnn9_fam);
	gen_problem(GEN_PROBLEM, 64, 64);
	for (int i = 0; i < 4; i++) {
		gen_call(DLT_ID_cudnnConvolutionForward, 0, 5000, v,
			 DLT_NV_cudnnConvolutionForward);
		gen_algo(DLT_ID_cudnnConvolutionForward, GEN_PROBLEM, 0,
			 i < 3 ? &two : &five, 1);
	}
	gen_exit(0);
	gen_close();
	struct tu_proc p;
	const char *args[] = {"diff", da, db, NULL};
	analyze(&p, args);
	TU_CHECK(tu_exit_code(p.status) == 0, "diff: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(!tu_contains(p.out, "selected, not executed"),
		 "diff calls an algorithm that ran not executed:\n%s", p.out);
	/* People's units, and no heading over an empty list (the runs'
	 * libraries are the same: one line says so). */
	TU_CHECK(tu_contains(p.out, "mean 5.0 \xc2\xb5s") &&
			 !tu_contains(p.out, " us") &&
			 tu_contains(p.out, "B-A: 0 \xc2\xb5s per call"),
		 "diff: call times not in people's units:\n%s", p.out);
	TU_CHECK(!tu_contains(p.out, "(0)") &&
			 !tu_contains(p.out, "(0 differ") &&
			 !tu_contains(p.out, "GPU libraries") &&
			 tu_contains(p.out, "the same in both runs") &&
			 tu_contains(p.out, "cuDNN 9.19.0"),
		 "diff: empty sections, or cuDNN not said:\n%s", p.out);
	TU_CHECK(tu_contains(p.out, "choice changed (1)") &&
			 tu_contains(p.out, "changed: the set of algorithms "
					    "run: A 2, B 2,5"),
		 "diff does not say that only the set of algorithms run "
		 "changed:\n%s",
		 p.out);
	tu_proc_free(&p);
	const char *jargs[] = {"diff", "--json", da, db, NULL};
	analyze(&p, jargs);
	struct tu_json *j = parse_out(&p, "diff --json");
	const struct tu_json *ch = tu_jat(tu_jget(j, "changes"), 0);
	TU_CHECK(tu_contains(tu_jstr(ch, "what_changed"), "the set of"),
		 "diff --json: what_changed %s", tu_jstr(ch, "what_changed"));
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(da);
	tu_rmtree(db);
	free(da);
	free(db);
}

/* Exit status by --fail-on; 2 for bad arguments and no trace. */
static void test_unit_exit_status(void)
{
	char *dir = tu_tmpdir("gen-exit");
	TU_CHECK_FATAL(gen_open(dir, -1) == 0, "cannot write a trace");
	uint64_t v = 0;
	gen_call(DLT_ID_cudaFree, 1, 100, &v, 1); /* cudaFree -> a warning */
	gen_exit(0);
	gen_close();
	static const struct {
		const char *fail_on;
		int rc;
	} cases[] = {{NULL, 0},	   {"error", 0}, {"warning", 1},
		     {"never", 0}, {"info", 2},	 {"bogus", 2}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tu_proc p;
		const char *a1[] = {"check", dir, NULL};
		const char *a2[] = {"check", "--fail-on", cases[i].fail_on, dir,
				    NULL};
		analyze(&p, cases[i].fail_on ? a2 : a1);
		TU_CHECK(tu_exit_code(p.status) == cases[i].rc,
			 "check --fail-on %s: %s, expected exit %d",
			 cases[i].fail_on ? cases[i].fail_on : "(default)",
			 tu_status_str(p.status), cases[i].rc);
		tu_proc_free(&p);
	}
	struct tu_proc p;
	char *empty = tu_tmpdir("gen-empty");
	const char *a3[] = {"check", empty, NULL};
	analyze(&p, a3);
	TU_CHECK(tu_exit_code(p.status) == 2, "check on no trace: %s",
		 tu_status_str(p.status));
	tu_proc_free(&p);
	tu_rmtree(empty);
	free(empty);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite check_loader ----------------------------------------------------
 */

static char *fxc(const char *rel)
{
	return tu_strfmt("%s/%s", DLT_TEST_FX_CHECK, rel);
}

static void test_lib_not_found(void)
{
	char *tmp = tu_tmpdir("notfound-files");
	char *libs = tu_strfmt("%s/libs", tmp);
	char *conda = tu_strfmt("%s/conda", tmp);
	char *condalib = tu_strfmt("%s/conda/lib", tmp);
	mkdir(libs, 0755);
	mkdir(conda, 0755);
	mkdir(condalib, 0755);
	char *b = tu_fx("llp/libdlt_b.so");
	char *b_copy = tu_strfmt("%s/libdlt_b.so", libs);
	char *c_copy = tu_strfmt("%s/libdlt_c.so", libs);
	char *d_copy = tu_strfmt("%s/libdlt_d.so", condalib);
	TU_CHECK_FATAL(tu_copy_file(b, b_copy) == 0 &&
			       tu_copy_file(b, c_copy) == 0 &&
			       tu_copy_file(b, d_copy) == 0,
		       "cannot copy %s", b);
	char *fx = tu_fx("fx_check");
	char *o1 = tu_strfmt("open:%s", b_copy);
	const char *cmd[] = {fx,
			     o1,
			     "open:libdlt_c.so",
			     "open:libdlt_d.so",
			     "open:libdlt_nowhere_xyz.so",
			     NULL};
	char *env_conda = tu_strfmt("CONDA_PREFIX=%s", conda);
	const char *env[] = {env_conda, NULL};
	struct tu_json *j = traced_check("notfound", cmd, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "LIB_NOT_FOUND", "error", "libdlt_c.so");
	TU_CHECK(f && has_elem(ev(f, "found_elsewhere"), NULL,
			       "/libs/libdlt_c.so"),
		 "libdlt_c.so: found_elsewhere lacks the copy next to the "
		 "loaded libdlt_b.so");
	TU_CHECK(f && tu_jlen(ev(f, "tried")) > 0 &&
			 tu_jlen(ev(f, "searched")) > 0 &&
			 ev_str(f, "loader_message") &&
			 strstr(ev_str(f, "loader_message"),
				"cannot open shared object file"),
		 "libdlt_c.so: tried/searched/loader_message missing");
	TU_CHECK(f && tu_jstr(f, "fix") &&
			 strstr(tu_jstr(f, "fix"), "LD_LIBRARY_PATH"),
		 "libdlt_c.so: fix says nothing of LD_LIBRARY_PATH");
	f = expect_finding(j, "LIB_NOT_FOUND", "error", "libdlt_d.so");
	TU_CHECK(f && has_elem(ev(f, "found_elsewhere"), NULL,
			       "/conda/lib/libdlt_d.so"),
		 "libdlt_d.so: found_elsewhere lacks $CONDA_PREFIX/lib");
	f = expect_finding(j, "LIB_NOT_FOUND", "error", "libdlt_nowhere_xyz");
	TU_CHECK(f && tu_jlen(ev(f, "found_elsewhere")) == 0,
		 "libdlt_nowhere_xyz.so: found somewhere?");
	tu_json_free(j);
	free(env_conda);
	free(o1);
	free(fx);
	free(b);
	free(b_copy);
	free(c_copy);
	free(d_copy);
	free(libs);
	free(conda);
	free(condalib);
	tu_rmtree(tmp);
	free(tmp);
}

/* Severity follows consequence: a dlopen that failed in a process that
 * carried on and exited 0 is an info (bash's `enable -f` probe, as every
 * python run through a pyenv shim makes), unless it is a GPU library (a
 * framework that cannot load libcudnn trains on the CPU and exits 0);
 * "needed by" only for DT_NEEDED entries. */
static void test_severity_by_consequence(void)
{
	char *tmp = tu_tmpdir("consequence-files");
	char *probe = tu_strfmt("%s/libexec/pyenv-realpath.dylib", tmp);
	char *script =
		tu_strfmt("enable -f %s realpath 2>/dev/null; exit 0", probe);
	const char *bash[] = {"/bin/bash", "-c", script, NULL};
	char *dir = NULL;
	struct tu_proc run;
	struct tu_json *j = traced_check("bash-probe", bash, NULL, &dir, &run);
	TU_CHECK_FATAL(j != NULL, "no check output");
	TU_CHECK(tu_exit_code(run.status) == 0, "bash: %s",
		 tu_status_str(run.status));
	const struct tu_json *f = expect_finding(j, "LIB_NOT_FOUND", "info",
						 "loaded with dlopen by bash");
	TU_CHECK(f && same_str(ev_str(f, "loaded_with"), "dlopen") &&
			 !tu_contains(tu_jstr(f, "fix"), "LD_LIBRARY_PATH"),
		 "bash's probe: evidence or fix wrong: %s",
		 f ? tu_jstr(f, "fix") : "(none)");
	tu_expect_healthy("bash enable -f probe", dir);
	struct tu_proc p;
	const char *a1[] = {"check", dir, NULL};
	analyze(&p, a1);
	TU_CHECK(tu_exit_code(p.status) == 0,
		 "check exits %s over a probe the shell carried on without",
		 tu_status_str(p.status));
	tu_proc_free(&p);
	tu_proc_free(&run);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);

	/* A framework falling back to the CPU, and a plugin it probes. */
	char *fx = tu_fx("fx_check");
	const char *cpu[] = {fx, "try:libcudnn_ops_infer.so.8",
			     "try:libdlt_plugin_xyz.so", NULL};
	const char *env[] = {"LD_LIBRARY_PATH=/nonexistent", NULL};
	j = traced_check("cpu-fallback", cpu, env, &dir, &run);
	TU_CHECK_FATAL(j != NULL, "no check output");
	TU_CHECK(tu_exit_code(run.status) == 0, "fx_check: %s",
		 tu_status_str(run.status));
	TU_CHECK_FATAL(tu_contains(run.out, "libcudnn_ops_infer.so.8 failed"),
		       "this machine has cuDNN 8 (the test needs it absent):"
		       "\n%s",
		       run.out);
	f = expect_finding(j, "LIB_NOT_FOUND", "error",
			   "libcudnn_ops_infer.so.8 (loaded with dlopen by "
			   "fx_check)");
	expect_finding(j, "LIB_NOT_FOUND", "info", "libdlt_plugin_xyz.so");
	const char *a2[] = {"check", dir, NULL};
	analyze(&p, a2);
	TU_CHECK(tu_exit_code(p.status) == 1,
		 "check exits %s: a silent CPU fallback must fail it",
		 tu_status_str(p.status));
	tu_proc_free(&p);
	tu_proc_free(&run);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);

	/* A DT_NEEDED entry of a library the program opens: "needed by". */
	char *orphan = fxc("orphan/libdlt_orphan.so");
	char *o = tu_strfmt("open:%s", orphan);
	const char *needed[] = {fx, o, NULL};
	j = traced_check("needed-by", needed, NULL, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	f = expect_finding(j, "LIB_NOT_FOUND", "error",
			   "libdlt_gone.so (needed by libdlt_orphan.so)");
	TU_CHECK(f && same_str(ev_str(f, "loaded_with"), "DT_NEEDED"),
		 "DT_NEEDED: loaded_with %s",
		 f ? ev_str(f, "loaded_with") : "");
	tu_json_free(j);
	free(o);
	free(orphan);
	free(fx);
	free(script);
	free(probe);
	tu_rmtree(tmp);
	free(tmp);
}

/* The junk file of test_lib_load_failed as if dpkg had installed it:
 * with the md5 it has, reinstalling would not mend it (and is not
 * advised); with another, it is. */
static void expect_junk_package_check(const char *dir, const char *junk)
{
	char *info = tu_strfmt("%s/dpkg-info", dir);
	mkdir(info, 0755);
	char *list = tu_strfmt("%s/libdlt-junk1:amd64.list", info);
	char *sums = tu_strfmt("%s/libdlt-junk1:amd64.md5sums", info);
	char *var = tu_strfmt("DLTRACE_DPKG_INFO=%s", info);
	char *l = tu_strfmt("%s\n", junk);
	put_file(list, l);
	uint8_t md5[DLT_MD5_LEN], sha[DLT_SHA256_LEN];
	char hex[2 * DLT_MD5_LEN + 1];
	TU_CHECK_FATAL(dlt_digest_file(junk, md5, sha) == 0, "cannot read %s",
		       junk);
	dlt_digest_hex(md5, DLT_MD5_LEN, hex);
	for (int k = 0; k < 2; k++) {
		char *line = tu_strfmt(
			"%s  %s\n",
			k ? "0123456789abcdef0123456789abcdef" : hex, junk + 1);
		put_file(sums, line);
		free(line);
		const char *argv[] = {
			DLT_TEST_ANALYZE, "check", "--json", "--fail-on",
			"never",	  dir,	   NULL};
		const char *env[] = {var, NULL};
		struct tu_proc p;
		tu_run(&p, argv, env, 60000);
		struct tu_json *j = parse_out(&p, "check --json, fake dpkg");
		const struct tu_json *f = expect_finding(
			j, "LIB_LOAD_FAILED", "error", "libdlt_junk.so");
		const char *check = ev_str(f, "package_check");
		const char *fix = f ? tu_jstr(f, "fix") : NULL;
		TU_CHECK(check && strcmp(check, k ? "differs" : "same") == 0 &&
				 fix &&
				 (k ? tu_contains(fix,
						  "reinstall it (apt install "
						  "--reinstall libdlt-junk1): "
						  "the file differs from what "
						  "libdlt-junk1 installed (md5 "
						  "mismatch)")
				    : !tu_contains(fix, "reinstall")),
			 "invalid ELF, dpkg's md5 %s: package_check %s, fix %s",
			 k ? "another" : "its own", check ? check : "-",
			 fix ? fix : "-");
		tu_json_free(j);
		tu_proc_free(&p);
	}
	free(l);
	free(var);
	free(sums);
	free(list);
	free(info);
}

static void test_lib_load_failed(void)
{
	char *tmp = tu_tmpdir("loadfailed-files");
	char *junk = tu_strfmt("%s/libdlt_junk.so", tmp);
	FILE *jf = fopen(junk, "w");
	TU_CHECK_FATAL(jf != NULL, "cannot write %s", junk);
	fputs("not an ELF file\n", jf);
	fclose(jf);
	char *fx = tu_fx("fx_check");
	char *user = fxc("user/libdlt_user_new.so");
	char *o1 = tu_strfmt("open:%s", user);
	/* By its bare name: LD_LIBRARY_PATH finds the junk. */
	char *o2 = tu_strfmt("open:%s", "libdlt_junk.so");
	const char *cmd[] = {fx, o1, o2, NULL};
	char *prov1 = fxc("prov1");
	char *llp = tu_strfmt("LD_LIBRARY_PATH=%s:%s", prov1, tmp);
	const char *env[] = {llp, NULL};
	char *trace_dir = NULL;
	struct tu_json *j =
		traced_check("loadfailed", cmd, env, &trace_dir, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "LIB_LOAD_FAILED", "error", "dlt_prov_new");
	TU_CHECK(f && ev_str(f, "cause") &&
			 strcmp(ev_str(f, "cause"), "undefined_symbol") == 0 &&
			 str_ends(ev_str(f, "file"), "libdlt_user_new.so"),
		 "undefined symbol: cause/file wrong");
	const struct tu_json *dep = tu_jat(ev(f, "dependencies"), 0);
	TU_CHECK(
		dep && str_ends(tu_jstr(dep, "path"), "prov1/libdlt_prov.so") &&
			tu_jstr(dep, "found_via") &&
			strcmp(tu_jstr(dep, "found_via"), "LD_LIBRARY_PATH") ==
				0,
		"the dependency that lacks the symbol is not named");
	/* The copy its own search finds once LD_LIBRARY_PATH's is out of
	 * the way: its RUNPATH's, which has the symbol. */
	const struct tu_json *with = tu_jat(ev(f, "copies_with_it"), 0);
	TU_CHECK(f && with &&
			 str_ends(tu_jstr(with, "path"),
				  "user/prov2/libdlt_prov.so") &&
			 same_str(tu_jstr(with, "found_via"), "RUNPATH") &&
			 tu_contains(tu_jmsg(f),
				     "prov2/libdlt_prov.so (RUNPATH) has it") &&
			 tu_contains(tu_jstr(f, "fix"),
				     "out of LD_LIBRARY_PATH"),
		 "undefined symbol: the copy that has it is not named: %s / %s",
		 f ? tu_jmsg(f) : "", f ? tu_jstr(f, "fix") : "");
	f = expect_finding(j, "LIB_LOAD_FAILED", "error", "libdlt_junk.so");
	TU_CHECK(f && ev_str(f, "cause") &&
			 strcmp(ev_str(f, "cause"), "not_elf") == 0,
		 "invalid ELF: cause %s", f ? ev_str(f, "cause") : "-");
	/* The rejected file is named with the rule that found it, and the
	 * fix takes the directory out of the path that brought it. */
	TU_CHECK(f && same_str(ev_str(f, "found_via"), "LD_LIBRARY_PATH") &&
			 str_ends(ev_str(f, "file"), "/libdlt_junk.so") &&
			 tu_contains(ev_str(f, "file"), tmp) &&
			 tu_contains(tu_jstr(f, "fix"), tmp) &&
			 tu_contains(tu_jstr(f, "fix"),
				     "out of LD_LIBRARY_PATH"),
		 "invalid ELF: found_via %s, file %s, fix %s",
		 f ? ev_str(f, "found_via") : "-", f ? ev_str(f, "file") : "-",
		 f ? tu_jstr(f, "fix") : "-");
	TU_CHECK(finding(j, "LIB_NOT_FOUND", NULL, NULL) == NULL,
		 "a file that was found is reported as not found");
	tu_json_free(j);
	expect_junk_package_check(trace_dir, junk);
	tu_rmtree(trace_dir);
	free(trace_dir);
	free(llp);
	free(prov1);
	free(o1);
	free(o2);
	free(user);
	free(fx);
	free(junk);
	tu_rmtree(tmp);
	free(tmp);
}

/* `libs`, `libs --json` and `summary` over dir show the failed loads whose
 * name starts with prefix as probes (at least min of them), not as
 * failures, and count them apart. */
static void expect_probes_shown(const char *dir, const char *prefix, size_t min)
{
	struct tu_json *j = tu_libs_json(dir);
	size_t probes = 0, failed_probes = 0;
	const struct tu_json *procs = tu_jget(j, "processes");
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *libs =
			tu_jget(tu_jat(procs, i), "libraries");
		for (size_t k = 0; k < tu_jlen(libs); k++) {
			const struct tu_json *l = tu_jat(libs, k);
			const char *rq = tu_jstr(l, "requested");
			const struct tu_json *pr = tu_jget(l, "probe");
			if (rq == NULL || strncmp(rq, prefix, strlen(prefix)))
				continue;
			if (pr && pr->type == TU_JBOOL && pr->b)
				probes++;
			else if (tu_jget(l, "failed") &&
				 tu_jget(l, "failed")->b)
				failed_probes++;
		}
	}
	TU_CHECK(probes >= min && failed_probes == 0,
		 "libs --json: %zu probes of %s*, %zu shown as plain failures",
		 probes, prefix, failed_probes);
	tu_json_free(j);
	struct tu_proc p;
	tu_analyze_dir(&p, "libs", NULL, dir);
	char *probe_rows = tu_strfmt("  PROBE           %s", prefix);
	char *failed_rows = tu_strfmt("  NOT FOUND       %s", prefix);
	char *count = tu_strfmt(", %zu probe", probes);
	TU_CHECK(tu_count_lines(p.out, probe_rows) == probes &&
			 tu_count_lines(p.out, failed_rows) == 0 &&
			 tu_contains(p.out, count),
		 "libs: probes of %s* not shown as probes:\n%s", prefix, p.out);
	tu_proc_free(&p);
	tu_analyze_dir(&p, "summary", NULL, dir);
	TU_CHECK(tu_contains(p.out, count),
		 "summary does not count the %zu probes apart:\n%s", probes,
		 p.out);
	tu_proc_free(&p);
	free(probe_rows);
	free(failed_rows);
	free(count);
}

/* Probes of a library before the name that loads, as cuDNN makes them
 * (libcudnn_graph.so.9.19.0, .9.19, then .9). */
static void test_probes_in_views(void)
{
	char *fx = tu_fx("fx_check");
	char *llp_dir = tu_fx("llp");
	char *llp = tu_strfmt("LD_LIBRARY_PATH=%s", llp_dir);
	const char *cmd[] = {fx, "try:libdlt_b.so.9.19.0",
			     "try:libdlt_b.so.9.19", "open:libdlt_b.so", NULL};
	const char *env[] = {llp, NULL};
	char *dir = NULL;
	struct tu_json *j = traced_check("probes", cmd, env, &dir, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	TU_CHECK(finding(j, "LIB_NOT_FOUND", NULL, NULL) == NULL,
		 "a probe of a library that loaded is reported");
	expect_probes_shown(dir, "libdlt_b.so.9.", 2);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
	free(llp);
	free(llp_dir);
	free(fx);
}

/* cugraph#4465's shape: an older copy loaded first (another package's);
 * the failing library's own search would have found the one that works. */
static void test_undefined_symbol_loaded_first(void)
{
	char *fx = tu_fx("fx_check");
	char *old = fxc("prov1/libdlt_prov.so");
	char *user = fxc("user/libdlt_user_new.so");
	char *o1 = tu_strfmt("open:%s", old);
	char *o2 = tu_strfmt("open:%s", user);
	const char *cmd[] = {fx, o1, o2, NULL};
	struct tu_json *j = traced_check("loaded-first", cmd, NULL, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f = expect_finding(
		j, "LIB_LOAD_FAILED", "error", "undefined symbol dlt_prov_new");
	const struct tu_json *loaded = ev(f, "loaded_copy");
	const struct tu_json *with = tu_jat(ev(f, "copies_with_it"), 0);
	TU_CHECK(
		f && str_ends(ev_str(f, "required_by"), "libdlt_user_new.so") &&
			str_ends(tu_jstr(loaded, "path"),
				 "prov1/libdlt_prov.so") &&
			str_ends(tu_jstr(with, "path"),
				 "user/prov2/libdlt_prov.so") &&
			same_str(tu_jstr(with, "found_via"), "RUNPATH"),
		"loaded first: required_by, loaded_copy or copies_with_it "
		"wrong");
	TU_CHECK(f && tu_contains(tu_jstr(f, "fix"), "LD_PRELOAD=") &&
			 tu_contains(tu_jstr(f, "fix"), "prov2/libdlt_prov.so"),
		 "loaded first: the fix does not load the copy that works "
		 "first: %s",
		 f ? tu_jstr(f, "fix") : "");
	tu_json_free(j);
	free(o1);
	free(o2);
	free(old);
	free(user);
	free(fx);
}

/* The shape of `version GLIBCXX_3.4.30 not found (required by
 * libtorch_python.so)` with Debian 11's libstdc++ first on
 * LD_LIBRARY_PATH, with two builds of one library whose version
 * definitions differ. */
static void test_missing_symbol_version(void)
{
	char *fx = tu_fx("fx_check");
	char *req = fxc("verreq/libdlt_verreq.so");
	char *o = tu_strfmt("open:%s", req);
	char *old_dir = fxc("verold");
	char *llp = tu_strfmt("LD_LIBRARY_PATH=%s", old_dir);
	const char *cmd[] = {fx, o, NULL};
	const char *env[] = {llp, NULL};
	struct tu_proc run;
	struct tu_json *j =
		traced_check("symbol-version", cmd, env, NULL, &run);
	TU_CHECK_FATAL(j != NULL, "no check output");
	TU_CHECK(tu_contains(run.out, "version `DLTVER_2.0' not found"),
		 "the fixture did not fail as intended:\n%s", run.out);
	const struct tu_json *f = expect_finding(
		j, "LIB_LOAD_FAILED", "error",
		"libdlt_verreq.so needs symbol version DLTVER_2.0 from "
		"libdlt_ver.so.1");
	const struct tu_json *loaded = ev(f, "loaded_copy");
	const struct tu_json *with = ev(f, "copies_with_it");
	TU_CHECK(f && same_str(ev_str(f, "cause"), "symbol_version") &&
			 same_str(ev_str(f, "missing"), "DLTVER_2.0") &&
			 str_ends(ev_str(f, "required_by"),
				  "verreq/libdlt_verreq.so"),
		 "symbol version: cause, missing or required_by wrong");
	TU_CHECK(
		str_ends(tu_jstr(loaded, "path"), "verold/libdlt_ver.so.1.0") &&
			same_str(tu_jstr(loaded, "found_via"),
				 "LD_LIBRARY_PATH") &&
			same_str(tu_jstr(loaded, "version"), "1.0") &&
			same_str(tu_jstr(loaded, "newest_version"),
				 "DLTVER_1.0"),
		"symbol version: the copy loaded and its newest version are "
		"not named");
	TU_CHECK(tu_jlen(with) == 1 &&
			 str_ends(tu_jstr(tu_jat(with, 0), "path"),
				  "verreq/vernew/libdlt_ver.so.1") &&
			 same_str(tu_jstr(tu_jat(with, 0), "found_via"),
				  "RUNPATH") &&
			 same_str(tu_jstr(tu_jat(with, 0), "version"), "2.0") &&
			 same_str(tu_jstr(tu_jat(with, 0), "newest_version"),
				  "DLTVER_2.0"),
		 "symbol version: the copy that provides DLTVER_2.0 is not "
		 "named");
	TU_CHECK(f &&
			 tu_contains(tu_jmsg(f),
				     "defines versions up to DLTVER_1.0") &&
			 tu_contains(tu_jstr(f, "fix"), old_dir) &&
			 tu_contains(tu_jstr(f, "fix"), "LD_LIBRARY_PATH"),
		 "symbol version: message or fix: %s / %s", f ? tu_jmsg(f) : "",
		 f ? tu_jstr(f, "fix") : "");
	tu_proc_free(&run);
	tu_json_free(j);
	free(llp);
	free(old_dir);
	free(o);
	free(req);
	free(fx);
}

/* pytorch#80637: LD_LIBRARY_PATH's copy wins over the requester's RUNPATH
 * one; cugraph#4465: a copy already loaded wins. */
static void test_lib_shadowed(void)
{
	char *loader = tu_fx("fx_loader");
	char *a = tu_fx("runpath/libdlt_a.so");
	char *llp_dir = tu_fx("llp");
	char *llp = tu_strfmt("LD_LIBRARY_PATH=%s", llp_dir);
	const char *cmd[] = {loader, "via-lib", a, NULL};
	const char *env[] = {llp, NULL};
	struct tu_json *j = traced_check("shadowed", cmd, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "LIB_SHADOWED", "warning", "libdlt_b.so");
	TU_CHECK(f && tu_jstr(ev(f, "loaded"), "found_via") &&
			 strcmp(tu_jstr(ev(f, "loaded"), "found_via"),
				"LD_LIBRARY_PATH") == 0 &&
			 str_ends(tu_jstr(ev(f, "loaded"), "path"),
				  "llp/libdlt_b.so") &&
			 str_ends(tu_jstr(ev(f, "expected"), "path"),
				  "runpath/sub/libdlt_b.so") &&
			 ev_str(f, "requester_runpath"),
		 "LD_LIBRARY_PATH shadowing: evidence wrong");
	TU_CHECK(f && tu_jstr(f, "fix") &&
			 strstr(tu_jstr(f, "fix"), "LD_LIBRARY_PATH"),
		 "fix does not mention LD_LIBRARY_PATH");
	tu_json_free(j);

	char *fx = tu_fx("fx_check");
	char *prov1 = fxc("prov1/libdlt_prov.so");
	char *user = fxc("user/libdlt_user_old.so");
	char *o1 = tu_strfmt("open:%s", prov1);
	char *o2 = tu_strfmt("open:%s", user);
	const char *cmd2[] = {fx, o1, o2, "void:dlt_user_run", NULL};
	j = traced_check("shadowed-loaded", cmd2, NULL, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	f = expect_finding(j, "LIB_SHADOWED", "warning", "libdlt_prov.so");
	TU_CHECK(f && ev_str(f, "loaded_by") &&
			 strcmp(ev_str(f, "loaded_by"), "already loaded") ==
				 0 &&
			 str_ends(tu_jstr(ev(f, "expected"), "path"),
				  "user/prov2/libdlt_prov.so") &&
			 str_ends(ev_str(f, "requester"), "libdlt_user_old.so"),
		 "already-loaded shadowing: evidence wrong");
	tu_json_free(j);
	free(o1);
	free(o2);
	free(prov1);
	free(user);
	free(fx);
	free(llp);
	free(llp_dir);
	free(a);
	free(loader);
}

static void test_duplicate_and_deepbind(void)
{
	char *tmp = tu_tmpdir("dup-files");
	char *da = tu_strfmt("%s/a", tmp), *db = tu_strfmt("%s/b", tmp);
	mkdir(da, 0755);
	mkdir(db, 0755);
	char *src =
		tu_strfmt("%s/%s", DLT_FAKE_CUDART_DIR, DLT_FAKE_CUDART_SONAME);
	char *c1 = tu_strfmt("%s/%s", da, DLT_FAKE_CUDART_SONAME);
	/* An old wheel's renamed copy: libcudart-<hash>.so.N. */
	char *c2 = tu_strfmt("%s/libcudart-80664282.so.%d", db,
			     DLT_FAKE_CUDART_MAJOR);
	TU_CHECK_FATAL(tu_copy_file(src, c1) == 0 && tu_copy_file(src, c2) == 0,
		       "cannot copy %s", src);
	char *fx = tu_fx("fx_check");
	char *o1 = tu_strfmt("open:%s", c1), *o2 = tu_strfmt("open:%s", c2);
	char *b = tu_fx("llp/libdlt_b.so");
	char *o3 = tu_strfmt("deep:%s", b);
	const char *cmd[] = {fx,
			     o1,
			     "int:cudaRuntimeGetVersion",
			     o2,
			     "int:cudaRuntimeGetVersion",
			     o3,
			     NULL};
	const char *env[] = {FAKE_ENV_BASE, NULL};
	struct tu_json *j = traced_check("dup", cmd, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	/* Two copies of one file: one build in two places, a warning. */
	const struct tu_json *f = expect_finding(
		j, "DUPLICATE_LIBRARY", "warning", "one build of libcudart");
	const struct tu_json *cp = ev(f, "copies");
	TU_CHECK(f && tu_jlen(cp) == 2 &&
			 has_elem(cp, "path", "/a/" DLT_FAKE_CUDART_SONAME) &&
			 has_elem(cp, "path", "80664282.so.13") +
					 has_elem(cp, "path",
						  "80664282.so.12") ==
				 1 &&
			 tu_jstr(tu_jat(cp, 0), "build_id") &&
			 same_str(tu_jstr(tu_jat(cp, 0), "build_id"),
				  tu_jstr(tu_jat(cp, 1), "build_id")) &&
			 !tu_contains(tu_jmsg(f), "different"),
		 "DUPLICATE_LIBRARY copies wrong: %s", f ? tu_jmsg(f) : "-");
	f = expect_finding(j, "DEEPBIND", "warning", "libdlt_b.so");
	int deep = 0;
	const struct tu_json *m = ev(f, "dlopen_mode");
	for (size_t i = 0; i < tu_jlen(m); i++)
		deep |= tu_jat(m, i)->str &&
			strcmp(tu_jat(m, i)->str, "RTLD_DEEPBIND") == 0;
	TU_CHECK(deep && str_ends(ev_str(f, "library"), "llp/libdlt_b.so"),
		 "DEEPBIND evidence wrong");
	tu_json_free(j);
	/* Another build under the same name: an error. */
	char *dc = tu_strfmt("%s/c", tmp);
	mkdir(dc, 0755);
	char *c3 = tu_strfmt("%s/%s", dc, DLT_FAKE_CUDART_SONAME);
	TU_CHECK_FATAL(tu_copy_other_build(src, c3) == 0,
		       "cannot make another build of %s", src);
	char *o4 = tu_strfmt("open:%s", c3);
	const char *cmd2[] = {fx, o1, "int:cudaRuntimeGetVersion", o4, NULL};
	j = traced_check("dup-builds", cmd2, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	f = expect_finding(j, "DUPLICATE_LIBRARY", "error",
			   "2 different builds of libcudart");
	cp = ev(f, "copies");
	TU_CHECK(f && tu_jlen(cp) == 2 &&
			 !same_str(tu_jstr(tu_jat(cp, 0), "build_id"),
				   tu_jstr(tu_jat(cp, 1), "build_id")) &&
			 same_str(tu_jstr(tu_jat(cp, 1), "installed_by"),
				  "unknown") &&
			 !tu_contains(tu_jstr(f, "fix"), "apt") &&
			 !tu_contains(tu_jstr(f, "fix"), "pip"),
		 "other build: evidence or fix wrong: %s",
		 f ? tu_jstr(f, "fix") : "-");
	tu_json_free(j);
	free(o4);
	free(c3);
	free(dc);
	free(o1);
	free(o2);
	free(o3);
	free(b);
	free(fx);
	free(c1);
	free(c2);
	free(src);
	free(da);
	free(db);
	tu_rmtree(tmp);
	free(tmp);
}

static void test_trace_incomplete_signal(void)
{
	char *fx = tu_fx("fx_selfkill");
	const char *cmd[] = {fx, NULL};
	struct tu_json *j = traced_check("selfkill", cmd, NULL, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "TRACE_INCOMPLETE", "info", "SIGTERM");
	TU_CHECK(f && jnum(tu_jget(f, "evidence"), "signal", 0) == SIGTERM,
		 "TRACE_INCOMPLETE: signal not in evidence");
	tu_json_free(j);
	free(fx);
}

/* ---- suite check_fakes -----------------------------------------------------
 */

static void test_fakes_healthy(void)
{
	const char *env[] = {FAKE_ENV_BASE, NULL};
	/* (fx_cuda_direct provokes a launch error on purpose: not here.) */
	const char *progs[][3] = {{DLT_FAKE_FX_CUDNN, "legacy9", NULL},
				  {DLT_FAKE_FX_CUDNN, "backend", NULL},
				  {DLT_FAKE_FX_NCCL, NULL, NULL}};
	for (size_t i = 0; i < 3; i++) {
		struct tu_proc p;
		char *dir = NULL;
		struct tu_json *j =
			traced_check("fake-healthy", progs[i], env, &dir, &p);
		TU_CHECK(tu_exit_code(p.status) == 0, "%s %s: %s", progs[i][0],
			 progs[i][1] ? progs[i][1] : "",
			 tu_status_str(p.status));
		tu_expect_healthy(progs[i][0], dir);
		tu_json_free(j);
		tu_proc_free(&p);
		tu_rmtree(dir);
		free(dir);
	}
}

static void test_fakes_driver(void)
{
	const char *cmd[] = {DLT_FAKE_FX_CUDA_DLOPEN, NULL};
	const char *env[] = {FAKE_ENV_BASE, "FAKE_CUDA_DRIVER_VERSION=11080",
			     NULL};
	struct tu_json *j =
		traced_check("fake-olddriver", cmd, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "CUDA_DRIVER_INSUFFICIENT", "error", "11.8");
	TU_CHECK(f && ev_str(f, "driver_api_version") &&
			 strcmp(ev_str(f, "driver_api_version"), "11.8") == 0 &&
			 has_elem(ev(f, "failed_calls"), "call",
				  "cudaErrorInsufficientDriver (35)") &&
			 tu_jlen(ev(f, "runtimes")) >= 1,
		 "old driver: evidence wrong");
	tu_json_free(j);
}

static void test_fakes_sublib_skew(void)
{
	const char *cmd[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	const char *env[] = {FAKE_ENV_BASE, "FAKE_CUDNN_OPS_VERSION=91800",
			     NULL};
	struct tu_json *j = traced_check("fake-skew", cmd, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "CUDNN_SUBLIB_SKEW", "error", NULL);
	int seen = 0;
	const struct tu_json *vc = ev(f, "version_checks");
	for (size_t i = 0; i < tu_jlen(vc); i++) {
		const struct tu_json *c = tu_jat(vc, i);
		seen |= tu_jstr(c, "check") &&
			!strcmp(tu_jstr(c, "check"), "cudnnOpsVersionCheck") &&
			tu_jstr(c, "status_name") &&
			!strcmp(tu_jstr(c, "status_name"),
				"CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH");
	}
	TU_CHECK(seen, "cudnnOpsVersionCheck's 1002 not decoded in evidence");
	tu_json_free(j);

	/* Two directories: libcudnn_ops.so.9 from an LD_LIBRARY_PATH copy.
	 * A byte-identical copy is the same library, even under its full
	 * version (libcudnn_ops.so.9 -> libcudnn_ops.so.9.19.0, as
	 * distributions ship it): nothing to report. */
	char *tmp = tu_tmpdir("skew-dirs");
	char *src = tu_strfmt("%s/libcudnn_ops.so.9", DLT_FAKE_CUDNN9_DIR);
	char *dst = tu_strfmt("%s/libcudnn_ops.so.9.19.0", tmp);
	char *lnk = tu_strfmt("%s/libcudnn_ops.so.9", tmp);
	TU_CHECK_FATAL(tu_copy_file(src, dst) == 0 &&
			       symlink("libcudnn_ops.so.9.19.0", lnk) == 0,
		       "cannot copy %s", src);
	char *llp = tu_strfmt("LD_LIBRARY_PATH=%s:%s", tmp, DLT_FAKE_CUDA_DIR);
	const char *env2[] = {llp, NULL};
	char *dir = NULL;
	j = traced_check("fake-skew-same", cmd, env2, &dir, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	TU_CHECK(finding(j, "CUDNN_SUBLIB_SKEW", NULL, NULL) == NULL,
		 "an identical copy is called sub-library skew");
	tu_expect_healthy("identical cuDNN copy", dir);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);

	/* Another build of it: skew, and the fix names the directory that
	 * holds all of cuDNN and the path that brought the stray. */
	TU_CHECK_FATAL(tu_copy_other_build(src, dst) == 0,
		       "cannot make another build of %s", src);
	j = traced_check("fake-skew-dirs", cmd, env2, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	f = expect_finding(j, "CUDNN_SUBLIB_SKEW", "error", "2 directories");
	const char *fix = f ? tu_jstr(f, "fix") : NULL;
	TU_CHECK(f && tu_jlen(ev(f, "directories")) == 2 &&
			 has_elem(ev(f, "libraries"), "vs_main_directory",
				  "other build") &&
			 same_str(ev_str(f, "complete_directory"),
				  DLT_FAKE_CUDNN9_DIR) &&
			 tu_contains(fix, DLT_FAKE_CUDNN9_DIR) &&
			 tu_contains(fix, tmp) &&
			 tu_contains(fix, "LD_LIBRARY_PATH") &&
			 !tu_contains(fix, "apt") && !tu_contains(fix, "pip"),
		 "two directories: evidence or fix wrong: %s", fix ? fix : "-");
	tu_json_free(j);
	free(llp);
	free(src);
	free(dst);
	free(lnk);
	tu_rmtree(tmp);
	free(tmp);
}

/* cuDNN from a pip wheel's tree, one sub-library of another build from a
 * conda prefix first on LD_LIBRARY_PATH: the evidence says how each came,
 * the fix names the wheel's directory and the path that brought the
 * stray, and no package manager that did not install it.  The libs view
 * shows the version each library reported. */
static void test_fakes_install_trees(void)
{
	char *tmp = tu_tmpdir("trees");
	const char *names[] = {"libcudnn.so.9", "libcudnn_graph.so.9",
			       "libcudnn_ops.so.9", "libcudnn_cnn.so.9", NULL};
	char *pip = pip_tree(tmp, names, true);
	char *conda = conda_tree(tmp, "libcudnn_ops.so.9");
	char *src = tu_strfmt("%s/libcudnn_ops.so.9", DLT_FAKE_CUDNN9_DIR);
	char *stray = tu_strfmt("%s/libcudnn_ops.so.9", conda);
	TU_CHECK_FATAL(tu_copy_other_build(src, stray) == 0,
		       "cannot make another build of %s", src);
	char *llp = tu_strfmt("LD_LIBRARY_PATH=%s:%s:%s", conda, pip,
			      DLT_FAKE_CUDA_DIR);
	const char *env[] = {llp, NULL};
	const char *cmd[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	char *dir = NULL;
	struct tu_json *j = traced_check("trees", cmd, env, &dir, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f = expect_finding(j, "CUDNN_SUBLIB_SKEW",
						 "error", "2 directories");
	const struct tu_json *libs = ev(f, "libraries");
	int pip_ok = 0, conda_ok = 0;
	for (size_t i = 0; i < tu_jlen(libs); i++) {
		const struct tu_json *l = tu_jat(libs, i);
		const char *path = tu_jstr(l, "path");
		if (str_ends(path, "/conda/lib/libcudnn_ops.so.9"))
			conda_ok =
				same_str(tu_jstr(l, "installed_by"), "conda") &&
				same_str(tu_jstr(l, "package"), "cudnn") &&
				same_str(tu_jstr(l, "vs_main_directory"),
					 "other build");
		if (str_ends(path, "/nvidia/cudnn/lib/libcudnn.so.9"))
			pip_ok = same_str(tu_jstr(l, "installed_by"), "pip") &&
				 same_str(tu_jstr(l, "package"),
					  "nvidia-cudnn-cu13");
	}
	const char *fix = f ? tu_jstr(f, "fix") : NULL;
	TU_CHECK(pip_ok && conda_ok, "installed_by wrong in the evidence");
	TU_CHECK(same_str(ev_str(f, "complete_directory"), pip) &&
			 tu_contains(fix, pip) && tu_contains(fix, conda) &&
			 tu_contains(fix, "LD_LIBRARY_PATH") &&
			 !tu_contains(fix, "apt") && !tu_contains(fix, "pip "),
		 "fix: %s", fix ? fix : "-");
	tu_json_free(j);
	/* libs: the version each library answered (the fake cuDNN's
	 * sub-library word), beside its name. */
	struct tu_json *lj = tu_libs_json(dir);
	const struct tu_json *rows =
		tu_jget(tu_jat(tu_jget(lj, "processes"), 0), "libraries");
	int shown = 0;
	for (size_t i = 0; i < tu_jlen(rows); i++) {
		const struct tu_json *l = tu_jat(rows, i);
		shown += str_ends(tu_jstr(l, "path"), "libcudnn_graph.so.9") &&
			 same_str(tu_jstr(l, "version_from"), "library") &&
			 tu_jstr(l, "version") &&
			 strchr(tu_jstr(l, "version"), '.') != NULL;
	}
	TU_CHECK(shown == 1, "libs --json: libcudnn_graph.so.9's version");
	tu_json_free(lj);
	tu_rmtree(dir);
	free(dir);
	free(llp);
	free(stray);
	free(src);
	free(conda);
	free(pip);
	tu_rmtree(tmp);
	free(tmp);
}

static void test_fakes_cudnn_cudart(void)
{
	char *fx = tu_fx("fx_check");
	char *o1 = tu_strfmt("open:%s/%s", DLT_FAKE_CUDART_DIR,
			     DLT_FAKE_CUDART_SONAME);
	char *o2 = tu_strfmt("open:%s/libcudnn.so.9", DLT_FAKE_CUDNN9_DIR);
	/* cudaDriverGetVersion: the program asks, so the driver gets loaded
	 * and its version recorded (dltrace never loads it to find out). */
	const char *cmd[] = {fx,
			     o1,
			     "int:cudaRuntimeGetVersion",
			     "int:cudaDriverGetVersion",
			     o2,
			     "ptr:cudnnCreate",
			     NULL};
	/* Built for an older major than the runtime loaded: error. */
	char *old = tu_strfmt("FAKE_CUDNN_CUDART=%d",
			      (DLT_FAKE_CUDART_MAJOR - 1) * 1000 + 80);
	const char *env[] = {FAKE_ENV_BASE, old, NULL};
	struct tu_json *j =
		traced_check("fake-cudart-major", cmd, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f =
		expect_finding(j, "CUDNN_CUDART_MISMATCH", "error", NULL);
	char want[32];
	snprintf(want, sizeof(want), "%d.8", DLT_FAKE_CUDART_MAJOR - 1);
	TU_CHECK(f && ev_str(f, "cudnn_cuda_runtime") &&
			 strcmp(ev_str(f, "cudnn_cuda_runtime"), want) == 0 &&
			 ev_str(f, "process_cuda_runtime"),
		 "major mismatch: evidence wrong");
	tu_json_free(j);
	/* Same major, an older minor than the runtime: fine (an info). */
	int m = DLT_FAKE_CUDART_MAJOR * 1000;
	char *rt = tu_strfmt("FAKE_CUDART_VERSION=%d", m + 20);
	char *drv = tu_strfmt("FAKE_CUDA_DRIVER_VERSION=%d", m + 20);
	char *minor = tu_strfmt("FAKE_CUDNN_CUDART=%d", m + 10);
	const char *env2[] = {FAKE_ENV_BASE, rt, drv, minor, NULL};
	char *dir = NULL;
	j = traced_check("fake-cudart-minor", cmd, env2, &dir, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	expect_finding(j, "CUDNN_CUDART_MISMATCH", "info", NULL);
	tu_expect_healthy("cuDNN for an older minor CUDA", dir);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
	/* A newer minor than the driver supports: a warning. */
	char *newer = tu_strfmt("FAKE_CUDNN_CUDART=%d", m + 90);
	const char *env3[] = {FAKE_ENV_BASE, newer, NULL};
	j = traced_check("fake-cudart-newer", cmd, env3, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	f = expect_finding(j, "CUDNN_CUDART_MISMATCH", "warning", NULL);
	TU_CHECK(f && ev_str(f, "driver_api_version"),
		 "newer minor: the driver's version is not in evidence");
	tu_json_free(j);
	free(newer);
	free(rt);
	free(drv);
	free(minor);
	free(old);
	free(o1);
	free(o2);
	free(fx);
}

static void test_fakes_api_error(void)
{
	const char *cmd[] = {DLT_FAKE_FX_CUDA_DIRECT, NULL};
	const char *env[] = {FAKE_ENV_BASE,
			     "FAKE_CUDA_FAIL=cudaDeviceSynchronize:700", NULL};
	struct tu_json *j = traced_check("fake-apierror", cmd, env, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f = expect_finding(j, "API_ERROR", "warning",
						 "cudaDeviceSynchronize");
	TU_CHECK(f && ev_str(f, "status_name") &&
			 strcmp(ev_str(f, "status_name"),
				"cudaErrorIllegalAddress") == 0 &&
			 jnum(tu_jget(f, "evidence"), "count", 0) >= 1 &&
			 tu_jget(tu_jget(f, "evidence"), "first_s") &&
			 tu_jget(tu_jget(f, "evidence"), "first_thread"),
		 "API_ERROR evidence wrong");
	TU_CHECK(finding(j, "CUDA_DRIVER_INSUFFICIENT", NULL, NULL) == NULL,
		 "a kernel failure blamed on the driver");
	tu_json_free(j);
}

static void test_fakes_algo(void)
{
	/* Every forward algorithm fails for lack of memory. */
	const char *cmd9[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	const char *env1[] = {
		FAKE_ENV_BASE,
		"FAKE_CUDNN_FAIL_ALGOS=fwd/0:alloc,fwd/1:alloc,fwd/2:alloc,"
		"fwd/3:alloc,fwd/4:alloc,fwd/5:alloc,fwd/6:alloc,fwd/7:alloc",
		NULL};
	struct tu_json *j =
		traced_check("fake-selfail", cmd9, env1, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	const struct tu_json *f = expect_finding(
		j, "ALGO_SELECTION_FAILED", "error", "every candidate failed");
	TU_CHECK(f && ev_str(f, "direction") &&
			 strcmp(ev_str(f, "direction"), "forward") == 0 &&
			 tu_jlen(ev(f, "candidates")) >= 7 &&
			 tu_jstr(f, "fix") &&
			 strstr(tu_jstr(f, "fix"), "memory"),
		 "selection failure: evidence wrong");
	tu_json_free(j);

	/* The measured best candidate fails (cuDNN 7): a fallback. */
	const char *cmd7[] = {DLT_FAKE_FX_CUDNN7, "legacy7", NULL};
	const char *env2[] = {FAKE_ENV_BASE,
			      "FAKE_CUDNN_FAIL_ALGOS=0,fwd/7,bwdd/5:alloc",
			      NULL};
	j = traced_check("fake-fallback", cmd7, env2, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	f = expect_finding(j, "ALGO_FALLBACK", "warning",
			   "after cudnnFindConvolutionForwardAlgorithm ");
	const struct tu_json *fa = tu_jat(ev(f, "failed_ahead"), 0);
	TU_CHECK(fa && jnum(fa, "algo", -1) == 7 &&
			 tu_jstr(fa, "status_name") &&
			 strcmp(tu_jstr(fa, "status_name"),
				"CUDNN_STATUS_ALLOC_FAILED") == 0 &&
			 jnum(ev(f, "executed"), "algo", -1) == 2 &&
			 jnum(tu_jget(f, "evidence"),
			      "failed_ahead_difference_ms", -1) > 0 &&
			 ev_str(f, "shape"),
		 "fallback: evidence wrong");
	tu_json_free(j);

	/* Backend: engines that fail to finalize before one works. */
	const char *cmdb[] = {DLT_FAKE_FX_CUDNN, "backend", NULL};
	const char *env3[] = {FAKE_ENV_BASE, "FAKE_CUDNN_BAD_ENGINES=0,1,6,7,8",
			      NULL};
	j = traced_check("fake-bk-fallback", cmdb, env3, NULL, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	f = expect_finding(j, "ALGO_FALLBACK", "info", "engine 2 ran");
	TU_CHECK(f && tu_jlen(ev(f, "failed_ahead")) == 2,
		 "backend fallback: failed_ahead wrong");
	tu_json_free(j);
}

/* The choices in fx_cudnn's output: "problem K: n=.. c=.. h=.. w=.." then
 * "  fwd get_v7 choice=N run status=S" lines. */
struct choice_set {
	int n, c, h, w;
	int dir;	/* 0 fwd, 1 bwd_data, 2 bwd_filter */
	unsigned algos; /* bit set */
};

static size_t parse_choices(const char *out, struct choice_set *s, size_t max)
{
	size_t n = 0;
	int pn = 0, pc = 0, ph = 0, pw = 0;
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		int k, a;
		char dir[32];
		if (sscanf(l, "problem %d: n=%d c=%d h=%d w=%d", &k, &pn, &pc,
			   &ph, &pw) == 5) {
		} else if (sscanf(l, " %31s %*s choice=%d run", dir, &a) == 2 &&
			   strstr(l, " choice=") && strstr(l, " run ")) {
			int d = !strcmp(dir, "fwd")	   ? 0
				: !strcmp(dir, "bwd_data") ? 1
							   : 2;
			size_t i = 0;
			while (i < n &&
			       !(s[i].n == pn && s[i].c == pc && s[i].h == ph &&
				 s[i].w == pw && s[i].dir == d))
				i++;
			if (i == n && n < max)
				s[n++] = (struct choice_set){pn, pc, ph,
							     pw, d,  0};
			if (i < n)
				s[i].algos |= 1u << a;
		}
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

static void test_fakes_diff(void)
{
	const char *cmd[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	const char *env_a[] = {FAKE_ENV_BASE, NULL};
	const char *env_b[] = {FAKE_ENV_BASE, "FAKE_CUDNN_ALGO_SEED=1", NULL};
	char *da, *db;
	struct tu_proc pa, pb;
	struct tu_json *ja = traced_check("diff-a", cmd, env_a, &da, &pa);
	struct tu_json *jb = traced_check("diff-b", cmd, env_b, &db, &pb);
	tu_json_free(ja);
	tu_json_free(jb);
	struct choice_set sa[32], sb[32];
	size_t na = parse_choices(pa.out, sa, 32);
	size_t nb = parse_choices(pb.out, sb, 32);
	TU_CHECK_FATAL(na == 9 && nb == 9,
		       "fx_cudnn output: %zu and %zu problem/directions", na,
		       nb);
	size_t expect_changed = 0;
	for (size_t i = 0; i < na; i++)
		expect_changed += sa[i].algos != sb[i].algos;
	TU_CHECK(expect_changed > 0, "the seed changed no choice");

	struct tu_proc p;
	const char *args[] = {"diff", "--json", da, db, NULL};
	analyze(&p, args);
	struct tu_json *j = parse_out(&p, "diff --json");
	TU_CHECK_FATAL(j != NULL, "no diff output");
	const struct tu_json *ch = tu_jget(j, "changes");
	TU_CHECK(tu_jlen(ch) == expect_changed,
		 "diff lists %zu changes, the programs' outputs %zu",
		 tu_jlen(ch), expect_changed);
	TU_CHECK(tu_jlen(tu_jget(j, "unchanged")) == na - expect_changed &&
			 tu_jlen(tu_jget(j, "only_a")) == 0 &&
			 tu_jlen(tu_jget(j, "only_b")) == 0,
		 "diff: unchanged/only lists wrong");
	static const char *const dirs[] = {"forward", "backward-data",
					   "backward-filter"};
	for (size_t i = 0; i < tu_jlen(ch); i++) {
		const struct tu_json *c = tu_jat(ch, i);
		const struct tu_json *x = tu_jget(tu_jget(c, "shape"), "x");
		const char *dir = tu_jstr(c, "direction");
		int found = 0;
		for (size_t k = 0; k < na && x && dir; k++)
			found |= sa[k].algos != sb[k].algos &&
				 tu_jat(x, 0)->num == sa[k].n &&
				 tu_jat(x, 1)->num == sa[k].c &&
				 tu_jat(x, 2)->num == sa[k].h &&
				 tu_jat(x, 3)->num == sa[k].w &&
				 strcmp(dir, dirs[sa[k].dir]) == 0;
		TU_CHECK(found, "diff change %zu is not a changed problem", i);
		TU_CHECK(tu_jget(c, "a") && tu_jget(c, "b") &&
				 tu_jstr(tu_jget(c, "a"), "text") &&
				 tu_jget(tu_jget(c, "b"), "mean_us"),
			 "diff change %zu lacks a/b choice and time", i);
	}
	tu_json_free(j);
	tu_proc_free(&p);
	tu_proc_free(&pa);
	tu_proc_free(&pb);
	tu_rmtree(da);
	tu_rmtree(db);
	free(da);
	free(db);
}

static void test_fakes_algos_export(void)
{
	const char *cmd[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	const char *env[] = {FAKE_ENV_BASE, NULL};
	char *dir;
	struct tu_json *cj = traced_check("algos", cmd, env, &dir, NULL);
	tu_json_free(cj);
	struct tu_proc p;
	const char *args[] = {"algos", "--json", dir, NULL};
	analyze(&p, args);
	struct tu_json *j = parse_out(&p, "algos --json");
	const struct tu_json *probs =
		tu_jget(tu_jat(tu_jget(j, "processes"), 0), "problems");
	TU_CHECK(tu_jlen(probs) == 9, "algos: %zu problems", tu_jlen(probs));
	for (size_t i = 0; i < tu_jlen(probs); i++) {
		const struct tu_json *e = tu_jat(probs, i);
		const struct tu_json *sel = tu_jget(e, "selections_kept");
		TU_CHECK(tu_jlen(sel) == 3 &&
				 tu_jlen(tu_jget(tu_jat(sel, 1),
						 "candidates")) >= 6 &&
				 tu_jlen(tu_jget(e, "executions")) >= 1 &&
				 tu_jstr(tu_jget(e, "choice"), "text"),
			 "algos problem %zu: selections/executions missing", i);
	}
	tu_json_free(j);
	tu_proc_free(&p);

	const char *ex[] = {"export", "--format", "chrome", dir, NULL};
	analyze(&p, ex);
	j = parse_out(&p, "export");
	const struct tu_json *evs = tu_jget(j, "traceEvents");
	size_t slices = 0, named = 0, bad = 0;
	for (size_t i = 0; i < tu_jlen(evs); i++) {
		const struct tu_json *e = tu_jat(evs, i);
		const char *ph = tu_jstr(e, "ph"), *n = tu_jstr(e, "name");
		if (!ph || !n || !tu_jget(e, "pid")) {
			bad++;
			continue;
		}
		if (!strcmp(ph, "M")) {
			named += !strcmp(n, "process_name");
			continue;
		}
		if (!tu_jget(e, "ts") || !tu_jget(e, "tid"))
			bad++;
		if (!strcmp(ph, "X")) {
			slices++;
			bad += jnum(e, "dur", -1) < 0;
		}
	}
	TU_CHECK(bad == 0 && named == 1 && slices > 20,
		 "export: %zu malformed events, %zu process names, %zu slices",
		 bad, named, slices);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite check_real ------------------------------------------------------
 */

/* The scaling checks measure the analyzer's own algorithms, the same C
 * on every architecture: under qemu-user (scripts/cross-arm64.sh) every
 * run is about ten times slower and the suite no longer fits its time
 * limit (10 s natively), so it runs on the native build only. */
static const char *scale_skip(void)
{
	const char *emu = getenv("DLTRACE_TEST_EMULATED");
	return emu && *emu ? "the analyzer's scaling is measured natively, "
			     "not under an emulator"
			   : NULL;
}

static const char *real_skip(void)
{
	if (!DLT_CHECK_REAL)
		return "the CUDA runtime, cuDNN or NCCL (libraries and "
		       "headers) "
		       "are not installed here";
	return NULL;
}

static void test_real_versions_healthy(void)
{
	char *fx = tu_fx("fx_cuda_versions");
	const char *cmd[] = {fx, NULL};
	struct tu_proc p;
	char *dir = NULL;
	struct tu_json *j = traced_check("real-versions", cmd, NULL, &dir, &p);
	TU_CHECK(tu_exit_code(p.status) == 0, "fx_cuda_versions: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK_FATAL(j != NULL, "no check output");
	tu_expect_healthy("version queries of the real CUDA libraries", dir);
	/* cuDNN 9 probes libcudnn_graph.so.9.19.0 and .9.19 before .9: the
	 * views say so instead of listing failures. */
	expect_probes_shown(dir, "libcudnn_graph.so.9.", 2);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

static void test_real_no_driver(void)
{
	char *fx = tu_fx("fx_cuda_versions");
	const char *cmd[] = {fx, "--devices", NULL};
	struct tu_proc plain;
	tu_run(&plain, cmd, NULL, RUN_MS);
	int no_driver = tu_contains(plain.out, "cudaGetDeviceCount rc=35");
	tu_proc_free(&plain);
	char *dir = NULL;
	struct tu_json *j = traced_check("real-devices", cmd, NULL, &dir, NULL);
	TU_CHECK_FATAL(j != NULL, "no check output");
	if (no_driver) {
		const struct tu_json *f =
			expect_finding(j, "CUDA_DRIVER_INSUFFICIENT", "error",
				       "cudaErrorInsufficientDriver");
		TU_CHECK(f &&
				 has_elem(ev(f, "runtimes"), "path", ".so.13") +
						 has_elem(ev(f, "runtimes"),
							  "path", ".so.12") +
						 has_elem(ev(f, "runtimes"),
							  "path", ".so.11") >
					 0 &&
				 tu_jget(ev(f, "libcuda"), "loaded") &&
				 !tu_jget(ev(f, "libcuda"), "loaded")->b,
			 "real libcudart without a driver: evidence wrong");
		/* cuDNN 9 and NCCL bring their own static runtime. */
		f = expect_finding(j, "STATIC_CUDART", "info", NULL);
		TU_CHECK(f && has_elem(ev(f, "objects"), "object",
				       "libnccl.so.2"),
			 "STATIC_CUDART does not name libnccl.so.2");
	} else {
		printf("\n    a driver is installed here: only the healthy "
		       "part is checked\n");
		tu_expect_healthy("real CUDA with a driver", dir);
	}
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* ---- suite check_torch
 * ------------------------------------------------------- */

static const char *torch_skip(void)
{
	return tu_python_skip("torch.distributed");
}

static void test_torch_healthy(void)
{
	char *tmp = tu_tmpdir("torch-store");
	char *script =
		tu_strfmt("import torch, torch.distributed as dist\n"
			  "x = torch.randn(2, 3, 16, 16)\n"
			  "y = torch.nn.Conv2d(3, 8, 3, padding=1)(x)\n"
			  "dist.init_process_group('gloo', "
			  "init_method='file://%s/store', "
			  "rank=0, world_size=1)\n"
			  "t = torch.ones(4)\n"
			  "dist.all_reduce(t)\n"
			  "dist.destroy_process_group()\n"
			  "print('ok', tuple(y.shape), float(t.sum()))\n",
			  tmp);
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	char *dir = NULL;
	struct tu_json *j = traced_check("torch", cmd, NULL, &dir, &p);
	TU_CHECK(tu_exit_code(p.status) == 0 && tu_contains(p.out, "ok"),
		 "torch conv + gloo: %s\n%s", tu_status_str(p.status), p.err);
	TU_CHECK_FATAL(j != NULL, "no check output");
	tu_expect_healthy("python3-torch conv + one-rank gloo", dir);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
	tu_proc_free(&p);
	free(script);
	tu_rmtree(tmp);
	free(tmp);
}

/* ---- suite check_scale
 * ------------------------------------------------------- */

#define SCALE_TRACES 256

/* n records per trace: API calls, a tenth of them failing. */
static int gen_scale(const char *dir, unsigned records)
{
	for (int r = 0; r < SCALE_TRACES; r++) {
		if (gen_open(dir, r) != 0)
			return -1;
		int64_t v[8];
		gen_slots_absent(v);
		v[DLT_FV_CUDART_runtime_version] = 12040;
		v[DLT_FV_CUDART_driver_version] = 12040;
		v[DLT_FV_CUDART_runtime_status] = 0;
		v[DLT_FV_CUDART_driver_status] = 0;
		gen_family(DLT_FAM_CUDART, "/opt/cuda/lib64/libcudart.so.12",
			   NULL, v);
		for (unsigned i = 0; i < records; i++) {
			uint64_t vals[DLT_NV_cudaMalloc] = {
				[DLT_V_cudaMalloc_size] = 4096,
				[DLT_V_cudaMalloc_ptr] = 0};
			gen_call(DLT_ID_cudaMalloc, i % 10 == 9 ? 2 : 0,
				 1000 + i, vals, DLT_NV_cudaMalloc);
		}
		gen_exit(0);
		gen_close();
	}
	return 0;
}

/* Runs check on dir; returns seconds (wall clock, and CPU in *cpu if cpu
 * is not NULL) and the peak RSS in KiB. */
static int timed_check(const char *dir, double *secs, double *cpu, long *maxrss,
		       char **out)
{
	char *outfile = tu_strfmt("%s.out", dir);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		execl(DLT_TEST_ANALYZE, DLT_TEST_ANALYZE, "check", "--json",
		      "--fail-on", "never", dir, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	struct rusage ru;
	wait4(pid, &status, 0, &ru);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	*maxrss = ru.ru_maxrss;
	if (cpu)
		*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
			       1e6;
	FILE *f = fopen(outfile, "r");
	size_t cap = 1 << 20, n = 0;
	*out = malloc(cap);
	while (f && !feof(f)) {
		if (n + 65536 > cap)
			*out = realloc(*out, cap *= 2);
		n += fread(*out + n, 1, 65536, f);
	}
	(*out)[n] = '\0';
	if (f)
		fclose(f);
	unlink(outfile);
	free(outfile);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_scale(void)
{
	static const unsigned sizes[] = {1000, 4000};
	long rss[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		char *dir = tu_tmpdir("scale");
		TU_CHECK_FATAL(gen_scale(dir, sizes[k]) == 0,
			       "cannot write the traces");
		double secs;
		char *out;
		int rc = timed_check(dir, &secs, NULL, &rss[k], &out);
		TU_CHECK(rc == 0, "check on %d traces: exit %d", SCALE_TRACES,
			 rc);
		char err[256];
		struct tu_json *j = tu_json_parse(out, err, sizeof(err));
		TU_CHECK_FATAL(j != NULL, "check --json output: %s", err);
		size_t nproc = tu_jlen(tu_jget(j, "processes"));
		size_t errs = 0;
		const struct tu_json *fs = tu_jget(j, "findings");
		for (size_t i = 0; i < tu_jlen(fs); i++) {
			const struct tu_json *f = tu_jat(fs, i);
			if (strcmp(tu_jstr(f, "code"), "API_ERROR") == 0 &&
			    jnum(tu_jget(f, "evidence"), "count", 0) ==
				    sizes[k] / 10 &&
			    jnum(tu_jget(f, "evidence"), "calls", 0) ==
				    sizes[k])
				errs++;
		}
		TU_CHECK(nproc == SCALE_TRACES && errs == SCALE_TRACES,
			 "%zu processes, %zu API_ERROR findings with the "
			 "right counts (expected %d each)",
			 nproc, errs, SCALE_TRACES);
		printf("\n    check: %d traces x %u records: %.2f s, peak RSS "
		       "%ld KiB",
		       SCALE_TRACES, sizes[k] + 4, secs, rss[k]);
		tu_json_free(j);
		free(out);
		tu_rmtree(dir);
		free(dir);
	}
	printf("\n");
}

/* Hostile shapes: a trace of many failed loads.  The rules compared every
 * failed row with every other (and dlerror records with every row), so a
 * few MiB of forged records kept check busy for minutes.  Every row must
 * still get its finding, and four times the rows must cost less than eight
 * times the CPU (see test_hostile_failed_loads).  scripts/bench.sh makes
 * the same traces with `test_check --gen-hostile`. */
static void gen_lib_fail(const char *name)
{
	uint32_t s = dlt_str(&gw, &gtls, name);
	struct dlt_rec_lib_fail *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	memset((char *)r + 8, 0, sizeof(*r) - 8);
	r->h.ts = dlt_now_ns();
	r->requested = s;
	dlt_rec_commit(r, DLT_REC_LIB_FAIL, 0, sizeof(*r));
}

static void gen_lib_broken(uint64_t obj, const char *path)
{
	uint32_t s = dlt_str(&gw, &gtls, path);
	struct dlt_rec_lib_load *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	memset((char *)r + 8, 0, sizeof(*r) - 8);
	r->h.ts = dlt_now_ns();
	r->obj = obj;
	r->requested = r->path = r->realpath = s;
	r->found_via = DLT_VIA_ABSOLUTE;
	dlt_rec_commit(r, DLT_REC_LIB_LOAD, DLT_LIB_DLOPEN, sizeof(*r));
	/* Unmapped by the load that mapped it: the load failed. */
	struct dlt_rec_lib_unload *u = dlt_rec_reserve(&gw, &gtls, sizeof(*u));
	u->h.ts = dlt_now_ns();
	u->obj = obj;
	dlt_rec_commit(u, DLT_REC_LIB_UNLOAD, 1, sizeof(*u));
}

static void gen_dlerror(const char *text)
{
	uint32_t s = dlt_str(&gw, &gtls, text);
	struct dlt_rec_dlerror *r = dlt_rec_reserve(&gw, &gtls, sizeof(*r));
	r->h.ts = dlt_now_ns();
	r->text = s;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_DLERROR, 0, sizeof(*r));
}

/* shape 0: n names not found, then n dlerror messages; shape 1: n files
 * that mapped and failed, each with a message naming another object. */
static int gen_hostile(const char *dir, unsigned n, int shape)
{
	if (gen_open(dir, -1) != 0)
		return -1;
	char buf[128];
	for (unsigned i = 0; i < n; i++) {
		if (shape == 0) {
			snprintf(buf, sizeof(buf), "libabsent%u.so", i);
			gen_lib_fail(buf);
		} else {
			snprintf(buf, sizeof(buf), "/opt/x/libbroken%u.so", i);
			gen_lib_broken(i + 1, buf);
			snprintf(buf, sizeof(buf),
				 "/opt/x/libdep%u.so: undefined symbol: f%u", i,
				 i);
			gen_dlerror(buf);
		}
	}
	for (unsigned i = 0; shape == 0 && i < n; i++) {
		snprintf(buf, sizeof(buf),
			 "libabsent%u.so: cannot open shared object file: No "
			 "such file or directory",
			 i);
		gen_dlerror(buf);
	}
	gen_exit(0);
	gen_close();
	return 0;
}

static void test_hostile_failed_loads(void)
{
	static const char *const shape_name[] = {"not found", "load failed"};
	static const char *const code[] = {"LIB_NOT_FOUND", "LIB_LOAD_FAILED"};
	unsigned sizes[] = {3000, 12000};
	for (int shape = 0; shape < 2; shape++) {
		double cpu[2] = {0, 0};
		for (int k = 0; k < 2; k++) {
			char *dir = tu_tmpdir("hostile");
			TU_CHECK_FATAL(gen_hostile(dir, sizes[k], shape) == 0,
				       "cannot write the trace");
			double secs;
			long rss;
			char *out;
			int rc = timed_check(dir, &secs, &cpu[k], &rss, &out);
			char err[256];
			struct tu_json *j =
				tu_json_parse(out, err, sizeof(err));
			size_t nf = 0;
			const struct tu_json *fs = tu_jget(j, "findings");
			for (size_t i = 0; i < tu_jlen(fs); i++)
				nf += strcmp(tu_jstr(tu_jat(fs, i), "code"),
					     code[shape]) == 0;
			TU_CHECK(rc == 0 && j && nf == sizes[k],
				 "%s x %u: exit %d, %zu %s findings (%s)",
				 shape_name[shape], sizes[k], rc, nf,
				 code[shape], j ? "" : err);
			/* The least of three runs: what the work costs,
			 * without the odd run slowed by a neighbour. */
			for (int again = 0; again < 2; again++) {
				double c;
				char *o;
				timed_check(dir, &secs, &c, &rss, &o);
				free(o);
				if (c < cpu[k])
					cpu[k] = c;
			}
			printf("\n    check, %u failed loads (%s): %.2f s CPU, "
			       "peak RSS %ld KiB",
			       sizes[k], shape_name[shape], cpu[k], rss);
			tu_json_free(j);
			free(out);
			tu_rmtree(dir);
			free(dir);
		}
		/* CPU time of the analyzer alone (its rusage), not the
		 * wall clock: other work on the machine takes turns with it
		 * but does not count.  Linear rules make x4 rows cost x4 or
		 * less (the start-up does not grow), a rule that compares
		 * every row with every other x16 (the rules before 1e1096f
		 * took x13.9, docs/performance.md); x8 lies between with room
		 * for the noise of a shared machine on either size (each the
		 * least of three runs), and a sanitizer slows
		 * both sizes alike.  The small one takes 0.08 to 0.12 s of
		 * CPU here (two cores), far above the clock's resolution. */
		double ratio = cpu[0] > 0 ? cpu[1] / cpu[0] : 0.0;
		printf("\n    %s: CPU x%.1f for x%.0f the rows (linear: x4, "
		       "quadratic: x16)",
		       shape_name[shape], ratio, (double)sizes[1] / sizes[0]);
		TU_CHECK(
			cpu[0] > 0 && ratio < 8.0,
			"%s: %u rows took %.3f s of CPU, %u rows %.3f s: x%.1f "
			"for x4 the rows, not linear",
			shape_name[shape], sizes[0], cpu[0], sizes[1], cpu[1],
			ratio);
	}
	printf("\n");
}

/* ---- suites -----------------------------------------------------------------
 */

/* The most values DLT_EACH_VALUE of dltrace/apiflags.h expands. */
#define TABLE_MAX_VALS 8

/* The table's roles keep their promises: every function with a role
 * records the values the role needs (the analyzer reads them by role).
 * And what the analyzer does with the table holds for every function, not
 * for one example: each is found by its id and its name, names its values
 * once each, and a record whose values all differ hands each role value
 * back from the value that bears the role value's name, and none from a
 * record cut before that value or from a function without the role. */
static void test_unit_roles(void)
{
	char why[256];
	const char *bad = dlt_api_check_roles(why, sizeof(why));
	TU_CHECK(bad == NULL, "apis.def: %s", bad);
	static const struct {
		uint32_t role;
		const char *value;
	} rvs[DLT_RV_COUNT] = {
#define DLT_X(role, value, required) {DLT_ROLE_##role, #value},
		DLT_ROLE_VALUES(DLT_X)
#undef DLT_X
	};
	size_t napis = 0, nroles = 0;
	for (uint32_t id = 0; id <= UINT16_MAX; id++) {
		const struct dlt_api_desc *a = dlt_api_by_id((uint16_t)id);
		if (a == NULL)
			continue;
		napis++;
		TU_CHECK(a->id == id && dlt_api_by_name(a->name) == a,
			 "id %u: %s is not found again by its id and name", id,
			 a->name);
		TU_CHECK(a->nvalues <= TABLE_MAX_VALS &&
				 dlt_api_value_name(a, a->nvalues) == NULL,
			 "%s: %u values, a name past the last", a->name,
			 a->nvalues);
		uint64_t v[TABLE_MAX_VALS];
		for (size_t i = 0; i < a->nvalues; i++) {
			const char *n = dlt_api_value_name(a, i);
			TU_CHECK(n && *n, "%s: value %zu has no name", a->name,
				 i);
			for (size_t k = 0; n && k < i; k++)
				TU_CHECK(strcmp(n, dlt_api_value_name(a, k)),
					 "%s: values %zu and %zu are both %s",
					 a->name, k, i, n);
			v[i] = 0x5eed0000u + i;
		}
		for (int r = 0; r < DLT_RV_COUNT; r++) {
			size_t at = a->nvalues;
			for (size_t i = 0; i < a->nvalues; i++)
				if (strcmp(dlt_api_value_name(a, i),
					   rvs[r].value) == 0)
					at = i;
			uint64_t out = 0;
			bool got = dlt_role_val(a, (enum dlt_role_value)r, v,
						a->nvalues, &out);
			if (!(a->roles & rvs[r].role) || at == a->nvalues) {
				TU_CHECK(!got,
					 "%s: role value %s from value "
					 "%llu, which it does not have",
					 a->name, rvs[r].value,
					 (unsigned long long)out);
				continue;
			}
			nroles++;
			TU_CHECK(got && out == v[at],
				 "%s: role value %s is %#llx, its value %zu "
				 "(%s) is %#llx",
				 a->name, rvs[r].value, (unsigned long long)out,
				 at, rvs[r].value, (unsigned long long)v[at]);
			TU_CHECK(!dlt_role_val(a, (enum dlt_role_value)r, v, at,
					       &out),
				 "%s: role value %s read from a record cut "
				 "before it",
				 a->name, rvs[r].value);
		}
	}
	/* Fewer would mean the lookups above went past most of the table. */
	TU_CHECK(napis >= 60 && nroles >= 30,
		 "%zu functions by id, %zu role values found by name", napis,
		 nroles);

	/* The case that went wrong once: a split's second value is its
	 * color, no rank count. */
	const struct dlt_api_desc *split = dlt_api_by_name("ncclCommSplit");
	TU_CHECK_FATAL(split != NULL, "ncclCommSplit missing from the table");
	uint64_t sv[DLT_NV_ncclCommSplit] = {
		[DLT_V_ncclCommSplit_comm] = 0x5555aaaa0000,
		[DLT_V_ncclCommSplit_color] = 1,
		[DLT_V_ncclCommSplit_key] = 2,
		[DLT_V_ncclCommSplit_newcomm] = 0x6666};
	uint64_t out;
	TU_CHECK(!dlt_role_val(split, DLT_RV_COMM_INIT_nranks, sv,
			       DLT_NV_ncclCommSplit, &out) &&
			 dlt_role_val(split, DLT_RV_COMM_SPLIT_color, sv,
				      DLT_NV_ncclCommSplit, &out) &&
			 out == 1,
		 "role values of ncclCommSplit");

	/* LIB_FAMILY slots: within the record's v[], named once each, and
	 * in a run from slot 0 (a reader of an older trace takes a slot it
	 * does not name as absent). */
	const size_t nslots = sizeof(((struct dlt_rec_family *)0)->v) /
			      sizeof(((struct dlt_rec_family *)0)->v[0]);
	size_t named = 0;
	for (int fam = DLT_FAM_CUDART; fam <= DLT_FAM_CUBLASLT; fam++) {
		size_t run = 0;
		while (run < nslots && dlt_family_slot_name(fam, run))
			run++;
		TU_CHECK(run > 0, "%s: no LIB_FAMILY slot named",
			 dlt_family_name(fam));
		for (size_t i = run; i < 2 * nslots; i++)
			TU_CHECK(dlt_family_slot_name(fam, i) == NULL,
				 "%s: slot %zu named %s after the unnamed "
				 "slot %zu (or past v[%zu])",
				 dlt_family_name(fam), i,
				 dlt_family_slot_name(fam, i), run, nslots);
		for (size_t i = 0; i < run; i++)
			for (size_t k = 0; k < i; k++)
				TU_CHECK(strcmp(dlt_family_slot_name(fam, i),
						dlt_family_slot_name(fam, k)),
					 "%s: slots %zu and %zu are both %s",
					 dlt_family_name(fam), k, i,
					 dlt_family_slot_name(fam, i));
		named += run;
	}
	TU_CHECK(named >= 19, "%zu LIB_FAMILY slots named", named);
}

/* `check --list` names every rule, process and job rules alike, and
 * docs/findings.md has a section for each with its evidence and its fix,
 * and a row in its table of codes. */
static void test_unit_list_documented(void)
{
	struct tu_proc p;
	const char *args[] = {"check", "--list", NULL};
	analyze(&p, args);
	TU_CHECK(tu_exit_code(p.status) == 0, "check --list: %s",
		 tu_status_str(p.status));
	size_t n = 0;
	int hangs = 0;
	for (const char *line = p.out; line && *line; n++) {
		char code[64] = "";
		sscanf(line, "%63s", code);
		static const char *const job[] = {"INIT_HANG", "MISSING_RANK",
						  "RANK_MISMATCH", "STALL"};
		for (size_t k = 0; k < 4; k++)
			hangs += strcmp(code, job[k]) == 0;
		char *sec = tu_findings_section(code);
		TU_CHECK(sec && strstr(sec, "**Evidence.**") &&
				 strstr(sec, "**What to do.**"),
			 "%s: docs/findings.md has no section with its "
			 "evidence and what to do",
			 code);
		char *row = tu_strfmt("\n| [%s](#", code);
		TU_CHECK(strstr(tu_findings_doc(), row) != NULL,
			 "%s: not in the table of codes of docs/findings.md",
			 code);
		free(row);
		free(sec);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	TU_CHECK(n >= 17 && hangs == 4,
		 "check --list: %zu codes, %d of the 4 hang codes:\n%s", n,
		 hangs, p.out);
	tu_proc_free(&p);
}

static void test_unit_install(void)
{
	char *tmp = tu_tmpdir("install");
	const char *names[] = {"libcudnn.so.9", NULL};
	char *pip = pip_tree(tmp, names, false);
	char *p = tu_strfmt("%s/libcudnn.so.9", pip);
	expect_install(p, NULL, DLT_INST_PIP, "nvidia-cudnn-cu13");
	/* A symlink RECORD does not list, to a file it does. */
	char *link = tu_strfmt("%s/libcudnn.so", pip);
	TU_CHECK_FATAL(symlink("libcudnn.so.9", link) == 0, "symlink");
	expect_install(link, NULL, DLT_INST_PIP, "nvidia-cudnn-cu13");
	char *stray = tu_strfmt("%s/libcudnn_ops.so.9", pip);
	put_file(stray, "");
	/* dpkg lists /usr/lib/...; the loader opened /lib/... */
	char *info = tu_strfmt("%s/dpkg-info", tmp);
	mkdir(info, 0755);
	char *list = tu_strfmt("%s/libfoo1:amd64.list", info);
	put_file(list, "/.\n/usr\n/usr/lib/x86_64-linux-gnu/libfoo.so.1\n");
	expect_install(stray, info, DLT_INST_UNKNOWN, "");

	char *conda = conda_tree(tmp, "libcudnn_ops.so.9");
	char *c = tu_strfmt("%s/libcudnn_ops.so.9", conda);
	put_file(c, "");
	expect_install(c, info, DLT_INST_CONDA, "cudnn");
	char *other = tu_strfmt("%s/libcudnn_cnn.so.9", conda);
	put_file(other, "");
	expect_install(other, info, DLT_INST_UNKNOWN, "");
	/* pip inside a conda prefix, installed by conda (INSTALLER). */
	char *cpip = tu_strfmt("%s/conda", tmp);
	char *cl = pip_tree(cpip, names, false);
	char *cvenv = tu_strfmt("%s/conda/venv", tmp);
	char *ci = tu_strfmt("%s/lib/python3.11/site-packages/"
			     "nvidia_cudnn_cu13-9.19.0.70.dist-info/INSTALLER",
			     cvenv);
	put_file(ci, "conda\n");
	char *cp = tu_strfmt("%s/libcudnn.so.9", cl);
	expect_install(cp, NULL, DLT_INST_CONDA, "nvidia-cudnn-cu13");

	expect_install("/lib/x86_64-linux-gnu/libfoo.so.1", info, DLT_INST_DPKG,
		       "libfoo1");
	expect_install("/usr/lib/x86_64-linux-gnu/libfoo.so.1", info,
		       DLT_INST_DPKG, "libfoo1");
	expect_install("/usr/lib/x86_64-linux-gnu/libfoo.so", info,
		       DLT_INST_UNKNOWN, "");
	char *all[] = {pip,   p,    link, stray, info,	conda, c,
		       other, cpip, cl,	  ci,	 cvenv, cp,    list};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	tu_rmtree(tmp);
	free(tmp);
}

/* The vectors of RFC 1321 A.5 and FIPS 180-2 appendix B (one block, two
 * blocks, a million 'a's), the million fed in uneven pieces so that
 * block boundaries fall everywhere. */
static void test_unit_digests(void)
{
	static const struct {
		const char *in, *md5, *sha256;
	} v[] = {
		{"", "d41d8cd98f00b204e9800998ecf8427e",
		 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b"
		 "855"},
		{"abc", "900150983cd24fb0d6963f7d28e17f72",
		 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f2001"
		 "5ad"},
		{"message digest", "f96b697d7cb7938d525a2f31aaf161d0", NULL},
		{"1234567890123456789012345678901234567890123456789012345678901"
		 "2"
		 "345678901234567890",
		 "57edf4a22be3c955ac49da2e2107b67a", NULL},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 NULL,
		 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db0"
		 "6c1"},
	};
	char hex[2 * DLT_SHA256_LEN + 1];
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t d[DLT_SHA256_LEN];
		struct dlt_md5 m;
		struct dlt_sha256 s;
		dlt_md5_init(&m);
		dlt_md5_update(&m, v[i].in, strlen(v[i].in));
		dlt_md5_final(&m, d);
		dlt_digest_hex(d, DLT_MD5_LEN, hex);
		TU_CHECK(v[i].md5 == NULL || strcmp(hex, v[i].md5) == 0,
			 "md5(\"%s\") = %s", v[i].in, hex);
		dlt_sha256_init(&s);
		dlt_sha256_update(&s, v[i].in, strlen(v[i].in));
		dlt_sha256_final(&s, d);
		dlt_digest_hex(d, DLT_SHA256_LEN, hex);
		TU_CHECK(v[i].sha256 == NULL || strcmp(hex, v[i].sha256) == 0,
			 "sha256(\"%s\") = %s", v[i].in, hex);
	}
	char *mil = malloc(1000000);
	TU_CHECK_FATAL(mil != NULL, "no memory");
	memset(mil, 'a', 1000000);
	struct dlt_md5 m;
	struct dlt_sha256 s;
	dlt_md5_init(&m);
	dlt_sha256_init(&s);
	for (size_t at = 0, k = 1; at < 1000000; at += k, k = k % 131 + 1) {
		size_t n = at + k > 1000000 ? 1000000 - at : k;
		dlt_md5_update(&m, mil + at, n);
		dlt_sha256_update(&s, mil + at, n);
	}
	uint8_t md[DLT_MD5_LEN], sd[DLT_SHA256_LEN];
	dlt_md5_final(&m, md);
	dlt_sha256_final(&s, sd);
	dlt_digest_hex(md, DLT_MD5_LEN, hex);
	TU_CHECK(strcmp(hex, "7707d6ae4e027c70eea2a935c2296f21") == 0,
		 "md5 of a million a: %s", hex);
	dlt_digest_hex(sd, DLT_SHA256_LEN, hex);
	TU_CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e0"
			     "46d39ccc7112cd0") == 0,
		 "sha256 of a million a: %s", hex);
	/* A file: both digests at once, the same as of its bytes. */
	char *dir = tu_tmpdir("digest");
	char *file = tu_strfmt("%s/a", dir);
	FILE *f = fopen(file, "w");
	TU_CHECK_FATAL(f && fwrite(mil, 1, 1000000, f) == 1000000,
		       "cannot write %s", file);
	fclose(f);
	memset(md, 0, sizeof(md));
	TU_CHECK(dlt_digest_file(file, md, sd) == 0, "cannot digest %s", file);
	dlt_digest_hex(md, DLT_MD5_LEN, hex);
	TU_CHECK(strcmp(hex, "7707d6ae4e027c70eea2a935c2296f21") == 0,
		 "md5 of a file of a million a: %s", hex);
	TU_CHECK(dlt_digest_file("/nonexistent/x", md, sd) == -1 &&
			 errno == ENOENT,
		 "a missing file");
	/* pip's RECORD: URL-safe base64 without padding. */
	dlt_sha256_init(&s);
	dlt_sha256_final(&s, sd);
	dlt_digest_b64url(sd, DLT_SHA256_LEN, hex);
	TU_CHECK(strcmp(hex, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU") ==
			 0,
		 "base64 of sha256(\"\"): %s", hex);
	const uint8_t two[] = {0xfb, 0xff};
	dlt_digest_b64url(two, 2, hex);
	TU_CHECK(strcmp(hex, "-_8") == 0, "base64 of fb ff: %s", hex);
	free(file);
	tu_rmtree(dir);
	free(dir);
	free(mil);
}

static void expect_verify(const char *path, const char *dpkg,
			  enum dlt_verdict want, const char *why)
{
	struct dlt_install in;
	struct dlt_verify v;
	char text[300];
	dlt_install_find(path, dpkg, &in);
	dlt_install_verify(path, dpkg, &in, &v);
	dlt_verify_text(&v, text, sizeof(text));
	TU_CHECK(v.verdict == want && (why == NULL || strstr(text, why)),
		 "%s (installed by %s %s): %s", path, dlt_installer_name(in.by),
		 in.package, text);
}

/* What a package manager recorded against the file on disk: a fake dpkg
 * database (two architectures' md5sums, a path the package names through
 * /lib), a pip RECORD, a conda-meta entry; and this machine's libc. */
static void test_unit_verify(void)
{
	char *tmp = tu_tmpdir("verify");
	char *info = tu_strfmt("%s/dpkg-info", tmp);
	mkdir(info, 0755);
	/* Files dpkg lists by their real path (the tmp directory's). */
	char *good = tu_strfmt("%s/usr/lib/libgood.so.1", tmp);
	char *bad = tu_strfmt("%s/usr/lib/libbad.so.1", tmp);
	char *link = tu_strfmt("%s/usr/lib/libgood.so", tmp);
	char *gone = tu_strfmt("%s/usr/lib/libunlisted.so.1", tmp);
	mkdirs_for(good);
	put_file(good, "abc");
	put_file(bad, "abc, changed");
	put_file(gone, "abc");
	TU_CHECK_FATAL(symlink("libgood.so.1", link) == 0, "symlink");
	char *list = tu_strfmt("%s/libgood1:amd64.list", info);
	char *l = tu_strfmt("%s\n%s\n%s\n", good, bad, gone);
	put_file(list, l);
	/* Another architecture's list of the same package, which does not
	 * name the file, and the one that does. */
	char *other = tu_strfmt("%s/libgood1:arm64.md5sums", info);
	put_file(other,
		 "00000000000000000000000000000000  usr/lib/aarch64/x\n");
	char *sums = tu_strfmt("%s/libgood1:amd64.md5sums", info);
	char *text = tu_strfmt("900150983cd24fb0d6963f7d28e17f72  %s\n"
			       "900150983cd24fb0d6963f7d28e17f72  %s\n",
			       good + 1, bad + 1);
	put_file(sums, text);
	/* A package without md5sums (every list is written before the
	 * first lookup: dpkg's lists are read once). */
	char *list2 = tu_strfmt("%s/libnosums2.list", info);
	char *nosums = tu_strfmt("%s/usr/lib/libnosums.so.2", tmp);
	put_file(nosums, "x");
	char *l2 = tu_strfmt("%s\n", nosums);
	put_file(list2, l2);
	expect_verify(good, info, DLT_VERIFY_SAME, "same");
	/* The loader's name for it, a symlink: the package has the file. */
	expect_verify(link, info, DLT_VERIFY_SAME, "same");
	expect_verify(bad, info, DLT_VERIFY_DIFFERS, "differs");
	expect_verify(gone, info, DLT_VERIFY_UNKNOWN,
		      "the md5sums of libgood1 do not list it");
	expect_verify(nosums, info, DLT_VERIFY_UNKNOWN,
		      "dpkg has no md5sums of libnosums2");

	/* pip: RECORD's base64 sha256 of the file, and a wrong one. */
	char *site = tu_strfmt("%s/venv/lib/python3.11/site-packages", tmp);
	char *rec = tu_strfmt("%s/nvidia_x-1.0.dist-info/RECORD", site);
	char *pgood = tu_strfmt("%s/nvidia/x/lib/libx.so.1", site);
	char *pbad = tu_strfmt("%s/nvidia/x/lib/liby.so.1", site);
	char *pnone = tu_strfmt("%s/nvidia/x/lib/libz.so.1", site);
	mkdirs_for(rec);
	mkdirs_for(pgood);
	put_file(pgood, "abc");
	put_file(pbad, "abd");
	put_file(pnone, "abc");
	put_file(rec, "nvidia/x/lib/libx.so.1,sha256=ungWv48Bz-pBQUDeXa4iI7A"
		      "DYaOWF3qctBD_YfIAFa0,3\n"
		      "nvidia/x/lib/liby.so.1,sha256=ungWv48Bz-pBQUDeXa4iI7A"
		      "DYaOWF3qctBD_YfIAFa0,3\n"
		      "nvidia/x/lib/libz.so.1,,\n"
		      "nvidia_x-1.0.dist-info/RECORD,,\n");
	expect_verify(pgood, NULL, DLT_VERIFY_SAME, "same");
	expect_verify(pbad, NULL, DLT_VERIFY_DIFFERS, "differs");
	expect_verify(pnone, NULL, DLT_VERIFY_UNKNOWN,
		      "its RECORD line has no digest");

	/* conda: paths_data's hex sha256 per file; an entry with files
	 * only. */
	char *json = tu_strfmt("%s/conda/conda-meta/libq-1.0-h0_0.json", tmp);
	char *cgood = tu_strfmt("%s/conda/lib/libq.so.1", tmp);
	char *cbad = tu_strfmt("%s/conda/lib/libr.so.1", tmp);
	char *cnone = tu_strfmt("%s/conda/lib/libs.so.1", tmp);
	mkdirs_for(json);
	mkdirs_for(cgood);
	put_file(cgood, "abc");
	put_file(cbad, "abcd");
	put_file(cnone, "abc");
	put_file(
		json,
		"{\n  \"files\": [\n    \"lib/libq.so.1\",\n    "
		"\"lib/libr.so.1\",\n    \"lib/libs.so.1\"\n  ],\n"
		"  \"name\": \"libq\",\n  \"paths_data\": {\n    \"paths\": [\n"
		"      {\n        \"_path\": \"lib/libq.so.1\",\n"
		"        \"path_type\": \"hardlink\",\n        \"sha256\": "
		"\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f2"
		"0015ad\",\n        \"size_in_bytes\": 3\n      },\n"
		"      {\n        \"_path\": \"lib/libr.so.1\",\n"
		"        \"sha256\": "
		"\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f2"
		"0015ad\"\n      }\n    ]\n  }\n}\n");
	expect_verify(cgood, NULL, DLT_VERIFY_SAME, "same");
	expect_verify(cbad, NULL, DLT_VERIFY_DIFFERS, "differs");
	expect_verify(cnone, NULL, DLT_VERIFY_UNKNOWN,
		      "its conda-meta entry gives no sha256 for it");
	/* No manager at all. */
	char *loose = tu_strfmt("%s/loose.so", tmp);
	put_file(loose, "");
	expect_verify(loose, info, DLT_VERIFY_UNKNOWN,
		      "no package manager installed it");

	/* This machine's C library, as Debian's libc6 installed it. */
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	if (access("/var/lib/dpkg/info/libc6:amd64.md5sums", R_OK) == 0 &&
	    access(libc, R_OK) == 0) {
		expect_verify(libc, "/var/lib/dpkg/info", DLT_VERIFY_SAME,
			      "same");
		expect_verify("/lib/x86_64-linux-gnu/libc.so.6",
			      "/var/lib/dpkg/info", DLT_VERIFY_SAME, "same");
	}
	char *all[] = {info, good,  bad,   link,   gone, list,	l,    other,
		       sums, text,  list2, nosums, l2,	 site,	rec,  pgood,
		       pbad, pnone, json,  cgood,  cbad, cnone, loose};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	tu_rmtree(tmp);
	free(tmp);
}

static const struct tu_test unit_tests[] = {
	{"backend plan fails for memory, another runs",
	 test_unit_backend_fallback},
	{"legacy: not the fastest successful candidate",
	 test_unit_legacy_not_fastest},
	{"cuDNN statuses decoded per major", test_unit_status_per_major},
	{"CUDNN_SUBLIB_SKEW from failed calls alone",
	 test_unit_skew_calls_only},
	{"driver table, driver API version, lmdeploy#1267", test_unit_driver},
	{"no end record, call in progress; export",
	 test_unit_incomplete_and_export},
	{"export: sub-microsecond times, hang markers, waits by name",
	 test_unit_export_times_and_hangs},
	{"diff text: what ran, what changed", test_unit_diff_text},
	{"exit status and --fail-on", test_unit_exit_status},
	{"every code listed and documented", test_unit_list_documented},
	{"roles keep their promises; named values", test_unit_roles},
	{"how a file was installed: pip, conda, dpkg, unknown",
	 test_unit_install},
	{"md5 and sha256: the RFC and FIPS vectors", test_unit_digests},
	{"is a file what its package installed: dpkg, pip, conda",
	 test_unit_verify},
	{NULL, NULL}};

static const struct tu_test loader_tests[] = {
	{"LIB_NOT_FOUND with the copy that was not searched",
	 test_lib_not_found},
	{"severity by consequence: a probe, a CPU fallback, DT_NEEDED",
	 test_severity_by_consequence},
	{"LIB_LOAD_FAILED: undefined symbol, not an ELF file",
	 test_lib_load_failed},
	{"probes of a library that loads: libs and summary say so",
	 test_probes_in_views},
	{"LIB_LOAD_FAILED: an older copy loaded first",
	 test_undefined_symbol_loaded_first},
	{"LIB_LOAD_FAILED: a missing symbol version, two copies",
	 test_missing_symbol_version},
	{"LIB_SHADOWED: LD_LIBRARY_PATH, and a copy already loaded",
	 test_lib_shadowed},
	{"DUPLICATE_LIBRARY (renamed copy) and DEEPBIND",
	 test_duplicate_and_deepbind},
	{"TRACE_INCOMPLETE: death by signal", test_trace_incomplete_signal},
	{NULL, NULL}};

static const struct tu_test fake_tests[] = {
	{"healthy fake runs: no warning or error", test_fakes_healthy},
	{"CUDA_DRIVER_INSUFFICIENT: old fake driver", test_fakes_driver},
	{"CUDNN_SUBLIB_SKEW: version check, two directories",
	 test_fakes_sublib_skew},
	{"a pip-shaped and a conda-shaped install tree",
	 test_fakes_install_trees},
	{"CUDNN_CUDART_MISMATCH across and within a major",
	 test_fakes_cudnn_cudart},
	{"API_ERROR: a sticky kernel failure", test_fakes_api_error},
	{"ALGO_SELECTION_FAILED and ALGO_FALLBACK", test_fakes_algo},
	{"diff of two fake cuDNN versions lists the changed problems",
	 test_fakes_diff},
	{"algos --json and export", test_fakes_algos_export},
	{NULL, NULL}};

static const struct tu_test real_tests[] = {
	{"version queries only: healthy", test_real_versions_healthy},
	{"real libcudart without a driver", test_real_no_driver},
	{NULL, NULL}};

static const struct tu_test torch_tests[] = {
	{"python3-torch conv and one-rank gloo: healthy", test_torch_healthy},
	{NULL, NULL}};

static const struct tu_test scale_tests[] = {
	{"256 traces, streaming", test_scale},
	{"many failed loads: linear, every one reported",
	 test_hostile_failed_loads},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"check_unit", unit_tests, NULL},
	{"check_loader", loader_tests, NULL},
	{"check_fakes", fake_tests, NULL},
	{"check_real", real_tests, real_skip},
	{"check_scale", scale_tests, scale_skip},
	{"check_torch", torch_tests, torch_skip},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	/* test_check --gen-hostile DIR N SHAPE: the trace of
	 * test_hostile_failed_loads, for scripts/bench.sh. */
	if (argc == 5 && strcmp(argv[1], "--gen-hostile") == 0)
		return gen_hostile(argv[2], (unsigned)atoi(argv[3]),
				   atoi(argv[4])) == 0
			       ? 0
			       : 1;
	return tu_main(argc, argv, suites);
}
