/* A bounded trace's aggregates (format 2.6) as every consumer shows them:
 * AGG records written with the real writer next to individual calls, then
 * the GPU aggregate, the hang view, summary, check --json, export and
 * dump read back, each checked for the values it must say.
 *
 *   test_agg [SUITE...]   helpers, consumers */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apinames.h"
#include "gpu.h"
#include "hangs.h"
#include "record.h"
#include "testutil.h"
#include "units.h"

/* ---- suite helpers: durations for people, quantiles of a histogram ---- */

static void expect_dur(uint64_t ns, const char *want)
{
	char buf[32];
	dlt_units_dur(ns, buf, sizeof(buf));
	TU_CHECK(strcmp(buf, want) == 0,
		 "%llu ns reads \"%s\", expected \"%s\"",
		 (unsigned long long)ns, buf, want);
}

static void test_units(void)
{
	expect_dur(0, "0 \xc2\xb5s");
	expect_dur(3, "< 0.01 \xc2\xb5s");
	expect_dur(50, "0.05 \xc2\xb5s");
	expect_dur(4123, "4.1 \xc2\xb5s");
	expect_dur(9960, "10 \xc2\xb5s");
	expect_dur(412000, "412 \xc2\xb5s");
	/* Rounds up into the next unit rather than "1000 µs". */
	expect_dur(999700, "1.0 ms");
	expect_dur(2300000, "2.3 ms");
	expect_dur(412000000, "412 ms");
	expect_dur(12400000000ull, "12.4 s");
	expect_dur(192000000000ull, "3.2 min");
	expect_dur(9000000000000ull, "2.5 h");
}

static void test_buckets(void)
{
	static const struct {
		uint64_t ns;
		unsigned bucket;
	} cases[] = {{0, 0},	       {127, 0},
		     {128, 1},	       {255, 1},
		     {256, 2},	       {4000, 5},
		     {1000000, 13},    {(1ull << 29) - 1, 22},
		     {1ull << 29, 23}, {UINT64_MAX, 23}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TU_CHECK(dlt_agg_bucket(cases[i].ns) == cases[i].bucket,
			 "%llu ns in bucket %u, expected %u",
			 (unsigned long long)cases[i].ns,
			 dlt_agg_bucket(cases[i].ns), cases[i].bucket);
}

static void test_quantiles(void)
{
	uint64_t h[DLT_AGG_HIST] = {0};
	TU_CHECK(dlt_hist_quantile(h, 0.5, 0, UINT64_MAX) == 0,
		 "an empty histogram has a median");
	/* One bucket, [2048, 4096), bounds unknown: its geometric middle. */
	h[5] = 100;
	uint64_t m = dlt_hist_quantile(h, 0.5, 0, UINT64_MAX);
	TU_CHECK(m == 2896, "median of [2048, 4096) is %llu, expected 2896",
		 (unsigned long long)m);
	/* The fastest call narrows the bucket: 3000 * (4096/3000)^0.5. */
	m = dlt_hist_quantile(h, 0.5, 3000, 4000);
	uint64_t want = (uint64_t)(3000 * pow(4000.0 / 3000.0, 0.5) + 0.5);
	TU_CHECK(m == want, "median within [3000, 4000] is %llu, expected %llu",
		 (unsigned long long)m, (unsigned long long)want);
	/* Calls of one duration read as that duration. */
	m = dlt_hist_quantile(h, 0.5, 3500, 3500);
	TU_CHECK(m == 3500, "median of calls all 3500 ns is %llu",
		 (unsigned long long)m);
	/* Half in [128, 256), half in [512, 1024): the median is the first
	 * half's top, the 99th percentile near the second's. */
	memset(h, 0, sizeof(h));
	h[1] = 50;
	h[3] = 50;
	m = dlt_hist_quantile(h, 0.5, 0, UINT64_MAX);
	TU_CHECK(m == 256, "median of two halves is %llu, expected 256",
		 (unsigned long long)m);
	m = dlt_hist_quantile(h, 0.99, 0, UINT64_MAX);
	want = (uint64_t)(512 * pow(2.0, 49.0 / 50.0) + 0.5);
	TU_CHECK(m == want, "p99 is %llu, expected %llu", (unsigned long long)m,
		 (unsigned long long)want);
	/* The last bucket has no top but the slowest call. */
	memset(h, 0, sizeof(h));
	h[23] = 1;
	m = dlt_hist_quantile(h, 0.5, 1ull << 30, 1ull << 30);
	TU_CHECK(m == 1ull << 30, "a lone slow call reads %llu",
		 (unsigned long long)m);
}

/* ---- the trace: a ring's aggregates and the calls after them ---------- */

#define TA_PID 4194500u
#define TA_COMM 0xc0ull
#define TA_STREAM 0x5ull
#define TA_SEC 1000000000ull
/* What the rows below add up to, with the individual calls after them. */
#define TA_LAUNCHES 3000000ull
#define TA_REDUCES 1503ull
#define TA_LOST_CALLS 1234u
#define TA_LOST_RECORDS 5u

static struct dlt_writer ta_w;

struct ta_trace {
	char *dir;
	char path[4096];
	uint64_t start; /* start_monotonic_ns */
	uint32_t tid;	/* of every chunk: the test's thread */
};

static uint16_t ta_api(const char *name)
{
	const struct dlt_api_desc *a = dlt_api_by_name(name);
	TU_CHECK_FATAL(a != NULL, "no API %s", name);
	return a->id;
}

static void ta_call(struct dlt_tls *t, uint16_t api, uint64_t ts, uint32_t dur,
		    const uint64_t *v, size_t nv)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_call) + nv * 8);
	struct dlt_rec_api_call *r = dlt_rec_reserve(&ta_w, t, len);
	TU_CHECK_FATAL(r != NULL, "no room for an API_CALL");
	r->h.ts = ts;
	r->ret = 0;
	r->dur = dur;
	memcpy(r->v, v, nv * 8);
	dlt_rec_commit(r, DLT_REC_API_CALL, api, len);
}

