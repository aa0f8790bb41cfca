/* Unit tests of the writer making a trace about another process (format
 * 2.3: the watcher's companion, tracer/file.c).
 *
 * The watcher writes, from one thread, a companion per process it watches,
 * each with its own struct dlt_tls passed in: the header names the watched
 * process (pid, exec_seq, run_id, parent_trace_id), the file's name never
 * meets the process's own, string ids have bit 31 set, chunks say
 * DLT_WRITER_WATCHER, none of the shim's hooks runs for it, and closing it
 * cuts the file to its data and lets go of the writer's lock while the
 * watcher lives on. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reader.h"
#include "record.h"
#include "testutil.h"
#include "tracelock.h"

/* Large: off the stack. */
static struct dlt_writer own, comp, comp2;

static int new_threads, grows;

static void count_new_thread(void)
{
	new_threads++;
}

static void count_grow(struct dlt_writer *w, uint32_t pages)
{
	(void)w;
	(void)pages;
	grows++;
}

/* NOTE records of about 1 KiB each until the file grew at least once. */
static void fill(struct dlt_writer *w, struct dlt_tls *t, int n)
{
	char text[1000];
	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	for (int i = 0; i < n; i++) {
		char head[16];
		int k = snprintf(head, sizeof(head), "note %05d ", i);
		memcpy(text, head, (size_t)k);
		dlt_note(w, t, 0, text);
	}
}

static void companion_params(struct dlt_open_params *p, const char *dir,
			     uint64_t parent)
{
	memset(p, 0, sizeof(*p));
	p->dir = dir;
	p->host = "unit-host";
	p->rank = 3;
	p->pid = 4242;
	p->ppid = 4241;
	p->exec_seq = 2;
	p->run_id = 0xabcdefull;
	p->parent_trace_id = parent;
	p->parent_kind = DLT_PARENT_WATCHED;
	p->features = DLT_FEAT_WATCHER;
	p->str_base = DLT_STR_WATCHER;
	p->writer_kind = DLT_WRITER_WATCHER;
	p->name_suffix = ".watch";
}

/* Whether another open file description may lock the file exclusively
 * (compact's test of a live writer). */
static int lockable(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = dlt_trace_lock_ofd(fd, 1) == 0;
	close(fd);
	return r;
}

struct seen {
	uint32_t writers; /* bit per writer kind of the chunks */
	uint32_t notes;
	uint32_t first_text;
};

static int see(void *ctx, const struct dlt_rec_view *v)
{
	struct seen *s = ctx;
	s->writers |= 1u << v->writer;
	if (v->rec->type == DLT_REC_NOTE) {
		const struct dlt_rec_note *n = (const void *)v->rec;
		if (s->notes++ == 0)
			s->first_text = n->text;
	}
	return 0;
}

