/* Tests of environments side by side: `dltrace-analyze env`, the
 * ENV_DIFFERS finding (the odd rank out) and `diff` of two runs or two
 * hosts, on real traces: the fake NCCL and cuDNN (tests/fakes), two hosts
 * of one job made with UTS namespaces, pip- and conda-shaped install
 * trees, a rank that loads its own copy of the real libgomp, and the real
 * CUDA libraries under ctypes where installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_paths.h"
#include "testutil.h"

#define ENV_TIMEOUT_MS 120000

/* `dltrace-analyze ARGS...`, its output parsed as JSON when json. */
static struct tu_json *analyze(struct tu_proc *p, const char *const args[],
			       int json)
{
	const char *argv[16] = {DLT_TEST_ANALYZE};
	size_t n = 1;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	tu_run(p, argv, NULL, ENV_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p->status) == 0, "%s %s: %s\n%s", args[0],
		 args[1], tu_status_str(p->status), p->err);
	if (!json)
		return NULL;
	char err[256];
	struct tu_json *j = tu_json_parse(p->out, err, sizeof(err));
	TU_CHECK(j != NULL, "%s --json: %s\n%s", args[0], err, p->out);
	return j;
}

/* The env item of one key (first job). */
static const struct tu_json *env_item(const struct tu_json *env,
				      const char *key)
{
	const struct tu_json *items =
		tu_jget(tu_jat(tu_jget(env, "jobs"), 0), "items");
	for (size_t i = 0; i < tu_jlen(items); i++)
		if (strcmp(tu_jstr(tu_jat(items, i), "key"), key) == 0)
			return tu_jat(items, i);
	return NULL;
}

/* The value of an env item that these units share ("rank 1 (node-b)"). */
static const struct tu_json *env_value_of(const struct tu_json *item,
					  const char *unit)
{
	const struct tu_json *vals = tu_jget(item, "values");
	for (size_t i = 0; i < tu_jlen(vals); i++) {
		const struct tu_json *u = tu_jget(tu_jat(vals, i), "units");
		for (size_t k = 0; k < tu_jlen(u); k++)
			if (strcmp(tu_jat(u, k)->str, unit) == 0)
				return tu_jat(vals, i);
	}
	return NULL;
}

/* ENV_DIFFERS findings of a check --json about key, or NULL. */
static const struct tu_json *differs(const struct tu_json *check,
				     const char *key)
{
	const struct tu_json *f = tu_jget(check, "findings");
	for (size_t i = 0; i < tu_jlen(f); i++) {
		const struct tu_json *x = tu_jat(f, i);
		const char *code = tu_jstr(x, "code");
		const char *k = tu_jstr(tu_jget(x, "evidence"), "key");
		if (code && strcmp(code, "ENV_DIFFERS") == 0 && k &&
		    strcmp(k, key) == 0)
			return x;
	}
	return NULL;
}

static size_t count_code(const struct tu_json *check, const char *code)
{
	size_t n = 0;
	const struct tu_json *f = tu_jget(check, "findings");
	for (size_t i = 0; i < tu_jlen(f); i++)
		n += strcmp(tu_jstr(tu_jat(f, i), "code"), code) == 0;
	return n;
}

/* ---- two hosts of one job ---------------------------------------------- */

static const char *unshare_skip(void)
{
	if (geteuid() != 0)
		return "UTS namespaces need root (unshare -u)";
	const char *cmd[] = {"/usr/bin/unshare", "-u", "/bin/true", NULL};
	struct tu_proc p;
	if (access(cmd[0], X_OK) != 0)
		return "/usr/bin/unshare is not installed";
	tu_run(&p, cmd, NULL, ENV_TIMEOUT_MS);
	int ok = tu_exit_code(p.status) == 0;
	tu_proc_free(&p);
	return ok ? NULL : "unshare -u failed: no UTS namespace here";
}

/* Starts rank r of a two-rank fx_nccl job under dltrace in a UTS
 * namespace whose host name is host; extra: more NAME=VALUE. */
