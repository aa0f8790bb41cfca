/* Compacting traces whose process has ended (compact.h).
 *
 * What may be taken from a file without changing what any reader reads:
 * the bytes after the end of the data (a killed process leaves up to one
 * growth step there, and the chunks of its live threads half filled),
 * and, inside the file, pages that hold only zeros (reading a hole gives
 * zeros again).  A file a live process maps is never touched: the writer
 * holds a shared lock on it as long as it maps it (format.h), and this
 * takes an exclusive one first. */
#define _GNU_SOURCE
#include "compact.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dltrace/format.h"
#include "reader.h"
#include "io.h"
#include "procstat.h"
#include "tracelock.h"

#define DLT_PAGE 4096u

/* 0: the file is ours (exclusive lock), 1: a live process holds it, -1:
 * locks do not work here (errno says why). */
static int dlt_compact_lock(int fd)
{
	if (dlt_trace_lock_ofd(fd, 1) == 0) {
		/* A writer where open file description locks were missing
		 * took flock's. */
		if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
			return 1;
		return 0;
	}
	if (errno == EAGAIN || errno == EACCES)
		return 1;
	if (errno != EINVAL)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	return errno == EWOULDBLOCK ? 1 : -1;
}

struct dlt_host_find {
	struct dlt_trace *t;
	const char *host;
};

static int dlt_find_host(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_host_find *f = ctx;
	if (v->rec->type != DLT_REC_PROC)
		return 0;
	const struct dlt_rec_proc *p = (const void *)v->rec;
	f->host = dlt_trace_str(f->t, p->host);
	return 1;
}

/* Where the trace was written: its PROC record's host name, or, without
 * one, its file name's first part (*from_name set). */
static void dlt_trace_host(struct dlt_trace *t, char *host, size_t cap,
			   bool *from_name)
{
	struct dlt_host_find f = {t, NULL};
	dlt_trace_foreach(t, dlt_find_host, &f);
	*from_name = f.host == NULL;
	if (f.host) {
		snprintf(host, cap, "%s", f.host);
		return;
	}
	const char *path = dlt_reader_path(t);
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strcspn(b, ".");
	snprintf(host, cap, "%.*s", (int)n, b);
}

/* Whether host (dlt_trace_host) is this host. */
static int dlt_same_host(const char *host, bool from_name)
{
	char here[256] = "";
	if (gethostname(here, sizeof(here) - 1) != 0)
		return 0;
	/* The name's host part has '.' and other odd characters made '_':
	 * compare it the same way. */
	for (char *c = here; from_name && *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
			*c = '_';
	return strcmp(host, here) == 0;
}

/* Offset just past the committed records of the chunk in buf (len bytes,
 * its CHUNK record first), or 0 when damage ends them (then the chunk is
 * left whole). */
static uint64_t dlt_chunk_used(const uint8_t *buf, uint64_t len, int v2)
{
	uint64_t off = sizeof(struct dlt_rec_chunk);
	while (off + 8 <= len) {
		uint64_t word;
		memcpy(&word, buf + off, 8);
		if (word == 0)
			return off;
		if (v2 && (word & ((1u << DLT_ENTRY_TAG_BITS) - 1))) {
			off += 8;
			continue;
		}
		uint32_t rl = (uint32_t)word;
		if (rl < sizeof(struct dlt_rec_hdr) || rl % 8 || rl > len - off)
			return 0;
		off += rl;
	}
	return off <= len ? off : 0;
}

/* A range of pages to give back. */
struct dlt_holes {
	uint64_t (*r)[2];
	size_t n, cap;
};

static void dlt_hole_add(struct dlt_holes *h, uint64_t from, uint64_t to)
{
	if (from >= to)
		return;
	if (h->n && h->r[h->n - 1][1] == from) {
		h->r[h->n - 1][1] = to;
		return;
	}
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		void *nr = realloc(h->r, cap * sizeof(*h->r));
		if (nr == NULL)
			return;
		h->r = nr;
		h->cap = cap;
	}
	h->r[h->n][0] = from;
	h->r[h->n][1] = to;
	h->n++;
}

/* The pages of [start, end) that hold only zeros, from the end back to
 * the first page that holds anything: a chunk's unwritten tail. */
