/* Text for people (issue 30): the helpers that show values as people read
 * them (analyzer/util/units.c), the evidence's text view
 * (analyzer/util/value.c), and `check`'s text over real traces: a hung job
 * of two ranks whose rank 1 sleeps at a Python line while rank 0 waits for
 * it, and crashes in a library and through ctypes.  No line of the text
 * shows a raw nanosecond count, nanoseconds since the epoch, a `_ns` key
 * or a frame in the analyzer's raw form (lib.so!func+0x12); every headline
 * fits in DLT_HEADLINE_MAX characters and says who, where and why; each
 * thread's stack is shown once.
 *
 *   test_text [SUITE...]   units (the helpers and the evidence view),
 *                          check (check's text over recorded traces) */
#define _GNU_SOURCE
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "findings.h"
#include "testutil.h"
#include "units.h"
#include "value.h"

/* ---- helpers of the text -------------------------------------------------
 */

static int matches(const char *text, const char *re)
{
	regex_t r;
	if (regcomp(&r, re, REG_EXTENDED | REG_NEWLINE) != 0)
		return -1;
	int m = regexec(&r, text, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

/* Lines of text matching re. */
static size_t count_matching(const char *text, const char *re)
{
	regex_t r;
	if (regcomp(&r, re, REG_EXTENDED | REG_NEWLINE) != 0)
		return (size_t)-1;
	size_t n = 0;
	regmatch_t m;
	for (const char *p = text; *p && regexec(&r, p, 1, &m, 0) == 0;) {
		n++;
		const char *eol = strchr(p + m.rm_eo, '\n');
		if (eol == NULL)
			break;
		p = eol + 1;
	}
	regfree(&r);
	return n;
}

/* Characters (not bytes) of the line at s. */
static size_t line_chars(const char *s)
{
	size_t n = 0;
	for (; *s && *s != '\n'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* What no text for people may hold, line by line: a number of 13 digits or
 * more (nanoseconds, since the epoch or not), a key ending in _ns, a frame
 * as the analyzer's stacks write it ("libc.so.6!clock_nanosleep+0x65"). */
static void expect_for_people(const char *what, const char *text)
{
	static const struct {
		const char *re, *says;
	} bad[] = {
		{"(^|[^0-9A-Za-z_])[0-9]{13,}([^0-9A-Za-z_]|$)",
		 "a raw count of 13 digits or more"},
		{"[A-Za-z0-9]_ns([^A-Za-z0-9_]|$)", "a _ns key"},
		{"[^ (]+![^ ]+\\+0x[0-9a-f]+", "a raw frame (lib!func+0x)"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		regex_t r;
		regmatch_t m;
		TU_CHECK_FATAL(
			regcomp(&r, bad[i].re, REG_EXTENDED | REG_NEWLINE) == 0,
			"bad pattern %s", bad[i].re);
		if (regexec(&r, text, 1, &m, 0) == 0) {
			const char *b = text + m.rm_so, *e = text + m.rm_so;
			while (b > text && b[-1] != '\n')
				b--;
			while (*e && *e != '\n')
				e++;
			TU_CHECK(0, "%s: %s in the line: %.*s", what,
				 bad[i].says, (int)(e - b), b);
		}
		regfree(&r);
	}
}

/* Each finding of check's text: its headline (the line under "error
 * CODE ...", indented 2) fits, and so does each of its detail lines
 * (indented 4, before "evidence:"). */
static void expect_short_lines(const char *what, const char *text)
{
	bool in_detail = false;
	for (const char *l = text; *l;) {
		const char *eol = strchr(l, '\n');
		size_t n = eol ? (size_t)(eol - l) : strlen(l);
		/* The line before: the finding's first. */
		const char *prev = l > text ? l - 1 : text;
		while (prev > text && prev[-1] != '\n')
			prev--;
		bool head = l > text && strncmp(l, "  ", 2) == 0 &&
			    l[2] != ' ' &&
			    (strncmp(prev, "error ", 6) == 0 ||
			     strncmp(prev, "warning ", 8) == 0 ||
			     strncmp(prev, "info ", 5) == 0);
		if (head) {
			TU_CHECK(line_chars(l + 2) <= DLT_HEADLINE_MAX,
				 "%s: a headline of %zu characters: %.*s", what,
				 line_chars(l + 2), (int)n, l);
			in_detail = true;
		} else if (in_detail && strncmp(l, "    ", 4) == 0) {
			/* A clause's line, or one it goes on over. */
			const char *t = l + strspn(l, " ");
			TU_CHECK(line_chars(t) <= DLT_HEADLINE_MAX,
				 "%s: a detail line of %zu characters: %.*s",
				 what, line_chars(t), (int)n, l);
		} else {
			in_detail = false;
		}
		l = eol ? eol + 1 : l + n;
	}
}

/* The headline (the line after the one that starts with "error CODE"). */
static char *headline_of(const char *text, const char *code)
{
	char *first = tu_strfmt("error   %s  ", code);
	const char *l = strstr(text, first);
	free(first);
	const char *h = l ? strchr(l, '\n') : NULL;
	if (h == NULL)
		return NULL;
	h += 1;
	while (*h == ' ')
		h++;
	const char *e = strchr(h, '\n');
	return strndup(h, e ? (size_t)(e - h) : strlen(h));
}

/* The launcher's verdict (its "dltrace: " lines on stderr): for people
 * too, a finding's line at most DLT_HEADLINE_MAX characters (the others
 * name paths, as long as they are). */
static void expect_verdict(const char *what, const char *err)
{
	char *v = tu_strfmt("%s", "");
	for (const char *l = err ? err : ""; *l;) {
		const char *eol = strchr(l, '\n');
		size_t n = eol ? (size_t)(eol - l) : strlen(l);
		if (strncmp(l, "dltrace: ", 9) == 0) {
			bool finding = strncmp(l + 9, "error ", 6) == 0 ||
				       strncmp(l + 9, "warning ", 8) == 0;
			TU_CHECK(!finding || line_chars(l) <= DLT_HEADLINE_MAX,
				 "%s: a verdict line of %zu characters: %.*s",
				 what, line_chars(l), (int)n, l);
			char *w = tu_strfmt("%s%.*s\n", v, (int)n, l);
			free(v);
			v = w;
		}
		l = eol ? eol + 1 : l + n;
	}
	TU_CHECK(tu_contains(v, "dltrace: error CRASH "),
		 "%s: the verdict names no crash:\n%s", what, err);
	expect_for_people(what, v);
	free(v);
}

/* `check` in text over dir, in the time zone UTC. */
static char *check_text(const char *dir)
{
	const char *argv[] = {DLT_TEST_ANALYZE, "check", dir, NULL};
	const char *env[] = {"TZ=UTC", NULL};
	struct tu_proc p;
	tu_run(&p, argv, env, 120000);
	TU_CHECK(tu_exit_code(p.status) == 1,
		 "check over %s: %s (expected 1: an error)\n%s", dir,
		 tu_status_str(p.status), p.err);
	char *out = strdup(p.out ? p.out : "");
	tu_proc_free(&p);
	return out;
}

/* check's text over dir, read by people: units for people, short lines. */
static char *checked_text(const char *what, const char *dir)
{
	char *text = check_text(dir);
	expect_for_people(what, text);
	expect_short_lines(what, text);
	return text;
}

/* cmd run under the launcher into dir (its verdict said), then
 * checked_text over it. */
static char *traced_text(const char *what, const char *dir,
			 const char *const cmd[])
{
	struct tu_proc p;
	tu_run_traced(&p, dir, cmd, NULL, 60000);
	expect_verdict(what, p.err);
	tu_proc_free(&p);
	return checked_text(what, dir);
}

/* ---- suite units: the helpers ------------------------------------------ */

static void test_sizes(void)
{
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{0, "0 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{5324, "5.2 KiB"},
		{1048575, "1.0 MiB"},
		{5452595, "5.2 MiB"},
		{13841203, "13.2 MiB"},
		{238026752, "227 MiB"},
		{1610612736, "1.5 GiB"},
		{2199023255552ull, "2.0 TiB"},
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dlt_units_bytes(cases[i].bytes, buf, sizeof(buf));
		TU_CHECK(strcmp(buf, cases[i].want) == 0,
			 "%llu bytes: \"%s\", expected \"%s\"",
			 (unsigned long long)cases[i].bytes, buf,
			 cases[i].want);
	}
	/* VmHWM and memory limits come in KiB. */
	dlt_units_kib(232448, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "227 MiB") == 0, "232448 KiB: %s", buf);
	dlt_units_kib(5324, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "5.2 MiB") == 0, "5324 KiB: %s", buf);
}

static void test_wall_clock(void)
{
	char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
	char buf[64];
	/* 2026-12-05 05:21:49.502 UTC. */
	const uint64_t at = 1796448109502000000ull + 123456;
	setenv("TZ", "UTC", 1);
	dlt_units_wall(at, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "2026-12-05 05:21:49.502 UTC") == 0,
		 "TZ=UTC: \"%s\"", buf);
	/* TZ is read again on each call: another zone, another clock. */
	setenv("TZ", "CET-1", 1);
	dlt_units_wall(at, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "2026-12-05 06:21:49.502 CET") == 0,
		 "TZ=CET-1: \"%s\"", buf);
	dlt_units_wall(0, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "-") == 0, "an unknown moment: \"%s\"", buf);
	if (old) {
		setenv("TZ", old, 1);
		free(old);
	} else {
		unsetenv("TZ");
	}
	tzset();
}

