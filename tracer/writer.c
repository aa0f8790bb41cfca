#define _GNU_SOURCE
#include "writer.h"
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int dlt_writer_kind_self = DLT_WRITER_SHIM;
void (*dlt_on_new_thread)(void);
void (*dlt_on_seg_ahead)(struct dlt_writer *w, uint32_t seg);

static uint64_t dlt_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin with yield: the lock is only taken to grow the file or intern a
 * string, never on the hot path, and it must work across the two library
 * copies, which share no pthread state. */
static void dlt_spin_lock(_Atomic int *l)
{
	while (atomic_exchange_explicit(l, 1, memory_order_acquire))
		sched_yield();
}

static void dlt_spin_unlock(_Atomic int *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

pid_t dlt_self_pid(struct dlt_writer *w)
{
	/* Per copy of the library and per process image, like the writer's
	 * users; a race between threads stores the same values. */
	static _Atomic uint32_t gen;
	static _Atomic pid_t pid;
	uint32_t g = atomic_load_explicit(&w->gen, memory_order_relaxed);
	pid_t p = atomic_load_explicit(&pid, memory_order_relaxed);
	if (p == 0 || g != atomic_load_explicit(&gen, memory_order_relaxed)) {
		p = getpid();
		atomic_store_explicit(&pid, p, memory_order_relaxed);
		atomic_store_explicit(&gen, g, memory_order_relaxed);
	}
	return p;
}

void dlt_writer_disable(struct dlt_writer *w, const char *why, const char *what,
			int err)
{
	atomic_store(&w->enabled, 0);
	if (atomic_exchange(&w->said, 1))
		return;
	/* One write(2) of one line: stdio may be in any state inside the
	 * host, and a single write keeps lines of many ranks apart. */
	char line[DLT_PATH_MAX + 256];
	const char *desc = err ? strerrordesc_np(err) : NULL;
	int n = snprintf(line, sizeof(line),
			 "dltrace: tracing turned off: %s%s%s%s%s%s\n", why,
			 what ? " " : "", what ? what : "", desc ? " (" : "",
			 desc ? desc : "", desc ? ")" : "");
	if (n > 0 &&
	    write(2, line,
		  (size_t)n < sizeof(line) ? (size_t)n : sizeof(line)) < 0)
		return;
	/* Tracing is off; the program carries on as if dltrace were absent. */
}

static uint64_t dlt_random64(void)
{
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		close(fd);
	}
	if (v == 0)
		v = dlt_realtime_ns() ^ ((uint64_t)getpid() << 32);
	return v | 1;
}

/* Makes sure the file open on fd holds [off, off+len) on disk and maps
 * it, its pages made writable at once when populate is set. */
static uint8_t *dlt_map_fd(int fd, uint64_t off, uint64_t len, int *err,
			   int populate)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    off + len > rl.rlim_cur) {
		/* Growing past the limit would raise SIGXFSZ in the host. */
		*err = EFBIG;
		return NULL;
	}
	/* Real blocks, not a sparse hole: a store into a hole on a full disk
	 * would kill the host with SIGBUS. */
	int r = posix_fallocate(fd, (off_t)off, (off_t)len);
	if (r != 0) {
		*err = r;
		return NULL;
	}
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)off);
	if (p == MAP_FAILED) {
		*err = errno;
		return NULL;
	}
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
	/* Fault the whole range in writable with one call: a page fault per
	 * 4 KiB taken on the hot path costs microseconds on some virtual
	 * machines.  Best effort: older kernels refuse and nothing changes. */
	if (populate)
		madvise(p, len, MADV_POPULATE_WRITE);
	return p;
}

/* The same, the file opened by path: the host may close any descriptor we
 * keep, and a descriptor number it reuses must never be written through. */
static uint8_t *dlt_map_range(struct dlt_writer *w, uint64_t off, uint64_t len,
			      int *err, int populate)
{
	int fd = open(w->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	struct stat st;
	uint8_t *p = NULL;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != w->ino ||
	    (uint64_t)st.st_dev != w->dev)
		*err = ESTALE;
	else
		p = dlt_map_fd(fd, off, len, err, populate);
	close(fd);
	return p;
}

