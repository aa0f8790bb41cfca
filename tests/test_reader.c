/* Unit tests of the trace reader (analyzer/reader/reader.h) on damaged traces.
 *
 * A trace is written once with the real writer (tracer/, the code
 * libdltrace.so uses): process info, a note, two threads of MARK records
 * spread over several chunks, and one record of a type no reader knows.
 * Each test then damages a copy (truncation, a bad record length, a bad
 * chunk header, version and magic changes) and checks what the reader and
 * `dltrace-analyze summary` make of it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compact.h"
#include "record.h"
#include "testutil.h"
#include "tracelock.h"

#define MAIN_MARKS 5000u /* id 1, about 2.5 chunks */
#define SIDE_MARKS 3000u /* id 2, written by a second thread */
#define UNKNOWN_TYPE 999u

static uint32_t checksum(uint32_t id, uint64_t value)
{
	return (uint32_t)(value * 2654435761u) ^ id;
}

/* ---- making the reference trace ----------------------------------------- */

static struct dlt_writer writer; /* large: keep it off the stack */
static char *base_dir;
static char *base_path;
static uint8_t *base_data;
static size_t base_size;

static int write_marks(struct dlt_tls *tls, uint32_t id, uint32_t from,
		       uint32_t to)
{
	for (uint32_t seq = from; seq < to; seq++) {
		struct dlt_rec_mark *m =
			dlt_rec_reserve(&writer, tls, sizeof(*m));
		if (m == NULL)
			return -1;
		m->h.ts = dlt_now_ns();
		m->id = id;
		m->value = ((uint64_t)id << 32) | seq;
		m->aux = checksum(id, m->value);
		dlt_rec_commit(m, DLT_REC_MARK, 0, sizeof(*m));
	}
	return 0;
}

static void *side_thread(void *arg)
{
	(void)arg;
	struct dlt_tls tls;
	memset(&tls, 0, sizeof(tls));
	return (void *)(intptr_t)write_marks(&tls, 2, 0, SIDE_MARKS);
}

static int make_base_trace(void)
{
	base_dir = tu_tmpdir("reader");
	if (base_dir == NULL)
		return -1;
	struct dlt_open_params p = {.dir = base_dir,
				    .host = "unit-host",
				    .rank = -1,
				    .parent_kind = DLT_PARENT_NONE};
	if (dlt_writer_create(&writer, &p) != 0)
		return -1;
	struct dlt_tls tls;
	memset(&tls, 0, sizeof(tls));
	dlt_write_process_info(&writer, &tls, 0);
	dlt_note(&writer, &tls, DLT_NOTE_INFO, "unit test trace");
	/* id 1 from this thread, id 2 from another one in between: the two
	 * threads' chunks interleave in the file. */
	if (write_marks(&tls, 1, 0, MAIN_MARKS / 2) != 0)
		return -1;
	/* A record from a future minor version: readers must skip it. */
	uint64_t *u = dlt_rec_reserve(&writer, &tls, 40);
	if (u == NULL)
		return -1;
	for (int i = 2; i < 5; i++)
		u[i] = 0x5555555555555555ull;
	u[1] = dlt_now_ns();
	dlt_rec_commit(u, UNKNOWN_TYPE, 0, 40);
	pthread_t th;
	void *th_rc = NULL;
	if (pthread_create(&th, NULL, side_thread, NULL) != 0)
		return -1;
	pthread_join(th, &th_rc);
	if (th_rc != NULL)
		return -1;
	if (write_marks(&tls, 1, MAIN_MARKS / 2, MAIN_MARKS) != 0)
		return -1;
	base_path = strdup(writer.path);
	dlt_writer_forget(&writer);

	int fd = open(base_path, O_RDONLY);
	if (fd < 0)
		return -1;
	struct stat st;
	fstat(fd, &st);
	base_size = (size_t)st.st_size;
	base_data = malloc(base_size);
	size_t got = 0;
	while (got < base_size) {
		ssize_t r = read(fd, base_data + got, base_size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return got == base_size ? 0 : -1;
}

/* ---- reading a trace in detail --------------------------------------------
 */

struct seen_mark {
	uint64_t off;
	uint32_t id;
	uint64_t value;
	uint32_t aux;
};

struct scan {
	struct seen_mark *m;
	size_t n, cap;
	size_t unknown_seen; /* records of UNKNOWN_TYPE handed to us */
	uint32_t proc_exe;
	int have_proc;
};

static int scan_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct scan *s = ctx;
	if (v->rec->type == DLT_REC_MARK) {
		const struct dlt_rec_mark *m = (const void *)v->rec;
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 1024;
			s->m = realloc(s->m, s->cap * sizeof(*s->m));
		}
		s->m[s->n++] =
			(struct seen_mark){v->offset, m->id, m->value, m->aux};
	} else if (v->rec->type == UNKNOWN_TYPE) {
		s->unknown_seen++;
	} else if (v->rec->type == DLT_REC_PROC) {
		const struct dlt_rec_proc *p = (const void *)v->rec;
		s->proc_exe = p->exe;
		s->have_proc = 1;
	}
	return 0;
}

struct opened {
	struct dlt_trace *t;
	struct scan s;
	char err[512];
	struct dlt_trace_stats st;
};

/* win: the reader's window in bytes, 0 for its default. */
static int open_scan_window(const char *path, size_t win, struct opened *o)
{
	memset(o, 0, sizeof(*o));
	o->t = dlt_trace_open(path, o->err, sizeof(o->err));
	if (o->t == NULL)
		return -1;
	if (win)
		dlt_trace_set_window(o->t, win);
	dlt_trace_foreach(o->t, scan_rec, &o->s);
	dlt_trace_stats(o->t, &o->st);
	return 0;
}

static int open_scan(const char *path, struct opened *o)
{
	return open_scan_window(path, 0, o);
}

static void close_scan(struct opened *o)
{
	dlt_trace_close(o->t);
	free(o->s.m);
	memset(o, 0, sizeof(*o));
}

static int has_problem(const struct dlt_trace *t, const char *needle)
{
	for (size_t i = 0; i < dlt_trace_problem_count(t); i++)
		if (tu_contains_ci(dlt_trace_problem(t, i), needle))
			return 1;
	return 0;
}