static void test_after_start(void)
{
	char buf[32];
	const uint64_t start = 1796448109502000000ull;
	dlt_units_after(start + 12400000000ull, start, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "+12.4 s") == 0, "12.4 s after: \"%s\"", buf);
	dlt_units_after(start - 300000000ull, start, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "-300 ms") == 0, "0.3 s before: \"%s\"", buf);
	dlt_units_offset(192000000000ll, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "+3.2 min") == 0, "192 s: \"%s\"", buf);
	dlt_units_secs(1.56326, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "1.56 s") == 0, "at_s 1.56326: \"%s\"", buf);
	dlt_units_secs(12.44, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "12.4 s") == 0, "at_s 12.44: \"%s\"", buf);
	dlt_units_secs(0.0123, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "12 ms") == 0, "at_s 0.0123: \"%s\"", buf);
	dlt_units_secs(-1, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, "0 s") == 0, "at_s -1: \"%s\"", buf);
}

static void test_frames(void)
{
	static const struct {
		const char *raw, *with, *prose;
	} cases[] = {
		{"libc.so.6!clock_nanosleep+0x65",
		 "clock_nanosleep+0x65 (libc.so.6)",
		 "clock_nanosleep (libc.so.6)"},
		{"python3.11+0x5b50f8", "python3.11+0x5b50f8 (no symbol)",
		 "python3.11 (no symbol)"},
		{"libc.so.6!__futex_abstimed_wait_common64",
		 "__futex_abstimed_wait_common64 (libc.so.6)",
		 "__futex_abstimed_wait_common64 (libc.so.6)"},
		{"c10d::Work::wait+0x63 (libtorch_cpu.so.1.13.0)",
		 "c10d::Work::wait+0x63 (libtorch_cpu.so.1.13.0)",
		 "c10d::Work::wait (libtorch_cpu.so.1.13.0)"},
		{"libffi.so.8+0x6f7a [no symbol covers it]",
		 "libffi.so.8+0x6f7a (no symbol)", "libffi.so.8 (no symbol)"},
		{"libx.so!std::map<int, int>::find+0x1a",
		 "std::map<int, int>::find+0x1a (libx.so)",
		 "std::map<int, int>::find (libx.so)"},
		{"fx_recurse+0x1d (fx_rawstack) (x12)",
		 "fx_recurse+0x1d (fx_rawstack) (x12)",
		 "fx_recurse (fx_rawstack) (x12)"},
		{"/srv/train.py:12 in step", "/srv/train.py:12 in step",
		 "/srv/train.py:12 in step"},
	};
	char buf[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dlt_frame_people(cases[i].raw, strlen(cases[i].raw), true, buf,
				 sizeof(buf));
		TU_CHECK(strcmp(buf, cases[i].with) == 0,
			 "%s with its offset: \"%s\", expected \"%s\"",
			 cases[i].raw, buf, cases[i].with);
		dlt_frame_prose(cases[i].raw, buf, sizeof(buf));
		TU_CHECK(strcmp(buf, cases[i].prose) == 0,
			 "%s in prose: \"%s\", expected \"%s\"", cases[i].raw,
			 buf, cases[i].prose);
	}
	TU_CHECK(dlt_frame_is_raw("libc.so.6!poll+0x4f", 19) &&
			 !dlt_frame_is_raw("poll nfds=2 fd 3", 16) &&
			 !dlt_frame_is_raw("0x7f", 4),
		 "raw frames told apart from other strings");
}