/* A row with all its calls in one bucket but the slowest, in another. */
static void ta_row(struct dlt_agg_row *w, uint16_t api, uint32_t interval,
		   uint64_t key, uint32_t count, uint64_t typical, uint64_t min,
		   uint64_t max)
{
	memset(w, 0, sizeof(*w));
	w->api = api;
	w->interval = interval;
	w->key = key;
	w->count = count;
	w->total_ns = (uint64_t)(count - 1) * typical + max;
	w->min_ns = min;
	w->max_ns = max;
	w->hist[dlt_agg_bucket(typical)] += count - 1;
	w->hist[dlt_agg_bucket(max)] += 1;
}

static void ta_agg(struct dlt_tls *t, uint32_t tid, uint32_t seq,
		   uint64_t first, uint64_t last,
		   const struct dlt_agg_row *rows, uint32_t n)
{
	uint32_t len =
		(uint32_t)(sizeof(struct dlt_rec_agg) + n * sizeof(rows[0]));
	struct dlt_rec_agg *r = dlt_rec_reserve(&ta_w, t, len);
	TU_CHECK_FATAL(r != NULL, "no room for an AGG");
	r->h.ts = last;
	r->chunk_off = 0x10000ull * seq;
	r->chunk_seq = seq;
	r->tid = tid;
	r->first_ts = first;
	r->last_ts = last;
	r->calls = 0;
	for (uint32_t i = 0; i < n; i++)
		r->calls += rows[i].count;
	r->n = n;
	memcpy(r->rows, rows, n * sizeof(rows[0]));
	dlt_rec_commit(r, DLT_REC_AGG, 0, len);
}

/* pid TA_PID's trace: a communicator made at +0.5 s; two ring chunks
 * summed up (launches and all-reduces, the second AGG's last call at
 * +12.4 s); then 10 launches and 3 all-reduces one by one and a fourth
 * all-reduce that never returned; the header's lost counters set. */
