/* Unit tests of the writer's string table (tracer/strings.c).
 *
 * The index starts small, so that a short process's strings share a page
 * with the writer's fields, and grows fourfold when 3/4 full.  Each test
 * interns more strings than two growths take, checks that every string
 * keeps its id across them and is written once, and reads the trace back
 * with the analyzer's reader; a forked child's trace starts the table over
 * from the small index (the parent's entries would give it ids its trace
 * does not have). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reader.h"
#include "record.h"
#include "testutil.h"

/* More than 3/4 of 512 and of 2,048 slots: the index grows twice. */
#define N_STRINGS 3000u

static struct dlt_writer writer; /* large: keep it off the stack */

static void name_of(uint32_t i, char *buf, size_t cap)
{
	snprintf(buf, cap, "/usr/lib/libstring-%u.so", i);
}

/* Interns the N_STRINGS names twice into ids[]: 0, or the index of the
 * first string whose id was missing, not the next one (each new string is
 * one STRING record with the next id) or changed, plus one. */
static uint32_t intern_all(struct dlt_writer *w, uint32_t *ids)
{
	struct dlt_tls tls;
	memset(&tls, 0, sizeof(tls));
	char buf[64];
	for (uint32_t i = 0; i < N_STRINGS; i++) {
		name_of(i, buf, sizeof(buf));
		ids[i] = dlt_str(w, &tls, buf);
		if (ids[i] == DLT_STR_NONE ||
		    (i > 0 && ids[i] != ids[i - 1] + 1))
			return i + 1;
	}
	for (uint32_t i = 0; i < N_STRINGS; i++) {
		name_of(i, buf, sizeof(buf));
		if (dlt_str(w, &tls, buf) != ids[i])
			return i + 1;
	}
	return 0;
}

/* Whether the trace at path holds each name under its id, and no string
 * after the last (intern_all made the ids consecutive). */
static void check_trace(const char *path, const uint32_t *ids)
{
	char err[256];
	struct dlt_trace *r = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(r != NULL, "cannot open %s: %s", path, err);
	char buf[64];
	for (uint32_t i = 0; i < N_STRINGS; i++) {
		name_of(i, buf, sizeof(buf));
		const char *s = dlt_trace_strz(r, ids[i]);
		if (strcmp(s, buf) != 0) {
			TU_CHECK(0, "id %u reads \"%s\", \"%s\" expected",
				 ids[i], s, buf);
			break;
		}
	}
	const char *extra = dlt_trace_str(r, ids[N_STRINGS - 1] + 1);
	TU_CHECK(extra == NULL, "a string after the last one: \"%s\"",
		 extra ? extra : "");
	dlt_trace_close(r);
}

/* A new trace in a scratch directory, which is returned (the caller
 * removes it). */
static char *start_trace(const char *tag)
{
	char *dir = tu_tmpdir(tag);
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct dlt_open_params p = {.dir = dir,
				    .host = "unit-host",
				    .rank = -1,
				    .parent_kind = DLT_PARENT_NONE};
	TU_CHECK_FATAL(dlt_writer_create(&writer, &p) == 0,
		       "cannot create a trace in %s", dir);
	return dir;
}

static void test_grows(void)
{
	char *dir = start_trace("strings");
	TU_CHECK(writer.str_mask + 1 == DLT_STRTAB_FIRST,
		 "a new trace's index has %u slots, %u expected",
		 writer.str_mask + 1, DLT_STRTAB_FIRST);
	static uint32_t ids[N_STRINGS];
	uint32_t bad = intern_all(&writer, ids);
	TU_CHECK(bad == 0, "string %u lost or changed its id", bad - 1);
	TU_CHECK(writer.str_mask + 1 == DLT_STRTAB_FIRST * 16 &&
			 writer.str_count == N_STRINGS,
		 "after %u strings: %u index slots (%u expected), %u kept",
		 N_STRINGS, writer.str_mask + 1, DLT_STRTAB_FIRST * 16,
		 writer.str_count);
	char *path = strdup(writer.path);
	dlt_writer_forget(&writer);
	check_trace(path, ids);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* The child of a process whose index grew: its own trace, its own ids
 * from 1, each string written again into it. */
static void test_forked_child(void)
{
	char *dir = start_trace("strings-fork");
	static uint32_t ids[N_STRINGS];
	TU_CHECK_FATAL(intern_all(&writer, ids) == 0,
		       "the parent's strings lost their ids");
	int fds[2];
	TU_CHECK_FATAL(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	TU_CHECK_FATAL(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* What the shim's fork handler does. */
		dlt_writer_after_fork(&writer);
		uint32_t bad = intern_all(&writer, ids);
		ssize_t n = write(fds[1], ids, sizeof(ids));
		_exit(bad == 0 && n == (ssize_t)sizeof(ids) ? 0 : 1);
	}
	close(fds[1]);
	static uint32_t child_ids[N_STRINGS];
	size_t got = 0;
	while (got < sizeof(child_ids)) {
		ssize_t n = read(fds[0], (char *)child_ids + got,
				 sizeof(child_ids) - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	TU_CHECK_FATAL(got == sizeof(child_ids) && WIFEXITED(st) &&
			       WEXITSTATUS(st) == 0,
		       "the child's strings lost their ids: %s",
		       tu_status_str(st));
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	const char *child = NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], writer.path) != 0)
			child = paths[i];
	TU_CHECK_FATAL(n == 2 && child != NULL,
		       "%zu traces in %s, the parent's and the child's "
		       "expected",
		       n, dir);
	check_trace(child, child_ids);
	tu_free_list(paths);
	dlt_writer_forget(&writer);
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test string_tests[] = {
	{"ids survive the index growing past 2,048 slots", test_grows},
	{"a forked child's trace starts the table over", test_forked_child},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"strings", string_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
