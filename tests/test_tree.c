/* Process trees (docs/usage.md, docs/hangs.md): how every process of a
 * tree ended, whoever started it; one run per verdict; the launcher's
 * options and output directory; versions of the GPU libraries loaded.
 *
 *   test_tree [SUITE...]   launcher ends runs versions */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define RUN_TIMEOUT_MS 60000

/* The one REAPED status in the traces of dir; 0 when there is not exactly
 * one (a failed check). */
static int only_reaped(const char *dir, int32_t *status)
{
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	size_t n = 0;
	for (size_t i = 0; i < s.n; i++)
		for (size_t k = 0; k < s.t[i].nexits; k++)
			if (s.t[i].exits[k].how == DLT_EXIT_REAPED) {
				n++;
				*status = s.t[i].exits[k].status;
			}
	TU_CHECK(n == 1, "%zu REAPED records in %s, expected 1", n, dir);
	if (n != 1)
		tu_traceset_dump(&s);
	tu_traceset_free(&s);
	return n == 1;
}

/* ---- suite launcher ------------------------------------------------------ */

/* --hang-timeout with a command that ends in time: its status, the
 * verdict, the reaped status, as without the option (the child was reaped
 * twice: "waitpid: No child processes", exit 2). */
static void test_hang_timeout_in_time(void)
{
	char *dir = tu_tmpdir("in-time");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	const char *opts[] = {"--hang-timeout", "30", NULL};
	const char *cmd[] = {"/bin/sh", "-c", "exit 3", NULL};
	const char **argv = tu_launcher_argv(dir, opts, cmd);
	struct tu_proc p;
	tu_run(&p, argv, NULL, RUN_TIMEOUT_MS);
	free(argv);
	TU_CHECK(tu_exit_code(p.status) == 3,
		 "dltrace --hang-timeout 30 -- sh -c 'exit 3': %s, expected "
		 "exit 3; stderr:\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(!tu_contains(p.err, "waitpid"),
		 "the launcher failed to wait:\n%s", p.err);
	TU_CHECK(tu_count_lines(p.err, "dltrace: 1 process traced") == 1,
		 "no verdict:\n%s", p.err);
	int32_t st = 0;
	if (only_reaped(dir, &st))
		TU_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3,
			 "reaped status recorded as %s", tu_status_str(st));
	tu_expect_check_clean("sh -c 'exit 3' under --hang-timeout", dir);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* libdltrace.so under another file name (an installation that versions
 * it): the shim finds the real functions by skipping itself by name, and
 * before its constructor knew its own name it found its own dlvsym and
 * called it forever. */
static void test_library_renamed(void)
{
	char *dir = tu_tmpdir("renamed");
	char *lib = tu_tmpdir("renamed-lib");
	TU_CHECK_FATAL(dir && lib, "no scratch directory");
	char *copy = tu_strfmt("%s/libdltrace-copy.so", lib);
	TU_CHECK_FATAL(tu_copy_file(DLT_TEST_LIB, copy) == 0, "cannot copy %s",
		       DLT_TEST_LIB);
	char *fx = tu_fx("fx_hello");
	const char *cmd[] = {fx, NULL};
	char *libenv = tu_strfmt("DLTRACE_LIB=%s", copy);
	const char *env[] = {libenv, NULL};
	struct tu_proc plain, p;
	tu_run(&plain, cmd, NULL, RUN_TIMEOUT_MS);
	tu_run_traced(&p, dir, cmd, env, RUN_TIMEOUT_MS);
	TU_CHECK(!p.timed_out, "a program under %s did not end", copy);
	tu_expect_same_launched("fx_hello under a renamed library", &plain, &p,
				1);
	char **paths;
	TU_CHECK(tu_list_traces(dir, &paths) == 1, "no trace in %s", dir);
	tu_free_list(paths);
	tu_proc_free(&plain);
	tu_proc_free(&p);
	tu_rmtree(dir);
	tu_rmtree(lib);
	free(libenv);
	free(fx);
	free(copy);
	free(dir);
	free(lib);
}

/* ---- suites -------------------------------------------------------------- */

static const struct tu_test launcher_tests[] = {
	{"--hang-timeout: a command that ends in time",
	 test_hang_timeout_in_time},
	{"libdltrace.so under another name", test_library_renamed},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"launcher", launcher_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