static void ta_make(struct ta_trace *tr, const char *tag)
{
	memset(tr, 0, sizeof(*tr));
	tr->dir = tu_tmpdir(tag);
	TU_CHECK_FATAL(tr->dir != NULL, "no scratch directory");
	tr->start = dlt_now_ns();
	struct dlt_open_params p = {.dir = tr->dir,
				    .host = "agg-host",
				    .rank = 0,
				    .pid = (pid_t)TA_PID,
				    .ppid = 1,
				    .parent_kind = DLT_PARENT_NONE,
				    .features = DLT_FEAT_PRELOAD,
				    .start_monotonic_ns = tr->start,
				    .start_realtime_ns =
					    1700000000000000000ull};
	TU_CHECK_FATAL(dlt_writer_create(&ta_w, &p) == 0, "no writer");
	struct dlt_tls t;
	memset(&t, 0, sizeof(t));
	uint64_t s = tr->start;
	uint16_t launch = ta_api("cudaLaunchKernel");
	uint16_t reduce = ta_api("ncclAllReduce");
	uint16_t init = ta_api("ncclCommInitRank");

	uint64_t iv[4];
	iv[DLT_V_ncclCommInitRank_nranks] = 1;
	iv[DLT_V_ncclCommInitRank_rank] = 0;
	iv[DLT_V_ncclCommInitRank_id_hash] = 0x1234;
	iv[DLT_V_ncclCommInitRank_comm] = TA_COMM;
	ta_call(&t, init, s + TA_SEC / 2, DLT_DUR_US_FLAG | 5000, iv, 4);
	tr->tid = t.tid;

	struct dlt_agg_row rows[2];
	ta_row(&rows[0], launch, 1, TA_STREAM, 1500000, 4000, 3000, 2300000);
	ta_row(&rows[1], reduce, 2, TA_COMM, 1000, 1000000, 900000, 40000000);
	ta_agg(&t, tr->tid, 3, s + TA_SEC, s + 6 * TA_SEC + TA_SEC / 5, rows,
	       2);
	ta_row(&rows[0], launch, 7, TA_STREAM, 1499990, 4000, 3100, 5000);
	ta_row(&rows[1], reduce, 8, TA_COMM, 500, 1000000, 950000, 1000000);
	ta_agg(&t, tr->tid, 5, s + 7 * TA_SEC, s + 12 * TA_SEC + 2 * TA_SEC / 5,
	       rows, 2);

	uint64_t lv[1] = {0x7f0000001000ull};
	for (int i = 0; i < 10; i++)
		ta_call(&t, launch, s + 12 * TA_SEC + TA_SEC / 2 + i * 10000,
			4000, lv, 1);
	uint64_t rv[5];
	rv[DLT_V_ncclAllReduce_count] = 1024;
	rv[DLT_V_ncclAllReduce_type] = 7;
	rv[DLT_V_ncclAllReduce_op] = 0;
	rv[DLT_V_ncclAllReduce_comm] = TA_COMM;
	rv[DLT_V_ncclAllReduce_stream] = TA_STREAM;
	for (int i = 0; i < 3; i++)
		ta_call(&t, reduce, s + 13 * TA_SEC + i * 2000000,
			DLT_DUR_US_FLAG | 1000, rv, 5);
	/* Never returned: the reader hands it out as an API_ENTER. */
	ta_call(&t, reduce, s + 14 * TA_SEC, DLT_DUR_OPEN, rv, 5);

	ta_w.hdr->lost_calls = TA_LOST_CALLS;
	ta_w.hdr->lost_records = TA_LOST_RECORDS;
	snprintf(tr->path, sizeof(tr->path), "%s", ta_w.path);
	dlt_writer_close(&ta_w, &t);
}

/* The scratch directory (tu_rmtree keeps it after a failed check). */
static void ta_free(struct ta_trace *tr)
{
	tu_rmtree(tr->dir);
	free(tr->dir);
}

