/* The watcher's companion traces (format 2.3) read as part of their
 * process: the reader's second table of string ids, the job's pairing
 * (analyzer/reader/job.c), and what the commands make of them.
 *
 * Each test writes, with the real writer, a process's own trace (its pid
 * faked: no such process runs, on a host that is not this one) and the
 * watcher's companion for it (tests/companion.c): a NOTE, a STALL of the
 * main thread, its STACK and its PYSTACK, every string id with bit 31. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "companion.h"
#include "job.h"
#include "reader.h"
#include "testutil.h"

/* Above any pid_max (2^22): never a live process here. */
#define PID_A 4194400u
#define PID_B 4194500u

struct pair {
	char *dir;
	char trace[4096];
	char comp[4096];
};

static void make_pair(struct pair *pr, const char *tag, uint32_t pid)
{
	pr->dir = tu_tmpdir(tag);
	TU_CHECK_FATAL(pr->dir != NULL, "no scratch directory");
	TU_CHECK_FATAL(tc_make_process(pr->dir, pid, 1, pr->trace,
				       sizeof(pr->trace)) == 0,
		       "cannot write a process trace in %s", pr->dir);
	TU_CHECK_FATAL(
		tc_make_companion(pr->trace, pr->comp, sizeof(pr->comp)) == 0,
		"cannot write a companion for %s", pr->trace);
}

static void free_pair(struct pair *pr)
{
	tu_rmtree(pr->dir);
	free(pr->dir);
}

static struct dlt_trace *open_or_die(const char *path)
{
	char err[512];
	struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "cannot open %s: %s", path, err);
	return t;
}

/* What a walk of a process trace with its companion saw. */
struct walk {
	struct dlt_trace *t;
	uint32_t own_notes, comp_notes, stalls, stacks, pystacks;
	uint32_t watcher_chunks;
	uint32_t wchan_id, frame_id, note_id;
	int in_order; /* every companion record after the trace's own */
	int seen_comp;
	char wchan[128], frame[128];
};

static int walk_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct walk *w = ctx;
	const struct dlt_rec_hdr *h = v->rec;
	if (v->companion)
		w->seen_comp = 1;
	else if (w->seen_comp)
		w->in_order = 0;
	if (v->writer == DLT_WRITER_WATCHER)
		w->watcher_chunks++;
	switch (h->type) {
	case DLT_REC_NOTE: {
		const struct dlt_rec_note *n = (const void *)h;
		if (v->companion) {
			w->comp_notes++;
			w->note_id = n->text;
		} else {
			w->own_notes++;
		}
		break;
	}
	case DLT_REC_STALL: {
		const struct dlt_rec_stall *s = (const void *)h;
		w->stalls++;
		w->wchan_id = s->wchan;
		/* Resolved during the walk, as hangs.c does. */
		snprintf(w->wchan, sizeof(w->wchan), "%s",
			 dlt_trace_strz(w->t, s->wchan));
		break;
	}
	case DLT_REC_STACK: {
		const struct dlt_rec_stack *s = (const void *)h;
		w->stacks++;
		w->frame_id = s->frames[0];
		snprintf(w->frame, sizeof(w->frame), "%s",
			 dlt_trace_strz(w->t, s->frames[0]));
		break;
	}
	case DLT_REC_PYSTACK:
		w->pystacks++;
		break;
	}
	return 0;
}

static void walk_trace(struct dlt_trace *t, struct walk *w)
{
	memset(w, 0, sizeof(*w));
	w->t = t;
	w->in_order = 1;
	dlt_trace_foreach(t, walk_rec, w);
}