static void start_rank(struct tu_proc *p, const char *dir, const char *idf,
		       int r, const char *host, const char *const extra[])
{
	char rank[16];
	snprintf(rank, sizeof(rank), "%d", r);
	const char *argv[] = {"/usr/bin/unshare",
			      "-u",
			      "/bin/sh",
			      "-c",
			      "hostname \"$1\" && shift && exec \"$@\"",
			      "sh",
			      host,
			      DLT_TEST_LAUNCHER,
			      "-o",
			      dir,
			      "--",
			      DLT_FAKE_FX_NCCL,
			      "--nranks",
			      "2",
			      "--rank",
			      rank,
			      "--id-file",
			      idf,
			      NULL};
	char *rankv = tu_strfmt("RANK=%d", r);
	const char *env[16] = {rankv, "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
			       "MASTER_PORT=29517", "OMP_PROC_BIND=close"};
	size_t n = 5;
	for (size_t i = 0; extra && extra[i] && n < 15; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	TU_CHECK_FATAL(tu_proc_start(p, argv, env) == 0, "start rank %d", r);
	free(rankv);
}

/* Runs the job: rank 0 on node-a, rank 1 on node-b with extra_b. */
static char *two_hosts(const char *tag, const char *const extra_b[])
{
	char *dir = tu_tmpdir(tag);
	char *idf = tu_strfmt("%s/id", dir);
	char *traces = tu_strfmt("%s/traces", dir);
	mkdir(traces, 0755);
	struct tu_proc a, b;
	start_rank(&a, traces, idf, 0, "node-a", NULL);
	start_rank(&b, traces, idf, 1, "node-b", extra_b);
	tu_proc_wait(&a, ENV_TIMEOUT_MS);
	tu_proc_wait(&b, ENV_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(a.status) == 0 && tu_exit_code(b.status) == 0,
		 "fx_nccl ranks: %s, %s\n%s\n%s", tu_status_str(a.status),
		 tu_status_str(b.status), a.err, b.err);
	tu_proc_free(&a);
	tu_proc_free(&b);
	free(idf);
	free(dir);
	return traces;
}

static void test_two_hosts_differ(void)
{
	const char *extra[] = {"FAKE_NCCL_VERSION=22703", "NCCL_IB_DISABLE=1",
			       NULL};
	char *dir = two_hosts("env-2hosts", extra);
	struct tu_proc p;

	const char *cargs[] = {"check", "--json", "--fail-on",
			       "never", dir,	  NULL};
	struct tu_json *c = analyze(&p, cargs, 1);
	tu_proc_free(&p);
	const struct tu_json *f = differs(c, "libnccl");
	TU_CHECK_FATAL(f != NULL, "no ENV_DIFFERS about libnccl");
	TU_CHECK(strcmp(tu_jstr(f, "severity"), "error") == 0,
		 "two NCCL versions: %s, not an error", tu_jstr(f, "severity"));
	const struct tu_json *ev = tu_jget(f, "evidence");
	const struct tu_json *odd = tu_jat(tu_jget(ev, "odd"), 0);
	const struct tu_json *maj = tu_jget(ev, "majority");
	TU_CHECK(tu_jstr(odd, "value") &&
			 strcmp(tu_jstr(odd, "value"), "2.27.3") == 0 &&
			 tu_jat(tu_jget(odd, "hosts"), 0) &&
			 strcmp(tu_jat(tu_jget(odd, "hosts"), 0)->str,
				"node-b") == 0 &&
			 tu_jat(tu_jget(odd, "ranks"), 0)->num == 1,
		 "odd rank: %s", tu_jmsg(f));
	TU_CHECK(tu_jstr(maj, "value") &&
			 strcmp(tu_jstr(maj, "value"), "2.28.9") == 0 &&
			 strcmp(tu_jat(tu_jget(maj, "hosts"), 0)->str,
				"node-a") == 0,
		 "majority: %s", tu_jmsg(f));
	TU_CHECK(tu_contains(tu_jmsg(f), "node-b") &&
			 tu_contains(tu_jmsg(f), "2.27.3") &&
			 tu_contains(tu_jmsg(f), "2.28.9"),
		 "message names neither host nor values: %s", tu_jmsg(f));
	f = differs(c, "NCCL_IB_DISABLE");
	TU_CHECK(f && strcmp(tu_jstr(f, "severity"), "warning") == 0 &&
			 tu_contains(tu_jmsg(f), "rank 1 (node-b)"),
		 "NCCL_IB_DISABLE on node-b only: %s",
		 f ? tu_jmsg(f) : "no finding");
	TU_CHECK(count_code(c, "ENV_DIFFERS") == 2,
		 "%zu ENV_DIFFERS, 2 expected (libnccl, NCCL_IB_DISABLE)",
		 count_code(c, "ENV_DIFFERS"));
	tu_json_free(c);

	const char *eargs[] = {"env", "--json", dir, NULL};
	struct tu_json *e = analyze(&p, eargs, 1);
	tu_proc_free(&p);
	const struct tu_json *it = env_item(e, "libnccl");
	const struct tu_json *va = env_value_of(it, "rank 0 (node-a)");
	const struct tu_json *vb = env_value_of(it, "rank 1 (node-b)");
	TU_CHECK(it && tu_jget(it, "same")->type == TU_JBOOL &&
			 !tu_jget(it, "same")->b && va && vb &&
			 strcmp(tu_jstr(va, "value"), "2.28.9") == 0 &&
			 strcmp(tu_jstr(vb, "value"), "2.27.3") == 0,
		 "env: libnccl per host wrong\n%s", p.out);
	it = env_item(e, "NCCL_IB_DISABLE");
	vb = env_value_of(it, "rank 1 (node-b)");
	va = env_value_of(it, "rank 0 (node-a)");
	TU_CHECK(vb && va && strcmp(tu_jstr(vb, "value"), "1") == 0 &&
			 tu_jget(va, "value")->type == TU_JNULL,
		 "env: NCCL_IB_DISABLE set on node-b only");
	it = env_item(e, "glibc");
	TU_CHECK(it && tu_jget(it, "same")->b &&
			 strcmp(tu_jstr(tu_jat(tu_jget(it, "values"), 0),
					"value"),
				gnu_get_libc_version()) == 0,
		 "env: glibc not %s on both hosts", gnu_get_libc_version());
	it = env_item(e, "OMP_PROC_BIND");
	TU_CHECK(it && tu_jget(it, "same")->b &&
			 strcmp(tu_jstr(tu_jat(tu_jget(it, "values"), 0),
					"value"),
				"close") == 0,
		 "env: OMP_PROC_BIND=close on both hosts not shown once");
	tu_json_free(e);
	const char *targs[] = {"env", dir, NULL};
	analyze(&p, targs, 0);
	TU_CHECK(tu_contains(p.out, "2 ranks on 2 hosts") &&
			 tu_contains(p.out, "rank 1 (node-b): 2.27.3") &&
			 tu_contains(p.out, "rank 0 (node-a): 2.28.9"),
		 "env text:\n%s", p.out);
	tu_proc_free(&p);

	const char *dargs[] = {"diff",	 "--json",   "--host-a",
			       "node-a", "--host-b", "node-b",
			       dir,	 dir,	     NULL};
	struct tu_json *d = analyze(&p, dargs, 1);
	tu_proc_free(&p);
	const struct tu_json *ch = tu_jget(d, "environment");
	int nccl = 0, var = 0;
	for (size_t i = 0; i < tu_jlen(ch); i++) {
		const struct tu_json *x = tu_jat(ch, i);
		if (strcmp(tu_jstr(x, "key"), "libnccl") == 0)
			nccl = i == 0 &&
			       strcmp(tu_jstr(x, "what_changed"),
				      "version 2.28.9 -> 2.27.3") == 0;
		if (strcmp(tu_jstr(x, "key"), "NCCL_IB_DISABLE") == 0)
			var = strcmp(tu_jstr(x, "what_changed"),
				     "set only in B") == 0;
	}
	TU_CHECK(nccl && var,
		 "diff --host-a node-a --host-b node-b: libnccl first "
		 "(%d), NCCL_IB_DISABLE set only in B (%d)",
		 nccl, var);
	tu_json_free(d);
	tu_rmtree(dir);
	free(dir);
}

/* An NCCL network plugin on one host only: an error (ranks with
 * different transports cannot connect).  The plugin is a stand-in (a
 * fixture library under the plugin's name), preloaded on node-b. */
static void test_two_hosts_plugin(void)
{
	char *pdir = tu_tmpdir("env-plugin");
	char *plugin = tu_strfmt("%s/libnccl-net.so", pdir);
	char *from = tu_fx("check/prov1/libdlt_prov.so");
	TU_CHECK_FATAL(tu_copy_file(from, plugin) == 0, "copy %s", from);
	char *pre = tu_strfmt("LD_PRELOAD=%s", plugin);
	const char *extra[] = {pre, NULL};
	char *dir = two_hosts("env-2plugin", extra);
	struct tu_json *c = tu_check_json(dir);
	const struct tu_json *f = differs(c, "libnccl-net");
	TU_CHECK_FATAL(f != NULL, "no ENV_DIFFERS about libnccl-net");
	const struct tu_json *ev = tu_jget(f, "evidence");
	const struct tu_json *odd = tu_jat(tu_jget(ev, "odd"), 0);
	TU_CHECK(strcmp(tu_jstr(f, "severity"), "error") == 0 &&
			 strcmp(tu_jstr(ev, "kind"), "NCCL plugins") == 0 &&
			 tu_jget(tu_jget(ev, "majority"), "value")->type ==
				 TU_JNULL &&
			 tu_jstr(odd, "path") &&
			 strcmp(tu_jstr(odd, "path"), plugin) == 0 &&
			 strcmp(tu_jat(tu_jget(odd, "hosts"), 0)->str,
				"node-b") == 0,
		 "plugin on node-b only: %s %s", tu_jstr(f, "severity"),
		 tu_jmsg(f));
	tu_json_free(c);
	tu_rmtree(dir);
	tu_rmtree(pdir);
	free(dir);
	free(pdir);
	free(plugin);
	free(from);
	free(pre);
}

/* Two hosts with the same software: nothing to say. */
static void test_two_hosts_same(void)
{
	char *dir = two_hosts("env-2same", NULL);
	tu_expect_healthy("two hosts, the same software", dir);
	struct tu_proc p;
	const char *targs[] = {"env", dir, NULL};
	analyze(&p, targs, 0);
	TU_CHECK(tu_contains(p.out, "every rank has the same values") &&
			 !tu_contains(p.out, "DIFFERS"),
		 "env text:\n%s", p.out);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- diff: another cuDNN on LD_LIBRARY_PATH ------------------------------ */

/* A directory holding a copy of the fake cuDNN 9 (its front library and
 * the sub-libraries it loads from its own directory): the same bytes
 * (other_build 0), or with another build of the front library. */
static char *cudnn_copy(const char *tag, int other_build)
{
	static const char *const libs[] = {
		"libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9",
		"libcudnn_cnn.so.9"};
	char *dir = tu_tmpdir(tag);
	for (size_t i = 0; i < 4; i++) {
		char *from = tu_strfmt("%s/%s", DLT_FAKE_CUDNN9_DIR, libs[i]);
		char *to = tu_strfmt("%s/%s", dir, libs[i]);
		int rc = other_build && i == 0 ? tu_copy_other_build(from, to)
					       : tu_copy_file(from, to);
		TU_CHECK_FATAL(rc == 0, "copy of %s to %s", from, to);
		free(from);
		free(to);
	}
	return dir;
}

static char *run_cudnn(const char *tag, const char *libpath)
{
	char *dir = tu_tmpdir(tag);
	char *ld = tu_strfmt("LD_LIBRARY_PATH=%s%s" DLT_FAKE_CUDA_DIR,
			     libpath ? libpath : "", libpath ? ":" : "");
	const char *cmd[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	const char *env[] = {ld, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, env, ENV_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "fx_cudnn: %s\n%s",
		 tu_status_str(p.status), p.err);
	tu_proc_free(&p);
	free(ld);
	return dir;
}

/* The diff's environment change about key, or NULL. */
static const struct tu_json *diff_change(const struct tu_json *d,
					 const char *key)
{
	const struct tu_json *ch = tu_jget(d, "environment");
	for (size_t i = 0; i < tu_jlen(ch); i++)
		if (strcmp(tu_jstr(tu_jat(ch, i), "key"), key) == 0)
			return tu_jat(ch, i);
	return NULL;
}

static void test_diff_cudnn_copy(void)
{
	char *other = cudnn_copy("env-cudnn-other", 1);
	char *same = cudnn_copy("env-cudnn-same", 0);
	char *ra = run_cudnn("env-run-a", NULL);
	char *rb = run_cudnn("env-run-b", other);
	char *rc = run_cudnn("env-run-c", same);
	struct tu_proc p;

	const char *ab[] = {"diff", "--json", ra, rb, NULL};
	struct tu_json *d = analyze(&p, ab, 1);
	tu_proc_free(&p);
	const struct tu_json *c = diff_change(d, "libcudnn");
	const struct tu_json *ch = tu_jget(d, "environment");
	TU_CHECK_FATAL(c != NULL, "diff: no change of libcudnn");
	/* In order of consequence: the GPU libraries before the rest. */
	size_t first_other = tu_jlen(ch), last_gpu = 0;
	for (size_t i = 0; i < tu_jlen(ch); i++) {
		int gpu = strcmp(tu_jstr(tu_jat(ch, i), "section"),
				 "gpu_library") == 0;
		if (gpu)
			last_gpu = i;
		else if (first_other == tu_jlen(ch))
			first_other = i;
	}
	TU_CHECK(last_gpu < first_other,
		 "diff: a GPU library change after another section's");
	TU_CHECK(tu_contains(tu_jstr(c, "what_changed"), "another build"),
		 "libcudnn: %s", tu_jstr(c, "what_changed"));
	TU_CHECK(strcmp(tu_jstr(tu_jget(c, "a"), "found_via"), "RUNPATH") ==
				 0 &&
			 strcmp(tu_jstr(tu_jget(c, "b"), "found_via"),
				"LD_LIBRARY_PATH") == 0 &&
			 tu_contains(tu_jstr(tu_jget(c, "b"), "path"), other),
		 "libcudnn: where each side got it: %s, %s",
		 tu_jstr(tu_jget(c, "a"), "found_via"),
		 tu_jstr(tu_jget(c, "b"), "found_via"));
	c = diff_change(d, "LD_LIBRARY_PATH");
	TU_CHECK(c && tu_contains(tu_jstr(tu_jget(c, "b"), "value"), other),
		 "diff: LD_LIBRARY_PATH change not shown");
	/* The convolutions are still compared (the same program). */
	TU_CHECK(tu_jlen(tu_jget(d, "changes")) == 0 &&
			 tu_jlen(tu_jget(d, "unchanged")) > 0,
		 "diff: convolutions of one program differ");
	tu_json_free(d);

	const char *ac[] = {"diff", "--json", ra, rc, NULL};
	d = analyze(&p, ac, 1);
	tu_proc_free(&p);
	c = diff_change(d, "libcudnn");
	TU_CHECK(c && strcmp(tu_jstr(c, "what_changed"),
			     "the same build, another place") == 0,
		 "identical copy: %s", c ? tu_jstr(c, "what_changed") : "-");
	tu_json_free(d);
	const char *text[] = {"diff", ra, rc, NULL};
	analyze(&p, text, 0);
	TU_CHECK(tu_contains(p.out, "libcudnn: the same build, another place"),
		 "diff text:\n%s", p.out);
	tu_proc_free(&p);

	/* An identical copy first on LD_LIBRARY_PATH is not skew. */
	struct tu_json *j = tu_check_json(rc);
	TU_CHECK(j && count_code(j, "CUDNN_SUBLIB_SKEW") == 0,
		 "an identical copy of libcudnn.so.9 called skew");
	tu_json_free(j);

	const char *const dirs[] = {other, same, ra, rb, rc};
	for (size_t i = 0; i < 5; i++) {
		tu_rmtree(dirs[i]);
		free((void *)dirs[i]);
	}
}

/* ---- how it was installed -------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	TU_CHECK_FATAL(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* A virtualenv's site-packages with the nvidia-cudnn-cu12 wheel's cuDNN
 * (the fakes) and a conda prefix with NCCL (the fake), each with the
 * lists their installer writes: env names who installed each. */
static void test_install_trees(void)
{
	char *root = tu_tmpdir("env-trees");
	char *sp = tu_strfmt("%s/venv/lib/python3.11/site-packages", root);
	char *lib = tu_strfmt("%s/nvidia/cudnn/lib", sp);
	char *mk = tu_strfmt("mkdir -p '%s' '%s/nvidia_cudnn_cu12-9.19.0.dist-"
			     "info' '%s/conda/lib' '%s/conda/conda-meta'",
			     lib, sp, root, root);
	TU_CHECK_FATAL(system(mk) == 0, "%s", mk);
	static const char *const subs[] = {
		"libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9",
		"libcudnn_cnn.so.9"};
	char *record = tu_strfmt("%s", "");
	for (size_t i = 0; i < 4; i++) {
		char *from = tu_strfmt("%s/%s", DLT_FAKE_CUDNN9_DIR, subs[i]);
		char *to = tu_strfmt("%s/%s", lib, subs[i]);
		TU_CHECK_FATAL(tu_copy_file(from, to) == 0, "copy %s", from);
		char *r = tu_strfmt("%snvidia/cudnn/lib/%s,sha256=x,1\n",
				    record, subs[i]);
		free(record);
		record = r;
		free(from);
		free(to);
	}
	char *rec =
		tu_strfmt("%s/nvidia_cudnn_cu12-9.19.0.dist-info/RECORD", sp);
	write_file(rec, record);
	char *meta =
		tu_strfmt("%s/nvidia_cudnn_cu12-9.19.0.dist-info/METADATA", sp);
	write_file(meta, "Metadata-Version: 2.1\nName: nvidia-cudnn-cu12\n");
	char *nccl = tu_strfmt("%s/conda/lib/libnccl.so.2", root);
	TU_CHECK_FATAL(tu_copy_file(DLT_FAKE_NCCL_DIR "/libnccl.so.2", nccl) ==
			       0,
		       "copy libnccl.so.2");
	char *cmeta = tu_strfmt(
		"%s/conda/conda-meta/nccl-2.28.9.1-h6103f9b_0.json", root);
	write_file(cmeta,
		   "{\n  \"files\": [\n    \"lib/libnccl.so.2\"\n  ],\n"
		   "  \"name\": \"nccl\",\n  \"version\": \"2.28.9.1\"\n}\n");

	char *dir = tu_tmpdir("env-trees-run");
	char *ld =
		tu_strfmt("LD_LIBRARY_PATH=%s:%s/conda/lib:" DLT_FAKE_CUDA_DIR,
			  lib, root);
	const char *env[] = {ld, NULL};
	const char *c1[] = {DLT_FAKE_FX_CUDNN, "legacy9", NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, c1, env, ENV_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "fx_cudnn: %s",
		 tu_status_str(p.status));
	tu_proc_free(&p);
	char *idf = tu_strfmt("%s/id", root);
	const char *c3[] = {DLT_FAKE_FX_NCCL, "--nranks", "1", "--rank", "0",
			    "--id-file",      idf,	  NULL};
	tu_run_traced(&p, dir, c3, env, ENV_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "fx_nccl: %s\n%s",
		 tu_status_str(p.status), p.err);
	tu_proc_free(&p);

	const char *eargs[] = {"env", "--json", dir, NULL};
	struct tu_json *e = analyze(&p, eargs, 1);
	tu_proc_free(&p);
	const struct tu_json *it = env_item(e, "libcudnn");
	const struct tu_json *v = tu_jat(tu_jget(it, "values"), 0);
	TU_CHECK(v && tu_jstr(v, "installed_by") &&
			 strcmp(tu_jstr(v, "installed_by"),
				"pip nvidia-cudnn-cu12") == 0 &&
			 tu_contains(tu_jstr(v, "path"), lib),
		 "env: libcudnn installed_by %s",
		 v ? tu_jstr(v, "installed_by") : "-");
	it = env_item(e, "libnccl");
	const struct tu_json *vals = tu_jget(it, "values");
	int conda = 0;
	for (size_t i = 0; i < tu_jlen(vals); i++) {
		const char *by = tu_jstr(tu_jat(vals, i), "installed_by");
		conda |= by && strcmp(by, "conda nccl") == 0;
	}
	TU_CHECK(conda, "env: libnccl not installed_by conda nccl\n%s", p.out);
	tu_json_free(e);

	tu_rmtree(dir);
	tu_rmtree(root);
	free(dir);
	free(root);
	free(sp);
	free(lib);
	free(mk);
	free(record);
	free(rec);
	free(meta);
	free(nccl);
	free(cmeta);
	free(ld);
	free(idf);
}

/* ---- a rank with its own libgomp ---------------------------------------- */

/* The real libgomp as the loader finds it here: the path it opens and the
 * file behind it (libgomp.so.1 -> libgomp.so.1.0.0), and the version that
 * file's name says ("1.0.0"). */
static char gomp_path[PATH_MAX], gomp_file[PATH_MAX], gomp_version[64];

static const char *gomp_skip(void)
{
	void *h = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_LOCAL);
	struct link_map *lm = NULL;
	if (h == NULL)
		return "libgomp.so.1 (libgomp1) is not installed";
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL ||
	    snprintf(gomp_path, sizeof(gomp_path), "%s", lm->l_name) <= 0 ||
	    realpath(gomp_path, gomp_file) == NULL) {
		dlclose(h);
		return "the loader does not say where libgomp.so.1 is";
	}
	dlclose(h);
	const char *so = strstr(strrchr(gomp_file, '/'), ".so.");
	snprintf(gomp_version, sizeof(gomp_version), "%s", so ? so + 4 : "");
	/* A copy named libgomp.so.1 says "1"; a system file named so too
	 * gives no second spelling to tell apart. */
	if (strchr(gomp_version, '.') == NULL)
		return "libgomp's file is named by its soname here: no longer "
		       "version in a name to compare with";
	return NULL;
}

/* A directory with a copy of libgomp named by its soname, the way one is
 * put on LD_LIBRARY_PATH: the same bytes, or another build. */
static char *gomp_copy(const char *root, const char *name, int other_build)
{
	char *dir = tu_strfmt("%s/%s", root, name);
	char *to = tu_strfmt("%s/libgomp.so.1", dir);
	TU_CHECK_FATAL(mkdir(dir, 0755) == 0, "mkdir %s", dir);
	int rc = other_build ? tu_copy_other_build(gomp_file, to)
			     : tu_copy_file(gomp_file, to);
	TU_CHECK_FATAL(rc == 0, "copy of %s to %s", gomp_file, to);
	free(to);
	return dir;
}

/* A program that loads libgomp (fx_loader dlopens it by its soname),
 * traced into dir: rank r (-1: no rank), with libpath first on
 * LD_LIBRARY_PATH (NULL: none). */
static void gomp_run(const char *dir, int r, const char *libpath)
{
	char *rank = tu_strfmt("RANK=%d", r);
	char *ld = libpath ? tu_strfmt("LD_LIBRARY_PATH=%s", libpath) : NULL;
	const char *env[4] = {NULL};
	size_t n = 0;
	if (r >= 0) {
		env[n++] = rank;
		env[n++] = "WORLD_SIZE=2";
	}
	if (ld)
		env[n++] = ld;
	char *fx = tu_fx("fx_loader");
	const char *cmd[] = {fx, "direct", "libgomp.so.1", NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, env, ENV_TIMEOUT_MS);
	/* fx_loader then looks for a symbol libgomp has not: exit 1. */
	char *got =
		tu_strfmt("main: got %s/libgomp.so.1", libpath ? libpath : "");
	TU_CHECK(libpath ? tu_contains(p.out, got)
			 : tu_contains(p.out, "main: got /"),
		 "fx_loader did not load %s: %s\n%s", got, p.out, p.err);
	tu_proc_free(&p);
	free(got);
	free(fx);
	free(rank);
	free(ld);
}

/* Rank 0 with the system's libgomp, rank 1 with a copy found through
 * LD_LIBRARY_PATH. */
static char *gomp_job(const char *root, const char *name, const char *copy)
{
	char *dir = tu_strfmt("%s/%s", root, name);
	TU_CHECK_FATAL(mkdir(dir, 0755) == 0, "mkdir %s", dir);
	gomp_run(dir, 0, NULL);
	gomp_run(dir, 1, copy);
	return dir;
}

/* The value of an env item that rank r has (whatever its host). */
static const struct tu_json *env_value_of_rank(const struct tu_json *item,
					       int r)
{
	char want[32];
	snprintf(want, sizeof(want), "rank %d (", r);
	const struct tu_json *vals = tu_jget(item, "values");
	for (size_t i = 0; i < tu_jlen(vals); i++) {
		const struct tu_json *u = tu_jget(tu_jat(vals, i), "units");
		for (size_t k = 0; k < tu_jlen(u); k++)
			if (strncmp(tu_jat(u, k)->str, want, strlen(want)) == 0)
				return tu_jat(vals, i);
	}
	return NULL;
}

/* The line of text that starts with prefix, as a copy, or NULL. */
static char *line_of(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			return tu_strfmt("%.*s", (int)n, l);
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p;
	     p = strstr(p + strlen(needle), needle))
		n++;
	return n;
}