static char *ta_analyze(const char *cmd, const char *opt, const char *path,
			char **err_out)
{
	const char *argv[6];
	size_t k = 0;
	argv[k++] = DLT_TEST_ANALYZE;
	argv[k++] = cmd;
	if (opt)
		argv[k++] = opt;
	argv[k++] = path;
	argv[k] = NULL;
	struct tu_proc p;
	tu_run(&p, argv, NULL, 60000);
	int rc = tu_exit_code(p.status);
	TU_CHECK(rc == 0 || rc == 1, "%s %s: %s\n%s", cmd, path,
		 tu_status_str(p.status), p.err);
	char *out = strdup(p.out);
	*err_out = strdup(p.err);
	tu_proc_free(&p);
	return out;
}

/* What the rows and calls above make of the launches: every call but
 * two in [2048, 4096) ns, the fastest 3000 ns. */
static uint64_t ta_launch_median(void)
{
	double f = (double)(TA_LAUNCHES / 2) / (double)(TA_LAUNCHES - 2);
	return (uint64_t)(3000 * pow(4096.0 / 3000.0, f) + 0.5);
}

/* ---- suite consumers --------------------------------------------------- */

/* The GPU aggregate: per-API counts and stats add the AGG rows to the
 * individual calls, and the thread's individual calls begin at the last
 * AGG's last call. */
static void test_gpu_counts(void)
{
	struct ta_trace tr;
	ta_make(&tr, "agg-gpu");
	char err[512];
	struct dlt_trace *t = dlt_trace_open(tr.path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "%s: %s", tr.path, err);
	struct dlt_gpu g;
	struct dlt_process *p = dlt_process_read_gpu(t, &g);
	uint16_t launch = ta_api("cudaLaunchKernel");
	uint16_t reduce = ta_api("ncclAllReduce");
	TU_CHECK(g.calls[launch] == TA_LAUNCHES &&
			 g.calls[reduce] == TA_REDUCES,
		 "calls: %llu launches, %llu all-reduces",
		 (unsigned long long)g.calls[launch],
		 (unsigned long long)g.calls[reduce]);
	TU_CHECK(g.api_calls == TA_LAUNCHES + TA_REDUCES + 1,
		 "%llu calls in all", (unsigned long long)g.api_calls);
	TU_CHECK_FATAL(g.run.napi == 3, "%zu APIs", g.run.napi);
	const struct dlt_call_stats *st = &g.run.api[0];
	TU_CHECK(st->api == launch && st->calls == TA_LAUNCHES &&
			 st->aggregated == TA_LAUNCHES - 10 &&
			 st->errors == 0 && st->timed == TA_LAUNCHES,
		 "first API %u: %llu calls, %llu aggregated, %llu timed",
		 st->api, (unsigned long long)st->calls,
		 (unsigned long long)st->aggregated,
		 (unsigned long long)st->timed);
	uint64_t total = 1499999ull * 4000 + 2300000 + 1499989ull * 4000 +
			 5000 + 10 * 4000;
	TU_CHECK(st->min_ns == 3000 && st->max_ns == 2300000 &&
			 st->total_ns == total,
		 "launches: min %llu max %llu total %llu (expected %llu)",
		 (unsigned long long)st->min_ns, (unsigned long long)st->max_ns,
		 (unsigned long long)st->total_ns, (unsigned long long)total);
	TU_CHECK(st->hist[5] == TA_LAUNCHES - 2 && st->hist[15] == 1 &&
			 st->hist[6] == 1,
		 "launch buckets 5, 6, 15: %llu %llu %llu",
		 (unsigned long long)st->hist[5],
		 (unsigned long long)st->hist[6],
		 (unsigned long long)st->hist[15]);
	uint64_t med = dlt_call_stats_quantile(st, 0.5);
	TU_CHECK(med == ta_launch_median(), "launch median %llu, expected %llu",
		 (unsigned long long)med,
		 (unsigned long long)ta_launch_median());
	st = &g.run.api[1];
	TU_CHECK(st->api == reduce && st->calls == TA_REDUCES &&
			 st->aggregated == 1500 && st->hist[13] == 1502 &&
			 st->hist[19] == 1,
		 "second API %u: %llu calls, %llu aggregated", st->api,
		 (unsigned long long)st->calls,
		 (unsigned long long)st->aggregated);
	TU_CHECK(g.run.nthreads == 1 && g.run.threads[0].tid == tr.tid &&
			 g.run.individual_from ==
				 tr.start + 12 * TA_SEC + 2 * TA_SEC / 5,
		 "%zu threads, individual calls from %llu", g.run.nthreads,
		 (unsigned long long)g.run.individual_from);
	TU_CHECK(g.nopens == 1, "%zu calls left open", g.nopens);
	dlt_process_free(p);
	dlt_gpu_free(&g);
	dlt_trace_close(t);
	ta_free(&tr);
}