static void test_attach(void)
{
	struct pair pr;
	make_pair(&pr, "comp-attach", PID_A);
	struct dlt_trace *t = open_or_die(pr.trace);
	struct dlt_trace *c = open_or_die(pr.comp);
	uint64_t start = dlt_trace_header(t)->start_monotonic_ns;
	TU_CHECK(dlt_trace_header(t)->alive_ns == 0 &&
			 dlt_trace_header(t)->rss_peak_kb == 0,
		 "the process's own header has a heartbeat already");
	struct dlt_trace_stats own;
	dlt_trace_foreach(t, walk_rec, &(struct walk){.t = t});
	dlt_trace_stats(t, &own);
	dlt_trace_attach(t, c);
	TU_CHECK(dlt_trace_companions(t) == 1, "%zu companions attached",
		 dlt_trace_companions(t));
	const struct dlt_file_header *h = dlt_trace_header(t);
	TU_CHECK(h->alive_ns == start + TC_ALIVE_AFTER_NS &&
			 h->rss_peak_kb == TC_RSS_KB,
		 "header after attach: alive_ns +%llu rss_peak_kb %llu",
		 (unsigned long long)(h->alive_ns - start),
		 (unsigned long long)h->rss_peak_kb);
	struct walk w;
	walk_trace(t, &w);
	TU_CHECK(w.own_notes == 1 && w.comp_notes == 1 && w.stalls == 1 &&
			 w.stacks == 1 && w.pystacks == 1 && w.in_order,
		 "walk: %u own notes, %u companion notes, %u stalls, %u "
		 "stacks, %u python stacks, in order %d",
		 w.own_notes, w.comp_notes, w.stalls, w.stacks, w.pystacks,
		 w.in_order);
	TU_CHECK(w.watcher_chunks == 4, "%u records in watcher chunks",
		 w.watcher_chunks);
	TU_CHECK((w.wchan_id & DLT_STR_WATCHER) &&
			 strcmp(w.wchan, TC_WCHAN) == 0 &&
			 strcmp(w.frame, TC_FRAME0) == 0,
		 "during the walk: wchan %#x \"%s\", frame \"%s\"", w.wchan_id,
		 w.wchan, w.frame);
	/* And after it, as the model resolves the records it kept. */
	TU_CHECK(strcmp(dlt_trace_strz(t, w.note_id), TC_NOTE) == 0 &&
			 strcmp(dlt_trace_strz(t, w.frame_id), TC_FRAME0) == 0,
		 "after the walk: note \"%s\", frame \"%s\"",
		 dlt_trace_strz(t, w.note_id), dlt_trace_strz(t, w.frame_id));
	/* The process's own ids are untouched: the same id without the
	 * bit is one of its own strings, or none. */
	const char *low = dlt_trace_str(t, w.wchan_id & ~DLT_STR_WATCHER);
	TU_CHECK(low == NULL || strcmp(low, TC_WCHAN) != 0,
		 "id %#x resolves to the companion's string",
		 w.wchan_id & ~DLT_STR_WATCHER);
	struct dlt_trace_stats all;
	dlt_trace_stats(t, &all);
	TU_CHECK(all.records > own.records && all.chunks > own.chunks,
		 "stats: %llu records with the companion, %llu without",
		 (unsigned long long)all.records,
		 (unsigned long long)own.records);
	TU_CHECK(dlt_trace_problem_count(t) == 0, "problems: %s",
		 dlt_trace_problem(t, 0));
	dlt_trace_close(t);
	free_pair(&pr);
}

/* A forged string id in the second table: refused against the file's
 * size, like one of the first (no table of 2^31 slots). */
static void test_forged_id(void)
{
	struct pair pr;
	make_pair(&pr, "comp-forged", PID_A);
	/* The first record of the first chunk is the STRING of the note. */
	off_t at = DLT_DATA_OFFSET + sizeof(struct dlt_rec_chunk);
	int fd = open(pr.comp, O_RDWR);
	TU_CHECK_FATAL(fd >= 0, "cannot open %s", pr.comp);
	struct dlt_rec_string s;
	TU_CHECK_FATAL(pread(fd, &s, sizeof(s), at) == (ssize_t)sizeof(s) &&
			       s.h.type == DLT_REC_STRING &&
			       s.id == DLT_STR_WATCHER + 1,
		       "no STRING record at %lld", (long long)at);
	s.id = DLT_STR_WATCHER | 0x7ffffff0u;
	TU_CHECK_FATAL(pwrite(fd, &s, sizeof(s), at) == (ssize_t)sizeof(s),
		       "cannot write");
	close(fd);
	struct dlt_trace *c = open_or_die(pr.comp);
	TU_CHECK(dlt_trace_str(c, s.id) == NULL, "the forged id %#x resolves",
		 s.id);
	int said = 0;
	for (size_t i = 0; i < dlt_trace_problem_count(c); i++)
		said |= tu_contains(dlt_trace_problem(c, i),
				    "larger than the file allows");
	TU_CHECK(said, "the forged id is not said");
	TU_CHECK(strcmp(dlt_trace_strz(c, DLT_STR_WATCHER + 2), TC_WCHAN) == 0,
		 "the next string \"%s\" is lost",
		 dlt_trace_strz(c, DLT_STR_WATCHER + 2));
	dlt_trace_close(c);
	free_pair(&pr);
}