static int dlt_sanitize_host(char *dst, size_t cap, const char *src)
{
	size_t n = 0;
	for (; src && *src && n + 1 < cap; src++) {
		char c = *src;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '-' || c == '_';
		dst[n++] = ok ? c : '_';
	}
	if (n == 0) {
		strcpy(dst, "host");
		return 4;
	}
	dst[n] = '\0';
	return (int)n;
}

/* w->path for one attempt: DIR/HOST.PID.SEQ[.rRANK][-ATTEMPT].dltrace. */
static int dlt_trace_path(struct dlt_writer *w, const struct dlt_open_params *p,
			  const char *host, const char *rank, int attempt)
{
	char suffix[16] = "";
	if (attempt > 0)
		snprintf(suffix, sizeof(suffix), "-%d", attempt);
	int n = snprintf(w->path, sizeof(w->path), "%s/%s.%d.%u%s%s.dltrace",
			 p->dir, host, (int)w->pid, p->exec_seq, rank, suffix);
	return n > 0 && (size_t)n < sizeof(w->path) ? 0 : -1;
}

static void dlt_fill_header(struct dlt_writer *w, uint8_t *base,
			    const struct dlt_open_params *p)
{
	struct dlt_file_header *h = (struct dlt_file_header *)base;
	memcpy(h->magic, DLT_MAGIC, 8);
	h->endian = DLT_ENDIAN_MARK;
	h->version_major = DLT_FORMAT_MAJOR;
	h->version_minor = DLT_FORMAT_MINOR;
	h->header_size = sizeof(*h);
	h->chunk_size = DLT_CHUNK_SIZE;
	h->features = p->features;
	h->data_offset = DLT_DATA_OFFSET;
	h->trace_id = dlt_random64();
	h->parent_trace_id = p->parent_trace_id;
	h->pid = (uint32_t)w->pid;
	h->ppid = (uint32_t)getppid();
	h->parent_kind = p->parent_kind;
	h->exec_seq = p->exec_seq;
	h->start_realtime_ns = dlt_realtime_ns();
	h->start_monotonic_ns = dlt_now_ns();
	atomic_store((_Atomic uint64_t *)&h->alloc_cursor, DLT_DATA_OFFSET);
}

/* The trace file gets its name only once its header is complete: it is
 * made unnamed in the directory (O_TMPFILE), then linked.  A process
 * killed while it starts leaves no file, rather than one of zeros that no
 * reader could tell from a damaged trace.  Returns the mapped header, or
 * NULL with *err set, or NULL with *err 0 where this cannot be done (a file
 * system without O_TMPFILE, no /proc): the caller then names the file
 * first. */
static uint8_t *dlt_create_unnamed(struct dlt_writer *w,
				   const struct dlt_open_params *p,
				   const char *host, const char *rank, int *err)
{
	int fd = open(p->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		*err = (e == EOPNOTSUPP || e == EISDIR || e == EINVAL) ? 0 : e;
		if (*err)
			dlt_writer_disable(w, "cannot create a trace file in",
					   p->dir, e);
		return NULL;
	}
	struct stat st;
	uint8_t *base = NULL;
	if (fstat(fd, &st) == 0)
		base = dlt_map_fd(fd, 0, DLT_DATA_OFFSET, err, 0);
	else
		*err = errno;
	if (base == NULL) {
		close(fd);
		dlt_writer_disable(w, "cannot write a trace file in", p->dir,
				   *err);
		return NULL;
	}
	w->dev = (uint64_t)st.st_dev;
	w->ino = (uint64_t)st.st_ino;
	dlt_fill_header(w, base, p);
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	int r = -1;
	for (int attempt = 0; attempt < 100; attempt++) {
		if (dlt_trace_path(w, p, host, rank, attempt) != 0)
			break;
		/* Never replaces a file: EEXIST tries the next name. */
		r = linkat(AT_FDCWD, self, AT_FDCWD, w->path,
			   AT_SYMLINK_FOLLOW);
		if (r == 0 || errno != EEXIST)
			break;
	}
	close(fd);
	if (r != 0) {
		munmap(base, DLT_DATA_OFFSET);
		*err = 0;
		return NULL;
	}
	return base;
}

