/* How a process died (shim/signals.c, rules/crash.c, rules/signal_sent.c):
 * real processes that crash, abort, are signalled from outside, and
 * handlers of every shape, each run with and without dltrace.
 *
 *   test_signals [SUITE...]   crashes handlers senders dataloader
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "digest.h"
#include "testutil.h"

#define RUN_MS 60000

/* The finding of code about pid (any pid when 0) whose message holds msg
 * (any when NULL). */
static const struct tu_json *find_for(const struct tu_json *root,
				      const char *code, pid_t pid,
				      const char *msg)
{
	const struct tu_json *fs = tu_jget(root, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		const char *c = tu_jstr(f, "code"), *m = tu_jmsg(f);
		const struct tu_json *fp = tu_jget(f, "pid");
		if (c && strcmp(c, code) == 0 &&
		    (pid == 0 ||
		     (fp && fp->type == TU_JNUM && (pid_t)fp->num == pid)) &&
		    (msg == NULL || (m && strstr(m, msg))))
			return f;
	}
	return NULL;
}

static size_t count_code(const struct tu_json *root, const char *code)
{
	size_t n = 0;
	const struct tu_json *fs = tu_jget(root, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const char *c = tu_jstr(tu_jat(fs, i), "code");
		n += c && strcmp(c, code) == 0;
	}
	return n;
}

static void print_all(const struct tu_json *root)
{
	const struct tu_json *fs = tu_jget(root, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		fprintf(stderr, "  finding: %s %s: %s\n",
			tu_jstr(f, "severity"), tu_jstr(f, "code"), tu_jmsg(f));
	}
}

/* `check` (text) over dir: its exit status. */
static int check_status(const char *dir)
{
	struct tu_proc p;
	tu_analyze_dir(&p, "check", NULL, dir);
	int rc = tu_exit_code(p.status);
	tu_proc_free(&p);
	return rc;
}

/* A string of the evidence object (or of its member obj when not NULL). */
static const char *ev_str(const struct tu_json *f, const char *obj,
			  const char *key)
{
	const struct tu_json *e = tu_jget(f, "evidence");
	if (obj)
		e = tu_jget(e, obj);
	return tu_jstr(e, key);
}

/* Whether any string of the evidence array key holds s. */
static int ev_arr_has(const struct tu_json *f, const char *key, const char *s)
{
	const struct tu_json *a = tu_jget(tu_jget(f, "evidence"), key);
	for (size_t i = 0; i < tu_jlen(a); i++) {
		const struct tu_json *v = tu_jat(a, i);
		if (v->type == TU_JSTR && strstr(v->str, s))
			return 1;
	}
	return 0;
}

/* The number of SIGNAL records in the traces of dir. */
static size_t signal_records(const char *dir)
{
	struct tu_proc p;
	char **paths;
	size_t n = tu_list_traces(dir, &paths), total = 0;
	for (size_t i = 0; i < n; i++) {
		const char *argv[] = {DLT_TEST_ANALYZE, "dump", paths[i], NULL};
		tu_run(&p, argv, NULL, RUN_MS);
		for (const char *s = p.out; s && (s = strstr(s, " SIGNAL "));
		     s++)
			total++;
		tu_proc_free(&p);
	}
	tu_free_list(paths);
	return total;
}

/* Runs cmd plainly and under the launcher: the same exit (the launcher's
 * 128+N for a death by signal N) and the same stdout (and stderr, with
 * check_stderr).  Returns the parsed check --json of the traced run;
 * *dir_out keeps its directory, *traced_out (when not NULL) the traced
 * run. */
static struct tu_json *run_cmd_both(const char *what, const char *const cmd[],
				    const char *const env[], int check_stderr,
				    char **dir_out, int *plain_status,
				    struct tu_proc *traced_out)
{
	struct tu_proc plain, traced;
	tu_run(&plain, cmd, env, RUN_MS);
	char *dir = tu_tmpdir(what);
	tu_run_traced(&traced, dir, cmd, env, RUN_MS);
	tu_expect_same_launched(what, &plain, &traced, check_stderr);
	if (plain_status)
		*plain_status = plain.status;
	struct tu_json *j = tu_check_json(dir);
	tu_proc_free(&plain);
	if (traced_out)
		*traced_out = traced;
	else
		tu_proc_free(&traced);
	*dir_out = dir;
	return j;
}