static void print_problems(const struct dlt_trace *t)
{
	size_t n = dlt_trace_problem_count(t);
	fprintf(stderr, "    reader problems (%zu):\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "      %s\n", dlt_trace_problem(t, i));
}

/* The marks of the intact trace, in file order, with their offsets. */
static struct scan intact;

static const struct dlt_file_header *base_hdr(void)
{
	return (const struct dlt_file_header *)base_data;
}

/* Writes a damaged copy of the reference trace: its first len bytes, with
 * patch (if any) applied at patch_off. */
static char *write_copy(const char *tag, size_t len, uint64_t patch_off,
			const void *patch, size_t patch_len)
{
	char *path = tu_strfmt("%s/%s.dltrace", base_dir, tag);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return path;
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, base_data, len);
	if (patch && patch_off + patch_len <= len)
		memcpy(copy + patch_off, patch, patch_len);
	size_t done = 0;
	while (done < len) {
		ssize_t r = write(fd, copy + done, len - done);
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	close(fd);
	free(copy);
	return path;
}

/* The marks read must be exactly those of the intact trace for which keep()
 * holds, in the same order, each with a valid checksum. */
static void expect_marks(const struct scan *got, const char *what,
			 int (*keep)(const struct seen_mark *, void *),
			 void *arg)
{
	size_t want = 0, k = 0, bad = 0;
	for (size_t i = 0; i < intact.n; i++) {
		if (!keep(&intact.m[i], arg))
			continue;
		want++;
		if (k < got->n) {
			const struct seen_mark *a = &got->m[k],
					       *b = &intact.m[i];
			if (a->off != b->off || a->id != b->id ||
			    a->value != b->value || a->aux != b->aux)
				bad++;
		}
		k++;
	}
	TU_CHECK(got->n == want, "%s: read %zu marks, expected %zu", what,
		 got->n, want);
	TU_CHECK(bad == 0, "%s: %zu marks differ from the intact trace", what,
		 bad);
	size_t badsum = 0;
	for (size_t i = 0; i < got->n; i++)
		if (got->m[i].aux != checksum(got->m[i].id, got->m[i].value))
			badsum++;
	TU_CHECK(badsum == 0, "%s: %zu marks with a bad checksum", what,
		 badsum);
}

static int keep_before(const struct seen_mark *m, void *arg)
{
	return m->off + sizeof(struct dlt_rec_mark) <= *(uint64_t *)arg;
}

/* ---- tests: the intact trace ----------------------------------------------
 */

static void test_intact(void)
{
	struct opened o;
	int r = open_scan(base_path, &o);
	TU_CHECK_FATAL(r == 0, "intact trace does not open: %s", o.err);
	if (dlt_trace_problem_count(o.t))
		print_problems(o.t);
	TU_CHECK(dlt_trace_problem_count(o.t) == 0,
		 "intact trace: %zu problems", dlt_trace_problem_count(o.t));
	const struct dlt_file_header *h = dlt_trace_header(o.t);
	TU_CHECK(h->pid == (uint32_t)getpid(), "header pid %u, expected %d",
		 h->pid, (int)getpid());
	TU_CHECK(h->version_major == DLT_FORMAT_MAJOR &&
			 h->version_minor == DLT_FORMAT_MINOR,
		 "version %u.%u", h->version_major, h->version_minor);
	TU_CHECK(o.s.n == MAIN_MARKS + SIDE_MARKS, "%zu marks, expected %u",
		 o.s.n, MAIN_MARKS + SIDE_MARKS);
	/* Per id: every seq once, in order (one writer thread per id). */
	uint64_t next[3] = {0, 0, 0};
	size_t disorder = 0, badsum = 0;
	for (size_t i = 0; i < o.s.n; i++) {
		const struct seen_mark *m = &o.s.m[i];
		if (m->id < 1 || m->id > 2 || (m->value >> 32) != m->id ||
		    (m->value & 0xffffffffu) != next[m->id]++)
			disorder++;
		if (m->aux != checksum(m->id, m->value))
			badsum++;
	}
	TU_CHECK(disorder == 0 && badsum == 0,
		 "%zu marks out of sequence, %zu bad checksums", disorder,
		 badsum);
	TU_CHECK(o.s.unknown_seen == 1 && o.st.unknown == 1,
		 "unknown-type record: callback saw %zu, stats say %llu",
		 o.s.unknown_seen, (unsigned long long)o.st.unknown);
	TU_CHECK(o.st.chunks >= 4,
		 "only %llu chunks; the damage tests need "
		 "several",
		 (unsigned long long)o.st.chunks);
	TU_CHECK(o.s.have_proc, "no PROC record");
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	const char *exe = dlt_trace_str(o.t, o.s.proc_exe);
	TU_CHECK(exe && strcmp(exe, self) == 0,
		 "PROC exe string is \"%s\", expected \"%s\"",
		 exe ? exe : "(none)", self);
	intact = o.s; /* keep the marks: the other tests compare with them */
	o.s.m = NULL;
	close_scan(&o);
}

/* ---- the reference trace's chunks -------------------------------------------
 */

/* Where each chunk of the reference trace starts and ends (chunks have
 * sizes of their own since format 2.0: a thread's first are small). */
#define MAX_CHUNKS 256
static uint64_t chunk_at[MAX_CHUNKS], chunk_end[MAX_CHUNKS];
static size_t nchunks;

static void find_chunks(void)
{
	const struct dlt_file_header *h = base_hdr();
	for (uint64_t c = h->data_offset;
	     c + sizeof(struct dlt_rec_chunk) <= h->alloc_cursor &&
	     nchunks < MAX_CHUNKS;) {
		const struct dlt_rec_chunk *ch = (const void *)(base_data + c);
		if (ch->h.type != DLT_REC_CHUNK || ch->h.len == 0)
			break;
		chunk_at[nchunks] = c;
		chunk_end[nchunks++] = c + ch->h.len;
		c += ch->h.len;
	}
}

/* Offset of a mark in the middle of chunk k, 0 if none. */
static uint64_t mid_chunk(size_t k)
{
	if (k >= nchunks)
		return 0;
	uint64_t half = chunk_at[k] + (chunk_end[k] - chunk_at[k]) / 2;
	for (size_t i = 0; i < intact.n; i++)
		if (intact.m[i].off > half &&
		    intact.m[i].off + 64 < chunk_end[k])
			return intact.m[i].off;
	return 0;
}

/* Offset of a mark in the middle of the second chunk, 0 if none. */
static uint64_t mid_second_chunk(void)
{
	return mid_chunk(1);
}

/* ---- tests: truncation ------------------------------------------------------
 */

/* Offsets to cut at, from the reference trace's own layout. */
static size_t cut_points(uint64_t *cuts, size_t max)
{
	const struct dlt_file_header *h = base_hdr();
	uint64_t d = h->data_offset;
	uint64_t mid = mid_second_chunk();
	TU_CHECK_FATAL(nchunks >= 4, "only %zu chunks", nchunks);
	uint64_t c[] = {
		d,		     /* no chunk at all */
		d + 8,		     /* inside the first chunk header */
		d + 200,	     /* inside the first chunk */
		mid,		     /* exactly at a record */
		mid + 8,	     /* inside a record, after its length */
		mid + 24,	     /* inside a record, near its end */
		chunk_at[1],	     /* at a chunk boundary */
		chunk_at[2],	     /* at another chunk boundary */
		chunk_at[2] + 16,    /* inside a chunk header */
		h->alloc_cursor - 8, /* inside the last chunk */
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]) && n < max; i++)
		if (c[i] >= d && c[i] < h->alloc_cursor)
			cuts[n++] = c[i];
	return n;
}