static uint64_t start_of_pid(void *arg, uint64_t pid)
{
	(void)arg;
	return pid == 7 ? 1796448100000000000ull : 0;
}

/* A hang's evidence as JOB_HANG writes it: the straggler's thread and
 * stack, then the list of every thread's wait that repeats it. */
static void test_evidence_view(void)
{
	struct dlt_arena_blk *arena = NULL;
	struct dlt_val *ev = dlt_val_object(&arena);
	const char *native = "libc.so.6!clock_nanosleep+0x65 < "
			     "python3.11+0x5b50f8 < python3.11!_start+0x21";
	const char *merged = "_start+0x21 (python3.11) \xe2\x86\x92 "
			     "/srv/train.py:12 in load_batch \xe2\x86\x92 "
			     "clock_nanosleep+0x65 (libc.so.6)";
	struct dlt_val *st = dlt_obj_object(ev, "straggler");
	dlt_obj_int(st, "rank", 1);
	dlt_obj_uint(st, "pid", 7);
	dlt_obj_uint(st, "tid", 7);
	dlt_obj_str(st, "state", "waiting elsewhere");
	dlt_obj_str(st, "python_at", "train.py:12 in load_batch");
	struct dlt_val *py = dlt_obj_array(st, "python_stack");
	dlt_arr_str(py, "/srv/train.py:12 in load_batch");
	dlt_obj_uint(st, "since_unix_ns", 1796448112400000000ull);
	dlt_obj_str(st, "syscall", "clock_nanosleep");
	dlt_obj_uint(st, "blocked_ns", 21184547395ull);
	dlt_obj_str(st, "stack", native);
	dlt_obj_str(st, "merged_stack", merged);
	dlt_obj_uint(ev, "peak_rss_kb", 5324);
	dlt_obj_double(ev, "at_s", 1.56326);
	dlt_obj_int(ev, "size", 2);
	struct dlt_val *stalls = dlt_obj_array(ev, "stalls");
	for (int k = 0; k < 2; k++) {
		struct dlt_val *o = dlt_arr_object(stalls);
		dlt_obj_int(o, "rank", 1);
		dlt_obj_uint(o, "pid", 7);
		dlt_obj_uint(o, "tid", k ? 9 : 7);
		dlt_obj_str(o, "syscall", k ? "epoll_wait" : "clock_nanosleep");
		dlt_obj_uint(o, "blocked_ns", 21585739520ull);
		dlt_obj_uint(o, "blocked_since_unix_ns",
			     1796448112000000000ull);
		dlt_obj_str(o, "wait",
			    k ? "epoll fd 20 fd 21 tcp 127.0.0.1:37387"
			      : "sleeping (a wait loop if it repeats)");
		dlt_obj_str(o, "stack",
			    k ? "libc.so.6!epoll_wait+0x56 < "
				"libgloo.so!gloo::Loop::run+0x5f"
			      : native);
		if (!k)
			dlt_obj_str(o, "merged_stack", merged);
	}
	setenv("TZ", "UTC", 1);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct dlt_val_view view = {0, 0, start_of_pid, NULL};
	dlt_val_text_view(m, ev, 4, &view);
	fclose(m);
	unsetenv("TZ");
	expect_for_people("the evidence view", text);
	TU_CHECK(count_matching(text, "^ +clock_nanosleep\\+0x65 \\(libc") ==
				 1 &&
			 count_matching(text, "^ +/srv/train.py:12 in "
					      "load_batch$") == 1,
		 "the straggler's stack is not shown once:\n%s", text);
	TU_CHECK(tu_contains(text, "straggler: rank 1 pid 7 thread 7 (main): "
				   "clock_nanosleep for 21.2 s at train.py:12 "
				   "in load_batch\n"),
		 "the straggler's line:\n%s", text);
	TU_CHECK(tu_contains(text, "since: 2026-12-05 05:21:52.400 UTC "
				   "(+12.4 s after start)"),
		 "the wait's start is no wall-clock time after the "
		 "process's:\n%s",
		 text);
	TU_CHECK(tu_contains(text, "peak_rss: 5.2 MiB") &&
			 tu_contains(text, "at: 1.56 s") &&
			 tu_contains(text, "size: 2\n"),
		 "sizes and seconds for people, a job's size as it is:\n%s",
		 text);
	/* The list of waits: the straggler's thread is not repeated, the
	 * other thread is a line with its socket and its code. */
	TU_CHECK(tu_contains(text, "- rank 1 pid 7 thread 9: epoll_wait for "
				   "21.6 s on tcp 127.0.0.1:37387 in "
				   "gloo::Loop::run (libgloo.so)\n") &&
			 count_matching(text, "thread 7 ") == 1,
		 "each thread once, on one line:\n%s", text);
	free(text);
	dlt_arena_free(arena);
}

