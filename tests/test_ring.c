/* Unit tests of the ring (tracer/ring.c, format 2.6): calls written into
 * ring chunks far past the budget read back as AGG rows plus the last
 * calls one by one, adding up to exactly what was written; and a process
 * killed at each step of using a ring chunk again leaves a trace that
 * reads back whole, its calls counted exactly once. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reader.h"
#include "record.h"
#include "testutil.h"

static struct dlt_writer writer; /* large: keep it off the stack */
static struct dlt_tls rare, ring;

/* Two APIs: a launch (no key) and a collective whose value 1 is its
 * communicator. */
#define API_LAUNCH 12
#define API_COLL 152
#define COMM_A 0xaaaa
#define COMM_B 0xbbbb

static int key_index(uint16_t api)
{
	return api == API_COLL ? 1 : -1;
}

/* Call i: which API, communicator, duration (ns), time. */
static uint16_t api_of(uint64_t i)
{
	return i % 5 == 4 ? API_COLL : API_LAUNCH;
}
static uint64_t comm_of(uint64_t i)
{
	return i % 10 == 4 ? COMM_A : COMM_B;
}
static uint64_t dur_of(uint64_t i)
{
	return 100 + (i * 7919) % 5000;
}

static uint64_t written; /* calls committed */

/* Call i as a record in the ring: an API_DEF every so often (as the shim
 * writes one per chunk and slot), API_CALL otherwise. */
static int put_call(uint64_t i, uint64_t start)
{
	uint16_t api = api_of(i);
	uint64_t v[2] = {0x1234, comm_of(i)};
	uint32_t nv = api == API_COLL ? 2 : 1;
	int def = i % 3 == 0;
	uint32_t len = (uint32_t)((def ? sizeof(struct dlt_rec_api_def)
				       : sizeof(struct dlt_rec_api_call)) +
				  8 * nv);
	uint8_t *r = dlt_rec_reserve(&writer, &ring, len);
	if (r == NULL)
		return -1;
	uint64_t ts = start + 1000 + i * 20000; /* 50,000 calls a second */
	if (def) {
		struct dlt_rec_api_def *d = (void *)r;
		d->h.ts = ts;
		d->ret = 0;
		d->dur = (uint32_t)dur_of(i);
		d->slot = api;
		d->pad = 0;
		memcpy(d->v, v, 8 * nv);
		dlt_rec_commit(d, DLT_REC_API_DEF, api, len);
	} else {
		struct dlt_rec_api_call *c = (void *)r;
		c->h.ts = ts;
		c->ret = 0;
		c->dur = (uint32_t)dur_of(i);
		memcpy(c->v, v, 8 * nv);
		dlt_rec_commit(c, DLT_REC_API_CALL, api, len);
	}
	written = i + 1;
	return 0;
}

static void open_trace(const char *dir, uint64_t max_size)
{
	struct dlt_open_params p = {.dir = dir,
				    .host = "unit-host",
				    .rank = -1,
				    .parent_kind = DLT_PARENT_NONE,
				    .max_size = max_size};
	TU_CHECK_FATAL(dlt_writer_create(&writer, &p) == 0,
		       "cannot create a trace in %s", dir);
	memset(&rare, 0, sizeof(rare));
	memset(&ring, 0, sizeof(ring));
	ring.rare = &rare;
	dlt_agg_key_index = key_index;
}

static char *start_trace(const char *tag, uint64_t max_size)
{
	char *dir = tu_tmpdir(tag);
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	open_trace(dir, max_size);
	return dir;
}

/* What a trace says of its calls, AGG rows and records together. */
struct sums {
	uint64_t calls[2], total_ns[2], min_ns[2], max_ns[2], hist_sum[2];
	uint64_t comm_a, aggs, agg_rows, individual;
};

static int api_ix(uint16_t api)
{
	return api == API_COLL;
}