/* Two companions of one trace that number their strings otherwise: the
 * second is left out and said, never read with the first's strings. */
static void test_clashing_companions(void)
{
	struct pair pr;
	make_pair(&pr, "comp-clash", PID_A);
	char second[4096];
	TU_CHECK_FATAL(tc_make_companion(pr.trace, second, sizeof(second)) == 0,
		       "cannot write a second companion");
	/* The same strings in the same order: they agree. */
	struct dlt_trace *t = open_or_die(pr.trace);
	dlt_trace_attach(t, open_or_die(pr.comp));
	dlt_trace_attach(t, open_or_die(second));
	struct walk w;
	walk_trace(t, &w);
	TU_CHECK(w.stalls == 2 && dlt_trace_problem_count(t) == 0,
		 "two agreeing companions: %u stalls, problems: %s", w.stalls,
		 dlt_trace_problem(t, 0));
	dlt_trace_close(t);
	/* The second's first string made another text. */
	int fd = open(second, O_RDWR);
	TU_CHECK_FATAL(fd >= 0, "cannot open %s", second);
	off_t at = DLT_DATA_OFFSET + sizeof(struct dlt_rec_chunk) +
		   sizeof(struct dlt_rec_string);
	TU_CHECK_FATAL(pwrite(fd, "W", 1, at) == 1, "cannot write");
	close(fd);
	t = open_or_die(pr.trace);
	dlt_trace_attach(t, open_or_die(pr.comp));
	dlt_trace_attach(t, open_or_die(second));
	walk_trace(t, &w);
	int said = 0;
	for (size_t i = 0; i < dlt_trace_problem_count(t); i++)
		said |= tu_contains(dlt_trace_problem(t, i), second) &&
			tu_contains(dlt_trace_problem(t, i), "left out");
	TU_CHECK(w.stalls == 1 && w.comp_notes == 1 && said,
		 "clashing companions: %u stalls, %u notes, said %d", w.stalls,
		 w.comp_notes, said);
	TU_CHECK(strcmp(dlt_trace_strz(t, w.note_id), TC_NOTE) == 0,
		 "the note reads \"%s\"", dlt_trace_strz(t, w.note_id));
	dlt_trace_close(t);
	free_pair(&pr);
}

/* The job: the companion is attached, never a trace of its own; one
 * without its trace, or of another pid, is a note. */