/* ---- suite check: check's text over recorded traces ---------------------
 */

/* Two ranks of a job (RANK, WORLD_SIZE and MASTER_PORT from the
 * environment, as a launcher gives them): rank 1 sleeps in load_batch,
 * rank 0 waits for it in a collective of a stand-in for torch.distributed
 * (its Python frame is in torch/distributed/, as the real one's), on a
 * socket from rank 1.  Rank 1 connects once rank 0 listens (a file says
 * so): a refused connect would make it a rank that cannot connect. */
static const char job_py[] =
	"import os, socket, sys, time\n"
	"sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'pkg'))\n"
	"import torch.distributed as dist\n"
	"\n"
	"\n"
	"def load_batch(rank):\n"
	"    if rank == 1:\n"
	"        time.sleep(3600)\n"
	"\n"
	"\n"
	"rank = int(os.environ['RANK'])\n"
	"port = int(os.environ['MASTER_PORT'])\n"
	"ready = os.path.join(os.path.dirname(__file__), 'listening')\n"
	"if rank == 0:\n"
	"    lst = socket.socket()\n"
	"    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
	"    lst.bind(('127.0.0.1', port))\n"
	"    lst.listen(4)\n"
	"    open(ready, 'w').close()\n"
	"    s, _ = lst.accept()\n"
	"    dist.all_reduce(s)\n"
	"else:\n"
	"    while not os.path.exists(ready):\n"
	"        time.sleep(0.05)\n"
	"    s = socket.create_connection(('127.0.0.1', port))\n"
	"    load_batch(rank)\n";