/* The communicator's collective count takes the aggregated all-reduces:
 * the one in flight is #1504, not #4. */
static void test_hang_sequence(void)
{
	struct ta_trace tr;
	ta_make(&tr, "agg-hang");
	char err[512];
	struct dlt_trace *t = dlt_trace_open(tr.path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "%s: %s", tr.path, err);
	struct dlt_hang_proc hp;
	memset(&hp, 0, sizeof(hp));
	dlt_hang_read(t, &hp);
	const struct dlt_hang_comm *c = dlt_hang_comm_of(&hp, TA_COMM);
	TU_CHECK(c != NULL && c->done == TA_REDUCES && c->id == 0x1234,
		 "communicator: %s, %u collectives done",
		 c ? "known" : "unknown", c ? c->done : 0);
	TU_CHECK(hp.ninflight == 1, "%zu calls in flight",
		 (size_t)hp.ninflight);
	/* The stream (a launch's key) is no communicator. */
	TU_CHECK(dlt_hang_comm_of(&hp, TA_STREAM) == NULL,
		 "a launch's stream became a communicator");
	dlt_hang_proc_free(&hp);
	dlt_trace_close(t);
	ta_free(&tr);
}

/* Another thread's ring chunk summed up into a chunk handed out before
 * the one with the communicator's init (read first: chunks in seq order):
 * the init keeps the sums of calls made after it. */
static void test_hang_agg_first(void)
{
	struct ta_trace tr;
	memset(&tr, 0, sizeof(tr));
	tr.dir = tu_tmpdir("agg-first");
	TU_CHECK_FATAL(tr.dir != NULL, "no scratch directory");
	tr.start = dlt_now_ns();
	struct dlt_open_params p = {.dir = tr.dir,
				    .host = "agg-host",
				    .rank = 0,
				    .pid = (pid_t)TA_PID,
				    .ppid = 1,
				    .parent_kind = DLT_PARENT_NONE,
				    .features = DLT_FEAT_PRELOAD,
				    .start_monotonic_ns = tr.start,
				    .start_realtime_ns =
					    1700000000000000000ull};
	TU_CHECK_FATAL(dlt_writer_create(&ta_w, &p) == 0, "no writer");
	struct dlt_tls early, t;
	memset(&early, 0, sizeof(early));
	memset(&t, 0, sizeof(t));
	uint64_t s = tr.start;
	uint16_t reduce = ta_api("ncclAllReduce");
	uint64_t lv[1] = {0x7f0000001000ull};
	/* The early chunk: one launch at +0.1 s, then (at +9 s) the sum. */
	ta_call(&early, ta_api("cudaLaunchKernel"), s + TA_SEC / 10, 4000, lv,
		1);
	uint64_t iv[4];
	iv[DLT_V_ncclCommInitRank_nranks] = 1;
	iv[DLT_V_ncclCommInitRank_rank] = 0;
	iv[DLT_V_ncclCommInitRank_id_hash] = 0x1234;
	iv[DLT_V_ncclCommInitRank_comm] = TA_COMM;
	ta_call(&t, ta_api("ncclCommInitRank"), s + TA_SEC / 2,
		DLT_DUR_US_FLAG | 5000, iv, 4);
	struct dlt_agg_row row;
	ta_row(&row, reduce, 1, TA_COMM, 700, 1000000, 900000, 2000000);
	ta_agg(&early, t.tid, 9, s + TA_SEC, s + 8 * TA_SEC, &row, 1);
	uint64_t rv[5];
	rv[DLT_V_ncclAllReduce_count] = 1024;
	rv[DLT_V_ncclAllReduce_type] = 7;
	rv[DLT_V_ncclAllReduce_op] = 0;
	rv[DLT_V_ncclAllReduce_comm] = TA_COMM;
	rv[DLT_V_ncclAllReduce_stream] = TA_STREAM;
	ta_call(&t, reduce, s + 9 * TA_SEC, DLT_DUR_US_FLAG | 1000, rv, 5);
	snprintf(tr.path, sizeof(tr.path), "%s", ta_w.path);
	dlt_writer_cut_tls(&ta_w, &early, 0);
	dlt_writer_close(&ta_w, &t);
	char err[512];
	struct dlt_trace *tt = dlt_trace_open(tr.path, err, sizeof(err));
	TU_CHECK_FATAL(tt != NULL, "%s: %s", tr.path, err);
	struct dlt_hang_proc hp;
	memset(&hp, 0, sizeof(hp));
	dlt_hang_read(tt, &hp);
	const struct dlt_hang_comm *c = dlt_hang_comm_of(&hp, TA_COMM);
	TU_CHECK(c != NULL && c->done == 701 && c->id == 0x1234,
		 "communicator: %s, %u collectives done (701 made)",
		 c ? "known" : "unknown", c ? c->done : 0);
	dlt_hang_proc_free(&hp);
	dlt_trace_close(tt);
	ta_free(&tr);
}