static void test_job_pairs(void)
{
	struct pair pr;
	make_pair(&pr, "comp-job", PID_A);
	char *argv[] = {pr.dir};
	struct dlt_job j;
	TU_CHECK_FATAL(dlt_job_open(&j, 1, argv, NULL) == 0, "no job");
	TU_CHECK(j.ntraces == 1 && j.nerrors == 0 && j.nnotes == 0 &&
			 strcmp(j.traces[0].path, pr.trace) == 0 &&
			 dlt_trace_companions(j.traces[0].t) == 1,
		 "%zu traces, %zu errors, %zu notes", j.ntraces, j.nerrors,
		 j.nnotes);
	dlt_job_close(&j);
	/* Apart (dump, compact): two files. */
	const struct dlt_job_opts apart = {.companions_apart = true};
	TU_CHECK_FATAL(dlt_job_open(&j, 1, argv, &apart) == 0, "no job");
	TU_CHECK(j.ntraces == 2 && j.nnotes == 0, "apart: %zu traces",
		 j.ntraces);
	dlt_job_close(&j);
	/* Named alone, the companion is a note and the job has no trace. */
	char *alone[] = {pr.comp};
	TU_CHECK(
		dlt_job_open(&j, 1, alone, NULL) == -1 && j.nnotes == 1 &&
			tu_contains(j.notes[0].message, "not among the inputs"),
		"a companion alone: %zu traces, %zu notes", j.ntraces,
		j.nnotes);
	dlt_job_close(&j);
	/* A trace of another pid under the parent's trace id is not its
	 * process. */
	struct pair other;
	make_pair(&other, "comp-job-other", PID_B);
	char *mixed[] = {other.trace, pr.comp};
	TU_CHECK(dlt_job_open(&j, 2, mixed, NULL) == 0 && j.ntraces == 1 &&
			 j.nnotes == 1 &&
			 dlt_trace_companions(j.traces[0].t) == 0,
		 "another process's trace: %zu traces, %zu notes", j.ntraces,
		 j.nnotes);
	dlt_job_close(&j);
	/* Named as written on another host: not its process.  Named
	 * otherwise (renamed, or through /proc/self/fd): the name says
	 * nothing of the host, and the ids and pid pair them. */
	char *host_b =
		tu_strfmt("%s/other-host.%u.0.r1.watch.dltrace", pr.dir, PID_A);
	char *renamed = tu_strfmt("%s/renamed.dltrace", pr.dir);
	TU_CHECK_FATAL(rename(pr.comp, host_b) == 0, "cannot rename");
	TU_CHECK(dlt_job_open(&j, 1, argv, NULL) == 0 && j.ntraces == 1 &&
			 j.nnotes == 1 &&
			 tu_contains(j.notes[0].message, "another host"),
		 "a companion of another host: %zu traces, %zu notes",
		 j.ntraces, j.nnotes);
	dlt_job_close(&j);
	TU_CHECK_FATAL(rename(host_b, renamed) == 0, "cannot rename");
	TU_CHECK(dlt_job_open(&j, 1, argv, NULL) == 0 && j.ntraces == 1 &&
			 j.nnotes == 0 &&
			 dlt_trace_companions(j.traces[0].t) == 1,
		 "a renamed companion: %zu traces, %zu notes", j.ntraces,
		 j.nnotes);
	dlt_job_close(&j);
	free(host_b);
	free(renamed);
	free_pair(&other);
	free_pair(&pr);
}

static struct tu_json *analyze_json(const char *cmd, const char *dir,
				    char **err_out)
{
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	const char **argv = calloc(n + 6, sizeof(*argv));
	size_t k = 0;
	argv[k++] = DLT_TEST_ANALYZE;
	argv[k++] = cmd;
	if (strcmp(cmd, "export") == 0) {
		argv[k++] = "--format";
		argv[k++] = "chrome";
	} else {
		argv[k++] = "--json";
	}
	argv[k++] = dir;
	struct tu_proc p;
	tu_run(&p, argv, NULL, 60000);
	int rc = tu_exit_code(p.status);
	char err[256];
	struct tu_json *j = tu_json_parse(p.out, err, sizeof(err));
	TU_CHECK(j != NULL && (rc == 0 || rc == 1), "%s on %s: %s, %s\n%s", cmd,
		 dir, tu_status_str(p.status), j ? "parsed" : err, p.err);
	if (err_out)
		*err_out = strdup(p.err);
	tu_proc_free(&p);
	free(argv);
	tu_free_list(paths);
	return j;
}

static char *analyze_text(const char *cmd, const char *dir, char **err_out)
{
	const char *argv[] = {DLT_TEST_ANALYZE, cmd, dir, NULL};
	struct tu_proc p;
	tu_run(&p, argv, NULL, 60000);
	char *out = strdup(p.out);
	if (err_out)
		*err_out = strdup(p.err);
	tu_proc_free(&p);
	return out;
}