static void test_truncate_data(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	uint64_t cuts[16];
	size_t n = cut_points(cuts, 16);
	TU_CHECK(n >= 9, "only %zu cut points", n);
	for (size_t i = 0; i < n; i++) {
		char tag[64];
		snprintf(tag, sizeof(tag), "cut-%llu",
			 (unsigned long long)cuts[i]);
		char *path = write_copy(tag, cuts[i], 0, NULL, 0);
		struct opened o;
		int r = open_scan(path, &o);
		TU_CHECK(r == 0, "cut at %llu: does not open: %s",
			 (unsigned long long)cuts[i], o.err);
		if (r == 0) {
			expect_marks(&o.s, tag, keep_before, &cuts[i]);
			int said = has_problem(o.t, "truncat");
			if (!said)
				print_problems(o.t);
			TU_CHECK(said,
				 "cut at %llu: no problem mentions truncation",
				 (unsigned long long)cuts[i]);
			close_scan(&o);
		}
		unlink(path);
		free(path);
	}
}

static void test_truncate_header(void)
{
	size_t cuts[] = {0, 8, 15, 16, 40, 64, 100, 127, 128, 1000};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		char tag[64];
		snprintf(tag, sizeof(tag), "hcut-%zu", cuts[i]);
		char *path = write_copy(tag, cuts[i], 0, NULL, 0);
		struct opened o;
		if (open_scan(path, &o) != 0) {
			/* A clear error: it says what is wrong. */
			TU_CHECK(o.err[0] != '\0' &&
					 (tu_contains_ci(o.err, "short") ||
					  tu_contains_ci(o.err, "truncat") ||
					  tu_contains_ci(o.err, "header") ||
					  tu_contains_ci(o.err, "magic")),
				 "header cut at %zu: unclear error \"%s\"",
				 cuts[i], o.err);
		} else {
			TU_CHECK(o.s.n == 0, "header cut at %zu: %zu marks",
				 cuts[i], o.s.n);
			int said = has_problem(o.t, "truncat") ||
				   has_problem(o.t, "header");
			if (!said)
				print_problems(o.t);
			TU_CHECK(said,
				 "header cut at %zu opens with no problem "
				 "about the cut",
				 cuts[i]);
			close_scan(&o);
		}
		unlink(path);
		free(path);
	}
}

/* ---- tests: corruption
 * -------------------------------------------------------- */

struct corrupt_range {
	uint64_t from, chunk_end;
};

static int keep_outside(const struct seen_mark *m, void *arg)
{
	const struct corrupt_range *c = arg;
	return m->off < c->from || m->off >= c->chunk_end;
}

static void test_corrupt_length(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	/* A mark in the middle of the second chunk, which is not the last. */
	uint64_t target = mid_second_chunk();
	TU_CHECK_FATAL(target != 0 && nchunks > 3,
		       "no mark in the middle of a chunk with later chunks");
	struct corrupt_range range = {target, chunk_end[1]};
	uint32_t lens[] = {12,	     8,
			   3,	     (uint32_t)(chunk_end[1] - chunk_at[1]),
			   1u << 28, 0xfffffff8u};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char tag[64];
		snprintf(tag, sizeof(tag), "len-%u", lens[i]);
		char *path = write_copy(tag, base_size, target, &lens[i],
					sizeof(lens[i]));
		struct opened o;
		int r = open_scan(path, &o);
		TU_CHECK(r == 0, "%s: does not open: %s", tag, o.err);
		if (r == 0) {
			/* Before it in its chunk and all other chunks: read. */
			expect_marks(&o.s, tag, keep_outside, &range);
			char off[32];
			snprintf(off, sizeof(off), "%llu",
				 (unsigned long long)target);
			int said = has_problem(o.t, off);
			if (!said)
				print_problems(o.t);
			TU_CHECK(said, "%s: no problem names offset %s", tag,
				 off);
			close_scan(&o);
		}
		unlink(path);
		free(path);
	}
}

static void test_corrupt_chunk_header(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	uint64_t chunk = chunk_at[1]; /* the second chunk */
	struct corrupt_range range = {chunk, chunk_end[1]};
	struct {
		const char *tag;
		uint64_t off;
		uint32_t v;
	} cases[] = {
		{"chunk-len", chunk, 1234},	       /* no chunk length */
		{"chunk-type", chunk + 4, 0x00070007}, /* type and flags */
	};
	for (size_t i = 0; i < 2; i++) {
		char *path = write_copy(cases[i].tag, base_size, cases[i].off,
					&cases[i].v, sizeof(cases[i].v));
		struct opened o;
		int r = open_scan(path, &o);
		TU_CHECK(r == 0, "%s: does not open: %s", cases[i].tag, o.err);
		if (r == 0) {
			expect_marks(&o.s, cases[i].tag, keep_outside, &range);
			char off[32];
			snprintf(off, sizeof(off), "%llu",
				 (unsigned long long)chunk);
			int said = has_problem(o.t, off);
			if (!said)
				print_problems(o.t);
			TU_CHECK(said, "%s: no problem names offset %s",
				 cases[i].tag, off);
			close_scan(&o);
		}
		unlink(path);
		free(path);
	}
}

/* ---- tests: versions and identity
 * ---------------------------------------------- */

static void test_newer_minor(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	uint16_t minor = DLT_FORMAT_MINOR + 1;
	char *path = write_copy("minor", base_size,
				offsetof(struct dlt_file_header, version_minor),
				&minor, sizeof(minor));
	struct opened o;
	int r = open_scan(path, &o);
	TU_CHECK(r == 0, "newer minor version does not open: %s", o.err);
	if (r == 0) {
		uint64_t all = UINT64_MAX;
		expect_marks(&o.s, "newer minor", keep_before, &all);
		TU_CHECK(o.st.unknown == 1, "unknown records: %llu",
			 (unsigned long long)o.st.unknown);
		int said = has_problem(o.t, "newer");
		if (!said)
			print_problems(o.t);
		TU_CHECK(said, "newer minor version: no problem says so");
		close_scan(&o);
	}
	unlink(path);
	free(path);
}

static void expect_open_error(const char *tag, uint64_t off, const void *patch,
			      size_t len, const char *const *words)
{
	char *path = write_copy(tag, base_size, off, patch, len);
	char err[512] = "";
	struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK(t == NULL, "%s: the reader opened it", tag);
	if (t)
		dlt_trace_close(t);
	int clear = 0;
	for (const char *const *w = words; *w; w++)
		clear |= tu_contains_ci(err, *w);
	TU_CHECK(clear, "%s: unclear error \"%s\"", tag, err);
	unlink(path);
	free(path);
}

static void test_newer_major(void)
{
	uint16_t major = DLT_FORMAT_MAJOR + 1;
	static const char *const w[] = {"newer", "version", NULL};
	expect_open_error("major",
			  offsetof(struct dlt_file_header, version_major),
			  &major, sizeof(major), w);
}

static void test_bad_magic(void)
{
	static const char *const w[] = {"magic", "not a dltrace", NULL};
	expect_open_error("magic", 0, "DLTRACX", 8, w);
	expect_open_error("magic-elf", 0, "\177ELF\2\1\1", 8, w);
}