static int str_is(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* env of a two-rank job whose rank 1 loads a copy of libgomp through
 * LD_LIBRARY_PATH: the file each rank loaded, first and in one line, the
 * variable beside it, and one version for one build (the copy's name,
 * libgomp.so.1, says only "1"). */
static void test_gomp_env(void)
{
	char *root = tu_tmpdir("env-gomp");
	char *same = gomp_copy(root, "same", 0);
	char *other = gomp_copy(root, "other", 1);
	char *job = gomp_job(root, "job", same);
	char *job2 = gomp_job(root, "job2", other);
	char *copy = tu_strfmt("%s/libgomp.so.1", same);
	struct tu_proc p;

	const char *eargs[] = {"env", "--json", job, NULL};
	struct tu_json *e = analyze(&p, eargs, 1);
	tu_proc_free(&p);
	const struct tu_json *it = env_item(e, "libgomp");
	TU_CHECK_FATAL(it != NULL, "env --json: no item about libgomp");
	const struct tu_json *v0 = env_value_of_rank(it, 0);
	const struct tu_json *v1 = env_value_of_rank(it, 1);
	TU_CHECK_FATAL(v0 && v1 && v0 != v1,
		       "env --json: libgomp not told apart by rank");
	char real0[PATH_MAX];
	TU_CHECK(str_is(tu_jstr(it, "kind"), "library") &&
			 !tu_jget(it, "same")->b,
		 "env --json: libgomp is kind %s, same %d", tu_jstr(it, "kind"),
		 tu_jget(it, "same")->b);
	TU_CHECK(str_is(tu_jstr(v1, "path"), copy) &&
			 str_is(tu_jstr(v1, "found_via"), "LD_LIBRARY_PATH") &&
			 str_is(tu_jstr(v1, "found_via_value"), same),
		 "env --json: rank 1's libgomp %s via %s (%s)",
		 tu_jstr(v1, "path"), tu_jstr(v1, "found_via"),
		 tu_jstr(v1, "found_via_value"));
	char *path0 = tu_strfmt("%s", tu_jstr(v0, "path"));
	TU_CHECK(tu_jstr(v0, "path") && realpath(tu_jstr(v0, "path"), real0) &&
			 strcmp(real0, gomp_file) == 0,
		 "env --json: rank 0's libgomp %s, not %s", tu_jstr(v0, "path"),
		 gomp_file);
	/* One build, one version: the copy's name says "1" only. */
	TU_CHECK(str_is(tu_jstr(v0, "value"), gomp_version) &&
			 str_is(tu_jstr(v1, "value"), gomp_version) &&
			 str_is(tu_jstr(v0, "identity"),
				tu_jstr(v1, "identity")),
		 "env --json: one build of libgomp as %s and %s (%s)",
		 tu_jstr(v0, "value"), tu_jstr(v1, "value"), gomp_version);
	const char *h = tu_jstr(it, "headline");
	TU_CHECK(h && strlen(h) <= 160 && tu_contains(h, "rank 1") &&
			 tu_contains(h, "LD_LIBRARY_PATH") &&
			 tu_contains(h, "the same build"),
		 "env --json: headline %s", h ? h : "(none)");
	tu_json_free(e);

	const char *targs[] = {"env", job, NULL};
	analyze(&p, targs, 0);
	char *head = line_of(p.out, "  libgomp: ");
	char *l0 = tu_strfmt("): %s  %s", gomp_version, path0);
	char *l1 = tu_strfmt("): %s  %s", gomp_version, copy);
	const char *libs = strstr(p.out, "libraries that differ between ranks");
	const char *envs = strstr(p.out, "\nenvironment:");
	TU_CHECK(libs && envs && libs < envs,
		 "env: the files that differ do not come first:\n%s", p.out);
	/* The line names rank 1's file where it fits; the lines below it
	 * name both in any case. */
	TU_CHECK(head && strlen(head) <= 160 && tu_contains(head, "rank 1") &&
			 tu_contains(head, "LD_LIBRARY_PATH"),
		 "env: libgomp's line (at most 160 characters): %s\n%s",
		 head ? head : "(none)", p.out);
	TU_CHECK(tu_contains(p.out, l1) && tu_contains(p.out, l0),
		 "env: each rank's file and version (%s):\n%s", gomp_version,
		 p.out);
	char *vline = line_of(p.out, "    LD_LIBRARY_PATH:");
	TU_CHECK(
		vline && tu_contains(vline, same) &&
			tu_contains(vline, "(unset)"),
		"env: the variable that found rank 1's copy not beside it:\n%s",
		p.out);
	char *one = tu_strfmt("): 1  %s", copy);
	TU_CHECK(!tu_contains(p.out, one),
		 "env: the copy's version in its soname's form:\n%s", p.out);
	free(one);
	free(vline);
	free(path0);
	free(l0);
	free(l1);
	free(head);
	tu_proc_free(&p);

	/* Another build: two versions not known to differ, each with its
	 * source, and "another build" said. */
	const char *t2[] = {"env", job2, NULL};
	analyze(&p, t2, 0);
	head = line_of(p.out, "  libgomp: ");
	TU_CHECK(head && strlen(head) <= 160 &&
			 tu_contains(head, "another build") &&
			 tu_contains(p.out, "version from its soname only") &&
			 tu_contains(p.out, "version from its file name"),
		 "env: another build of libgomp on rank 1:\n%s", p.out);
	free(head);
	tu_proc_free(&p);

	tu_rmtree(root);
	free(copy);
	free(job2);
	free(job);
	free(other);
	free(same);
	free(root);
}

/* diff of two runs (one with the copy) and of two jobs (rank 1 with the
 * copy in B only): one version form, the variable beside the file, rank 1
 * named, and no section without something to say in a CPU-only pair. */
static void test_gomp_diff(void)
{
	char *root = tu_tmpdir("env-gomp-diff");
	char *same = gomp_copy(root, "same", 0);
	char *copy = tu_strfmt("%s/libgomp.so.1", same);
	char *ra = tu_strfmt("%s/run-a", root),
	     *rb = tu_strfmt("%s/run-b", root);
	TU_CHECK_FATAL(mkdir(ra, 0755) == 0 && mkdir(rb, 0755) == 0, "mkdir");
	gomp_run(ra, -1, NULL);
	gomp_run(rb, -1, same);
	struct tu_proc p;

	const char *jargs[] = {"diff", "--json", ra, rb, NULL};
	struct tu_json *d = analyze(&p, jargs, 1);
	tu_proc_free(&p);
	const struct tu_json *c = diff_change(d, "libgomp");
	TU_CHECK_FATAL(c != NULL, "diff --json: no change of libgomp");
	const struct tu_json *a = tu_jget(c, "a"), *b = tu_jget(c, "b");
	TU_CHECK(str_is(tu_jstr(c, "section"), "library") &&
			 str_is(tu_jstr(c, "what_changed"),
				"the same build, another place"),
		 "diff --json: libgomp %s: %s", tu_jstr(c, "section"),
		 tu_jstr(c, "what_changed"));
	TU_CHECK(str_is(tu_jstr(a, "value"), gomp_version) &&
			 str_is(tu_jstr(b, "value"), gomp_version),
		 "diff --json: one build of libgomp as %s and %s (%s)",
		 tu_jstr(a, "value"), tu_jstr(b, "value"), gomp_version);
	TU_CHECK(str_is(tu_jstr(b, "path"), copy) &&
			 str_is(tu_jstr(b, "found_via_value"), same),
		 "diff --json: B's libgomp %s found via LD_LIBRARY_PATH=%s",
		 tu_jstr(b, "path"), tu_jstr(b, "found_via_value"));
	tu_json_free(d);

	const char *targs[] = {"diff", ra, rb, NULL};
	analyze(&p, targs, 0);
	char *la = tu_strfmt("    A: %s  ", gomp_version);
	char *lb = tu_strfmt("    B: %s  %s (LD_LIBRARY_PATH=%s)", gomp_version,
			     copy, same);
	TU_CHECK(count_of(p.out, "no cuDNN in either run") == 1 &&
			 !tu_contains(p.out, "cuDNN ?"),
		 "diff: no cuDNN not said once:\n%s", p.out);
	/* No heading over nothing: no count of zero, no empty GPU or
	 * convolution section. */
	static const char *const empty[] = {
		"(0)",		"(0 differ",   "GPU libraries", "NCCL plugins",
		"convolutions", "same choice", "\nonly in A",	"\nonly in B"};
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
		TU_CHECK(!tu_contains(p.out, empty[i]),
			 "diff: an empty section (%s):\n%s", empty[i], p.out);
	TU_CHECK(tu_contains(p.out, "other libraries whose file changed (1 "
				    "differs):") &&
			 tu_contains(p.out, la) && tu_contains(p.out, lb),
		 "diff: libgomp's two files in one version form:\n%s", p.out);
	free(la);
	free(lb);
	tu_proc_free(&p);

	/* Two jobs: rank 1 loads the copy in B only.  B's ranks disagree:
	 * each said, rank 1 named. */
	char *ja = tu_strfmt("%s/job-a", root);
	TU_CHECK_FATAL(mkdir(ja, 0755) == 0, "mkdir %s", ja);
	gomp_run(ja, 0, NULL);
	gomp_run(ja, 1, NULL);
	char *jb = gomp_job(root, "job-b", same);
	const char *j2[] = {"diff", "--json", ja, jb, NULL};
	d = analyze(&p, j2, 1);
	tu_proc_free(&p);
	c = diff_change(d, "libgomp");
	TU_CHECK_FATAL(c != NULL, "diff --json of two jobs: no change of "
				  "libgomp (rank 1 of B loaded a copy)");
	const struct tu_json *bu = tu_jget(c, "b_units");
	int named = 0;
	for (size_t i = 0; i < tu_jlen(bu); i++) {
		const struct tu_json *g = tu_jat(bu, i);
		const struct tu_json *u = tu_jget(g, "units");
		named |= str_is(tu_jstr(g, "path"), copy) && tu_jlen(u) == 1 &&
			 strncmp(tu_jat(u, 0)->str, "rank 1 (", 8) == 0;
	}
	TU_CHECK(
		tu_jlen(bu) == 2 && named && tu_jget(c, "a_units") == NULL &&
			tu_contains(tu_jstr(c, "what_changed"),
				    "in B, rank 1 (") &&
			tu_contains(tu_jstr(c, "what_changed"), "another file"),
		"diff --json: B's ranks: %zu groups, rank 1's copy named %d, "
		"%s",
		tu_jlen(bu), named, tu_jstr(c, "what_changed"));
	tu_json_free(d);
	const char *t2[] = {"diff", ja, jb, NULL};
	analyze(&p, t2, 0);
	char *r1 = line_of(p.out, "    B rank 1 (");
	char *r0 = line_of(p.out, "    B rank 0 (");
	TU_CHECK(
		r1 && r0 && tu_contains(r1, copy) &&
			tu_contains(r0, gomp_version) && !tu_contains(r0, root),
		"diff: B's ranks one by one, rank 1 with %s:\n%s", copy, p.out);
	free(r1);
	free(r0);
	tu_proc_free(&p);

	tu_rmtree(root);
	free(ja);
	free(jb);
	free(ra);
	free(rb);
	free(copy);
	free(same);
	free(root);
}

/* ---- the real libraries -------------------------------------------------- */

#define REAL_CUDA "/usr/local/cuda/lib64"

static const char *real_skip(void)
{
	static const char *const need[] = {REAL_CUDA "/libcudart.so.13",
					   REAL_CUDA "/libcudnn.so.9",
					   REAL_CUDA "/libnccl.so.2"};
	for (size_t i = 0; i < 3; i++)
		if (access(need[i], R_OK) != 0)
			return "the CUDA runtime 13, cuDNN 9 or NCCL are not "
			       "installed in " REAL_CUDA;
	if (access(tu_python(), X_OK) != 0)
		return "no Python to load them with ctypes";
	return NULL;
}

/* cuDNN, cudart and NCCL loaded through ctypes (as a Python framework
 * does): env, libs and summary show the versions they reported. */
static void test_real_ctypes(void)
{
	char *dir = tu_tmpdir("env-real");
	const char *script =
		"import ctypes, platform\n"
		"v = ctypes.c_int()\n"
		"rt = ctypes.CDLL('" REAL_CUDA "/libcudart.so.13')\n"
		"rt.cudaRuntimeGetVersion(ctypes.byref(v))\n"
		"print('cudart %d.%d' % (v.value // 1000, v.value % 1000 // "
		"10))\n"
		"dn = ctypes.CDLL('" REAL_CUDA "/libcudnn.so.9')\n"
		"d = dn.cudnnGetVersion()\n"
		"print('cudnn %d.%d.%d' % (d // 10000, d % 10000 // 100, d % "
		"100))\n"
		"nc = ctypes.CDLL('" REAL_CUDA "/libnccl.so.2')\n"
		"nc.ncclGetVersion(ctypes.byref(v))\n"
		"n = v.value\n"
		"print('nccl %d.%d.%d' % (n // 10000, n % 10000 // 100, n % "
		"100))\n"
		"print('python ' + platform.python_version())\n"
		"import os, sys\n"
		"sys.stdout.flush()\n"
		"pid = os.fork()\n"
		"if pid == 0:\n"
		"    import json\n"
		"    os._exit(0)\n"
		"os.waitpid(pid, 0)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, ENV_TIMEOUT_MS);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 0, "python: %s\n%s",
		       tu_status_str(p.status), p.err);
	char cudart[32], cudnn[32], nccl[32], python[32];
	TU_CHECK_FATAL(sscanf(p.out,
			      "cudart %31s cudnn %31s nccl %31s python "
			      "%31s",
			      cudart, cudnn, nccl, python) == 4,
		       "script output: %s", p.out);
	tu_proc_free(&p);

	const char *eargs[] = {"env", "--json", dir, NULL};
	struct tu_json *e = analyze(&p, eargs, 1);
	static const char *const keys[] = {"libcudart", "libcudnn", "libnccl",
					   "python"};
	const char *want[] = {cudart, cudnn, nccl, python};
	/* The forked child shares its parent's libraries without loading
	 * them: it is no second unit lacking them. */
	const struct tu_json *job = tu_jat(tu_jget(e, "jobs"), 0);
	TU_CHECK(tu_jget(job, "processes")->num == 2 &&
			 tu_jlen(tu_jget(job, "units")) == 1,
		 "env: %g processes, %zu units (the forked child is one)",
		 tu_jget(job, "processes")->num,
		 tu_jlen(tu_jget(job, "units")));
	for (size_t i = 0; i < 4; i++) {
		const struct tu_json *it = env_item(e, keys[i]);
		const char *got =
			tu_jstr(tu_jat(tu_jget(it, "values"), 0), "value");
		TU_CHECK(got && strcmp(got, want[i]) == 0,
			 "env: %s %s, the library said %s", keys[i],
			 got ? got : "missing", want[i]);
	}
	tu_json_free(e);
	tu_proc_free(&p);

	analyze(&p, (const char *const[]){"summary", dir, NULL}, 0);
	char *cu = tu_strfmt("cudnn %s", cudnn),
	     *nc = tu_strfmt("nccl %s", nccl);
	char *py = tu_strfmt("python %s", python);
	char *gl = tu_strfmt("glibc %s", gnu_get_libc_version());
	TU_CHECK(tu_contains(p.out, cu) && tu_contains(p.out, nc) &&
			 tu_contains(p.out, py) && tu_contains(p.out, gl),
		 "summary lacks %s, %s, %s or %s:\n%s", cu, nc, py, gl, p.out);
	free(py);
	free(gl);
	tu_proc_free(&p);
	struct tu_json *l = tu_libs_json(dir);
	int seen = 0;
	const struct tu_json *procs = tu_jget(l, "processes");
	for (size_t i = 0; i < tu_jlen(procs); i++) {
		const struct tu_json *libs =
			tu_jget(tu_jat(procs, i), "libraries");
		for (size_t k = 0; k < tu_jlen(libs); k++) {
			const struct tu_json *r = tu_jat(libs, k);
			const char *path = tu_jstr(r, "path");
			const char *ver = tu_jstr(r, "version");
			if (path && ver && tu_contains(path, "libnccl.so.2"))
				seen |= strcmp(ver, nccl) == 0;
		}
	}
	TU_CHECK(seen, "libs --json: libnccl.so.2 without version %s", nccl);
	tu_json_free(l);

	/* A byte-identical copy of the real libcudnn.so.9 first on
	 * LD_LIBRARY_PATH (its sub-libraries still from the install): one
	 * library in two places, not skew; diff says so. */
	char *copy = tu_tmpdir("env-real-copy");
	char *to = tu_strfmt("%s/libcudnn.so.9", copy);
	TU_CHECK_FATAL(tu_copy_file(REAL_CUDA "/libcudnn.so.9", to) == 0,
		       "copy libcudnn.so.9");
	char *dir2 = tu_tmpdir("env-real-2");
	char *ld = tu_strfmt("LD_LIBRARY_PATH=%s", copy);
	const char *env[] = {ld, NULL};
	const char *cmd2[] = {tu_python(), "-c",
			      "import ctypes\n"
			      "dn = ctypes.CDLL('libcudnn.so.9')\n"
			      "print(dn.cudnnGetVersion())\n",
			      NULL};
	tu_run_traced(&p, dir2, cmd2, env, ENV_TIMEOUT_MS);
	TU_CHECK(tu_exit_code(p.status) == 0, "python: %s\n%s",
		 tu_status_str(p.status), p.err);
	tu_proc_free(&p);
	struct tu_json *j = tu_check_json(dir2);
	TU_CHECK(j && count_code(j, "CUDNN_SUBLIB_SKEW") == 0,
		 "an identical copy of the real libcudnn.so.9 called skew");
	tu_json_free(j);
	const char *dargs[] = {"diff", "--json", dir, dir2, NULL};
	struct tu_json *d = analyze(&p, dargs, 1);
	tu_proc_free(&p);
	const struct tu_json *ch = tu_jget(d, "environment");
	int said = 0;
	for (size_t i = 0; i < tu_jlen(ch); i++)
		said |= strcmp(tu_jstr(tu_jat(ch, i), "key"), "libcudnn") ==
				0 &&
			strcmp(tu_jstr(tu_jat(ch, i), "what_changed"),
			       "the same build, another place") == 0;
	TU_CHECK(said, "diff: the copy of libcudnn is not the same build "
		       "in another place");
	tu_json_free(d);
	tu_rmtree(copy);
	tu_rmtree(dir2);
	free(copy);
	free(to);
	free(dir2);
	free(ld);
	free(cu);
	free(nc);
	tu_rmtree(dir);
	free(dir);
}