/* The file named first, then filled. */
static uint8_t *dlt_create_named(struct dlt_writer *w,
				 const struct dlt_open_params *p,
				 const char *host, const char *rank, int *err)
{
	int fd = -1;
	for (int attempt = 0; attempt < 100; attempt++) {
		if (dlt_trace_path(w, p, host, rank, attempt) != 0) {
			dlt_writer_disable(w, "trace path too long:", p->dir,
					   0);
			*err = ENAMETOOLONG;
			return NULL;
		}
		/* O_EXCL|O_NOFOLLOW: never follow a planted symlink, never
		 * overwrite a trace; 0644 is narrowed by the umask. */
		fd = open(w->path,
			  O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*err = errno;
		dlt_writer_disable(w, "cannot create a trace file in", p->dir,
				   *err);
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*err = errno;
		close(fd);
		dlt_writer_disable(w, "cannot stat", w->path, *err);
		return NULL;
	}
	w->dev = (uint64_t)st.st_dev;
	w->ino = (uint64_t)st.st_ino;
	close(fd);
	uint8_t *base = dlt_map_range(w, 0, DLT_DATA_OFFSET, err, 0);
	if (base == NULL) {
		unlink(w->path);
		dlt_writer_disable(w, "cannot write", w->path, *err);
		return NULL;
	}
	dlt_fill_header(w, base, p);
	return base;
}

int dlt_writer_create(struct dlt_writer *w, const struct dlt_open_params *p)
{
	/* gen survives: a thread whose chunk belonged to the previous file
	 * (a forked child's parent file) must see that it changed. */
	uint32_t gen = atomic_load(&w->gen);
	memset(w, 0, offsetof(struct dlt_writer, strtab));
	atomic_store(&w->gen, gen + 1);
	w->magic = DLT_WRITER_MAGIC;
	w->layout = DLT_WRITER_LAYOUT;
	w->next_str_id = 1;
	w->pid = getpid();
	memset(w->strtab, 0, sizeof(w->strtab));

	const char *ms = getenv("DLTRACE_MAX_SIZE");
	w->max_size = (uint64_t)2 << 30;
	if (ms && *ms) {
		char *end;
		unsigned long long v = strtoull(ms, &end, 10);
		if (*end == 'M' || *end == 'm')
			v <<= 20;
		else if (*end == 'G' || *end == 'g')
			v <<= 30;
		if (v >= DLT_DATA_OFFSET + DLT_SEG_SIZE)
			w->max_size = v;
	}
	uint64_t cap = DLT_DATA_OFFSET + (uint64_t)DLT_MAX_SEGS * DLT_SEG_SIZE;
	if (w->max_size > cap)
		w->max_size = cap;

	char host[128];
	dlt_sanitize_host(host, sizeof(host), p->host);
	char rank[32] = "";
	if (p->rank >= 0)
		snprintf(rank, sizeof(rank), ".r%d", p->rank);

	int err = 0;
	uint8_t *base = dlt_create_unnamed(w, p, host, rank, &err);
	if (base == NULL && err == 0)
		base = dlt_create_named(w, p, host, rank, &err);
	if (base == NULL)
		return -err;
	struct dlt_file_header *h = (struct dlt_file_header *)base;
	w->hdr = h;
	atomic_store(&w->enabled, 1);
	atomic_fetch_add(&w->gen, 1);
	return 0;
}

int dlt_writer_attach(struct dlt_writer *w, const char *path)
{
	uint32_t gen = atomic_load(&w->gen);
	memset(w, 0, offsetof(struct dlt_writer, strtab));
	atomic_store(&w->gen, gen + 1);
	memset(w->strtab, 0, sizeof(w->strtab));
	w->magic = DLT_WRITER_MAGIC;
	w->layout = DLT_WRITER_LAYOUT;
	w->pid = getpid();
	w->max_size = DLT_DATA_OFFSET + (uint64_t)DLT_MAX_SEGS * DLT_SEG_SIZE;
	/* The owner's string ids are unknown here: an attached writer writes
	 * no strings (dlt_strn returns DLT_STR_NONE). */
	w->next_str_id = 0;
	if (strlen(path) >= sizeof(w->path))
		return -ENAMETOOLONG;
	strcpy(w->path, path);
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = fstat(fd, &st);
	close(fd);
	if (r != 0)
		return -errno;
	if ((uint64_t)st.st_size < DLT_DATA_OFFSET)
		return -EINVAL;
	w->dev = (uint64_t)st.st_dev;
	w->ino = (uint64_t)st.st_ino;
	int err = 0;
	uint8_t *base = dlt_map_range(w, 0, DLT_DATA_OFFSET, &err, 0);
	if (base == NULL)
		return -err;
	struct dlt_file_header *h = (struct dlt_file_header *)base;
	if (memcmp(h->magic, DLT_MAGIC, 8) != 0 ||
	    h->endian != DLT_ENDIAN_MARK ||
	    h->version_major != DLT_FORMAT_MAJOR ||
	    h->chunk_size != DLT_CHUNK_SIZE ||
	    h->data_offset != DLT_DATA_OFFSET) {
		munmap(base, DLT_DATA_OFFSET);
		return -EINVAL;
	}
	w->hdr = h;
	atomic_store(&w->enabled, 1);
	atomic_fetch_add(&w->gen, 1);
	return 0;
}

void dlt_writer_forget(struct dlt_writer *w)
{
	atomic_store(&w->enabled, 0);
	for (uint32_t i = 0; i < DLT_MAX_SEGS; i++) {
		uint8_t *s = atomic_exchange(&w->segs[i], NULL);
		if (s)
			munmap(s, DLT_SEG_SIZE);
	}
	for (uint32_t i = 0; i < DLT_DONE_SEGS; i++) {
		uint8_t *s = atomic_exchange(&w->done_segs[i], NULL);
		if (s)
			munmap(s, DLT_SEG_SIZE);
	}
	if (w->hdr)
		munmap(w->hdr, DLT_DATA_OFFSET);
	w->hdr = NULL;
	atomic_fetch_add(&w->gen, 1);
}

static uint32_t dlt_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* The mapping of segment seg, growing the file first if needed.  NULL
 * with *err set when it cannot be made. */
static uint8_t *dlt_seg_map(struct dlt_writer *w, uint32_t seg, int *err,
			    int populate)
{
	uint8_t *sbase =
		atomic_load_explicit(&w->segs[seg], memory_order_acquire);
	if (sbase != NULL)
		return sbase;
	dlt_spin_lock(&w->lock);
	sbase = atomic_load_explicit(&w->segs[seg], memory_order_acquire);
	if (sbase == NULL) {
		sbase = dlt_map_range(
			w, DLT_DATA_OFFSET + (uint64_t)seg * DLT_SEG_SIZE,
			DLT_SEG_SIZE, err, populate);
		if (sbase != NULL)
			atomic_store_explicit(&w->segs[seg], sbase,
					      memory_order_release);
	}
	dlt_spin_unlock(&w->lock);
	return sbase;
}

/* The same for a recording thread: NULL when tracing had to stop. */
static uint8_t *dlt_seg_get(struct dlt_writer *w, uint32_t seg)
{
	int err = 0;
	uint8_t *sbase = dlt_seg_map(w, seg, &err, 1);
	if (sbase == NULL)
		dlt_writer_disable(w, "cannot grow", w->path, err);
	return sbase;
}

/* Every chunk of the segment at p is done.  Its pages leave the process at
 * once, so resident memory stays bounded however long the process records;
 * its address range goes DLT_DONE_SEGS segments later.  Not at once: a
 * signal handler that records can retire the chunk its own thread was
 * writing a record into when the signal came, and that record is finished
 * after the handler returns.  A page dropped here comes back from the file
 * if it is written again; an unmapped one would be a SIGSEGV. */
static void dlt_seg_done(struct dlt_writer *w, uint8_t *p)
{
	madvise(p, DLT_SEG_SIZE, MADV_DONTNEED);
	uint32_t i = atomic_fetch_add(&w->done_next, 1) % DLT_DONE_SEGS;
	uint8_t *old = atomic_exchange(&w->done_segs[i], p);
	if (old)
		munmap(old, DLT_SEG_SIZE);
}

/* Segment seg's mapping, if every chunk of it was given back: let go.
 * Whoever maps a segment that may already be finished calls this after
 * publishing the mapping; the exchange makes sure only one caller (this
 * one or the thread that retired the last chunk) lets it go. */
static void dlt_seg_let_go_if_done(struct dlt_writer *w, uint32_t seg)
{
	if (atomic_load(&w->seg_retired[seg]) != DLT_SEG_SIZE / DLT_CHUNK_SIZE)
		return;
	uint8_t *p = atomic_exchange(&w->segs[seg], NULL);
	if (p)
		dlt_seg_done(w, p);
}

/* Maps the DLT_SEGS_AHEAD segments after seg, without their pages, for the
 * prefetch thread to fill.  Here, in the recording thread, because mapping
 * opens the trace file: a descriptor taken by another thread, even for a
 * moment, could change the number the program's own next open() returns. */
static void dlt_seg_ahead(struct dlt_writer *w, uint32_t seg)
{
	for (uint32_t a = seg + 1;
	     a <= seg + DLT_SEGS_AHEAD && a < DLT_MAX_SEGS; a++) {
		if (atomic_load_explicit(&w->segs[a], memory_order_relaxed) ||
		    DLT_DATA_OFFSET + ((uint64_t)a + 1) * DLT_SEG_SIZE >
			    w->max_size)
			continue;
		int err = 0;
		/* A failure is left for the thread that will need it. */
		if (dlt_seg_map(w, a, &err, 0) == NULL)
			break;
		/* Other threads may have taken every chunk of segment a and
		 * given them all back since this thread took its chunk: then
		 * nobody will let go of the mapping just made (1000 short
		 * threads left one or two such mappings behind). */
		dlt_seg_let_go_if_done(w, a);
	}
	dlt_on_seg_ahead(w, seg);
}

int dlt_writer_prefetch(struct dlt_writer *w, uint32_t seg)
{
	if (seg >= DLT_MAX_SEGS ||
	    !atomic_load_explicit(&w->enabled, memory_order_acquire) ||
	    w->pid != dlt_self_pid(w) || atomic_load(&w->seg_retired[seg]) != 0)
		return -1;
	uint8_t *p = atomic_load_explicit(&w->segs[seg], memory_order_acquire);
	if (p == NULL)
		return -1;
	/* A segment let go meanwhile keeps its address range for
	 * DLT_DONE_SEGS more segments (dlt_seg_done): this cannot touch
	 * memory that is not the trace's. */
	return madvise(p, DLT_SEG_SIZE, MADV_POPULATE_WRITE) == 0 ? 0 : -1;
}

/* A thread is done with its chunk (it needs a new one, or it exits).  When
 * every chunk of a segment is done, nobody can reserve there again (chunks
 * are handed out in file order): the segment is let go (dlt_seg_done). */
static void dlt_chunk_retire(struct dlt_writer *w, struct dlt_tls *t)
{
	if (t->cur == NULL || t->gen != atomic_load(&w->gen))
		return;
	uint32_t seg = t->seg;
	t->cur = t->end = NULL;
	t->nchunk++;
	atomic_fetch_add(&w->seg_retired[seg], 1);
	dlt_seg_let_go_if_done(w, seg);
}

/* Holds back asynchronous signals (never faults) while the calling thread
 * changes its chunk: a handler that records must not see the chunk half
 * handed over, nor lose its record to the in_slow guard.  Two system calls
 * per chunk. */
static void dlt_signals_hold(sigset_t *saved)
{
	sigset_t block;
	sigfillset(&block);
	static const int faults[] = {SIGSEGV, SIGBUS,  SIGILL,
				     SIGFPE,  SIGTRAP, SIGSYS};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&block, faults[i]);
	pthread_sigmask(SIG_BLOCK, &block, saved);
}