static void test_other_endian(void)
{
	uint32_t swapped = __builtin_bswap32(DLT_ENDIAN_MARK);
	static const char *const w[] = {"byte order", "endian", NULL};
	expect_open_error("endian", offsetof(struct dlt_file_header, endian),
			  &swapped, sizeof(swapped), w);
}

/* Random byte damage: the reader must neither crash nor read past the file
 * (run under DLTRACE_SANITIZE to make that strict), and whatever it hands
 * out must be a whole record of its type. */
struct damage_ctx {
	size_t len; /* bytes in the damaged file */
	size_t bad;
};

static int check_view(void *ctx, const struct dlt_rec_view *v)
{
	struct damage_ctx *d = ctx;
	uint32_t min = dlt_rec_min_size(v->rec->type);
	if (v->offset + v->rec->len > d->len || v->rec->len % 8 != 0 ||
	    (min && v->rec->len < min))
		d->bad++;
	return 0;
}

static void test_random_damage(void)
{
	const struct dlt_file_header *h = base_hdr();
	uint64_t span = h->alloc_cursor;
	uint8_t *copy = malloc(base_size);
	char *path = tu_strfmt("%s/random.dltrace", base_dir);
	unsigned seed = 12345;
	struct damage_ctx dc = {0, 0};
	for (int round = 0; round < 200; round++) {
		memcpy(copy, base_data, base_size);
		int flips = 1 + (int)(rand_r(&seed) % 64);
		for (int k = 0; k < flips; k++) {
			uint64_t off = (uint64_t)rand_r(&seed) % span;
			if (round % 4 == 0)
				off = h->data_offset +
				      off % (span - h->data_offset);
			copy[off] = (uint8_t)rand_r(&seed);
		}
		size_t len = round % 3 == 0 ? (size_t)(rand_r(&seed) % span)
					    : base_size;
		FILE *f = fopen(path, "wb");
		if (f == NULL)
			break;
		fwrite(copy, 1, len, f);
		fclose(f);
		char err[256];
		struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
		if (t) {
			dc.len = len;
			/* One chunk per window half the time: ASan then sees
			 * any read past the chunk being walked. */
			if (round % 2)
				dlt_trace_set_window(t, 1);
			dlt_trace_foreach(t, check_view, &dc);
			dlt_trace_close(t);
		}
	}
	TU_CHECK(dc.bad == 0, "%zu records handed out that do not fit", dc.bad);
	unlink(path);
	free(path);
	free(copy);
}

/* ---- tests: reading through a window ---------------------------------------
 */

static int keep_all(const struct seen_mark *m, void *arg)
{
	(void)m;
	(void)arg;
	return 1;
}

static int same_problems(const struct dlt_trace *a, const struct dlt_trace *b)
{
	size_t n = dlt_trace_problem_count(a);
	if (n != dlt_trace_problem_count(b))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(dlt_trace_problem(a, i), dlt_trace_problem(b, i)))
			return 0;
	return 1;
}

/* The file is read a window at a time; where the windows end must not
 * change what is read, intact or cut. */
static void test_small_windows(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	size_t cs = DLT_CHUNK_FIRST;
	size_t wins[] = {1, cs, 2 * cs, 3 * cs + 100};
	for (size_t i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
		char tag[64];
		snprintf(tag, sizeof(tag), "window %zu", wins[i]);
		struct opened o;
		int r = open_scan_window(base_path, wins[i], &o);
		TU_CHECK_FATAL(r == 0, "%s: does not open: %s", tag, o.err);
		expect_marks(&o.s, tag, keep_all, NULL);
		TU_CHECK(dlt_trace_problem_count(o.t) == 0 &&
				 o.s.unknown_seen == 1 && o.s.have_proc,
			 "%s: %zu problems, %zu unknown records, PROC %s", tag,
			 dlt_trace_problem_count(o.t), o.s.unknown_seen,
			 o.s.have_proc ? "seen" : "missing");
		const char *exe = dlt_trace_str(o.t, o.s.proc_exe);
		TU_CHECK(exe && exe[0] == '/', "%s: PROC exe is \"%s\"", tag,
			 exe ? exe : "(none)");
		close_scan(&o);
	}
	uint64_t cuts[16];
	size_t n = cut_points(cuts, 16);
	TU_CHECK(n >= 9, "only %zu cut points", n);
	for (size_t i = 0; i < n; i++) {
		char tag[64];
		snprintf(tag, sizeof(tag), "wcut-%llu",
			 (unsigned long long)cuts[i]);
		char *path = write_copy(tag, cuts[i], 0, NULL, 0);
		struct opened big, small;
		int rb = open_scan(path, &big);
		int rs = open_scan_window(path, cs, &small);
		TU_CHECK(rb == 0 && rs == 0, "%s: does not open", tag);
		if (rb == 0 && rs == 0) {
			expect_marks(&small.s, tag, keep_before, &cuts[i]);
			TU_CHECK(same_problems(big.t, small.t),
				 "%s: other problems with a one-chunk window",
				 tag);
		}
		if (rb == 0)
			close_scan(&big);
		if (rs == 0)
			close_scan(&small);
		unlink(path);
		free(path);
	}
}

/* A file cut by another process after it was opened reads as if it had
 * been cut before: what is left is read, and the cut is said. */
static void test_shrinks_while_read(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	uint64_t cs = DLT_CHUNK_FIRST;
	uint64_t mid = mid_second_chunk();
	TU_CHECK_FATAL(mid != 0, "no mark in the second chunk");
	uint64_t cut = mid + 8; /* inside a record */
	char *path = write_copy("shrink", base_size, 0, NULL, 0);
	char err[512];
	struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "does not open: %s", err);
	dlt_trace_set_window(t, cs);
	TU_CHECK_FATAL(truncate(path, (off_t)cut) == 0, "truncate: %s",
		       strerror(errno));
	struct scan s;
	memset(&s, 0, sizeof(s));
	dlt_trace_foreach(t, scan_rec, &s);
	expect_marks(&s, "shrunk", keep_before, &cut);
	int said = has_problem(t, "shrank");
	if (!said)
		print_problems(t);
	TU_CHECK(said, "no problem says the file shrank");
	dlt_trace_close(t);
	free(s.m);
	unlink(path);
	free(path);
}