static const char *torch_skip(void)
{
	return tu_python_skip("torch");
}

/* torch's version as torch says it, from the trace. */
static void test_torch_version(void)
{
	char *dir = tu_tmpdir("env-torch");
	const char *cmd[] = {tu_python(), "-c",
			     "import torch; print(torch.__version__)", NULL};
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, ENV_TIMEOUT_MS);
	TU_CHECK_FATAL(tu_exit_code(p.status) == 0, "python: %s\n%s",
		       tu_status_str(p.status), p.err);
	char want[64] = "";
	sscanf(p.out, "%63s", want);
	tu_proc_free(&p);
	const char *eargs[] = {"env", "--json", dir, NULL};
	struct tu_json *e = analyze(&p, eargs, 1);
	tu_proc_free(&p);
	const struct tu_json *v =
		tu_jat(tu_jget(env_item(e, "torch"), "values"), 0);
	TU_CHECK(v && strcmp(tu_jstr(v, "value"), want) == 0 &&
			 strcmp(tu_jstr(v, "from"), "torch/version.py") == 0,
		 "env: torch %s (from %s), torch says %s",
		 v ? tu_jstr(v, "value") : "-", v ? tu_jstr(v, "from") : "-",
		 want);
	tu_json_free(e);
	tu_expect_healthy("import torch", dir);
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test host_tests[] = {
	{"two hosts, another NCCL and an NCCL_ variable: check, env, diff",
	 test_two_hosts_differ},
	{"two hosts, an NCCL net plugin on one: an error",
	 test_two_hosts_plugin},
	{"two hosts, the same software: silent", test_two_hosts_same},
	{NULL, NULL}};

static const struct tu_test fake_tests[] = {
	{"diff: another cuDNN build and an identical copy on "
	 "LD_LIBRARY_PATH",
	 test_diff_cudnn_copy},
	{"env: pip- and conda-installed libraries", test_install_trees},
	{NULL, NULL}};

static const struct tu_test gomp_tests[] = {
	{"env: rank 1 loads a copy of libgomp through LD_LIBRARY_PATH",
	 test_gomp_env},
	{"diff: a copy of libgomp, in a run and on one rank of a job",
	 test_gomp_diff},
	{NULL, NULL}};

static const struct tu_test real_tests[] = {
	{"cuDNN, cudart and NCCL under ctypes: env, libs, summary",
	 test_real_ctypes},
	{NULL, NULL}};

static const struct tu_test torch_tests[] = {
	{"torch's version", test_torch_version}, {NULL, NULL}};

static const struct tu_suite suites[] = {
	{"env_hosts", host_tests, unshare_skip},
	{"env_fakes", fake_tests, NULL},
	{"env_gomp", gomp_tests, gomp_skip},
	{"env_real", real_tests, real_skip},
	{"env_torch", torch_tests, torch_skip},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