void dlt_tls_release(struct dlt_writer *w, struct dlt_tls *t)
{
	if (w == NULL || t->in_slow)
		return;
	/* A signal may still come while the thread ends (pthread_kill from
	 * another thread): its handler's record waits until the chunk is
	 * given back and goes into a new one (a handler's mark was lost
	 * here, 1 run in 15 of the signals fault test). */
	sigset_t saved;
	dlt_signals_hold(&saved);
	t->in_slow = 1;
	dlt_chunk_retire(w, t);
	t->in_slow = 0;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void *dlt_rec_reserve_slow(struct dlt_writer *w, struct dlt_tls *t,
			   uint32_t len)
{
	if (!atomic_load_explicit(&w->enabled, memory_order_relaxed) ||
	    t->in_slow)
		return NULL;
	if (len > DLT_CHUNK_SIZE - sizeof(struct dlt_rec_chunk))
		return NULL;
	sigset_t saved_mask;
	dlt_signals_hold(&saved_mask);
	t->in_slow = 1;
	void *rec = NULL;
	uint32_t gen = atomic_load(&w->gen);
	dlt_chunk_retire(w, t);
	if (t->gen != gen) {
		/* First record of this thread in this file, or after fork. */
		t->cur = t->end = NULL;
		t->gen = gen;
		t->tid = dlt_gettid();
		if (dlt_on_new_thread)
			dlt_on_new_thread();
	}
	/* The cursor only moves past space the file already has: a trace
	 * whose writer is killed never claims chunks beyond its end. */
	_Atomic uint64_t *cursor = (_Atomic uint64_t *)&w->hdr->alloc_cursor;
	uint64_t off = atomic_load(cursor), rel;
	uint32_t seg;
	uint8_t *sbase;
	for (;;) {
		if (off + DLT_CHUNK_SIZE > w->max_size) {
			dlt_writer_disable(w,
					   "trace size limit reached "
					   "(DLTRACE_MAX_SIZE) in",
					   w->path, 0);
			goto out;
		}
		rel = off - DLT_DATA_OFFSET;
		seg = (uint32_t)(rel / DLT_SEG_SIZE);
		sbase = dlt_seg_get(w, seg);
		if (sbase == NULL)
			goto out;
		if (atomic_compare_exchange_weak(cursor, &off,
						 off + DLT_CHUNK_SIZE))
			break;
		/* Lost the race.  If the segment we looked at filled up and
		 * was retired meanwhile, our mapping of it is not needed. */
		dlt_seg_let_go_if_done(w, seg);
	}
	uint8_t *chunk = sbase + (rel % DLT_SEG_SIZE);
	struct dlt_rec_chunk *c = (struct dlt_rec_chunk *)chunk;
	c->h.ts = dlt_now_ns();
	c->tid = t->tid;
	c->seq = atomic_fetch_add(&w->chunk_seq, 1);
	dlt_rec_commit(c, DLT_REC_CHUNK, (uint16_t)dlt_writer_kind_self,
		       DLT_CHUNK_SIZE);
	t->cur = chunk + sizeof(*c);
	t->end = chunk + DLT_CHUNK_SIZE;
	t->seg = seg;
	t->nchunk++;
	if (dlt_on_seg_ahead && seg + DLT_SEGS_AHEAD < DLT_MAX_SEGS &&
	    atomic_load_explicit(&w->segs[seg + DLT_SEGS_AHEAD],
				 memory_order_relaxed) == NULL)
		dlt_seg_ahead(w, seg);
	rec = t->cur;
	t->cur += len;
out:
	t->in_slow = 0;
	pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
	return rec;
}

/* A copy of s[0..n) that stays readable for the life of the process, or
 * NULL when the arena is full (the string is then written again each time
 * it comes, as when the table is full). */
static const char *dlt_str_keep(struct dlt_writer *w, const char *s, size_t n)
{
	if (w->str_arena == NULL) {
		void *p = mmap(NULL, DLT_STR_ARENA, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);
		if (p == MAP_FAILED)
			return NULL;
		w->str_arena = p;
	}
	if (n > DLT_STR_ARENA - w->str_arena_used)
		return NULL;
	char *c = w->str_arena + w->str_arena_used;
	memcpy(c, s, n);
	w->str_arena_used += (uint32_t)n;
	return c;
}

uint32_t dlt_strn(struct dlt_writer *w, struct dlt_tls *t, const char *s,
		  size_t n)
{
	if (s == NULL || t->in_str || w->next_str_id == 0 ||
	    !atomic_load_explicit(&w->enabled, memory_order_relaxed))
		return DLT_STR_NONE;
	if (n > DLT_MAX_STR)
		n = DLT_MAX_STR;
	uint64_t h = dlt_fnv1a(s, n);
	t->in_str = 1;
	dlt_spin_lock(&w->str_lock);
	uint32_t id = DLT_STR_NONE;
	uint32_t mask = DLT_STRTAB_SLOTS - 1;
	uint32_t i = (uint32_t)h & mask;
	struct dlt_str_slot *free_slot = NULL;
	for (uint32_t probe = 0; probe < DLT_STRTAB_SLOTS; probe++) {
		struct dlt_str_slot *sl = &w->strtab[(i + probe) & mask];
		if (sl->id == 0) {
			free_slot = sl;
			break;
		}
		if (sl->hash == h && sl->len == n &&
		    memcmp(sl->data, s, n) == 0) {
			id = sl->id;
			goto done;
		}
	}
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_string) + n + 1);
	struct dlt_rec_string *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		goto done;
	id = w->next_str_id++;
	r->h.ts = 0;
	r->id = id;
	r->len = (uint32_t)n;
	memcpy(r->data, s, n);
	memset(r->data + n, 0, dlt_rec_round(len) - len + 1);
	dlt_rec_commit(r, DLT_REC_STRING, 0, len);
	/* Keep the table at most 3/4 full and its copies within the arena;
	 * later strings are written again each time rather than
	 * deduplicated. */
	const char *kept = free_slot && w->str_count < DLT_STRTAB_SLOTS / 4 * 3
				   ? dlt_str_keep(w, s, n)
				   : NULL;
	if (kept) {
		free_slot->hash = h;
		free_slot->data = kept;
		free_slot->len = (uint32_t)n;
		free_slot->id = id;
		w->str_count++;
	}