static void test_companion(void)
{
	char *dir = tu_tmpdir("companion-writer");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	dlt_on_new_thread = count_new_thread;
	dlt_on_grow = count_grow;

	/* The control: the process's own trace runs the hooks. */
	struct dlt_open_params p = {.dir = dir,
				    .host = "unit-host",
				    .rank = 3,
				    .exec_seq = 2,
				    .parent_kind = DLT_PARENT_NONE};
	TU_CHECK_FATAL(dlt_writer_create(&own, &p) == 0, "cannot write in %s",
		       dir);
	struct dlt_tls own_tls;
	memset(&own_tls, 0, sizeof(own_tls));
	fill(&own, &own_tls, 40);
	TU_CHECK(new_threads == 1 && grows > 0,
		 "the process's own trace: %d first chunks, %d growths "
		 "reported to the shim (1 and some expected)",
		 new_threads, grows);
	new_threads = grows = 0;

	struct dlt_open_params cp;
	companion_params(&cp, dir, own.hdr->trace_id);
	TU_CHECK_FATAL(dlt_writer_create(&comp, &cp) == 0,
		       "cannot write a companion");
	struct dlt_tls tls;
	memset(&tls, 0, sizeof(tls));
	uint32_t a = dlt_str(&comp, &tls, "futex_wait_queue");
	uint32_t b = dlt_str(&comp, &tls, "ncclCommInitRank");
	TU_CHECK(a == DLT_STR_WATCHER + 1 && b == DLT_STR_WATCHER + 2 &&
			 dlt_str(&comp, &tls, "futex_wait_queue") == a,
		 "companion string ids %#x %#x, %#x and %#x expected", a, b,
		 DLT_STR_WATCHER + 1, DLT_STR_WATCHER + 2);
	fill(&comp, &tls, 40);
	TU_CHECK(new_threads == 0 && grows == 0,
		 "a companion ran the shim's hooks: %d first chunks, %d "
		 "growths",
		 new_threads, grows);
	TU_CHECK(comp.pid == getpid() && comp.subject == 4242,
		 "owner %d (%d expected), subject %d (4242 expected)",
		 (int)comp.pid, (int)getpid(), (int)comp.subject);

	const struct dlt_file_header *h = comp.hdr;
	TU_CHECK(h->pid == 4242 && h->ppid == 4241 && h->exec_seq == 2 &&
			 h->run_id == 0xabcdefull &&
			 h->parent_trace_id == own.hdr->trace_id &&
			 h->parent_kind == DLT_PARENT_WATCHED &&
			 (h->features & DLT_FEAT_WATCHER) &&
			 h->trace_id != own.hdr->trace_id,
		 "companion header: pid %u ppid %u seq %u run %llx parent "
		 "%llx kind %u features %llx",
		 h->pid, h->ppid, h->exec_seq, (unsigned long long)h->run_id,
		 (unsigned long long)h->parent_trace_id, h->parent_kind,
		 (unsigned long long)h->features);
	char *want = tu_strfmt("%s/unit-host.4242.2.r3.watch.dltrace", dir);
	TU_CHECK(strcmp(comp.path, want) == 0,
		 "companion named %s, %s expected", comp.path, want);
	free(want);

	/* A second one for the same process takes the next name. */
	TU_CHECK_FATAL(dlt_writer_create(&comp2, &cp) == 0,
		       "cannot write a second companion");
	want = tu_strfmt("%s/unit-host.4242.2.r3.watch-1.dltrace", dir);
	TU_CHECK(strcmp(comp2.path, want) == 0,
		 "second companion named %s, %s expected", comp2.path, want);
	free(want);

	/* A forked child of the watcher gets no trace of it. */
	pid_t pid = fork();
	TU_CHECK_FATAL(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		dlt_writer_after_fork(&comp);
		struct dlt_tls ct;
		memset(&ct, 0, sizeof(ct));
		dlt_note(&comp, &ct, 0, "from the child");
		dlt_writer_cut_tls(&comp, &ct, 1);
		_exit(atomic_load(&comp.pending) == 0 && comp.hdr == NULL ? 0
									  : 1);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	TU_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		 "a forked child kept the companion: %s", tu_status_str(st));

	char *path = strdup(comp.path);
	TU_CHECK(lockable(path) == 0,
		 "an open companion can be locked: its writer holds no lock");
	uint64_t cursor = comp.hdr->alloc_cursor;
	dlt_writer_close(&comp, &tls);
	TU_CHECK(comp.hdr == NULL && comp.str_arena == NULL,
		 "a closed companion keeps its mapping or its strings");
	TU_CHECK(lockable(path) == 1,
		 "a closed companion is still locked by its writer");
	struct stat sb;
	TU_CHECK(stat(path, &sb) == 0 && (uint64_t)sb.st_size <= cursor &&
			 sb.st_size > DLT_DATA_OFFSET,
		 "closed companion: %lld bytes, cut to at most %llu expected",
		 (long long)sb.st_size, (unsigned long long)cursor);
	/* Nothing is written after the end. */
	dlt_note(&comp, &tls, 0, "after the end");
	TU_CHECK(stat(path, &sb) == 0 && (uint64_t)sb.st_size <= cursor,
		 "a closed companion grew again");

	/* Read back as it is: the chunks say who wrote them. */
	char err[256];
	struct dlt_trace *r = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(r != NULL, "cannot read the companion: %s", err);
	struct seen s = {0, 0, 0};
	dlt_trace_foreach(r, see, &s);
	TU_CHECK(s.writers == 1u << DLT_WRITER_WATCHER && s.notes == 40 &&
			 s.first_text > DLT_STR_WATCHER + 2,
		 "companion: writer kinds %#x, %u notes, first text id %#x",
		 s.writers, s.notes, s.first_text);
	TU_CHECK(dlt_trace_problem_count(r) == 0,
		 "a closed companion reads with %zu problems: %s",
		 dlt_trace_problem_count(r), dlt_trace_problem(r, 0));
	dlt_trace_close(r);

	/* The writer can be used again, for another process. */
	cp.pid = 4343;
	TU_CHECK_FATAL(dlt_writer_create(&comp, &cp) == 0,
		       "cannot write a companion again");
	TU_CHECK(dlt_str(&comp, &tls, "again") == DLT_STR_WATCHER + 1,
		 "a new companion's first string id is not %#x",
		 DLT_STR_WATCHER + 1);
	dlt_writer_close(&comp, &tls);
	struct dlt_tls tls2;
	memset(&tls2, 0, sizeof(tls2));
	dlt_writer_close(&comp2, &tls2);
	dlt_writer_forget(&own);
	dlt_on_new_thread = NULL;
	dlt_on_grow = NULL;
	free(path);
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test writer_tests[] = {
	{"a companion about another process, written and closed",
	 test_companion},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"companion_writer", writer_tests, NULL}, {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