static void test_summary(void)
{
	struct ta_trace tr;
	ta_make(&tr, "agg-summary");
	char *err;
	char *out = ta_analyze("summary", NULL, tr.path, &err);
	char med[32], line[256];
	dlt_units_dur(ta_launch_median(), med, sizeof(med));
	snprintf(line, sizeof(line),
		 "  GPU calls cudaLaunchKernel 3,000,000 calls, 0 errors, "
		 "median %s, max 2.3 ms\n",
		 med);
	TU_CHECK(tu_contains(out, line), "summary lacks \"%s\":\n%s", line,
		 out);
	TU_CHECK(strcmp(med, "3.5 \xc2\xb5s") == 0, "launch median %s", med);
	TU_CHECK(tu_contains(out, "            ncclAllReduce 1,503 calls, 0 "
				  "errors, median "),
		 "summary lacks the all-reduces:\n%s", out);
	TU_CHECK(tu_contains(out, "            individual calls from +12.4 s "
				  "(earlier ones as per-second aggregates)\n"),
		 "summary lacks where individual calls begin:\n%s", out);
	TU_CHECK(tu_contains(out,
			     "  lost      not recorded: 1,234 calls (the ring "
			     "had no free chunk), 5 other records (the size "
			     "limit was reached)\n"),
		 "summary lacks the lost counts:\n%s", out);
	/* Values for people: no raw nanoseconds, no ungrouped counts. */
	TU_CHECK(!tu_contains(out, " ns") && !tu_contains(out, "3000000") &&
			 !tu_contains(out, "2300000"),
		 "summary shows raw values:\n%s", out);
	TU_CHECK(err[0] == '\0', "summary said:\n%s", err);
	free(out);
	free(err);
	ta_free(&tr);
}

static double jnum(const struct tu_json *o, const char *key)
{
	const struct tu_json *v = tu_jget(o, key);
	return v && v->type == TU_JNUM ? v->num : -1;
}