done:
	dlt_spin_unlock(&w->str_lock);
	t->in_str = 0;
	return id;
}

uint32_t dlt_str(struct dlt_writer *w, struct dlt_tls *t, const char *s)
{
	return s ? dlt_strn(w, t, s, strlen(s)) : DLT_STR_NONE;
}

void dlt_note(struct dlt_writer *w, struct dlt_tls *t, int level,
	      const char *text)
{
	uint32_t id = dlt_str(w, t, text);
	struct dlt_rec_note *r = dlt_rec_reserve(w, t, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->text = id;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_NOTE, (uint16_t)level, sizeof(*r));
}

/* Variables a bug report may show: the loader's, the GPU stack's and the
 * launchers'.  Exact names end without '*'; prefixes end with '*'. */
static const char *const dlt_env_allow[] = {"LD_LIBRARY_PATH",
					    "LD_PRELOAD",
					    "LD_AUDIT",
					    "LD_BIND_NOW",
					    "LD_BIND_NOT",
					    "CUDA_*",
					    "NVIDIA_*",
					    "CUDNN_*",
					    "NCCL_*",
					    "TORCH_*",
					    "PYTORCH_*",
					    "RANK",
					    "LOCAL_RANK",
					    "WORLD_SIZE",
					    "LOCAL_WORLD_SIZE",
					    "GROUP_RANK",
					    "ROLE_RANK",
					    "MASTER_ADDR",
					    "MASTER_PORT",
					    "OMP_NUM_THREADS",
					    "PYTHONPATH",
					    "PYTHONHOME",
					    "VIRTUAL_ENV",
					    "CONDA_PREFIX",
					    "CONDA_DEFAULT_ENV",
					    "XLA_FLAGS",
					    "TF_CPP_MIN_LOG_LEVEL",
					    "XLA_PYTHON_CLIENT_PREALLOCATE",
					    "JAX_PLATFORMS",
					    "SLURM_PROCID",
					    "SLURM_NTASKS",
					    "SLURM_LOCALID",
					    "SLURM_JOB_ID",
					    "SLURM_NODEID",
					    "OMPI_COMM_WORLD_RANK",
					    "OMPI_COMM_WORLD_SIZE",
					    "OMPI_COMM_WORLD_LOCAL_RANK",
					    "PMI_RANK",
					    "PMI_SIZE",
					    "DLTRACE_*",
					    "UCX_NET_DEVICES",
					    "FI_PROVIDER",
					    "PATH",
					    NULL};