static void add_one(struct sums *s, uint16_t api, uint64_t key, uint64_t n,
		    uint64_t total, uint64_t mn, uint64_t mx)
{
	int k = api_ix(api);
	if (s->calls[k] == 0 || mn < s->min_ns[k])
		s->min_ns[k] = mn;
	if (mx > s->max_ns[k])
		s->max_ns[k] = mx;
	s->calls[k] += n;
	s->total_ns[k] += total;
	if (api == API_COLL && key == COMM_A)
		s->comm_a += n;
}

static int sum_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct sums *s = ctx;
	const struct dlt_rec_hdr *h = v->rec;
	if (h->type == DLT_REC_AGG) {
		const struct dlt_rec_agg *a = (const void *)h;
		s->aggs++;
		for (uint32_t i = 0; i < a->n; i++) {
			const struct dlt_agg_row *r = &a->rows[i];
			add_one(s, r->api, r->key, r->count, r->total_ns,
				r->min_ns, r->max_ns);
			for (int b = 0; b < DLT_AGG_HIST; b++)
				s->hist_sum[api_ix(r->api)] += r->hist[b];
			s->agg_rows++;
		}
	} else if (h->type == DLT_REC_API_CALL) {
		const struct dlt_rec_api_call *c = (const void *)h;
		uint64_t key = h->flags == API_COLL ? c->v[1] : 0;
		add_one(s, h->flags, key, 1, c->dur, c->dur, c->dur);
		s->hist_sum[api_ix(h->flags)]++;
		s->individual++;
	}
	return 0;
}

static void read_sums(const char *path, struct sums *s, size_t *problems)
{
	memset(s, 0, sizeof(*s));
	char err[256];
	struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "cannot open %s: %s", path, err);
	dlt_trace_foreach(t, sum_rec, s);
	*problems = dlt_trace_problem_count(t);
	for (size_t i = 0; i < *problems; i++)
		fprintf(stderr, "  %s: %s\n", path, dlt_trace_problem(t, i));
	dlt_trace_close(t);
}

/* What calls 0..n-1 add up to. */
static void expect_sums(const struct sums *s, uint64_t n)
{
	struct sums want;
	memset(&want, 0, sizeof(want));
	for (uint64_t i = 0; i < n; i++)
		add_one(&want, api_of(i), comm_of(i), 1, dur_of(i), dur_of(i),
			dur_of(i));
	for (int k = 0; k < 2; k++) {
		TU_CHECK(
			s->calls[k] == want.calls[k] &&
				s->total_ns[k] == want.total_ns[k] &&
				s->hist_sum[k] == want.calls[k],
			"api %d: %llu calls (%llu in the histograms), %llu ns; "
			"%llu calls, %llu ns written",
			k, (unsigned long long)s->calls[k],
			(unsigned long long)s->hist_sum[k],
			(unsigned long long)s->total_ns[k],
			(unsigned long long)want.calls[k],
			(unsigned long long)want.total_ns[k]);
		TU_CHECK(s->min_ns[k] == want.min_ns[k] &&
				 s->max_ns[k] == want.max_ns[k],
			 "api %d: min %llu max %llu, written %llu and %llu", k,
			 (unsigned long long)s->min_ns[k],
			 (unsigned long long)s->max_ns[k],
			 (unsigned long long)want.min_ns[k],
			 (unsigned long long)want.max_ns[k]);
	}
	TU_CHECK(s->comm_a == want.comm_a,
		 "communicator A: %llu calls counted, %llu written",
		 (unsigned long long)s->comm_a,
		 (unsigned long long)want.comm_a);
}