static void dlt_zero_tail(int fd, uint64_t start, uint64_t end,
			  struct dlt_holes *h)
{
	static uint8_t page[DLT_PAGE];
	uint64_t lo = (start + DLT_PAGE - 1) & ~(uint64_t)(DLT_PAGE - 1);
	uint64_t hi = end & ~(uint64_t)(DLT_PAGE - 1);
	uint64_t p = hi;
	while (p > lo) {
		if (dlt_io_pread_all(fd, page, DLT_PAGE, p - DLT_PAGE) != 0)
			break;
		size_t i = 0;
		while (i < DLT_PAGE && page[i] == 0)
			i++;
		if (i < DLT_PAGE)
			break;
		p -= DLT_PAGE;
	}
	dlt_hole_add(h, p, hi);
}

static void dlt_disk(int fd, uint64_t *size, uint64_t *disk)
{
	struct stat st;
	if (fstat(fd, &st) == 0) {
		*size = (uint64_t)st.st_size;
		*disk = (uint64_t)st.st_blocks * 512u;
	}
}

/* Whether the process that wrote the trace open on fd has ended although
 * its lock is still held: the kernel closes an exiting process's files a
 * moment after it ends, after its parent may have reaped it (the launcher
 * compacts right after its child is reaped).  Only for a trace of this
 * host whose process is gone or a zombie; a pid reused by another process
 * counts as running, which only keeps the file as it is. */
static int dlt_writer_gone(int fd, bool here)
{
	struct dlt_file_header h;
	if (!here || dlt_io_pread_all(fd, &h, sizeof(h), 0) != 0 || h.pid == 0)
		return 0;
	if (kill((pid_t)h.pid, 0) != 0)
		return errno == ESRCH;
	char p[64];
	snprintf(p, sizeof(p), "/proc/%u/stat", h.pid);
	struct dlt_procstat st;
	if (dlt_procstat_read(p, &st) != 0 && st.state == 0)
		return 0;
	return st.state == 'Z' || st.state == 'X';
}

static int dlt_fail(struct dlt_compact_result *r, const char *what)
{
	snprintf(r->why, sizeof(r->why), "%s: %s", what, strerror(errno));
	r->verdict = DLT_COMPACT_ERROR;
	return r->verdict;
}

int dlt_compact_file(const char *path, unsigned flags,
		     struct dlt_compact_result *r)
{
	char err[sizeof(r->why)];
	struct dlt_trace *t = dlt_trace_open_rw(path, true, err, sizeof(err));
	if (t == NULL) {
		memset(r, 0, sizeof(*r));
		snprintf(r->why, sizeof(r->why), "%s", err);
		return r->verdict = DLT_COMPACT_BAD;
	}
	int v = dlt_compact_trace(t, flags, r);
	dlt_trace_close(t);
	return v;
}