/* Substrings that mark a value as secret even under an allowed prefix. */
static const char *const dlt_env_secret_words[] = {
	"TOKEN",      "SECRET", "PASSW",  "KEY",
	"CREDENTIAL", "AUTH",	"COOKIE", NULL};

int dlt_env_allowed(const char *name, size_t len)
{
	for (const char *const *a = dlt_env_allow; *a; a++) {
		size_t al = strlen(*a);
		if ((*a)[al - 1] == '*') {
			if (len >= al - 1 && memcmp(name, *a, al - 1) == 0)
				return 1;
		} else if (len == al && memcmp(name, *a, al) == 0) {
			return 1;
		}
	}
	return 0;
}

int dlt_env_secret(const char *name, size_t len)
{
	for (const char *const *s = dlt_env_secret_words; *s; s++) {
		size_t sl = strlen(*s);
		for (size_t i = 0; i + sl <= len; i++)
			if (memcmp(name + i, *s, sl) == 0)
				return 1;
	}
	return 0;
}

static int dlt_env_int(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v) {
			char *end;
			long r = strtol(v, &end, 10);
			if (*end == '\0' && r >= 0 && r < (1L << 30))
				return (int)r;
		}
	}
	return -1;
}

int dlt_env_rank(void)
{
	static const char *const n[] = {"RANK", "OMPI_COMM_WORLD_RANK",
					"PMI_RANK", "SLURM_PROCID", NULL};
	return dlt_env_int(n);
}

