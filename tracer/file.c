#define _GNU_SOURCE
#include "writer_int.h"
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
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
	/* The untranslated text, whatever the host's locale: strerror_l with
	 * the C locale (glibc hands back its static C locale object without
	 * allocating).  strerrordesc_np says the same, but from glibc 2.32. */
	const char *desc =
		err ? strerror_l(err, newlocale(LC_ALL_MASK, "C", (locale_t)0))
		    : NULL;
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
	/* Fault the whole range in writable with one call: a page fault per
	 * 4 KiB taken on the hot path costs microseconds on some virtual
	 * machines.  Best effort: older kernels refuse and nothing changes. */
	if (populate)
		madvise(p, len, MADV_POPULATE_WRITE);
	return p;
}

/* The same, the file opened by path: the host may close any descriptor we
 * keep, and a descriptor number it reuses must never be written through. */
uint8_t *dlt_map_range(struct dlt_writer *w, uint64_t off, uint64_t len,
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

/* The size limit: the one asked for (0: the default), within what the
 * writer can address. */
static void dlt_writer_limit(struct dlt_writer *w, uint64_t max_size)
{
	uint64_t cap = DLT_DATA_OFFSET + (uint64_t)DLT_MAX_SEGS * DLT_SEG_SIZE;
	w->max_size = max_size ? max_size : DLT_DEFAULT_MAX_SIZE;
	if (w->max_size < DLT_DATA_OFFSET + DLT_SEG_SIZE)
		w->max_size = DLT_DATA_OFFSET + DLT_SEG_SIZE;
	if (w->max_size > cap)
		w->max_size = cap;
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

	dlt_writer_limit(w, p->max_size);
	w->tail_reserve = DLT_CHUNK_SIZE;

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

int dlt_writer_attach(struct dlt_writer *w, const char *path, uint64_t max_size)
{
	uint32_t gen = atomic_load(&w->gen);
	memset(w, 0, offsetof(struct dlt_writer, strtab));
	atomic_store(&w->gen, gen + 1);
	memset(w->strtab, 0, sizeof(w->strtab));
	w->magic = DLT_WRITER_MAGIC;
	w->layout = DLT_WRITER_LAYOUT;
	w->pid = getpid();
	dlt_writer_limit(w, max_size);
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
			munmap(s, dlt_seg_len(w, i));
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