static void test_check_json(void)
{
	struct ta_trace tr;
	ta_make(&tr, "agg-json");
	char *err;
	char *out = ta_analyze("check", "--json", tr.path, &err);
	char perr[256];
	struct tu_json *j = tu_json_parse(out, perr, sizeof(perr));
	TU_CHECK_FATAL(j != NULL, "check --json: %s\n%s", perr, out);
	const struct tu_json *p = tu_jat(tu_jget(j, "processes"), 0);
	const struct tu_json *calls = tu_jget(p, "gpu_calls");
	TU_CHECK_FATAL(tu_jlen(calls) == 3, "%zu gpu_calls", tu_jlen(calls));
	const struct tu_json *c0 = tu_jat(calls, 0);
	const char *api = tu_jstr(c0, "api");
	TU_CHECK(api && strcmp(api, "cudaLaunchKernel") == 0 &&
			 jnum(c0, "calls") == (double)TA_LAUNCHES &&
			 jnum(c0, "errors") == 0 &&
			 jnum(c0, "min_ns") == 3000 &&
			 jnum(c0, "max_ns") == 2300000 &&
			 jnum(c0, "median_ns") == (double)ta_launch_median(),
		 "gpu_calls[0]: %s %g calls, min %g, max %g, median %g",
		 api ? api : "?", jnum(c0, "calls"), jnum(c0, "min_ns"),
		 jnum(c0, "max_ns"), jnum(c0, "median_ns"));
	const struct tu_json *hist = tu_jget(c0, "hist");
	TU_CHECK(tu_jlen(hist) == DLT_AGG_HIST &&
			 tu_jat(hist, 5)->num == (double)(TA_LAUNCHES - 2),
		 "hist: %zu buckets", tu_jlen(hist));
	const struct tu_json *c1 = tu_jat(calls, 1);
	TU_CHECK(tu_jstr(c1, "api") &&
			 strcmp(tu_jstr(c1, "api"), "ncclAllReduce") == 0 &&
			 jnum(c1, "calls") == (double)TA_REDUCES,
		 "gpu_calls[1]: %s %g calls", tu_jstr(c1, "api"),
		 jnum(c1, "calls"));
	TU_CHECK(jnum(p, "individual_from_ns") ==
				 (double)(tr.start + 12 * TA_SEC +
					  2 * TA_SEC / 5) &&
			 jnum(p, "individual_from_offset_ns") ==
				 (double)(12 * TA_SEC + 2 * TA_SEC / 5),
		 "individual_from_ns %g, offset %g",
		 jnum(p, "individual_from_ns"),
		 jnum(p, "individual_from_offset_ns"));
	TU_CHECK(jnum(p, "lost_calls") == TA_LOST_CALLS &&
			 jnum(p, "lost_records") == TA_LOST_RECORDS,
		 "lost_calls %g, lost_records %g", jnum(p, "lost_calls"),
		 jnum(p, "lost_records"));
	tu_json_free(j);
	free(out);
	free(err);
	ta_free(&tr);
}

/* The counters: one point per second the rows name (and the individual
 * calls' seconds), a 0 after each run; the marker on the thread. */
static void test_export(void)
{
	struct ta_trace tr;
	ta_make(&tr, "agg-export");
	char *err;
	char *out = ta_analyze("export", NULL, tr.path, &err);
	char perr[256];
	struct tu_json *j = tu_json_parse(out, perr, sizeof(perr));
	TU_CHECK_FATAL(j != NULL, "export: %s", perr);
	const struct tu_json *ev = tu_jget(j, "traceEvents");
	/* Launches: seconds 1 and 7 aggregated, 12 individual; all-reduces:
	 * 2 and 8 aggregated, 13 individual. */
	double launches[16] = {0}, reduces[16] = {0};
	size_t npoints = 0, marks = 0;
	double mark_ts = -1, mark_tid = -1;
	for (size_t i = 0; i < tu_jlen(ev); i++) {
		const struct tu_json *e = tu_jat(ev, i);
		const char *ph = tu_jstr(e, "ph"), *name = tu_jstr(e, "name");
		if (ph && strcmp(ph, "C") == 0 && name) {
			double sec = jnum(e, "ts") / 1e6;
			long k = lround(sec);
			double n = jnum(tu_jget(e, "args"), "calls");
			TU_CHECK(fabs(sec - (double)k) < 1e-6 && k >= 0 &&
					 k < 16,
				 "counter %s at %.6f s", name, sec);
			if (k < 0 || k >= 16)
				continue;
			npoints++;
			if (strcmp(name, "cudaLaunchKernel calls/s") == 0)
				launches[k] = n;
			else if (strcmp(name, "ncclAllReduce calls/s") == 0)
				reduces[k] = n;
		}
		if (name && strcmp(name, "individual calls from here "
					 "(earlier: aggregates)") == 0) {
			marks++;
			mark_ts = jnum(e, "ts");
			mark_tid = jnum(e, "tid");
		}
	}
	TU_CHECK(launches[1] == 1500000 && launches[7] == 1499990 &&
			 launches[12] == 10 && reduces[2] == 1000 &&
			 reduces[8] == 500 && reduces[13] == 3,
		 "counters: launches %g %g %g, all-reduces %g %g %g",
		 launches[1], launches[7], launches[12], reduces[2], reduces[8],
		 reduces[13]);
	/* 6 seconds with calls, and a 0 after each. */
	TU_CHECK(npoints == 12, "%zu counter points", npoints);
	TU_CHECK(marks == 1 && fabs(mark_ts - 12.4e6) < 1 &&
			 mark_tid == (double)tr.tid,
		 "%zu markers, at %g us on thread %g", marks, mark_ts,
		 mark_tid);
	tu_json_free(j);
	free(out);
	free(err);
	ta_free(&tr);
}