static long status_kb(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0)
			v = strtol(line + n, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

struct mark_count {
	size_t n, bad;
};

static int count_marks(void *ctx, const struct dlt_rec_view *v)
{
	struct mark_count *c = ctx;
	if (v->rec->type == DLT_REC_MARK) {
		const struct dlt_rec_mark *m = (const void *)v->rec;
		c->n++;
		c->bad += m->aux != checksum(m->id, m->value);
	}
	return 0;
}

/* Reading a trace takes the same memory however long the trace: about
 * 48 MB of records (the reference trace's chunks over and over) must not
 * raise the peak RSS by more than a few MB. */
static void test_memory_bounded(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	const struct dlt_file_header *h = base_hdr();
	uint64_t d = h->data_offset, data = h->alloc_cursor - d;
	size_t copies = (48u << 20) / data + 1;
	struct dlt_file_header nh = *h;
	nh.alloc_cursor = d + copies * data;
	char *path = tu_strfmt("%s/long.dltrace", base_dir);
	FILE *f = fopen(path, "wb");
	TU_CHECK_FATAL(f != NULL, "%s: %s", path, strerror(errno));
	fwrite(&nh, sizeof(nh), 1, f);
	fwrite(base_data + sizeof(nh), 1, d - sizeof(nh), f);
	for (size_t i = 0; i < copies; i++)
		fwrite(base_data + d, 1, data, f);
	TU_CHECK_FATAL(fclose(f) == 0, "writing %s failed", path);

	/* "5" resets the peak to the current RSS (Linux 4.0). */
	FILE *c = fopen("/proc/self/clear_refs", "w");
	int reset = c && fputs("5", c) >= 0;
	if (c && fclose(c) != 0)
		reset = 0;
	long before = status_kb("VmRSS:");
	char err[512];
	struct dlt_trace *t = dlt_trace_open(path, err, sizeof(err));
	TU_CHECK_FATAL(t != NULL, "does not open: %s", err);
	struct mark_count mc = {0, 0};
	dlt_trace_foreach(t, count_marks, &mc);
	long peak = status_kb("VmHWM:");
	TU_CHECK(mc.n == copies * intact.n && mc.bad == 0,
		 "%zu marks (%zu bad), expected %zu", mc.n, mc.bad,
		 copies * intact.n);
	TU_CHECK(dlt_trace_problem_count(t) == 0, "%zu problems",
		 dlt_trace_problem_count(t));
	dlt_trace_close(t);
	if (reset && before > 0 && peak > 0) {
		long mb = (long)(nh.alloc_cursor >> 20);
		TU_CHECK(peak - before < 8 * 1024,
			 "reading %ld MB raised the peak RSS by %ld KiB", mb,
			 peak - before);
	} else {
		fprintf(stderr, "    (peak RSS cannot be reset here: memory "
				"not measured)\n");
	}
	unlink(path);
	free(path);
}

/* ---- tests: dltrace-analyze on damaged files -------------------------------
 */

static void expect_analyze(const char *tag, size_t len, uint64_t off,
			   const void *patch, size_t plen, int want_exit,
			   int want_message)
{
	char *path = write_copy(tag, len, off, patch, plen);
	const char *argv[] = {DLT_TEST_ANALYZE, "summary", path, NULL};
	struct tu_proc p;
	int r = tu_run(&p, argv, NULL, 30000);
	TU_CHECK(r == 0, "%s: dltrace-analyze timed out", tag);
	TU_CHECK(tu_exit_code(p.status) == want_exit,
		 "%s: dltrace-analyze summary: %s, expected exit %d; "
		 "stderr:\n%s",
		 tag, tu_status_str(p.status), want_exit, p.err);
	char *prefix = tu_strfmt("dltrace-analyze: %s: ", path);
	size_t lines = tu_count_lines(p.err, prefix);
	if (want_message)
		TU_CHECK(lines >= 1,
			 "%s: no \"%s<problem>\" line on stderr:\n%s", tag,
			 prefix, p.err);
	else
		TU_CHECK(!tu_contains_ci(p.err, "truncat") &&
				 !tu_contains_ci(p.err, "corrupt") &&
				 !tu_contains_ci(p.err, "damage"),
			 "%s: intact trace, yet stderr says:\n%s", tag, p.err);
	if (want_exit == 0)
		TU_CHECK(p.out_len > 0, "%s: summary printed nothing", tag);
	free(prefix);
	tu_proc_free(&p);
	unlink(path);
	free(path);
}

static void test_analyze_damaged(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	TU_CHECK_FATAL(nchunks > 2, "only %zu chunks", nchunks);
	uint64_t mid = intact.m[intact.n / 2].off;
	uint32_t badlen = 12;
	uint16_t minor = DLT_FORMAT_MINOR + 1, major = DLT_FORMAT_MAJOR + 1;

	expect_analyze("a-intact", base_size, 0, NULL, 0, 0, 0);
	expect_analyze("a-cut-record", mid + 8, 0, NULL, 0, 0, 1);
	expect_analyze("a-cut-chunk", chunk_at[2], 0, NULL, 0, 0, 1);
	expect_analyze("a-badlen", base_size, mid, &badlen, sizeof(badlen), 0,
		       1);
	expect_analyze("a-minor", base_size,
		       offsetof(struct dlt_file_header, version_minor), &minor,
		       sizeof(minor), 0, 1);
	expect_analyze("a-major", base_size,
		       offsetof(struct dlt_file_header, version_major), &major,
		       sizeof(major), 2, 1);
	expect_analyze("a-magic", base_size, 0, "NOTATRC", 8, 2, 1);
	expect_analyze("a-empty", 0, 0, NULL, 0, 2, 1);
	expect_analyze("a-hcut", 8, 0, NULL, 0, 2, 1);

	/* dump walks every record of a damaged trace without failing. */
	char *path = write_copy("a-dump", mid + 8, 0, NULL, 0);
	const char *argv[] = {DLT_TEST_ANALYZE, "dump", path, NULL};
	struct tu_proc p;
	tu_run(&p, argv, NULL, 30000);
	TU_CHECK(tu_exit_code(p.status) == 0 && p.out_len > 0,
		 "dump of a truncated trace: %s, %zu bytes of output; "
		 "stderr:\n%s",
		 tu_status_str(p.status), p.out_len, p.err);
	tu_proc_free(&p);
	unlink(path);
	free(path);
}

/* ---- tests: compaction (analyzer/compact/compact.c)
 * --------------------------------
 */

static struct dlt_compact_result compact_copy(const char *path)
{
	struct dlt_compact_result r;
	dlt_compact_file(path, 0, &r);
	TU_CHECK(r.verdict == DLT_COMPACT_DONE, "%s: compact verdict %d (%s)",
		 path, r.verdict, r.why);
	return r;
}

static void expect_same_read(const char *what, const char *path)
{
	struct opened o;
	TU_CHECK_FATAL(open_scan(path, &o) == 0, "%s: does not open: %s", what,
		       o.err);
	expect_marks(&o.s, what, keep_all, NULL);
	if (dlt_trace_problem_count(o.t))
		print_problems(o.t);
	TU_CHECK(dlt_trace_problem_count(o.t) == 0 && o.s.unknown_seen == 1,
		 "%s: %zu problems, %zu unknown records", what,
		 dlt_trace_problem_count(o.t), o.s.unknown_seen);
	close_scan(&o);
}

/* The reference trace was never cut (the writer forgot it): compact cuts
 * it to its last record, and every record reads as before. */
static void test_compact_uncut(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	char *path = write_copy("compact", base_size, 0, NULL, 0);
	struct tu_layout before, after;
	TU_CHECK_FATAL(tu_trace_layout(path, &before) == 0, "bad layout");
	TU_CHECK(before.size > before.cursor && before.last_unused > 0,
		 "the reference trace is cut already: %llu bytes, cursor %llu",
		 (unsigned long long)before.size,
		 (unsigned long long)before.cursor);
	struct dlt_compact_result r = compact_copy(path);
	int lr = tu_trace_layout(path, &after);
	TU_CHECK(lr == 0 && after.size == after.cursor &&
			 after.last_unused == 0 && after.data == before.data &&
			 r.size_after == after.size,
		 "after compact: %llu bytes, cursor %llu, %llu unfilled, data "
		 "%llu (was %llu)",
		 (unsigned long long)after.size,
		 (unsigned long long)after.cursor,
		 (unsigned long long)after.last_unused,
		 (unsigned long long)after.data,
		 (unsigned long long)before.data);
	expect_same_read("compacted", path);
	unlink(path);
	free(path);
}

/* A last chunk with no record (its writer was killed right after taking
 * it) goes whole; the chunk before it is then the last, cut to its last
 * record like any last chunk. */
static void test_compact_empty_chunk(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	const struct dlt_file_header *h = base_hdr();
	uint64_t cur = h->alloc_cursor;
	size_t len = (size_t)cur + 8192;
	uint8_t *copy = calloc(1, len);
	memcpy(copy, base_data, (size_t)cur);
	struct dlt_rec_chunk ch;
	memset(&ch, 0, sizeof(ch));
	ch.h.len = 4096;
	ch.h.type = DLT_REC_CHUNK;
	ch.h.ts = h->start_monotonic_ns + 1;
	ch.seq = (uint32_t)nchunks;
	memcpy(copy + cur, &ch, sizeof(ch));
	uint64_t ncur = cur + 4096;
	memcpy(copy + offsetof(struct dlt_file_header, alloc_cursor), &ncur, 8);
	char *path = tu_strfmt("%s/empty-chunk.dltrace", base_dir);
	FILE *f = fopen(path, "wb");
	TU_CHECK_FATAL(f && fwrite(copy, 1, len, f) == len && fclose(f) == 0,
		       "cannot write %s", path);
	free(copy);
	compact_copy(path);
	struct tu_layout after;
	int lr = tu_trace_layout(path, &after);
	TU_CHECK(lr == 0 && after.size == after.cursor && after.cursor <= cur &&
			 after.last_unused == 0,
		 "after compact: %llu bytes, cursor %llu (before the empty "
		 "chunk: %llu), %llu bytes after the last record",
		 (unsigned long long)after.size,
		 (unsigned long long)after.cursor, (unsigned long long)cur,
		 (unsigned long long)after.last_unused);
	expect_same_read("empty last chunk compacted", path);
	unlink(path);
	free(path);
}

/* A trace of format 1.2 (fixed 64 KiB chunks, a segment mapped ahead of
 * the last chunk): cut to its cursor, the pages of its chunk tails given
 * back, its records read as before. */
static void test_compact_v1(void)
{
	const uint32_t cs = 65536;
	size_t len = DLT_DATA_OFFSET + 3 * (size_t)cs;
	uint8_t *f1 = calloc(1, len);
	struct dlt_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, DLT_MAGIC, 8);
	h.endian = DLT_ENDIAN_MARK;
	h.version_major = 1;
	h.version_minor = 2;
	h.header_size = sizeof(h);
	h.chunk_size = cs;
	h.alloc_cursor = DLT_DATA_OFFSET + 2 * (uint64_t)cs;
	h.data_offset = DLT_DATA_OFFSET;
	h.trace_id = 7;
	memcpy(f1, &h, sizeof(h));
	for (uint32_t k = 0; k < 2; k++) {
		uint8_t *c = f1 + DLT_DATA_OFFSET + (size_t)k * cs;
		struct dlt_rec_chunk ch = {{cs, DLT_REC_CHUNK, 0, 1}, 1, k};
		memcpy(c, &ch, sizeof(ch));
		struct dlt_rec_mark m = {
			{sizeof(m), DLT_REC_MARK, 0, 2}, 1, checksum(1, k), k};
		memcpy(c + sizeof(ch), &m, sizeof(m));
	}
	/* No PROC record: compact knows the host by the file's name. */
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	for (char *c = host; *c; c++)
		if (*c == '.')
			*c = '_';
	char *path = tu_strfmt("%s/%s.1.0.dltrace", base_dir, host);
	FILE *f = fopen(path, "wb");
	TU_CHECK_FATAL(f && fwrite(f1, 1, len, f) == len && fclose(f) == 0,
		       "cannot write %s", path);
	free(f1);
	struct dlt_compact_result r = compact_copy(path);
	TU_CHECK(r.size_after == h.alloc_cursor && r.disk_after < r.disk_before,
		 "1.2 trace: %llu -> %llu bytes (cursor %llu), %llu -> %llu on "
		 "disk",
		 (unsigned long long)r.size_before,
		 (unsigned long long)r.size_after,
		 (unsigned long long)h.alloc_cursor,
		 (unsigned long long)r.disk_before,
		 (unsigned long long)r.disk_after);
	struct opened o;
	TU_CHECK_FATAL(open_scan(path, &o) == 0, "does not open: %s", o.err);
	TU_CHECK(o.s.n == 2 && dlt_trace_problem_count(o.t) == 0 &&
			 o.s.m[0].value == 0 && o.s.m[1].value == 1,
		 "1.2 trace after compact: %zu marks, %zu problems", o.s.n,
		 dlt_trace_problem_count(o.t));
	close_scan(&o);
	unlink(path);
	free(path);
}