int dlt_compact_trace(struct dlt_trace *t, unsigned flags,
		      struct dlt_compact_result *r)
{
	memset(r, 0, sizeof(*r));
	int fd = dlt_trace_fd(t);
	if (fd < 0)
		return dlt_fail(r, "cannot open again");
	bool from_name;
	dlt_trace_host(t, r->host, sizeof(r->host), &from_name);
	bool here = dlt_same_host(r->host, from_name);
	dlt_disk(fd, &r->size_before, &r->disk_before);
	r->size_after = r->size_before;
	r->disk_after = r->disk_before;
	int lk = dlt_compact_lock(fd);
	/* A process that has just ended: wait for the kernel to let go of
	 * its file (milliseconds; a second at most). */
	for (int i = 0; lk > 0 && i < 200 && dlt_writer_gone(fd, here); i++) {
		struct timespec ms5 = {0, 5000000};
		nanosleep(&ms5, NULL);
		lk = dlt_compact_lock(fd);
	}
	if (lk != 0) {
		if (lk < 0)
			snprintf(r->why, sizeof(r->why),
				 "no lock can be taken here (%s)",
				 strerror(errno));
		r->verdict = lk > 0 ? DLT_COMPACT_LIVE : DLT_COMPACT_NO_LOCK;
		return r->verdict;
	}
	struct dlt_file_header h;
	if (r->size_before < DLT_DATA_OFFSET ||
	    dlt_io_pread_all(fd, &h, sizeof(h), 0) != 0 ||
	    memcmp(h.magic, DLT_MAGIC, 8) != 0 || h.endian != DLT_ENDIAN_MARK ||
	    h.version_major < 1 || h.version_major > DLT_FORMAT_MAJOR ||
	    h.data_offset != DLT_DATA_OFFSET ||
	    (h.version_major == 1 &&
	     (h.chunk_size < DLT_PAGE || h.chunk_size % DLT_PAGE != 0))) {
		snprintf(r->why, sizeof(r->why),
			 "not a dltrace trace this version knows");
		return r->verdict = DLT_COMPACT_BAD;
	}
	if (h.features & DLT_FEAT_NO_LOCK) {
		/* Nothing tells whether its process still writes. */
		return r->verdict = DLT_COMPACT_NO_LOCK;
	}
	if (!here && !(flags & DLT_COMPACT_ALL_HOSTS))
		return r->verdict = DLT_COMPACT_OTHER_HOST;
	int v2 = h.version_major >= 2;
	uint64_t end = h.alloc_cursor < r->size_before ? h.alloc_cursor
						       : r->size_before;
	uint64_t new_end = end;
	/* Where each chunk starts, and its length within the file. */
	uint64_t(*ch_at)[2] = NULL;
	size_t nch = 0, capch = 0;
	struct dlt_holes holes = {NULL, 0, 0};
	uint8_t *buf = malloc(DLT_CHUNK_MAX);
	if (buf == NULL) {
		return dlt_fail(r, "out of memory");
	}
	for (uint64_t c = h.data_offset;
	     c + sizeof(struct dlt_rec_chunk) <= end;) {
		struct dlt_rec_chunk ch;
		if (dlt_io_pread_all(fd, &ch, sizeof(ch), c) != 0)
			break;
		uint64_t len = v2 ? ch.h.len : h.chunk_size;
		if (v2 && (ch.h.type != DLT_REC_CHUNK || len < DLT_CHUNK_MIN ||
			   len % 8 || len > DLT_CHUNK_MAX))
			break; /* damaged: what follows is left as it is */
		uint64_t cend = c + len < end ? c + len : end;
		dlt_zero_tail(fd, c + sizeof(ch), cend, &holes);
		if (nch == capch) {
			capch = capch ? 2 * capch : 256;
			void *nv = realloc(ch_at, capch * sizeof(*ch_at));
			if (nv == NULL)
				break;
			ch_at = nv;
		}
		ch_at[nch][0] = c;
		ch_at[nch][1] = cend - c;
		nch++;
		c += len;
	}
	/* Since 2.0 the file can end at its last record (not a file already
	 * cut below its cursor: that is left as it is).  Chunks at the end
	 * with no record go whole (their writers were killed right after
	 * taking them), and the last chunk with records is shortened to them,
	 * whichever it is. */
	int shorten = 0;
	uint64_t keep = 0, keep_used = 0;
	for (size_t i = nch;
	     v2 && h.alloc_cursor <= r->size_before && i-- > 0;) {
		uint64_t c = ch_at[i][0], clen = ch_at[i][1];
		if (dlt_io_pread_all(fd, buf, clen, c) != 0)
			break;
		uint64_t used = dlt_chunk_used(buf, clen, v2);
		if (used == 0)
			break; /* damaged: left as it is */
		if (used == sizeof(struct dlt_rec_chunk)) {
			new_end = c;
			shorten = 1;
			continue;
		}
		if (c + used < new_end) {
			new_end = c + used;
			keep = c;
			keep_used = used;
			shorten = 1;
		}
		break;
	}
	free(ch_at);
	free(buf);
	int rc = 0;
	/* A file system (or kernel) without holes keeps the zeros: they read
	 * the same. */
	for (size_t i = 0; i < holes.n; i++) {
		uint64_t a = holes.r[i][0];
		uint64_t b = holes.r[i][1] < new_end ? holes.r[i][1] : new_end;
		b &= ~(uint64_t)(DLT_PAGE - 1);
		if (a < b &&
		    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)a, (off_t)(b - a)) != 0)
			break;
	}
	free(holes.r);
	if (rc == 0 && shorten) {
		/* The cursor first, then the chunk: interrupted in between,
		 * the last chunk claims more than there is, which readers
		 * read up to the cursor. */
		uint64_t cur = new_end;
		uint32_t len = (uint32_t)keep_used;
		if (pwrite(fd, &cur, 8,
			   offsetof(struct dlt_file_header, alloc_cursor)) !=
			    8 ||
		    (keep_used && pwrite(fd, &len, 4, (off_t)keep) != 4))
			rc = -1;
	}
	if (rc == 0 && r->size_before > new_end &&
	    ftruncate(fd, (off_t)new_end) != 0)
		rc = -1;
	if (rc != 0) {
		dlt_fail(r, "cannot compact");
		return r->verdict;
	}
	dlt_disk(fd, &r->size_after, &r->disk_after);
	return r->verdict = DLT_COMPACT_DONE;
}