int dlt_env_world_size(void)
{
	static const char *const n[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE",
					"PMI_SIZE", "SLURM_NTASKS", NULL};
	return dlt_env_int(n);
}

/* Reads a small /proc file into buf; returns bytes read. */
static size_t dlt_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = 0;
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return n;
}

void dlt_write_process_info(struct dlt_writer *w, struct dlt_tls *t,
			    int redact_argv)
{
	static char buf[65536];
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	char exe[DLT_PATH_MAX];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[el > 0 ? el : 0] = '\0';
	char cwd[DLT_PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0';

	/* argv from /proc: the same in both library copies and unaffected by
	 * what the program has done to its own argv array so far. */
	size_t n = dlt_read_file("/proc/self/cmdline", buf, sizeof(buf) - 1);
	buf[n] = '\0';
	uint32_t argc = 0;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		argc++;

	struct dlt_rec_proc *p = dlt_rec_reserve(w, t, sizeof(*p));
	uint32_t hs = dlt_str(w, t, host), es = dlt_str(w, t, exe),
		 cs = dlt_str(w, t, cwd);
	if (p) {
		p->h.ts = dlt_now_ns();
		p->host = hs;
		p->exe = es;
		p->cwd = cs;
		p->rank = dlt_env_rank();
		p->world_size = dlt_env_world_size();
		p->argc = argc;
		dlt_rec_commit(p, DLT_REC_PROC, 0, sizeof(*p));
	}
	uint32_t idx = 0;
	for (size_t i = 0; i < n; idx++) {
		size_t l = strlen(buf + i);
		int cut = l > DLT_MAX_STR;
		/* Redaction keeps argv[0], so the program is still named. */
		uint32_t s = (redact_argv && idx > 0)
				     ? dlt_str(w, t, "<redacted>")
				     : dlt_strn(w, t, buf + i, l);
		struct dlt_rec_arg *a = dlt_rec_reserve(w, t, sizeof(*a));
		if (a) {
			a->h.ts = 0;
			a->index = idx;
			a->str = s;
			dlt_rec_commit(a, DLT_REC_ARG, (uint16_t)cut,
				       sizeof(*a));
		}
		i += l + 1;
	}

	n = dlt_read_file("/proc/self/environ", buf, sizeof(buf) - 1);
	buf[n] = '\0';
	for (size_t i = 0; i < n;) {
		const char *e = buf + i;
		size_t l = strlen(e);
		i += l + 1;
		const char *eq = memchr(e, '=', l);
		if (eq == NULL)
			continue;
		size_t nl = (size_t)(eq - e);
		if (!dlt_env_allowed(e, nl))
			continue;
		int secret = dlt_env_secret(e, nl);
		uint32_t ns = dlt_strn(w, t, e, nl);
		uint32_t vs = secret ? dlt_str(w, t, "<redacted>")
				     : dlt_strn(w, t, eq + 1, l - nl - 1);
		struct dlt_rec_env *r = dlt_rec_reserve(w, t, sizeof(*r));
		if (r) {
			r->h.ts = 0;
			r->name = ns;
			r->value = vs;
			dlt_rec_commit(r, DLT_REC_ENV, (uint16_t)secret,
				       sizeof(*r));
		}
	}
}
