/* What tests/py/pystack_waits.py's threads are doing, as frames: the
 * expectations test_pystack.c holds the shim's records to and
 * test_pyremote.c the watcher's.  Its main thread sleeps in
 * outer -> map -> middle -> inner_sleep, a worker waits on an Event in
 * worker_main -> worker_wait, a third 21 calls deep in deep(). */
#include "pywaits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyframes.h"
#include "testutil.h"

/* The line of the script that holds marker. */
int pw_script_line(const char *marker)
{
	FILE *f = fopen(PW_SCRIPT, "r");
	char buf[512];
	int line = 0, found = -1;
	while (f && fgets(buf, sizeof(buf), f)) {
		line++;
		if (strstr(buf, marker)) {
			found = line;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The thread a stack is of, by its frames: 'w' the worker, 'd' the deep
 * one, 'm' the main thread, '?' none of them. */
char pw_which_thread(const struct dlt_rec_pystack *r, uint32_t main_tid)
{
	struct dlt_pyframe_view f[64];
	size_t n = dlt_pyframes(r, f, 64);
	if (r->tid == main_tid)
		return 'm';
	for (size_t i = 0; i < n; i++) {
		if (f[i].func_len == 11 &&
		    memcmp(f[i].func, "worker_wait", 11) == 0)
			return 'w';
		if (f[i].func_len == 4 && memcmp(f[i].func, "deep", 4) == 0)
			return 'd';
	}
	return '?';
}

/* frame is "<PW_SCRIPT>:<line> in <func>" (line 0: any line). */
int pw_is_frame(const char *frame, int line, const char *func)
{
	char want[1024];
	if (frame == NULL)
		return 0;
	if (line > 0) {
		snprintf(want, sizeof(want), "%s:%d in %s", PW_SCRIPT, line,
			 func);
		return strcmp(frame, want) == 0;
	}
	snprintf(want, sizeof(want), " in %s", func);
	size_t n = strlen(frame), w = strlen(want);
	return strncmp(frame, PW_SCRIPT ":", strlen(PW_SCRIPT) + 1) == 0 &&
	       n > w && strcmp(frame + n - w, want) == 0;
}

/* The frames of a PYSTACK as text, innermost first. */
size_t pw_rec_frames(const struct dlt_rec_pystack *r, char out[][1024],
		     size_t cap)
{
	struct dlt_pyframe_view f[64];
	size_t n = dlt_pyframes(r, f, cap < 64 ? cap : 64);
	for (size_t i = 0; i < n; i++)
		dlt_pyframe_text(&f[i], out[i], sizeof(out[i]));
	return n;
}

/* The main thread: inner_sleep at the sleep's line, then middle, outer
 * and the module, nothing else. */
void pw_expect_main(char fr[][1024], size_t n, const char *where)
{
	int sleep_line = pw_script_line("# MAIN_SLEEP");
	TU_CHECK(n == 4 && pw_is_frame(fr[0], sleep_line, "inner_sleep") &&
			 pw_is_frame(fr[1], 0, "middle") &&
			 pw_is_frame(fr[2], 0, "outer") &&
			 pw_is_frame(fr[3], 0, "<module>"),
		 "%s: main thread's frames: %zu, first %s, %s, %s, %s", where,
		 n, n > 0 ? fr[0] : "-", n > 1 ? fr[1] : "-",
		 n > 2 ? fr[2] : "-", n > 3 ? fr[3] : "-");
}

/* From 3.11 a call from Python code to Python code runs in the same call
 * of the evaluation loop: outer and inner_sleep are not entered from C;
 * the module is (the interpreter runs it), middle is (map calls it). */
void pw_expect_main_entries(const struct dlt_rec_pystack *r, const char *where)
{
	struct dlt_pyframe_view f[8];
	size_t n = dlt_pyframes(r, f, 8);
	unsigned minor = (r->py_version >> 16) & 0xff;
	int all = minor < 11;
	char got[8] = "", want[8] = "";
	for (size_t i = 0; i < n && i < 4; i++) {
		got[i] = f[i].entry ? 'E' : '-';
		want[i] = all || i == 1 || i == 3 ? 'E' : '-';
	}
	TU_CHECK(n == 4 && strcmp(got, want) == 0,
		 "%s: main thread's entry frames (3.%u, innermost first): "
		 "%s, expected %s",
		 where, minor, got, want);
}

/* The worker: CPython's threading.py frames of Event.wait, then
 * worker_wait at the wait's line and worker_main, then threading.py's
 * bootstrap. */
void pw_expect_worker(char fr[][1024], size_t n, const char *where)
{
	int wait_line = pw_script_line("# WORKER_WAIT");
	size_t k = 0;
	while (k < n && strstr(fr[k], "threading.py:") &&
	       strstr(fr[k], " in wait"))
		k++;
	TU_CHECK(k >= 1 && k + 1 < n &&
			 pw_is_frame(fr[k], wait_line, "worker_wait") &&
			 pw_is_frame(fr[k + 1], 0, "worker_main") &&
			 strstr(fr[n - 1], "threading.py:") &&
			 strstr(fr[n - 1], " in _bootstrap"),
		 "%s: worker's frames: %zu, threading.py waits %zu, then %s, "
		 "%s, outermost %s",
		 where, n, k, k < n ? fr[k] : "-", k + 1 < n ? fr[k + 1] : "-",
		 n ? fr[n - 1] : "-");
}

/* The deep thread: threading.py's waits, deep at the wait's line, 20
 * more deep frames, then the bootstrap; depth counts every frame. */
void pw_expect_deep(char fr[][1024], size_t n, uint32_t depth,
		    const char *where)
{
	int wait_line = pw_script_line("# DEEP_WAIT");
	size_t k = 0;
	while (k < n && strstr(fr[k], "threading.py:") &&
	       strstr(fr[k], " in wait"))
		k++;
	int ok = k >= 1 && k + 21 < n && pw_is_frame(fr[k], wait_line, "deep");
	for (size_t i = 1; ok && i <= 20; i++)
		ok = pw_is_frame(fr[k + i], 0, "deep");
	TU_CHECK(ok && depth == n && strstr(fr[n - 1], " in _bootstrap"),
		 "%s: deep thread's frames: %zu of %u, threading.py waits %zu, "
		 "then %s, outermost %s",
		 where, n, depth, k, k < n ? fr[k] : "-", n ? fr[n - 1] : "-");
}

int pw_python_minor(const char *py)
{
	char *cmd = tu_strfmt(
		"'%s' -c 'import sys; print(sys.version_info[1])'", py);
	FILE *f = popen(cmd, "r");
	int minor = -1;
	if (f == NULL || fscanf(f, "%d", &minor) != 1)
		minor = -1;
	if (f)
		pclose(f);
	free(cmd);
	return minor;
}