/* The same for fx_crash MODE. */
static struct tu_json *run_both(const char *mode, const char *const env[],
				char **dir_out, int *plain_status)
{
	char *fx = tu_fx("fx_crash");
	const char *cmd[] = {fx, mode, NULL};
	struct tu_json *j =
		run_cmd_both(mode, cmd, env, 1, dir_out, plain_status, NULL);
	free(fx);
	return j;
}

/* ---- suite: crashes ------------------------------------------------------
 */

/* check --json over dir with the fake dpkg database info
 * (DLTRACE_DPKG_INFO); NULL when it failed. */
static struct tu_json *check_json_dpkg(const char *dir, const char *info)
{
	char *var = tu_strfmt("DLTRACE_DPKG_INFO=%s", info);
	const char *env[] = {var, NULL};
	const char *argv[] = {DLT_TEST_ANALYZE, "check", "--json", dir, NULL};
	struct tu_proc p;
	char err[256];
	tu_run(&p, argv, env, RUN_MS);
	int rc = tu_exit_code(p.status);
	struct tu_json *j = rc == 0 || rc == 1
				    ? tu_json_parse(p.out, err, sizeof(err))
				    : NULL;
	TU_CHECK(j != NULL, "check --json with %s: %s\n%s", var,
		 tu_status_str(p.status), p.err);
	tu_proc_free(&p);
	free(var);
	return j;
}

/* The crash's library as if dpkg had installed it: its md5sums line
 * right, then wrong.  Reinstalling is advised only for the second;
 * package_check says which. */
static void expect_crash_package_check(const char *dir, const char *lib)
{
	char *info = tu_tmpdir("dpkg-info");
	uint8_t md5[DLT_MD5_LEN], sha[DLT_SHA256_LEN];
	char hex[2 * DLT_MD5_LEN + 1];
	TU_CHECK_FATAL(dlt_digest_file(lib, md5, sha) == 0, "cannot read %s",
		       lib);
	dlt_digest_hex(md5, DLT_MD5_LEN, hex);
	char *list = tu_strfmt("%s/libfx-crash1:amd64.list", info);
	char *sums = tu_strfmt("%s/libfx-crash1:amd64.md5sums", info);
	static const struct {
		const char *check, *fix;
	} want[] = {
		{"same", "as libfx-crash1 (dpkg) installed it (md5 matches): "
			 "the cause is how it is called"},
		{"differs", "the file differs from what libfx-crash1 installed "
			    "(md5 mismatch): reinstall it (apt install "
			    "--reinstall libfx-crash1)"},
	};
	for (int k = 0; k < 2; k++) {
		FILE *f = fopen(list, "w");
		TU_CHECK_FATAL(f != NULL, "cannot write %s", list);
		fprintf(f, "%s\n", lib);
		fclose(f);
		f = fopen(sums, "w");
		TU_CHECK_FATAL(f != NULL, "cannot write %s", sums);
		fprintf(f, "%s  %s\n",
			k == 0 ? hex : "0123456789abcdef0123456789abcdef",
			lib + 1);
		fclose(f);
		struct tu_json *j = check_json_dpkg(dir, info);
		const struct tu_json *f1 = find_for(j, "CRASH", 0, "SIGSEGV");
		const char *check = ev_str(f1, "library", "package_check");
		const char *fix = tu_jstr(f1, "fix");
		TU_CHECK(check && strcmp(check, want[k].check) == 0 && fix &&
				 strstr(fix, want[k].fix) &&
				 (k == 1) == (strstr(fix, "reinstall") != NULL),
			 "package_check %s, fix: %s", check ? check : "-",
			 fix ? fix : "-");
		tu_json_free(j);
	}
	free(list);
	free(sums);
	tu_rmtree(info);
	free(info);
}