/* 400,000 calls (about 13 MB of records) into a 512 KiB budget. */
static void test_sums(void)
{
	const uint64_t max = 512 * 1024, n = 400000;
	char *dir = start_trace("ring-sums", max);
	uint64_t start = writer.hdr->start_monotonic_ns;
	for (uint64_t i = 0; i < n; i++)
		TU_CHECK_FATAL(put_call(i, start) == 0, "call %llu not written",
			       (unsigned long long)i);
	char *path = strdup(writer.path);
	uint32_t lost = writer.hdr->lost_calls + writer.hdr->lost_records;
	dlt_writer_cut_tls(&writer, &rare, 1);
	dlt_writer_forget(&writer);
	struct stat st;
	TU_CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size <= max,
		 "the trace has %lld bytes, the budget %llu",
		 (long long)st.st_size, (unsigned long long)max);
	TU_CHECK(lost == 0, "%u calls or records lost", lost);
	struct sums s;
	size_t problems;
	read_sums(path, &s, &problems);
	TU_CHECK(problems == 0, "the reader found %zu problems", problems);
	expect_sums(&s, n);
	/* The end one by one, the rest summed up, per second: 8 s of calls
	 * make rows of more than one interval.  The AGG records outgrow the
	 * other records' quarter of the budget: they take ring chunks, and
	 * the ring keeps its eighth (64 KiB: about 1,700 of these calls). */
	TU_CHECK(s.aggs > 10 && s.individual > 1000 && s.individual < n / 4 &&
			 s.agg_rows > s.aggs,
		 "%llu AGG records (%llu rows), %llu calls one by one",
		 (unsigned long long)s.aggs, (unsigned long long)s.agg_rows,
		 (unsigned long long)s.individual);
	tu_rmtree(dir);
	free(dir);
	free(path);
}

/* ---- killed while a ring chunk is used again --------------------------- */

static int kill_stage, kill_after;
static int report_fd = -1;

static void stage_hook(int stage)
{
	if (stage != kill_stage || --kill_after > 0)
		return;
	ssize_t r = write(report_fd, &written, sizeof(written));
	(void)r;
	raise(SIGKILL);
}

/* A child writes calls until the hook kills it at the given step of its
 * fifth reuse of a ring chunk; everything it committed reads back once. */
static void killed_at(int stage)
{
	char tag[32];
	snprintf(tag, sizeof(tag), "ring-kill-%d", stage);
	int fds[2];
	TU_CHECK_FATAL(pipe(fds) == 0, "pipe: %s", strerror(errno));
	char *dir = tu_tmpdir(tag);
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	pid_t pid = fork();
	TU_CHECK_FATAL(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* The child's own trace, as a traced process has. */
		open_trace(dir, 256 * 1024);
		close(fds[0]);
		report_fd = fds[1];
		kill_stage = stage;
		kill_after = 5;
		dlt_ring_stage = stage_hook;
		uint64_t start = writer.hdr->start_monotonic_ns;
		for (uint64_t i = 0; i < 10000000; i++)
			if (put_call(i, start) != 0)
				_exit(3);
		_exit(4);
	}
	close(fds[1]);
	uint64_t done = 0;
	ssize_t got = read(fds[0], &done, sizeof(done));
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	char **paths = NULL;
	TU_CHECK_FATAL(tu_list_traces(dir, &paths) == 1,
		       "stage %d: not one trace in %s", stage, dir);
	char *path = strdup(paths[0]);
	tu_free_list(paths);
	TU_CHECK(got == (ssize_t)sizeof(done) && WIFSIGNALED(status) &&
			 WTERMSIG(status) == SIGKILL,
		 "stage %d: the child was not killed at the step (status "
		 "0x%x)",
		 stage, status);
	struct sums s;
	size_t problems;
	read_sums(path, &s, &problems);
	TU_CHECK(problems == 0, "stage %d: the reader found %zu problems",
		 stage, problems);
	expect_sums(&s, done);
	tu_rmtree(dir);
	free(dir);
	free(path);
}

static void test_killed(void)
{
	for (int stage = 1; stage <= 5; stage++)
		killed_at(stage);
}

static const struct tu_test ring_tests[] = {
	{"400,000 calls in 512 KiB add up exactly", test_sums},
	{"killed at each step of a reuse, every call counted once",
	 test_killed},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"ring", ring_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