/* A trace its writer still maps (the lock a writer holds, format.h) is
 * left as it is. */
static void test_compact_live_lock(void)
{
	char *path = write_copy("live", base_size, 0, NULL, 0);
	int fd = open(path, O_RDWR);
	TU_CHECK_FATAL(fd >= 0 && dlt_trace_lock_ofd(fd, 0) == 0,
		       "cannot lock %s: %s", path, strerror(errno));
	void *m = mmap(NULL, base_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	TU_CHECK_FATAL(m != MAP_FAILED, "mmap: %s", strerror(errno));
	struct dlt_compact_result r;
	dlt_compact_file(path, 0, &r);
	TU_CHECK(r.verdict == DLT_COMPACT_LIVE &&
			 tu_file_size(path) == base_size,
		 "a mapped, locked trace: verdict %d, %llu bytes (was %zu)",
		 r.verdict, (unsigned long long)tu_file_size(path), base_size);
	munmap(m, base_size);
	/* Unmapped, the lock is gone with it. */
	dlt_compact_file(path, 0, &r);
	TU_CHECK(r.verdict == DLT_COMPACT_DONE, "after unmapping: verdict %d",
		 r.verdict);
	unlink(path);
	free(path);
	/* The same with flock's lock, which a writer takes where the kernel
	 * has no open file description locks. */
	path = write_copy("live-flock", base_size, 0, NULL, 0);
	fd = open(path, O_RDWR);
	TU_CHECK_FATAL(fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) == 0,
		       "cannot flock %s: %s", path, strerror(errno));
	m = mmap(NULL, base_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	TU_CHECK_FATAL(m != MAP_FAILED, "mmap: %s", strerror(errno));
	dlt_compact_file(path, 0, &r);
	TU_CHECK(r.verdict == DLT_COMPACT_LIVE &&
			 tu_file_size(path) == base_size,
		 "a mapped trace under flock: verdict %d", r.verdict);
	munmap(m, base_size);
	unlink(path);
	free(path);
}

/* The launcher's REAPED record is appended while another launcher of the
 * same directory may be compacting (the ranks of one job, each under its
 * own dltrace): the attach waits for the compaction's lock and maps the
 * file as it is after it, so the record lands inside the file. */
static struct dlt_writer attach_w; /* large: keep it off the stack */
static _Atomic int attach_tid;

static void *attach_thread(void *arg)
{
	const char *path = arg;
	atomic_store(&attach_tid, (int)gettid());
	static struct dlt_tls tls;
	int r = dlt_writer_attach(&attach_w, path, 0);
	if (r == 0) {
		struct dlt_rec_exit *e =
			dlt_rec_reserve(&attach_w, &tls, sizeof(*e));
		if (e == NULL) {
			r = -1;
		} else {
			e->h.ts = dlt_now_ns();
			e->status = 7 << 8;
			e->pad = 0;
			dlt_rec_commit(e, DLT_REC_EXIT, DLT_EXIT_REAPED,
				       sizeof(*e));
		}
		dlt_writer_forget(&attach_w);
	}
	return (void *)(intptr_t)r;
}

/* Whether thread tid is inside a lock call (fcntl or flock). */
static int in_lock_call(int tid)
{
	char path[64], buf[64] = "";
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *end;
	long nr = strtol(buf, &end, 10);
	if (end == buf)
		return 0;
#if !defined(__x86_64__)
	/* Under qemu-user (scripts/cross-arm64.sh) the file shows the host
	 * kernel's call: an x86-64 host's fcntl and flock.  Natively on
	 * arm64 those numbers are pselect6 and ppoll, which the attach never
	 * calls. */
	if (nr == 72 || nr == 73)
		return 1;
#endif
	return nr == SYS_fcntl || nr == SYS_flock;
}

static void test_attach_waits_for_compact(void)
{
	TU_CHECK_FATAL(intact.n > 0, "the intact test did not run first");
	char *path = write_copy("attach", base_size, 0, NULL, 0);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	TU_CHECK_FATAL(fd >= 0 && dlt_trace_lock_ofd(fd, 1) == 0,
		       "cannot lock %s: %s", path, strerror(errno));
	atomic_store(&attach_tid, 0);
	pthread_t th;
	TU_CHECK_FATAL(pthread_create(&th, NULL, attach_thread, path) == 0,
		       "no thread");
	int waited = 0;
	for (int i = 0; i < 30000 && !waited; i++) {
		int tid = atomic_load(&attach_tid);
		waited = tid && in_lock_call(tid);
		if (!waited)
			usleep(1000);
	}
	TU_CHECK(waited, "the attach did not wait for the compaction's lock");
	/* What compact does under its lock: the room after the data goes. */
	uint64_t cur = base_hdr()->alloc_cursor;
	TU_CHECK_FATAL(ftruncate(fd, (off_t)cur) == 0, "ftruncate: %s",
		       strerror(errno));
	close(fd);
	void *ret;
	pthread_join(th, &ret);
	TU_CHECK((intptr_t)ret == 0, "the attach failed: %d",
		 (int)(intptr_t)ret);
	struct tu_trace t;
	char err[256];
	TU_CHECK_FATAL(tu_trace_load(path, &t, err, sizeof(err)) == 0, "%s",
		       err);
	TU_CHECK(t.nproblems == 0 && t.nexits == 1 &&
			 t.exits[0].how == DLT_EXIT_REAPED &&
			 t.exits[0].status == 7 << 8 &&
			 t.hdr.alloc_cursor <= tu_file_size(path),
		 "after the attach: %zu problems, %zu EXIT records, cursor "
		 "%llu, %llu bytes",
		 t.nproblems, t.nexits, (unsigned long long)t.hdr.alloc_cursor,
		 (unsigned long long)tu_file_size(path));
	tu_trace_free(&t);
	expect_same_read("attached after a compaction", path);
	unlink(path);
	free(path);
}

/* The corpus's process trees of format 2.1 and of the development format
 * 1.3 (the same additions on the 1.x layout): a bash script whose children
 * returned 1 from main and called abort(), under the launcher with the
 * watchdog on.  Their first trace, bash's, reads its run, its heartbeat,
 * both reaps and both ends (its own and the launcher's), without a
 * problem. */
static void expect_tree_seed(const char *name, uint16_t minor)
{
	char *path = tu_strfmt("%s/tests/fuzz/corpus/%s", DLT_TEST_SRC, name);
	struct tu_trace t;
	char err[256];
	TU_CHECK_FATAL(tu_trace_load(path, &t, err, sizeof(err)) == 0, "%s",
		       err);
	int r1 = 0, rabrt = 0, own = 0, launcher = 0;
	for (size_t i = 0; i < t.nreaps; i++) {
		r1 |= t.reaps[i].status == 1 << 8;
		rabrt |= (t.reaps[i].status & 0x7f) == SIGABRT;
	}
	for (size_t i = 0; i < t.nexits; i++) {
		own |= t.exits[i].how == DLT_EXIT_NORMAL &&
		       t.exits[i].status == 0;
		launcher |= t.exits[i].how == DLT_EXIT_REAPED &&
			    t.exits[i].status == 0;
	}
	TU_CHECK(t.hdr.version_minor == minor && t.nproblems == 0 &&
			 t.hdr.run_id != 0 &&
			 t.hdr.alive_ns >= t.hdr.start_monotonic_ns &&
			 t.nreaps == 2 && r1 && rabrt && own && launcher,
		 "%s: format x.%u, %zu problems, run %llx, alive %llu (start "
		 "%llu), %zu reaps, ends own %d launcher %d",
		 name, (unsigned)t.hdr.version_minor, t.nproblems,
		 (unsigned long long)t.hdr.run_id,
		 (unsigned long long)t.hdr.alive_ns,
		 (unsigned long long)t.hdr.start_monotonic_ns, t.nreaps, own,
		 launcher);
	tu_trace_free(&t);
	free(path);
}

static void test_tree_seeds(void)
{
	expect_tree_seed("seed-tree-2.1-3procs.dltrace", 1);
	expect_tree_seed("seed-tree-1.3-3procs.dltrace", 3);
}

/* A forked child's trace is made at its first record (format 2.0), maybe
 * long after the fork; its header still says the process started when the
 * fork returned.  A child it forked first has a trace that starts before
 * that first record, and the analyzer reads parents before children by
 * start: the child's reaped status went unseen in check. */
static struct dlt_writer fork_w; /* large: keep it off the stack */

/* A scratch directory named after what, with fork_w's trace in it. */
static char *fork_w_start(const char *what)
{
	char *dir = tu_tmpdir(what);
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	struct dlt_open_params p = {.dir = dir,
				    .host = "unit-host",
				    .rank = -1,
				    .parent_kind = DLT_PARENT_NONE};
	TU_CHECK_FATAL(dlt_writer_create(&fork_w, &p) == 0,
		       "cannot create a trace in %s", dir);
	return dir;
}

static void test_forked_child_start(void)
{
	char *dir = fork_w_start("forked-start");
	int fds[2];
	TU_CHECK_FATAL(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	TU_CHECK_FATAL(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* What the shim's fork handler does, then a record made
		 * later. */
		dlt_writer_after_fork(&fork_w);
		uint64_t before_record = dlt_now_ns();
		struct dlt_tls tls;
		memset(&tls, 0, sizeof(tls));
		dlt_note(&fork_w, &tls, DLT_NOTE_INFO, "the child's first");
		ssize_t n =
			write(fds[1], &before_record, sizeof(before_record));
		_exit(n == sizeof(before_record) ? 0 : 1);
	}
	close(fds[1]);
	uint64_t before_record = 0;
	ssize_t n = read(fds[0], &before_record, sizeof(before_record));
	close(fds[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	TU_CHECK_FATAL(n == sizeof(before_record) && WIFEXITED(st) &&
			       WEXITSTATUS(st) == 0,
		       "the child failed: %s", tu_status_str(st));
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *child = NULL;
	for (size_t i = 0; i < s.n; i++)
		if (s.t[i].hdr.pid == (uint32_t)pid)
			child = &s.t[i];
	TU_CHECK(child && child->hdr.parent_kind == DLT_PARENT_FORK &&
			 child->hdr.parent_trace_id == fork_w.hdr->trace_id &&
			 child->hdr.start_monotonic_ns <= before_record &&
			 child->hdr.start_monotonic_ns >=
				 fork_w.hdr->start_monotonic_ns,
		 "the forked child's trace (pid %d) starts at %llu, after "
		 "the time just before its first record (%llu), or is "
		 "missing",
		 (int)pid,
		 child ? (unsigned long long)child->hdr.start_monotonic_ns
		       : 0ull,
		 (unsigned long long)before_record);
	tu_traceset_free(&s);
	dlt_writer_forget(&fork_w);
	tu_rmtree(dir);
	free(dir);
}

/* A forked child without a trace of its own forks in turn: its child names
 * as its parent the trace the first child makes later.  The id is chosen
 * when first needed (the second fork's hold, here), not at the first fork
 * (a system call of every forked child, most of which only exec, issue
 * 31). */
static void test_forked_grandchild_parent(void)
{
	char *dir = fork_w_start("forked-grandchild");
	uint64_t top_id = fork_w.hdr->trace_id;
	struct dlt_writer_hold h;
	dlt_writer_hold(&fork_w, &h);
	pid_t pid = fork();
	TU_CHECK_FATAL(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* The shim's child step, then a fork of its own before any
		 * record, as a shell's subshell does. */
		dlt_writer_release(&h, 1);
		dlt_writer_after_fork(&fork_w);
		struct dlt_writer_hold h2;
		dlt_writer_hold(&fork_w, &h2);
		pid_t g = fork();
		if (g < 0)
			_exit(2);
		if (g == 0) {
			dlt_writer_release(&h2, 1);
			dlt_writer_after_fork(&fork_w);
			struct dlt_tls tls;
			memset(&tls, 0, sizeof(tls));
			dlt_note(&fork_w, &tls, DLT_NOTE_INFO, "grandchild");
			_exit(0);
		}
		dlt_writer_release(&h2, 0);
		int st = 0;
		waitpid(g, &st, 0);
		struct dlt_tls tls;
		memset(&tls, 0, sizeof(tls));
		dlt_note(&fork_w, &tls, DLT_NOTE_INFO, "child");
		_exit(WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1);
	}
	dlt_writer_release(&h, 0);
	int st = 0;
	waitpid(pid, &st, 0);
	TU_CHECK_FATAL(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "the child failed: %s", tu_status_str(st));
	struct tu_traceset s;
	tu_traceset_load(dir, &s);
	const struct tu_trace *child = NULL, *grand = NULL;
	for (size_t i = 0; i < s.n; i++) {
		if (s.t[i].hdr.pid == (uint32_t)pid)
			child = &s.t[i];
		else if (s.t[i].hdr.ppid == (uint32_t)pid)
			grand = &s.t[i];
	}
	TU_CHECK(s.n == 3 && child && grand &&
			 child->hdr.parent_trace_id == top_id &&
			 child->hdr.trace_id != 0 &&
			 grand->hdr.parent_trace_id == child->hdr.trace_id &&
			 grand->hdr.parent_kind == DLT_PARENT_FORK,
		 "%zu traces; the child's names %llx as its parent (want "
		 "%llx), the grandchild's %llx (want the child's %llx)",
		 s.n,
		 child ? (unsigned long long)child->hdr.parent_trace_id : 0ull,
		 (unsigned long long)top_id,
		 grand ? (unsigned long long)grand->hdr.parent_trace_id : 0ull,
		 child ? (unsigned long long)child->hdr.trace_id : 0ull);
	tu_traceset_free(&s);
	dlt_writer_forget(&fork_w);
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test reader_tests[] = {
	{"intact trace reads back exactly", test_intact},
	{"process trees of formats 2.1 and 1.3 read their runs and ends",
	 test_tree_seeds},
	{"truncated inside the data", test_truncate_data},
	{"truncated inside the header", test_truncate_header},
	{"corrupt record length", test_corrupt_length},
	{"corrupt chunk header", test_corrupt_chunk_header},
	{"newer minor version", test_newer_minor},
	{"newer major version", test_newer_major},
	{"wrong magic", test_bad_magic},
	{"other byte order", test_other_endian},
	{"random damage", test_random_damage},
	{"window boundaries change nothing", test_small_windows},
	{"file cut while it is read", test_shrinks_while_read},
	{"memory does not grow with the trace", test_memory_bounded},
	{"a forked child's trace starts at the fork", test_forked_child_start},
	{"a forked child's own child names the trace it makes later",
	 test_forked_grandchild_parent},
	{NULL, NULL}};

static const struct tu_test compact_tests[] = {
	{"a trace never cut is cut to its last record", test_compact_uncut},
	{"an empty last chunk goes whole", test_compact_empty_chunk},
	{"format 1.2: cut to the cursor, chunk tails given back",
	 test_compact_v1},
	{"a trace its writer maps is left alone", test_compact_live_lock},
	{"the launcher's record waits for a compaction",
	 test_attach_waits_for_compact},
	{NULL, NULL}};

static const struct tu_test cli_tests[] = {
	{"dltrace-analyze summary on damaged traces", test_analyze_damaged},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"reader", reader_tests, NULL},
	{"reader_compact", compact_tests, NULL},
	{"reader_cli", cli_tests, NULL},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	if (make_base_trace() != 0) {
		fprintf(stderr, "test_reader: cannot write the reference trace "
				"with the writer\n");
		return 1;
	}
	find_chunks();
	int rc = tu_main(argc, argv, suites);
	if (rc == 0)
		tu_rmtree(base_dir);
	free(base_data);
	free(base_path);
	free(base_dir);
	free(intact.m);
	return rc;
}