/* The page carries check's process objects, gpu_calls and all, and the
 * script that draws them as the GPU calls section. */
static void test_report(void)
{
	struct ta_trace tr;
	ta_make(&tr, "agg-report");
	const char *argv[] = {DLT_TEST_ANALYZE, "report", "-o", "-",
			      tr.path,		NULL};
	struct tu_proc p;
	tu_run(&p, argv, NULL, 60000);
	TU_CHECK(tu_exit_code(p.status) == 0, "report: %s\n%s",
		 tu_status_str(p.status), p.err);
	TU_CHECK(tu_contains(p.out, "\"gpu_calls\": [") &&
			 tu_contains(p.out, "\"api\": \"cudaLaunchKernel\",\n"
					    "          \"calls\": 3000000,") &&
			 tu_contains(p.out, "\"individual_from_offset_ns\": "
					    "12400000000,") &&
			 tu_contains(p.out, "\"lost_calls\": 1234,"),
		 "the page's data lacks the GPU calls");
	TU_CHECK(tu_contains(p.out, "section(\"gpu\", \"GPU calls\")") &&
			 tu_contains(p.out, "(earlier ones as per-second "
					    "aggregates)"),
		 "the page's script draws no GPU calls section");
	tu_proc_free(&p);
	ta_free(&tr);
}

static void test_dump(void)
{
	struct ta_trace tr;
	ta_make(&tr, "agg-dump");
	char *err;
	char *out = ta_analyze("dump", NULL, tr.path, &err);
	TU_CHECK(tu_contains(out, " AGG        chunk_off=196608 seq=3 tid=") &&
			 tu_contains(out, " calls=1501000 rows=2 "
					  "[cudaLaunchKernel second=1 key=0x5 "
					  "count=1500000 errors=0 ") &&
			 tu_contains(out, "hist=5:1499999,15:1]"),
		 "dump:\n%s", out);
	TU_CHECK(tu_contains(out, "lost_calls 1234  lost_records 5"),
		 "dump's header lacks the lost counts:\n%s", out);
	free(out);
	free(err);
	ta_free(&tr);
}

static const struct tu_test helper_tests[] = {
	{"durations for people", test_units},
	{"a duration's histogram bucket", test_buckets},
	{"quantiles of a histogram", test_quantiles},
	{NULL, NULL}};

static const struct tu_test consumer_tests[] = {
	{"GPU counts add AGG rows to individual calls", test_gpu_counts},
	{"a collective's number counts aggregated ones", test_hang_sequence},
	{"an init read after the sum of its calls keeps it",
	 test_hang_agg_first},
	{"summary: the GPU calls block", test_summary},
	{"check --json: gpu_calls and the lost counts", test_check_json},
	{"export: calls/s counters and the marker", test_export},
	{"report: the page's GPU calls", test_report},
	{"dump: AGG records", test_dump},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"helpers", helper_tests, NULL},
					 {"consumers", consumer_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