static const char dist_py[] = "def all_reduce(sock):\n"
			      "    return sock.recv(1)\n";

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* hangs --json over dir names rank 1 the straggler at load_batch, with
 * rank 0 waiting at all_reduce: the job is where the test put it. */
static int hang_seen(const char *dir)
{
	struct tu_proc p;
	int r = tu_analyze_dir(&p, "hangs", "--json", dir);
	char err[128];
	struct tu_json *j =
		r == 0 && p.out ? tu_json_parse(p.out, err, sizeof(err)) : NULL;
	int seen = 0;
	const struct tu_json *fs = tu_jget(j, "findings");
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		const struct tu_json *ev = tu_jget(f, "evidence");
		const struct tu_json *st = tu_jget(ev, "straggler");
		const struct tu_json *wa = tu_jget(ev, "waiting");
		const char *code = tu_jstr(f, "code");
		seen |= code && strcmp(code, "JOB_HANG") == 0 &&
			tu_contains(tu_jstr(st, "python_at"), "load_batch") &&
			tu_jlen(wa) == 1 &&
			tu_contains(tu_jstr(tu_jat(wa, 0), "python_at"),
				    "all_reduce");
	}
	tu_json_free(j);
	tu_proc_free(&p);
	return seen;
}

static void test_hang_text(void)
{
	const char *why = tu_python_skip("socket");
	if (why) {
		tu_skip("%s", why);
		return;
	}
	char *dir = tu_tmpdir("text-hang");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *src = tu_strfmt("%s/src", dir), *trace = tu_strfmt("%s/tr", dir);
	char *pkg = tu_strfmt("%s/pkg/torch/distributed", src);
	char *mk = tu_strfmt("mkdir -p '%s' '%s'", pkg, trace);
	TU_CHECK_FATAL(system(mk) == 0, "cannot make %s", pkg);
	char *init = tu_strfmt("%s/pkg/torch/__init__.py", src);
	char *dinit = tu_strfmt("%s/__init__.py", pkg);
	char *script = tu_strfmt("%s/train.py", src);
	TU_CHECK_FATAL(write_file(init, "") == 0 &&
			       write_file(dinit, dist_py) == 0 &&
			       write_file(script, job_py) == 0,
		       "cannot write the job's files");
	int port = tu_free_port();
	TU_CHECK_FATAL(port > 0, "no free port");
	char port_env[64];
	snprintf(port_env, sizeof(port_env), "MASTER_PORT=%d", port);
	const char *env[] = {"MASTER_ADDR=127.0.0.1", port_env, "WORLD_SIZE=2",
			     "DLTRACE_STALL_MS=1000", NULL};
	const char *cmd[] = {
		"/bin/sh",
		"-c",
		"RANK=0 \"$0\" \"$1\" & RANK=1 \"$0\" \"$1\" & wait",
		tu_python(),
		script,
		NULL};
	const char **argv = tu_launcher_argv(trace, NULL, cmd);
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start");
	free(argv);
	/* Until the watcher has seen both waits (its look every 200 ms, the
	 * stall threshold 1 s): a state polled, with a guard against a job
	 * that never gets there. */
	int seen = 0;
	for (int k = 0; k < 600 && !seen; k++) {
		seen = hang_seen(trace);
		if (!seen)
			usleep(200000);
	}
	tu_kill_group(&p);
	TU_CHECK_FATAL(seen, "the job never hung as set up:\n%s%s",
		       p.out ? p.out : "", p.err ? p.err : "");
	char *text = checked_text("check (hang)", trace);
	char *head = headline_of(text, "JOB_HANG");
	TU_CHECK(head && tu_contains(head, "rank 1 (pid ") &&
			 tu_contains(head, "holds the job up") &&
			 tu_contains(head, "train.py:8 in load_batch") &&
			 matches(head, "[0-9.]+ (µs|ms|s|min|h)( |$)") == 1,
		 "the headline does not say who, where and for how long: %s",
		 head ? head : "(none)");
	/* Each stack once: the straggler's innermost frame and its Python
	 * line, rank 0's Python frame in the stand-in. */
	/* time.sleep waits in clock_nanosleep, before Python 3.11 in
	 * select. */
	TU_CHECK(count_matching(text, "^ +(clock_nanosleep|__select|select)"
				      "\\+0x[0-9a-f]+ \\(libc") == 1,
		 "the sleeping thread's stack is not shown once:\n%s", text);
	TU_CHECK(count_matching(text, "^ +/.*/train\\.py:8 in load_batch$") ==
				 1 &&
			 count_matching(text,
					"^ +/.*/torch/distributed/"
					"__init__\\.py:2 in all_reduce$") == 1,
		 "a Python stack is not shown once:\n%s", text);
	/* The wait's start as wall-clock time, after its process's. */
	TU_CHECK(matches(text, "since: 20[0-9-]+ [0-9:.]+ UTC \\(\\+[0-9.]+ "
			       "(µs|ms|s|min|h) after start\\)") == 1,
		 "no wall-clock start of the wait:\n%s", text);
	if (CU_get_number_of_failures())
		fprintf(stderr, "check:\n%s\n", text);
	free(head);
	free(text);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(mk);
	free(init);
	free(dinit);
	free(script);
	free(pkg);
	free(src);
	free(trace);
	free(dir);
}