static void test_segv_in_library(void)
{
	char *dir;
	int st;
	struct tu_json *j = run_both("segv", NULL, &dir, &st);
	TU_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "plain: %s",
		 tu_status_str(st));
	const struct tu_json *f = find_for(j, "CRASH", 0, "SIGSEGV");
	TU_CHECK(f && strstr(tu_jmsg(f), "SEGV_MAPERR") &&
			 strstr(tu_jmsg(f), "at address 0x0") &&
			 strstr(tu_jmsg(f),
				"in fx_crash_deref (libfx_crashlib.so)") &&
			 !strcmp(tu_jstr(f, "severity"), "error"),
		 "no CRASH error naming fx_crash_deref in libfx_crashlib.so");
	TU_CHECK(f && ev_arr_has(f, "frames", "fx_crash_nested") &&
			 ev_arr_has(f, "frames", "main"),
		 "CRASH frames lack the callers");
	TU_CHECK(f && ev_str(f, "library", "path") &&
			 strstr(ev_str(f, "library", "path"),
				"libfx_crashlib.so"),
		 "CRASH evidence lacks the library");
	/* No package manager installed the fixture: nothing to check it
	 * against, no reinstalling. */
	TU_CHECK(f && ev_str(f, "library", "package_check") &&
			 strncmp(ev_str(f, "library", "package_check"),
				 "unknown: ", 9) == 0 &&
			 !strstr(tu_jstr(f, "fix"), "reinstall"),
		 "CRASH of an unpackaged library: package_check %s, fix %s",
		 f ? ev_str(f, "library", "package_check") : "-",
		 f ? tu_jstr(f, "fix") : "-");
	if (f && ev_str(f, "library", "path"))
		expect_crash_package_check(dir, ev_str(f, "library", "path"));
	TU_CHECK(count_code(j, "TRACE_INCOMPLETE") == 0,
		 "TRACE_INCOMPLETE repeats the crash");
	if (f == NULL)
		print_all(j);
	tu_expect_documented(f);
	TU_CHECK(check_status(dir) == 1, "check does not exit 1");
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