static void test_commands(void)
{
	struct pair pr;
	make_pair(&pr, "comp-cmds", PID_A);
	char *err = NULL;

	struct tu_json *hj = analyze_json("hangs", pr.dir, &err);
	const struct tu_json *rows = tu_jget(hj, "ranks");
	const struct tu_json *r0 = tu_jat(rows, 0);
	const struct tu_json *pid = tu_jget(r0, "pid");
	const struct tu_json *rank = tu_jget(r0, "rank");
	const struct tu_json *py = tu_jget(r0, "python_stack");
	TU_CHECK(tu_jlen(rows) == 1 && pid && pid->num == PID_A && rank &&
			 rank->num == 1,
		 "hangs: %zu rows, pid %g, rank %g", tu_jlen(rows),
		 pid ? pid->num : -1, rank ? rank->num : -1);
	TU_CHECK(tu_contains(tu_jstr(r0, "waiting_in"), TC_DETAIL),
		 "hangs: waiting in \"%s\"", tu_jstr(r0, "waiting_in"));
	TU_CHECK(tu_jlen(py) == 1 && tu_contains(tu_jat(py, 0)->str, TC_PYFUNC),
		 "hangs: python stack of %zu frames", tu_jlen(py));
	TU_CHECK(!tu_contains(err, "watcher"), "hangs said:\n%s", err);
	tu_json_free(hj);
	free(err);

	struct tu_json *cj = analyze_json("check", pr.dir, &err);
	const struct tu_json *procs = tu_jget(cj, "processes");
	const struct tu_json *cpid = tu_jget(tu_jat(procs, 0), "pid");
	TU_CHECK(tu_jlen(procs) == 1 && cpid && cpid->num == PID_A,
		 "check: %zu processes", tu_jlen(procs));
	tu_json_free(cj);
	free(err);

	char *sum = analyze_text("summary", pr.dir, &err);
	TU_CHECK(tu_count_lines(sum, "pid ") == 1 &&
			 tu_contains(sum, "4194400") &&
			 tu_contains(sum, TC_NOTE),
		 "summary:\n%s", sum);
	TU_CHECK(err[0] == '\0', "summary said:\n%s", err);
	free(sum);
	free(err);

	struct tu_json *xj = analyze_json("export", pr.dir, &err);
	const struct tu_json *ev = tu_jget(xj, "traceEvents");
	size_t names = 0, pids = 0, note_main = 0, stall = 0;
	double xpid = -1;
	for (size_t i = 0; i < tu_jlen(ev); i++) {
		const struct tu_json *e = tu_jat(ev, i);
		const struct tu_json *ep = tu_jget(e, "pid");
		const struct tu_json *et = tu_jget(e, "tid");
		const struct tu_json *args = tu_jget(e, "args");
		const char *name = tu_jstr(e, "name");
		if (name && strcmp(name, "process_name") == 0) {
			names += tu_contains(tu_jstr(args, "name"),
					     "rank 1 pid 4194400");
			xpid = ep ? ep->num : -1;
		}
		pids += ep && ep->num != xpid;
		const char *text = tu_jstr(args, "text");
		note_main += text && strcmp(text, TC_NOTE) == 0 && et &&
			     et->num == PID_A;
		stall += name && tu_contains(name, "futex");
	}
	TU_CHECK(names == 1 && pids == 0 && note_main == 1 && stall == 1,
		 "export: %zu events, %zu processes named, %zu events of "
		 "another process, %zu watcher notes on the main thread, %zu "
		 "stalls",
		 tu_jlen(ev), names, pids, note_main, stall);
	tu_json_free(xj);
	free(err);
	free_pair(&pr);
}

/* A companion cut in the middle of its data: read up to the cut, and
 * said with its file; the process is still one. */