/* A SIGSEGV in a library's function (tests/fixtures/fx_crash): the
 * headline names the function and the library, without an offset. */
static void test_crash_text(void)
{
	char *dir = tu_tmpdir("text-crash");
	char *fx = tu_fx("fx_crash");
	const char *cmd[] = {fx, "segv", NULL};
	char *text = traced_text("check (crash)", dir, cmd);
	char *head = headline_of(text, "CRASH");
	TU_CHECK(head &&
			 tu_contains(head,
				     "crashed with SIGSEGV in "
				     "fx_crash_deref (libfx_crashlib.so)") &&
			 !tu_contains(head, "+0x"),
		 "the crash's headline does not name the function and its "
		 "library: %s",
		 head ? head : "(none)");
	if (CU_get_number_of_failures())
		fprintf(stderr, "check:\n%s\n", text);
	free(head);
	free(text);
	tu_rmtree(dir);
	free(fx);
	free(dir);
}

/* Python passes address 0 to C through ctypes: the headline names the C
 * function, its library and the Python line. */
static void test_python_crash_text(void)
{
	const char *why = tu_python_skip("ctypes");
	if (why) {
		tu_skip("%s", why);
		return;
	}
	char *dir = tu_tmpdir("text-pycrash");
	char *script = tu_strfmt("%s/crash.py", dir);
	char *trace = tu_strfmt("%s/tr", dir);
	TU_CHECK_FATAL(write_file(script, "import ctypes\n\n"
					  "def read_null():\n"
					  "    return ctypes.string_at(0)\n\n"
					  "read_null()\n") == 0,
		       "cannot write %s", script);
	const char *cmd[] = {tu_python(), script, NULL};
	char *text = traced_text("check (Python crash)", trace, cmd);
	char *head = headline_of(text, "CRASH");
	TU_CHECK(head &&
			 /* A libc without its symbol table (glibc 2.31's)
			  * names no function: the library, said so. */
			 matches(head, "crashed with SIGSEGV in ([^ ]+ "
				       "\\(libc[-.0-9a-z]*\\.so[.0-9]*\\)|"
				       "libc[-.0-9a-z]*\\.so[.0-9]* "
				       "\\(no symbol\\))") == 1 &&
			 tu_contains(head, "crash.py:4 in read_null") &&
			 !tu_contains(head, "+0x"),
		 "the crash's headline does not name the C function, its "
		 "library and the Python line: %s",
		 head ? head : "(none)");
	/* The merged frames hold the Python stack: it is not shown again. */
	TU_CHECK(count_matching(text, "^ +/.*/crash\\.py:4 in read_null$") == 1,
		 "the Python frames are shown twice:\n%s", text);
	if (CU_get_number_of_failures())
		fprintf(stderr, "check:\n%s\n", text);
	free(head);
	free(text);
	tu_rmtree(dir);
	free(trace);
	free(script);
	free(dir);
}

static const struct tu_test unit_tests[] = {
	{"sizes in B, KiB, MiB, GiB", test_sizes},
	{"wall-clock time in the zone TZ names", test_wall_clock},
	{"moments after a start, seconds", test_after_start},
	{"frames for people and in prose", test_frames},
	{"evidence: units by key, each stack and thread once",
	 test_evidence_view},
	{NULL, NULL}};

static const struct tu_test check_tests[] = {
	{"a hung job: headline, units, each stack once", test_hang_text},
	{"a crash in a library: the function and the library", test_crash_text},
	{"a crash through ctypes: the function and the Python line",
	 test_python_crash_text},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"units", unit_tests, NULL},
					 {"check", check_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
