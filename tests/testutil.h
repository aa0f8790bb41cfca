/* Helpers shared by the dltrace tests: running programs with captured
 * output, scratch directories, reading traces through analyzer/reader/reader.h,
 * running dltrace-analyze and a small JSON parser for its output.
 *
 * Paths of the things under test come from CMake (tests/CMakeLists.txt):
 * DLT_TEST_LAUNCHER, DLT_TEST_ANALYZE, DLT_TEST_LIB, DLT_TEST_FX (fixtures),
 * DLT_TEST_TMP (scratch space: removed after each test unless a check has
 * failed or DLT_TEST_KEEP=1 is in the environment). */
#ifndef DLT_TESTUTIL_H
#define DLT_TESTUTIL_H

#include <CUnit/Basic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reader.h"

/* ---- assertions ------------------------------------------------------- */

/* CU_ASSERT with an explanation: on failure the formatted text goes to
 * stderr at once and into CUnit's failure list. */
#define TU_CHECK(cond, ...) \
	tu_check(!!(cond), __LINE__, __FILE__, #cond, 0, __VA_ARGS__)
#define TU_CHECK_FATAL(cond, ...) \
	tu_check(!!(cond), __LINE__, __FILE__, #cond, 1, __VA_ARGS__)
void tu_check(int ok, unsigned line, const char *file, const char *expr,
	      int fatal, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* ---- running programs -------------------------------------------------- */

struct tu_proc {
	pid_t pid;
	int out_fd, err_fd; /* -1 once drained */
	char *out, *err;    /* NUL-terminated captured output */
	size_t out_len, err_len, out_cap, err_cap;
	size_t out_pos; /* consumed by tu_proc_readline */
	int status;	/* raw wait status once reaped */
	int reaped;
	int timed_out;
	int go_fd; /* tu_proc_start_held: releases the child; else -1 */
};

/* Starts argv[0] (a path) with stdout and stderr captured and stdin from
 * /dev/null.  The environment is the test's own without LD_PRELOAD,
 * LD_AUDIT, LD_LIBRARY_PATH and DLTRACE_*, with LC_ALL=C, plus env
 * ("NAME=VALUE" entries, NULL-terminated; may be NULL).  The child leads a
 * new process group.  Returns 0 or -1. */
int tu_proc_start(struct tu_proc *p, const char *const argv[],
		  const char *const env[]);
/* The same, but the child stops just before its execve until tu_proc_go:
 * a test then knows the pid the program will run as, and so the names of
 * the files it will create, before the program runs. */
int tu_proc_start_held(struct tu_proc *p, const char *const argv[],
		       const char *const env[]);
void tu_proc_go(struct tu_proc *p);
/* Reads one line of stdout (without the newline) into buf.  Returns 1, 0 at
 * end of output, -1 on timeout. */
int tu_proc_readline(struct tu_proc *p, char *buf, size_t cap, int timeout_ms);
/* Reads all output and reaps the child.  On timeout the process group is
 * killed and timed_out set.  Returns 0, or -1 on timeout. */
int tu_proc_wait(struct tu_proc *p, int timeout_ms);
void tu_proc_free(struct tu_proc *p);
/* start + wait. */
int tu_run(struct tu_proc *p, const char *const argv[], const char *const env[],
	   int timeout_ms);
/* argv of `dltrace -o dir [opts...] -- cmd...` (opts may be NULL); the
 * caller frees the array, not the strings. */
const char **tu_launcher_argv(const char *dir, const char *const opts[],
			      const char *const cmd[]);
/* Runs cmd under `dltrace -o dir --`. */
int tu_run_traced(struct tu_proc *p, const char *dir, const char *const cmd[],
		  const char *const env[], int timeout_ms);
/* env plus LD_PRELOAD=libdltrace.so, DLTRACE_DIR=dir and, with no_audit,
 * DLTRACE_AUDIT=0: traced without the launcher.  One block: free() it. */
const char **tu_preload_env(const char *dir, const char *const env[],
			    int no_audit);
/* Exit code as a shell reports it: 128+N for a death by signal N. */
int tu_exit_code(int status);
/* Describes a run for failure messages ("exit 3", "signal 9", ...). */
const char *tu_status_str(int status);

/* ---- files and strings ------------------------------------------------- */

char *tu_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A fixture's path: DLT_TEST_FX "/" rel.  Caller frees. */
char *tu_fx(const char *rel);
/* A fresh directory under DLT_TEST_TMP. Caller frees; tu_rmtree removes it
 * (or keeps it and says so, see above). */
char *tu_tmpdir(const char *tag);
void tu_rmtree(const char *path);
/* 1 if both paths name the same existing file (device and inode). */
int tu_same_file(const char *a, const char *b);
/* Lines of text that start with prefix. */
size_t tu_count_lines(const char *text, const char *prefix);
/* text without the lines that start with prefix.  Caller frees. */
char *tu_drop_lines(const char *text, const char *prefix);
int tu_contains(const char *hay, const char *needle);
int tu_contains_ci(const char *hay, const char *needle);
int tu_copy_file(const char *from, const char *to);
/* A copy of the ELF object from whose GNU build-id differs in its last
 * byte: another build of the same library, byte for byte the same size.
 * Returns 0, or -1 (no build-id, or a write failed). */
int tu_copy_other_build(const char *from, const char *to);

/* ---- traces -------------------------------------------------------------- */

struct tu_mark {
	uint32_t id, aux;
	uint64_t value;
	uint32_t tid;
};

struct tu_exit {
	uint16_t how; /* enum dlt_exit_how */
	int32_t status;
};

struct tu_reap {
	uint16_t call; /* enum dlt_reap_call */
	uint32_t pid;
	int32_t status;
};

/* One record of a trace read by tu_trace_read: a copy (the reader's own
 * lives until its next record), with the thread that wrote it. */
struct tu_rec {
	const struct dlt_rec_hdr *h;
	uint32_t tid;
	uint32_t writer;
};

/* Everything a test wants to know about one trace file. */
struct tu_trace {
	char *path;
	struct dlt_file_header hdr;
	struct tu_mark *marks;
	size_t nmarks, cap_marks;
	struct tu_exit exits[16];
	size_t nexits;
	uint32_t forks[16]; /* child pids of FORK records */
	size_t nforks;
	struct tu_reap reaps[16]; /* REAP records: children it reaped */
	size_t nreaps;
	size_t nrec[256]; /* records seen per type (types < 256) */
	char **problems;
	size_t nproblems;
	struct dlt_trace_stats stats;
	char exe[1024]; /* the PROC record's program, "" none */
	/* While loading; after tu_trace_read, until tu_trace_free. */
	struct dlt_trace *reader;
	struct tu_rec *recs; /* tu_trace_read: every record, in file order */
	size_t nrecs, cap_recs;
	int keep; /* recs and reader wanted */
};

/* Reads a whole trace.  Returns 0, or -1 with err set when it cannot be
 * opened. */
int tu_trace_load(const char *path, struct tu_trace *t, char *err,
		  size_t errlen);
/* The same, and keeps a copy of every record (recs) and the reader open
 * for the trace's strings (tu_trace_str) until tu_trace_free.  A trace
 * that does not open or reads with a problem is a failed check, unless
 * quiet (a trace polled while its process still writes it).  Returns 0,
 * or -1 when it does not open. */
int tu_trace_read(const char *path, struct tu_trace *t, int quiet);
/* A string of a trace read by tu_trace_read ("" for none). */
const char *tu_trace_str(const struct tu_trace *t, uint32_t id);
void tu_trace_free(struct tu_trace *t);
int tu_trace_has_mark(const struct tu_trace *t, uint32_t id);

/* A file's size in bytes, 0 when it cannot be stat'ed. */
uint64_t tu_file_size(const char *path);

/* How a trace file of format 2.0 is laid out, read from its bytes (not
 * through the reader): its size, the end of what was handed out, the bytes
 * of committed records (chunk headers included), and how many bytes of the
 * chunk that ends at alloc_cursor follow its last record.  Returns 0, or -1
 * when the file is not a 2.x trace or a chunk header is damaged. */
struct tu_layout {
	uint64_t size, cursor, data, last_unused, disk;
	size_t chunks;
};
int tu_trace_layout(const char *path, struct tu_layout *l);

/* Every *.dltrace in dir but the watcher's companions (read with the
 * trace they are about), sorted by name.  Returns the count (0 for none or
 * an unreadable directory); *paths is a NULL-terminated array. */
size_t tu_list_traces(const char *dir, char ***paths);
void tu_free_list(char **paths);

struct tu_traceset {
	struct tu_trace *t;
	size_t n;
};
/* Loads every trace in dir; a trace that does not open is a failed check. */
size_t tu_traceset_load(const char *dir, struct tu_traceset *s);
/* Reads every trace in dir with tu_trace_read; returns how many opened. */
size_t tu_traceset_read(const char *dir, struct tu_traceset *s, int quiet);
/* The one trace of the set of a process that ran a program of this base
 * name (the launcher's traced child, not a shell in between), or NULL and
 * a failed check when there is not exactly one. */
struct tu_trace *tu_traceset_only(struct tu_traceset *s, const char *exe);
void tu_traceset_free(struct tu_traceset *s);
/* The traces in the set holding a mark with this id. */
size_t tu_traceset_with_mark(const struct tu_traceset *s, uint32_t id,
			     const struct tu_trace **first);
/* Prints every trace of the set (header and counts) on stderr, for
 * failure diagnostics. */
void tu_traceset_dump(const struct tu_traceset *s);

/* ---- JSON -----------------------------------------------------------------
 */

enum tu_jtype { TU_JNULL, TU_JBOOL, TU_JNUM, TU_JSTR, TU_JARR, TU_JOBJ };

struct tu_json {
	enum tu_jtype type;
	int b;
	double num;
	char *str;		/* TU_JSTR */
	size_t n;		/* members of an array or object */
	char **keys;		/* TU_JOBJ */
	struct tu_json **items; /* TU_JARR, TU_JOBJ */
};

struct tu_json *tu_json_parse(const char *text, char *err, size_t errlen);
void tu_json_free(struct tu_json *j);
/* Member of an object, or NULL (also when j is NULL or not an object). */
const struct tu_json *tu_jget(const struct tu_json *j, const char *key);
/* String member, or NULL when missing, null or not a string. */
const char *tu_jstr(const struct tu_json *j, const char *key);
/* What a finding says: its headline ("message") and its "detail" below
 * it, as one text (NULL without a message), for tests that look for words
 * wherever the finding puts them.  Valid until the eighth call after. */
const char *tu_jmsg(const struct tu_json *f);
/* Array length (0 for anything but an array) and element. */
size_t tu_jlen(const struct tu_json *j);
const struct tu_json *tu_jat(const struct tu_json *j, size_t i);

/* ---- dltrace-analyze ---------------------------------------------------- */

/* Runs `dltrace-analyze SUBCMD [OPT] TRACES...` on every trace in dir. */
int tu_analyze_dir(struct tu_proc *p, const char *subcmd, const char *opt,
		   const char *dir);
/* `libs --json` on every trace in dir, parsed.  Failures are reported as
 * failed checks; returns NULL then. */
struct tu_json *tu_libs_json(const char *dir);

/* `check --json --fail-on never` on every trace in dir, parsed; NULL (and
 * a failed check) when it cannot be run or read. */
struct tu_json *tu_check_json(const char *dir);
/* docs/findings.md, read once. */
const char *tu_findings_doc(void);
/* The section of docs/findings.md about a finding code ("### CODE" up to
 * the next heading), or NULL.  Caller frees. */
char *tu_findings_section(const char *code);
/* A finding of check --json (or hangs --json) is documented: its code has
 * a section in docs/findings.md naming every key of its evidence, and it
 * has a fix. */
void tu_expect_documented(const struct tu_json *f);

/* A healthy run: `check` and `hangs` over every trace in dir find nothing
 * of severity warning or error (each is a failed check, printed), every
 * finding is documented (tu_expect_documented), and both exit 0. */
void tu_expect_healthy(const char *what, const char *dir);

/* ---- running suites -------------------------------------------------------
 */

struct tu_test {
	const char *name;
	void (*fn)(void);
};

struct tu_suite {
	const char *name;
	const struct tu_test *tests; /* ends with {NULL, NULL} */
	/* NULL, or a function that returns why the suite cannot run here. */
	const char *(*skip_reason)(void);
};

/* Runs the suites named on the command line (all without arguments) with
 * CUnit's verbose basic runner.  Exit status: 0 all passed, 1 failures,
 * 77 (ctest: skipped) when every suite asked for was skipped, or every
 * test that ran called tu_skip and none failed. */
int tu_main(int argc, char **argv, const struct tu_suite *suites);

/* The running test cannot do what it was written for here (a tool, a
 * library or a permission is missing): says why on stdout and counts the
 * test as skipped; the caller returns.  tu_skip_part is for a part of a
 * test: the rest still ran, so the test still counts as run, but the
 * summary line of tu_main names the part that was not. */
void tu_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tu_skip_part(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Processes of process group pgid that are still running (not zombies),
 * after waiting up to ms for them to go (a state polled, not a time). */
int tu_group_alive(pid_t pgid, int ms);

/* SIGKILLs p's process group, reaps p, and waits until no process of the
 * group runs (a process goes a moment after the signal; analyses of a live
 * directory tell running from gone).  A group still running after 10 s is
 * a failed check. */
void tu_kill_group(struct tu_proc *p);

/* A TCP port on 127.0.0.1 that was free a moment ago (for MASTER_PORT),
 * or -1. */
int tu_free_port(void);

/* The Python to run PyTorch tests with: /usr/bin/python3 (Debian's
 * python3-torch) unless DLT_TEST_PYTHON names another. */
const char *tu_python(void);
/* NULL when tu_python() can import module, else why not (for a suite's
 * skip function). */
const char *tu_python_skip(const char *module);

/* The traced run must look like the plain one: same exit status, same
 * stdout and, with check_stderr, the same stderr without dltrace's lines. */
void tu_expect_same_run(const char *what, const struct tu_proc *plain,
			const struct tu_proc *traced, int check_stderr);
/* The same for a traced run under the launcher, which exits 128+N where the
 * plain run died of signal N. */
void tu_expect_same_launched(const char *what, const struct tu_proc *plain,
			     const struct tu_proc *traced, int check_stderr);
/* Value of "PREFIX<value>" on a line of text, copied into buf; NULL if no
 * line starts with prefix. */
const char *tu_line_value(const char *text, const char *prefix, char *buf,
			  size_t cap);

#endif