static void test_damaged(void)
{
	struct pair pr;
	make_pair(&pr, "comp-cut", PID_A);
	/* Half way through its data, which ends at alloc_cursor: a file
	 * still at its start size was not cut when its writer let go. */
	struct tu_layout l;
	TU_CHECK_FATAL(tu_trace_layout(pr.comp, &l) == 0, "no companion");
	off_t cut = (off_t)(DLT_DATA_OFFSET + (l.cursor - DLT_DATA_OFFSET) / 2);
	TU_CHECK_FATAL(truncate(pr.comp, cut) == 0, "cannot cut");
	struct dlt_trace *t = open_or_die(pr.trace);
	dlt_trace_attach(t, open_or_die(pr.comp));
	struct walk w;
	walk_trace(t, &w);
	int said = 0;
	for (size_t i = 0; i < dlt_trace_problem_count(t); i++)
		said |= tu_contains(dlt_trace_problem(t, i), pr.comp) &&
			tu_contains(dlt_trace_problem(t, i), "cut");
	TU_CHECK(w.comp_notes == 1 && w.pystacks == 0 && said,
		 "cut companion: %u notes, %u python stacks, said %d: %s",
		 w.comp_notes, w.pystacks, said, dlt_trace_problem(t, 0));
	uint64_t off;
	TU_CHECK(dlt_trace_damage(t, &off) == 0,
		 "the companion's damage is the trace's (offset %llu)",
		 (unsigned long long)off);
	dlt_trace_close(t);
	char *err = NULL;
	struct tu_json *cj = analyze_json("check", pr.dir, &err);
	const struct tu_json *procs = tu_jget(cj, "processes");
	const struct tu_json *fs = tu_jget(cj, "findings");
	int found = 0;
	for (size_t i = 0; i < tu_jlen(fs); i++) {
		const struct tu_json *f = tu_jat(fs, i);
		if (strcmp(tu_jstr(f, "code"), "TRACE_INCOMPLETE") != 0)
			continue;
		const struct tu_json *pl =
			tu_jget(tu_jget(f, "evidence"), "problems");
		for (size_t k = 0; k < tu_jlen(pl); k++)
			found |= tu_contains(tu_jat(pl, k)->str, pr.comp) &&
				 tu_contains(tu_jat(pl, k)->str, "truncated");
	}
	TU_CHECK(tu_jlen(procs) == 1 && found,
		 "check on a cut companion: %zu processes, said %d",
		 tu_jlen(procs), found);
	TU_CHECK(tu_contains(err, "watcher records"),
		 "check said nothing of the cut:\n%s", err);
	tu_json_free(cj);
	free(err);
	free_pair(&pr);
}

/* A companion whose process's trace is not among the inputs: one note on
 * stderr, and no process of its own. */
static void test_orphan(void)
{
	struct pair pr, other;
	make_pair(&pr, "comp-orphan", PID_A);
	make_pair(&other, "comp-orphan-b", PID_B);
	TU_CHECK_FATAL(unlink(pr.trace) == 0, "cannot remove the trace");
	char *moved = tu_strfmt("%s/%s", other.dir, strrchr(pr.comp, '/') + 1);
	TU_CHECK_FATAL(rename(pr.comp, moved) == 0, "cannot move");
	char *err = NULL;
	char *sum = analyze_text("summary", other.dir, &err);
	TU_CHECK(tu_count_lines(sum, "pid ") == 1 &&
			 !tu_contains(sum, "4194400"),
		 "summary with an orphan companion:\n%s", sum);
	char *line = tu_strfmt("dltrace-analyze: %s: watcher records for "
			       "trace",
			       moved);
	TU_CHECK(tu_count_lines(err, line) == 1 &&
			 tu_contains(err, "not among the inputs"),
		 "summary said:\n%s", err);
	free(line);
	free(sum);
	free(err);
	free(moved);
	free_pair(&other);
	free_pair(&pr);
}

/* dump FILE of a companion: the file as it is, its header saying what it
 * is, its strings resolved. */
static void test_dump(void)
{
	struct pair pr;
	make_pair(&pr, "comp-dump", PID_A);
	char *err = NULL;
	char *out = analyze_text("dump", pr.comp, &err);
	TU_CHECK(tu_contains(out, "(watched)") && tu_contains(out, "watcher") &&
			 tu_contains(out, TC_WCHAN) &&
			 tu_contains(out, TC_FRAME1) &&
			 !tu_contains(out, "/usr/bin/python3"),
		 "dump of a companion:\n%s", out);
	TU_CHECK(err[0] == '\0', "dump said:\n%s", err);
	free(out);
	free(err);
	free_pair(&pr);
}

static const struct tu_test reader_tests[] = {
	{"a companion's records and strings read through its trace",
	 test_attach},
	{"a forged id with bit 31 is refused", test_forged_id},
	{"a second companion whose strings clash is left out",
	 test_clashing_companions},
	{NULL, NULL}};

static const struct tu_test job_tests[] = {
	{"the job pairs a companion with its trace", test_job_pairs},
	{NULL, NULL}};

static const struct tu_test cmd_tests[] = {
	{"hangs, check, summary and export see one process", test_commands},
	{"a cut companion is read up to the cut and said", test_damaged},
	{"an orphan companion is said once", test_orphan},
	{"dump of a companion", test_dump},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"reader", reader_tests, NULL},
					 {"job", job_tests, NULL},
					 {"commands", cmd_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