static void test_fpe(void)
{
	char *dir;
	struct tu_json *j = run_both("fpe", NULL, &dir, NULL);
	const struct tu_json *f = find_for(j, "CRASH", 0, "FPE_INTDIV");
	TU_CHECK(f && strstr(tu_jmsg(f), "in main (fx_crash)"),
		 "no CRASH naming SIGFPE's FPE_INTDIV in main");
	if (f == NULL)
		print_all(j);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

static void test_abort_assert(void)
{
	static const char *const modes[] = {"abort", "assert"};
	for (size_t i = 0; i < 2; i++) {
		char *dir;
		struct tu_json *j = run_both(modes[i], NULL, &dir, NULL);
		const struct tu_json *f = find_for(j, "CRASH", 0, "aborted");
		/* The site is the program's, not abort's or raise's. */
		TU_CHECK(f && strstr(tu_jmsg(f), "(fx_crash)"),
			 "%s: no CRASH naming the program as the site",
			 modes[i]);
		if (f == NULL)
			print_all(j);
		tu_json_free(j);
		tu_rmtree(dir);
		free(dir);
	}
}

/* The core flag of the wait status is the same with and without dltrace
 * (the fixture raises RLIMIT_CORE as far as it may, and dumps into its
 * own directory). */
static void test_core_flag(void)
{
	char *fx = tu_fx("fx_crash");
	int st[2] = {0, 0};
	for (int traced = 0; traced < 2; traced++) {
		char *dir = tu_tmpdir("core");
		char *tdir = tu_strfmt("%s/t", dir);
		mkdir(tdir, 0755);
		const char *cmd[] = {
			"/bin/sh", "-c", "cd \"$1\" && exec \"$0\" core",
			fx,	   dir,	 NULL};
		const char **env =
			traced ? tu_preload_env(tdir, NULL, 0) : NULL;
		struct tu_proc p;
		tu_run(&p, cmd, env, RUN_MS);
		st[traced] = p.status;
		tu_proc_free(&p);
		free(env);
		free(tdir);
		tu_rmtree(dir);
		free(dir);
	}
	TU_CHECK(WIFSIGNALED(st[0]) && WTERMSIG(st[0]) == SIGSEGV, "plain: %s",
		 tu_status_str(st[0]));
	TU_CHECK(st[0] == st[1],
		 "wait status 0x%x without dltrace, 0x%x with (core flag %d, "
		 "%d)",
		 st[0], st[1], WCOREDUMP(st[0]) != 0, WCOREDUMP(st[1]) != 0);
	free(fx);
}

/* Python crashing through ctypes: CRASH names the Python file:line the
 * crash came from (the thread's Python stack, read in the handler). */
static void test_python_ctypes(void)
{
	const char *why = tu_python_skip("ctypes");
	if (why) {
		tu_skip("%s", why);
		return;
	}
	char *dir = tu_tmpdir("pyctypes");
	char *script = tu_strfmt("%s/crash.py", dir);
	FILE *f = fopen(script, "w");
	TU_CHECK_FATAL(f != NULL, "cannot write %s", script);
	fputs("import ctypes\n\ndef read_null():\n"
	      "    return ctypes.string_at(0)\n\nread_null()\n",
	      f);
	fclose(f);
	const char *cmd[] = {tu_python(), script, NULL};
	char *tdir;
	struct tu_json *j =
		run_cmd_both("pyctypes", cmd, NULL, 0, &tdir, NULL, NULL);
	/* The fault is in the C library (strlen of the address), called
	 * through ctypes from read_null: the Python line passed it. */
	const struct tu_json *c =
		find_for(j, "CRASH", 0,
			 "passed from Python through ctypes at crash.py:4 in "
			 "read_null");
	TU_CHECK(c != NULL,
		 "CRASH does not say the pointer came through ctypes from "
		 "crash.py:4 in read_null");
	if (c) {
		const char *via =
			tu_jstr(tu_jget(c, "evidence"), "called_from_python");
		TU_CHECK(via && strcmp(via, "ctypes") == 0,
			 "called_from_python: %s", via ? via : "(none)");
		/* The merged stack has the Python frames in it. */
		const struct tu_json *fr =
			tu_jget(tu_jget(c, "evidence"), "frames");
		int py = 0;
		for (size_t i = 0; i < tu_jlen(fr); i++) {
			const struct tu_json *e = tu_jat(fr, i);
			py |= e && e->type == TU_JSTR &&
			      strstr(e->str, "crash.py:4 in read_null");
		}
		TU_CHECK(py, "the frames have no row crash.py:4 in read_null");
	}
	if (c == NULL)
		print_all(j);
	tu_expect_documented(c);
	tu_json_free(j);
	tu_rmtree(tdir);
	tu_rmtree(dir);
	free(tdir);
	free(script);
	free(dir);
}

static const struct tu_test crash_tests[] = {
	{"Python through ctypes: CRASH names the file:line",
	 test_python_ctypes},
	{"SIGSEGV in a library function: CRASH names it", test_segv_in_library},
	{"SIGFPE: CRASH with FPE_INTDIV", test_fpe},
	{"abort() and a failed assert: CRASH at the program's frame",
	 test_abort_assert},
	{"core flag of the wait status unchanged", test_core_flag},
	{NULL, NULL}};

/* ---- suite: handlers -----------------------------------------------------
 */

/* Dispositions set through every glibc entry point read back the same. */
static void test_query(void)
{
	char *dir;
	struct tu_json *j = run_both("query", NULL, &dir, NULL);
	tu_expect_healthy("query", dir);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
	/* Without the launcher too (the shim alone). */
	char *fx = tu_fx("fx_crash");
	const char *cmd[] = {fx, "query", NULL};
	struct tu_proc plain, traced;
	tu_run(&plain, cmd, NULL, RUN_MS);
	dir = tu_tmpdir("query-preload");
	const char **env = tu_preload_env(dir, NULL, 0);
	tu_run(&traced, cmd, env, RUN_MS);
	tu_expect_same_run("query (LD_PRELOAD)", &plain, &traced, 1);
	TU_CHECK(tu_contains(plain.out, "11 fx_info_handler") &&
			 tu_contains(plain.out, "12 SIG_DFL"),
		 "the fixture's own view is not what it set:\n%s", plain.out);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	free(env);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* signal(SIGSEGV, h) in main, h exits 3: the crash is still a CRASH (the
 * handler did not recover), said as handled by the program. */
static void test_handler_after(void)
{
	char *dir;
	struct tu_json *j = run_both("handler", NULL, &dir, NULL);
	const struct tu_json *f = find_for(j, "CRASH", 0, "fx_crash_deref");
	TU_CHECK(f && ev_str(f, NULL, "handled_by") &&
			 strstr(ev_str(f, NULL, "handled_by"), "program"),
		 "no CRASH handled by the program's handler");
	if (f == NULL)
		print_all(j);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

/* A handler a library put in place before the shim started. */
static void test_handler_before(void)
{
	char *lib = tu_fx("libfx_sethandler.so");
	char *pre = tu_strfmt("LD_PRELOAD=%s", lib);
	const char *env[] = {pre, NULL};
	char *dir;
	struct tu_json *j = run_both("nohandler", env, &dir, NULL);
	TU_CHECK(signal_records(dir) == 1, "no SIGNAL record");
	TU_CHECK(find_for(j, "CRASH", 0, "fx_crash_deref") != NULL, "no CRASH");
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
	free(pre);
	free(lib);
}

/* SA_SIGINFO on an alternate stack: the handler sees the same si_code and
 * address. */
static void test_handler_siginfo(void)
{
	char *dir;
	struct tu_json *j = run_both("sigaction", NULL, &dir, NULL);
	TU_CHECK(find_for(j, "CRASH", 0, "at address 0x10") != NULL,
		 "no CRASH at address 0x10");
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

/* A handler that siglongjmps out: the process carries on and exits 0;
 * the fault is recorded, and is no death. */
static void test_recover(void)
{
	char *dir;
	struct tu_json *j = run_both("recover", NULL, &dir, NULL);
	TU_CHECK(signal_records(dir) == 1, "the fault was not recorded");
	TU_CHECK(count_code(j, "CRASH") == 0, "a recovered fault is a CRASH");
	tu_expect_healthy("recover", dir);
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

/* Python's faulthandler still prints its traceback; the status is the
 * same. */
static void test_faulthandler(void)
{
	const char *why = tu_python_skip("ctypes");
	if (why) {
		tu_skip("%s", why);
		return;
	}
	const char *cmd[] = {tu_python(),
			     "-X",
			     "faulthandler",
			     "-c",
			     "import ctypes\nctypes.string_at(0)\n",
			     NULL};
	struct tu_proc traced;
	char *dir;
	struct tu_json *j =
		run_cmd_both("faulthandler", cmd, NULL, 0, &dir, NULL, &traced);
	TU_CHECK(tu_contains(traced.err, "Fatal Python error: Segmentation "
					 "fault") &&
			 tu_contains(traced.err, "File \"<string>\", line 2"),
		 "faulthandler's traceback is missing:\n%s", traced.err);
	const struct tu_json *f = find_for(j, "CRASH", 0, "SIGSEGV");
	TU_CHECK(f != NULL, "no CRASH");
	tu_json_free(j);
	tu_proc_free(&traced);
	tu_rmtree(dir);
	free(dir);
}

/* DLTRACE_SIGNALS=0: no handler, no record. */
static void test_signals_off(void)
{
	const char *env[] = {"DLTRACE_SIGNALS=0", NULL};
	char *dir;
	struct tu_json *j = run_both("segv", env, &dir, NULL);
	TU_CHECK(signal_records(dir) == 0, "SIGNAL recorded with "
					   "DLTRACE_SIGNALS=0");
	tu_json_free(j);
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test handler_tests[] = {
	{"every glibc entry point reads back what was set", test_query},
	{"signal(SIGSEGV, h) after the shim started", test_handler_after},
	{"a handler set before the shim started", test_handler_before},
	{"SA_SIGINFO on an alternate stack", test_handler_siginfo},
	{"a handler that recovers: recorded, no death", test_recover},
	{"Python's faulthandler", test_faulthandler},
	{"DLTRACE_SIGNALS=0", test_signals_off},
	{NULL, NULL}};

/* ---- suite: senders ------------------------------------------------------
 */

/* A shell starts fx_crash wait, waits for its "ready" on a FIFO (so that
 * the shim's handler is in place), then sends SIGTERM with its kill. */
static void test_shell_kill(void)
{
	char *fx = tu_fx("fx_crash");
	char *dir = tu_tmpdir("shkill");
	char *fifo = tu_strfmt("%s/ready", dir);
	const char *script = "mkfifo \"$1\" || exit 9; \"$0\" wait > \"$1\" & "
			     "p=$!; read r < \"$1\"; kill $p; wait $p";
	const char *cmd[] = {"/bin/sh", "-c", script, fx, fifo, NULL};
	char *tdir = tu_strfmt("%s/t", dir);
	struct tu_proc p;
	tu_run_traced(&p, tdir, cmd, NULL, RUN_MS);
	TU_CHECK(tu_exit_code(p.status) == 128 + SIGTERM, "sh: %s",
		 tu_status_str(p.status));
	struct tu_json *j = tu_check_json(tdir);
	const struct tu_json *f = find_for(j, "SIGNAL_SENT", 0, "SIGTERM");
	TU_CHECK(f && !strcmp(tu_jstr(f, "severity"), "error") &&
			 ev_str(f, "sender", "command") &&
			 !strcmp(ev_str(f, "sender", "command"), "sh"),
		 "no SIGNAL_SENT error naming sh");
	if (f == NULL)
		print_all(j);
	tu_expect_documented(f);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(tdir);
	free(fifo);
	free(dir);
	free(fx);
}

/* Runs argv, a launcher whose command prints "ready" once the shim's
 * handlers are in place and waits to be ended by a timer: it must exit
 * with code, and check must have a SIGNAL_SENT of severity sev whose
 * message holds msg.  A timer that ran out before a loaded machine had
 * started the command skips the part. */
static void expect_timed_end(const char *what, const char *const argv[],
			     const char *dir, int code, const char *msg,
			     const char *sev)
{
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_MS);
	if (!tu_contains(p.out, "ready")) {
		tu_skip_part("%s: the time ran out before fx_crash started",
			     what);
		tu_proc_free(&p);
		return;
	}
	TU_CHECK(tu_exit_code(p.status) == code, "%s: %s", what,
		 tu_status_str(p.status));
	struct tu_json *j = tu_check_json(dir);
	const struct tu_json *f = find_for(j, "SIGNAL_SENT", 0, msg);
	TU_CHECK(f && !strcmp(tu_jstr(f, "severity"), sev),
		 "%s: no SIGNAL_SENT %s about %s", what, sev, msg);
	if (f == NULL)
		print_all(j);
	tu_json_free(j);
	tu_proc_free(&p);
}

/* `timeout` ends the command: SIGNAL_SENT names timeout, an error.  And
 * dltrace ends a hung command after --hang-timeout: SIGNAL_SENT is info
 * and points at the hang. */
static void test_timers(void)
{
	char *fx = tu_fx("fx_crash");
	const char *cmd[] = {"timeout", "2", fx, "wait", NULL};
	char *dir = tu_tmpdir("timeout");
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	expect_timed_end("timeout", argv, dir, 124, "(timeout, uid", "error");
	free(argv);
	tu_rmtree(dir);
	free(dir);
	const char *opts[] = {"--hang-timeout", "1", NULL};
	dir = tu_tmpdir("hangtimeout");
	argv = tu_launcher_argv(dir, opts, cmd + 2);
	expect_timed_end("--hang-timeout", argv, dir, 124, "--hang-timeout",
			 "info");
	free(argv);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* SIGTERM sent to the launcher: it passes it on, and says who sent it. */
static void test_launcher_forward(void)
{
	char *fx = tu_fx("fx_crash");
	char *dir = tu_tmpdir("forward");
	const char *cmd[] = {fx, "wait", NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, NULL) == 0, "launcher");
	char line[64];
	int r = tu_proc_readline(&p, line, sizeof(line), RUN_MS);
	TU_CHECK(r == 1 && !strcmp(line, "ready"), "no ready line");
	kill(p.pid, SIGTERM);
	tu_proc_wait(&p, RUN_MS);
	TU_CHECK(tu_exit_code(p.status) == 128 + SIGTERM, "launcher: %s",
		 tu_status_str(p.status));
	struct tu_json *j = tu_check_json(dir);
	const struct tu_json *f = find_for(j, "SIGNAL_SENT", 0, "passed on");
	TU_CHECK(f && ev_str(f, "sender", "command") &&
			 !strcmp(ev_str(f, "sender", "command"), "dltrace") &&
			 ev_str(f, "forwarded_from", "command") &&
			 !strcmp(ev_str(f, "forwarded_from", "command"),
				 "test_signals"),
		 "SIGNAL_SENT does not say dltrace passed on test_signals' "
		 "SIGTERM");
	if (f == NULL)
		print_all(j);
	/* The verdict says it too, in check's words. */
	TU_CHECK(tu_contains(p.err, "error SIGNAL_SENT") &&
			 tu_contains(p.err, "test_signals"),
		 "the verdict does not name the sender:\n%s", p.err);
	tu_json_free(j);
	tu_proc_free(&p);
	free(argv);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* A traced parent that ends one child because another crashed: the
 * killed child's SIGNAL_SENT is info and points at the crash. */
static void test_reaction(void)
{
	char *fx = tu_fx("fx_crash");
	char *dir = tu_tmpdir("reaction");
	char *fifo = tu_strfmt("%s/ready", dir);
	const char *script =
		"mkfifo \"$1\" || exit 9; \"$0\" wait > \"$1\" & "
		"w=$!; read r < \"$1\"; \"$0\" segv; kill $w; wait $w; exit 1";
	const char *cmd[] = {"/bin/sh", "-c", script, fx, fifo, NULL};
	char *tdir = tu_strfmt("%s/t", dir);
	struct tu_proc p;
	tu_run_traced(&p, tdir, cmd, NULL, RUN_MS);
	struct tu_json *j = tu_check_json(tdir);
	const struct tu_json *c = find_for(j, "CRASH", 0, "fx_crash_deref");
	const struct tu_json *f = find_for(j, "SIGNAL_SENT", 0, "after pid");
	TU_CHECK(c != NULL, "no CRASH of the crashing child");
	TU_CHECK(f && !strcmp(tu_jstr(f, "severity"), "info") && c &&
			 tu_jget(tu_jget(f, "evidence"), "first_failure_pid") &&
			 tu_jget(tu_jget(f, "evidence"), "first_failure_pid")
					 ->num == tu_jget(c, "pid")->num,
		 "SIGNAL_SENT does not point at the crash as the first "
		 "failure");
	if (f == NULL || c == NULL)
		print_all(j);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(tdir);
	free(fifo);
	free(dir);
	free(fx);
}

static const struct tu_test sender_tests[] = {
	{"a shell's kill: SIGNAL_SENT names sh", test_shell_kill},
	{"timeout: SIGNAL_SENT names it; --hang-timeout: info", test_timers},
	{"SIGTERM to the launcher: passed on, sender named",
	 test_launcher_forward},
	{"a parent reacting to a crash: info, pointing at it", test_reaction},
	{NULL, NULL}};

/* ---- suite: dataloader ---------------------------------------------------
 */

static const char *torch_skip(void)
{
	return tu_python_skip("torch");
}

/* A DataLoader worker (a forked child) segfaults: check exits 1 with a
 * CRASH of the worker, and the launcher's verdict says the same. */
static void test_dataloader_worker(void)
{
	static const char script[] =
		"import ctypes, os, sys, torch\n"
		"from torch.utils.data import DataLoader, Dataset\n"
		"class D(Dataset):\n"
		"    def __len__(self): return 4\n"
		"    def __getitem__(self, i):\n"
		"        print('worker', os.getpid(), flush=True)\n"
		"        ctypes.string_at(0)\n"
		"try:\n"
		"    for b in DataLoader(D(), num_workers=1): pass\n"
		"except RuntimeError as e:\n"
		"    print('main:', e, flush=True)\n"
		"    sys.exit(1)\n";
	const char *cmd[] = {tu_python(), "-c", script, NULL};
	char *dir = tu_tmpdir("dataloader");
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, RUN_MS * 2);
	TU_CHECK(tu_exit_code(p.status) == 1, "python: %s\n%s",
		 tu_status_str(p.status), p.err);
	int worker = 0;
	const char *w = strstr(p.out ? p.out : "", "worker ");
	if (w)
		worker = atoi(w + 7);
	/* torch 1.13 says "exited unexpectedly", later ones "killed by
	 * signal". */
	TU_CHECK(worker > 0 && (tu_contains(p.out, "killed by signal") ||
				tu_contains(p.out, "exited unexpectedly")),
		 "no worker pid, or the main process did not see the "
		 "worker die:\n%s",
		 p.out);
	struct tu_json *j = tu_check_json(dir);
	const struct tu_json *f = find_for(j, "CRASH", worker, "SIGSEGV");
	TU_CHECK(f && !strcmp(tu_jstr(f, "severity"), "error"),
		 "no CRASH error of worker %d", worker);
	if (f == NULL)
		print_all(j);
	TU_CHECK(check_status(dir) == 1, "check does not exit 1");
	char *line = tu_strfmt("error CRASH pid %d ", worker);
	/* torch's worker handler writes its message with a NUL byte. */
	TU_CHECK(memmem(p.err, p.err_len, line, strlen(line)) != NULL,
		 "the verdict does not name the worker's crash:\n%s", p.err);
	free(line);
	tu_json_free(j);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test dataloader_tests[] = {
	{"a DataLoader worker's segfault", test_dataloader_worker},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"crashes", crash_tests, NULL},
	{"handlers", handler_tests, NULL},
	{"senders", sender_tests, NULL},
	{"dataloader", dataloader_tests, torch_skip},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
